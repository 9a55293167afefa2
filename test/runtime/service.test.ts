import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { resolveService } from "../../src/runtime/service.ts";
import { start } from "../../src/runtime/start.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { testBotConfig } from "../../src/testing.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const cfg = (name: string, plan: "pro" | "basic", account?: { token: string; token_secret: string }) =>
  testBotConfig({ name, plan, ...(account ? { account } : {}), triggers: { mentions: {} }, plugins: {} }, {});

describe("resolveService", () => {
  it("names every missing setting at once, and how to give it", () => {
    const bots = [cfg("a", "pro"), cfg("b", "basic")];
    expect(() => resolveService({}, ".env", bots, createMemoryStore())).toThrow(
      new RegExp(
        [
          "POSTBOT_BASE_URL is not set: it is the address of the service. Set it \\(export POSTBOT_BASE_URL=...\\) or add a line POSTBOT_BASE_URL=... to .env",
          "POSTBOT_CONSUMER_KEY is not set",
          "POSTBOT_CONSUMER_SECRET is not set",
          "the bots that name no app share one \\(POSTBOT_CONSUMER_KEY\\), and an app has one plan, but they name several \\(pro: a; basic: b\\)",
          "bot a uses the stored account \"a\", which is not stored; sign it in with `bot auth login --account a`",
        ].join("[\\s\\S]*"),
      ),
    );
  });

  it("refuses plain HTTP to a host that is not loopback", () => {
    const vars = { POSTBOT_BASE_URL: "http://api.example.com", POSTBOT_CONSUMER_KEY: "k", POSTBOT_CONSUMER_SECRET: "s" };
    expect(() => resolveService(vars, ".env", [cfg("a", "pro", { token: "t", token_secret: "ts" })], createMemoryStore())).toThrow(/https/i);
  });
});

describe("bot start against a configured service", () => {
  it("runs the bots with the app's keys and the tokens of their files", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const app = await sandbox.admin.createApp({ plan: "pro" });
    const user = await sandbox.admin.createUser({ username: "answerer" });
    const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
    const dir = await mkdtemp(join(tmpdir(), "postbot-service-"));
    dirs.push(dir);
    await writeFile(
      join(dir, "answerer.yaml"),
      ["name: answerer", "plan: pro", "account:", "  token: ${ANSWERER_TOKEN}", "  token_secret: ${ANSWERER_SECRET}", "triggers:", "  mentions: {}", "plugins:", "  reply:", "    text: \"Thanks @{author.username}!\""].join("\n"),
    );
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });
    const env = {
      POSTBOT_BASE_URL: sandbox.url,
      POSTBOT_CONSUMER_KEY: app.consumer_key,
      POSTBOT_CONSUMER_SECRET: app.consumer_secret,
      ANSWERER_TOKEN: token.token,
      ANSWERER_SECRET: token.token_secret,
    };
    const started = await start({ bots: dir, plugins: "plugins", data: join(dir, "data"), clock, logger, env });
    expect(started.sandbox).toBeUndefined();
    expect(JSON.parse(lines[0]!).msg).toBe(`starting 1 bots against ${sandbox.url}`);
    const alice = await sandbox.admin.createUser({ username: "alice" });
    await sandbox.admin.createPost({ author_id: alice.id, text: "@answerer a question" });
    await clock.advance(3_000);
    await started.runtime.idle();
    const replies = Object.values(sandbox.context.data.world.posts).filter((p) => p.author_id === user.id);
    expect(replies.map((p) => p.text)).toEqual(["Thanks @alice!"]);
    await started.stop();
    await sandbox.close();
    // No secret reached the log.
    expect(lines.join("")).not.toContain(token.token_secret);
    expect(lines.join("")).not.toContain(app.consumer_secret);
  });
});
