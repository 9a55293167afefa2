/** `bot start --http` as a user runs it: flag errors, and a real process serving the page, metrics and health. */
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isLoopback, parseHttpAddress } from "../../src/observe/index.ts";
import { killBots, lineReader, runBot, spawnBot } from "../helpers/cli.ts";
import { botBin } from "../helpers/built.ts";
import { parseExposition, value } from "./bed.ts";

const dirs: string[] = [];
const children: Array<ReturnType<typeof spawn>> = [];
afterEach(killBots);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), "postbot-http-"));
  dirs.push(d);
  return d;
};

const fixture = ["--bots", "test/fixtures/observe/bots", "--plugins", "test/fixtures/plugins"];

describe("--http values", () => {
  it("reads HOST:PORT, [IPv6]:PORT and a port alone (on loopback)", () => {
    expect(parseHttpAddress("127.0.0.1:9464")).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(parseHttpAddress("9000")).toEqual({ host: "127.0.0.1", port: 9000 });
    expect(parseHttpAddress(":0")).toEqual({ host: "127.0.0.1", port: 0 });
    expect(parseHttpAddress("[::1]:9464")).toEqual({ host: "::1", port: 9464 });
    expect(parseHttpAddress("localhost:80")).toEqual({ host: "localhost", port: 80 });
    expect(parseHttpAddress("0.0.0.0:9464")).toEqual({ host: "0.0.0.0", port: 9464 });
  });

  it("refuses what is not an address, saying what to write", () => {
    expect(() => parseHttpAddress("127.0.0.1:99999")).toThrow(
      '--http "127.0.0.1:99999": 99999 is not a port (0 to 65535); write HOST:PORT (127.0.0.1:9464)',
    );
    expect(() => parseHttpAddress("nonsense")).toThrow('--http "nonsense": not an address');
    expect(() => parseHttpAddress("[nope]:1")).toThrow("nope is not an IPv6 address");
    expect(() => parseHttpAddress("bad_host!:1")).toThrow("bad_host! is not a host name or IP address");
  });

  it("knows loopback from the rest", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "localhost"].every(isLoopback)).toBe(true);
    expect(["0.0.0.0", "10.0.0.1", "::", "example.org"].some(isLoopback)).toBe(false);
  });

  it("bot start exits 2 with the reason for a bad value or an address in use, and starts no bot", async () => {
    const data = await tempDir();
    const bad = await runBot(["start", ...fixture, "--data", data, "--http", "127.0.0.1:http"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bot: --http "127.0.0.1:http": not an address; write HOST:PORT');
    expect(bad.stderr).not.toMatch(/at .*\.ts:\d+/);

    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const busy = await runBot(["start", ...fixture, "--data", data, "--http", `127.0.0.1:${port}`]);
      expect(busy.code).toBe(2);
      expect(busy.stderr).toContain(
        `bot: --http 127.0.0.1:${port}: cannot listen (EADDRINUSE): another program listens there; pick another port`,
      );
      expect(busy.stdout).not.toContain("all bots started");
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe("bot start --http", () => {
  it("serves health, metrics and the page while the bots run, and stops with them", async () => {
    const data = await tempDir();
    const child = spawn(process.execPath, [botBin(), "start", ...fixture, "--data", data, "--http", "127.0.0.1:0"], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const lines: Array<Record<string, unknown>> = [];
    let buffer = "";
    const seen = new Promise<string>((resolve, reject) => {
      child.on("exit", (code) => reject(new Error(`bot start exited with ${code}: ${JSON.stringify(lines)}`)));
      child.stdout!.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
          buffer = buffer.slice(nl + 1);
          lines.push(line);
          if (typeof line.http === "string" && String(line.msg).startsWith("status page at")) resolve(line.http);
        }
      });
    });
    const url = await seen;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    // Ready once the bots have started (the server answered before they had).
    let ready: Response | undefined;
    for (let i = 0; i < 100 && ready?.status !== 200; i++) {
      ready = await fetch(`${url}/readyz`);
      if (ready.status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(await ready!.json()).toEqual({ ready: true, phase: "running", bots: 1 });

    // The stream of the bot's app connects; the metrics say so.
    let metrics = parseExposition(await (await fetch(`${url}/metrics`)).text());
    for (let i = 0; i < 100 && !metrics.some((s) => s.name === "postbot_stream_connected" && s.value === 1); i++) {
      await new Promise((r) => setTimeout(r, 100));
      metrics = parseExposition(await (await fetch(`${url}/metrics`)).text());
    }
    expect(value(metrics, "postbot_bots", { state: "running" })).toBe(1);
    expect(metrics.filter((s) => s.name === "postbot_stream_connected").map((s) => s.value)).toEqual([1]);
    expect(
      metrics.some(
        (s) =>
          s.name === "postbot_budget_remaining" && s.labels.bot === "observed" && s.labels.endpoint === "POST /2/posts",
      ),
    ).toBe(true);
    expect((await fetch(`${url}/`)).status).toBe(200);

    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);
});

describe("bot start --http, its start-up lines", () => {
  it("says 'all bots started' last, once the status page, the admin API, the connect pages and `bot say`'s file answer", async () => {
    const dir = await tempDir();
    const bots = join(dir, "bots");
    const templates = join(dir, "templates");
    const data = join(dir, "data");
    await mkdir(bots);
    await mkdir(templates);
    await copyFile("test/fixtures/observe/bots/observed.yaml", join(bots, "observed.yaml"));
    await writeFile(
      join(templates, "visitor.yaml"),
      'name: "visitor-{account.username}"\nplan: pro\ntriggers:\n  mentions: {}\nplugins:\n  reply: { text: "hi" }\n',
    );
    const token = "start-up-order-admin-token-0123";
    const child = spawnBot(
      [
        "start",
        "--bots",
        bots,
        "--plugins",
        "test/fixtures/plugins",
        "--templates",
        templates,
        "--data",
        data,
        "--http",
        "127.0.0.1:0",
      ],
      { env: { POSTBOT_ADMIN_TOKEN: token } },
    );
    const out = lineReader(child.stdout);
    const url = (JSON.parse(await out.waitFor(/"msg":"status page at/)) as { http: string }).http;
    await out.waitFor(/"msg":"all bots started; stop with Ctrl-C"/);
    // At once, nothing waited for: everything the line announces answers.
    const [ready, admin, connect] = await Promise.all([
      fetch(`${url}/readyz`),
      fetch(`${url}/api/admin/bots`, { headers: { authorization: `Bearer ${token}` } }),
      fetch(`${url}/connect/visitor`, { redirect: "manual" }),
    ]);
    expect(await ready.json()).toEqual({ ready: true, phase: "running", bots: 1 });
    expect(admin.status).toBe(200);
    expect(((await admin.json()) as { bots: Array<{ name: string }> }).bots.map((b) => b.name)).toEqual(["observed"]);
    expect(connect.status).toBe(302);
    expect(JSON.parse(await readFile(join(data, "demo.json"), "utf8"))).toMatchObject({ bots: ["observed"] });
    // The start-up lines, in order: the hints come before it, none after it.
    const msgs = out.lines.map((l) => String((JSON.parse(l) as { msg: unknown }).msg));
    const at = (start: string) => msgs.findIndex((m) => m.startsWith(start));
    const started = at("all bots started");
    for (const before of [
      "status page at",
      "talk to the bots as a user of the demo",
      "connect a sandbox user in the browser",
    ])
      expect(at(before), `"${before}..." before "all bots started": ${msgs.join(" | ")}`).toBeGreaterThan(-1);
    expect(
      ["status page at", "talk to the bots", "connect a sandbox user"].map(at).every((i) => i < started),
      msgs.join(" | "),
    ).toBe(true);

    const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 60_000);
});
