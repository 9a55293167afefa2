/**
 * The admin API of `bot start --http` (issue 23 item 3), on a running fleet of one process:
 * off without a token (saying how to turn it on), refused without the token or with a wrong
 * one, and with the right one: list, add (a bot file that does not validate comes back as a
 * problem JSON with each problem's line and column), replace, pause, resume and remove, each
 * change logged with the token's name and never its value.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import type { Started } from "../../src/hosting/start.ts";
import { adminAccess } from "../../src/observe/admin-api.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { echoBotFile as botFile, startFleetServer, type FleetServer } from "../helpers/fleet-server.ts";
import { captureLogs } from "../helpers/log.ts";
import { T0 } from "../helpers/sandbox.ts";

const TOKEN = "a-long-and-random-admin-token-0123";
const { lines, logger } = captureLogs("info");
let fleet: FleetServer;
let started: Started;
let server: ObserveServer;
let off: ObserveServer;

beforeAll(async () => {
  fleet = await startFleetServer({
    files: { "alpha.yaml": botFile("alpha", "alpha") },
    token: TOKEN,
    tokenName: "ops-team",
    logger,
  });
  ({ started, server } = fleet);
  const clock = createClock({ frozen: true, start: T0 });
  off = await startObserveServer({ host: "127.0.0.1", port: 0, clock });
  off.attach(runtimeSource(started.runtime, clock));
  off.manage(started.fleet);
}, 30_000);

afterAll(async () => {
  await off?.close();
  await fleet?.close();
});

async function call(
  path: string,
  init: { method?: string; body?: string; token?: string | null; base?: ObserveServer } = {},
): Promise<{ status: number; type: string; body: any; headers: Headers }> {
  const token = init.token === undefined ? TOKEN : init.token;
  const res = await fetch(`${(init.base ?? server).url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/yaml" } : {}),
    },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? "",
    body: text ? JSON.parse(text) : undefined,
    headers: res.headers,
  };
}

describe("the admin API", () => {
  it("is off without a token, and says how to turn it on", async () => {
    const res = await call("/api/admin/bots", { base: off });
    expect(res.status).toBe(404);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, title: "The admin API is off" });
    expect(res.body.detail).toMatch(/set POSTBOT_ADMIN_TOKEN .* and send Authorization: Bearer <the token>/);
    expect(adminAccess({})).toBeUndefined();
    expect(() => adminAccess({ POSTBOT_ADMIN_TOKEN: "short" })).toThrow(
      /has 5 characters: give at least 16 random ones/,
    );
  });

  it("refuses a request without the token, and one with a wrong token", async () => {
    const none = await call("/api/admin/bots", { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="postbot admin"');
    const wrong = await call("/api/admin/bots/alpha/pause", { method: "POST", token: `${TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.title).toBe("Wrong token");
    expect(started.fleet.list().find((e) => e.name === "alpha")!.state).toBe("running");
    // A shorter token and an empty one are just as wrong.
    expect((await call("/api/admin/bots", { token: TOKEN.slice(0, 10) })).status).toBe(401);
  });

  it("with the right token: lists, adds, refuses a bad bot file with lines and columns, replaces, pauses, resumes, removes", async () => {
    const list = await call("/api/admin/bots");
    expect(list.status).toBe(200);
    expect(list.body.bots).toEqual([
      expect.objectContaining({ name: "alpha", source: { kind: "file", file: "bots/alpha.yaml" }, state: "running" }),
    ]);

    const bad = await call("/api/admin/bots", {
      method: "POST",
      body: "name: gamma\nplan: gold\ntriggers:\n  mentions: {}\nplugins:\n  nosuch: {}\n",
    });
    expect(bad.status).toBe(422);
    expect(bad.type).toMatch(/^application\/problem\+json/);
    expect(bad.body).toMatchObject({ status: 422, title: "The bot file does not validate" });
    expect(bad.body.errors).toEqual([
      expect.objectContaining({
        line: 2,
        column: 7,
        key: "plan",
        text: expect.stringMatching(/^request body:2:7 plan: "gold" is not a plan/),
      }),
    ]);

    const added = await call("/api/admin/bots", { method: "POST", body: botFile("gamma", "gamma v1") });
    expect(added.status).toBe(201);
    expect(added.headers.get("location")).toBe("/api/admin/bots/gamma");
    expect(added.body.bot).toMatchObject({ name: "gamma", source: { kind: "state", origin: "api" }, by: "ops-team" });
    expect(
      (await call("/api/admin/bots", { method: "POST", body: botFile("gamma", "again") })).body.errors[0].text,
    ).toMatch(/name: "gamma" is already the name of the bot in state:gamma\.yaml/);

    const replaced = await call("/api/admin/bots/gamma", { method: "PUT", body: botFile("gamma", "gamma v2") });
    expect(replaced.status).toBe(200);
    const renamed = await call("/api/admin/bots/gamma", { method: "PUT", body: botFile("delta", "gamma v3") });
    expect(renamed.status).toBe(422);
    expect(renamed.body.errors[0].detail).toMatch(/a bot keeps its name/);

    const paused = await call("/api/admin/bots/alpha/pause", { method: "POST", body: '{"reason": "maintenance"}' });
    expect(paused.status).toBe(200);
    expect(paused.body.bot).toMatchObject({ state: "paused", paused: { by: "ops-team" } });
    expect(paused.body.bot.paused.reason).toMatch(/^paused by ops-team: maintenance/);
    expect((await call("/api/admin/bots/alpha/resume", { method: "POST" })).body.bot.state).toBe("running");

    expect((await call("/api/admin/bots/alpha", { method: "DELETE" })).status).toBe(409);
    expect((await call("/api/admin/bots/nobody/pause", { method: "POST" })).status).toBe(404);
    expect((await call("/api/admin/bots/gamma", { method: "PATCH" })).headers.get("allow")).toBe("GET, PUT, DELETE");
    expect((await call("/api/admin/bots/gamma", { method: "DELETE" })).status).toBe(204);
    expect((await call("/api/admin/bots/gamma")).status).toBe(404);

    // Every change is logged with who made it, never with the token.
    const logged = lines.map((l) => String(l.msg));
    for (const line of [
      "bot gamma added (api) (by ops-team)",
      "bot gamma restarted with its new configuration (by ops-team)",
      "bot alpha paused (by ops-team)",
      "bot alpha resumed (by ops-team)",
      "bot gamma removed (by ops-team)",
    ])
      expect(logged).toContain(line);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});
