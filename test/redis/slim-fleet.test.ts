/**
 * Processes sharing their state keep the full configuration only of the bots they run: two
 * `bot start --state redis://…` in this test process share six bot files, three each. Each
 * knows all six (the fleet lists them, their outline: name, file, plan, triggers, app), and
 * holds the plugins, options and token of its own three alone. A bot that comes to a process
 * (the other stopped) is built then from what was read at the start (its file is not read
 * again), and answers; a file changed or broken is seen by both, a bad one reported by both as
 * `bot validate` says it, and a change is applied by the process that runs the bot. Real
 * Redis; one frozen clock, moved by the test.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { captureLogs } from "../helpers/log.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const T0 = Date.parse("2026-03-02T12:00:00Z");
const NAMES = ["b1", "b2", "b3", "b4", "b5", "b6"];

let server: RedisServer;
let admin: Redis;
const dirs: string[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectRedis(server.url);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  await admin.flushdb();
});
afterAll(async () => {
  admin?.disconnect();
  await server?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const botFile = (name: string, says = "here") =>
  `name: ${name}\nplan: pro\naccount:\n  token: \${${name.toUpperCase()}_TOKEN}\n  token_secret: \${${name.toUpperCase()}_SECRET}\ntriggers:\n  mentions: { via: poll }\nplugins:\n  reply: { text: "${name} ${says}: {post.body}" }\n`;

/** A service with the six bots' accounts, their files, and `bot start` in this process. */
async function project() {
  const clock = createClock({ frozen: true, start: T0 });
  const sandbox: Sandbox = await createSandbox({ clock });
  cleanups.push(() => sandbox.close());
  const app = await sandbox.admin.createApp({ plan: "pro" });
  const dir = await mkdtemp(join(tmpdir(), "postbot-slim-"));
  dirs.push(dir);
  await mkdir(join(dir, "bots"));
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
  };
  const users = new Map<string, string>();
  for (const name of NAMES) {
    const user = await sandbox.admin.createUser({ username: name });
    users.set(user.id, name);
    const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
    env[`${name.toUpperCase()}_TOKEN`] = token.token;
    env[`${name.toUpperCase()}_SECRET`] = token.token_secret;
    await writeFile(join(dir, "bots", `${name}.yaml`), botFile(name));
  }
  const crowd = await sandbox.admin.createUser({ username: "crowd" });
  const step = async () => {
    await clock.advance(500);
    await new Promise((r) => setImmediate(r));
  };
  /** Moves the clock until `done` holds (bounded by real time). */
  const until = async (what: string, done: () => boolean) => {
    const deadline = Date.now() + 20_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await step();
    }
  };
  const run = async () => {
    const { lines, logger } = captureLogs("info");
    const starting = start({
      bots: join(dir, "bots"),
      plugins: join(dir, "plugins"),
      data: join(dir, "data"),
      clock,
      logger,
      env,
      watch: false,
      leaseMs: 3_000,
      state: { url: server.url, source: "--state" },
    });
    let done = false;
    void starting.finally(() => (done = true)).catch(() => undefined);
    await until("the start", () => done);
    const started = await starting;
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await started.stop();
    };
    cleanups.push(stop);
    return { started, lines, stop };
  };
  /** The replies each bot posted so far, their texts. */
  const replies = (bot: string) =>
    Object.values(sandbox.context.data.world.posts)
      .filter((p) => users.get(p.author_id) === bot)
      .map((p) => p.text);
  const mention = (bot: string, text: string) =>
    sandbox.admin.createPost({ author_id: crowd.id, text: `@${bot} ${text}` });
  return { dir, run, until, replies, mention };
}

/** The reply texts of a bot as the process keeps them: its full configuration's, or none (its outline). */
const pluginsOf = (s: Started, name: string) =>
  s.runtime.hosted(name)?.config.plugins.map((p) => ({ text: (p.options as { text: string[] }).text[0] }));

describe("processes sharing their state keep the full configuration of the bots they run alone", () => {
  it("each knows every bot and holds its own; a bot that comes to it is built then and answers", async () => {
    const p = await project();
    const a = await p.run();
    const b = await p.run();
    await p.until("three bots each", () => a.started.runtime.bots.size === 3 && b.started.runtime.bots.size === 3);
    for (const s of [a.started, b.started]) {
      expect([...s.runtime.fleet().keys()].sort()).toEqual(NAMES);
      for (const name of NAMES) {
        const runsHere = s.runtime.bots.has(name);
        expect(s.runtime.hosted(name) !== undefined, name).toBe(runsHere);
        // The outline: what the fleet's checks and the apps' counts read, nothing of its plugins or token.
        const entry = s.runtime.fleet().get(name)!;
        expect(entry.config).toMatchObject({ name, plan: "pro", file: expect.stringContaining(`${name}.yaml`) });
        expect("plugins" in entry.config, name).toBe(false);
        expect("token" in entry, name).toBe(false);
      }
    }
    const mine = [...a.started.runtime.bots.keys()];
    const theirs = [...b.started.runtime.bots.keys()];

    // b stops: its bots come to a, which builds them then from what its start read, not
    // their files (gone meanwhile), and answers their mentions.
    await rename(join(p.dir, "bots"), join(p.dir, "bots-away"));
    await b.stop();
    await p.until("a runs all six", () => a.started.runtime.bots.size === 6);
    for (const name of theirs)
      expect(pluginsOf(a.started, name), name).toEqual([{ text: `${name} here: {post.body}` }]);
    await a.started.runtime.idle();
    for (const name of NAMES) await p.mention(name, "hello");
    await p.until("every mention answered", () => NAMES.every((n) => p.replies(n).length === 1));
    for (const name of NAMES) expect(p.replies(name), name).toEqual([`${name} here: hello`]);
    expect(mine.length + theirs.length).toBe(6);
  }, 60_000);

  it("a file changed is applied where its bot runs; a broken one is reported by every process, as bot validate says it", async () => {
    const p = await project();
    const a = await p.run();
    const b = await p.run();
    await p.until("three bots each", () => a.started.runtime.bots.size === 3 && b.started.runtime.bots.size === 3);
    const [elsewhere] = [...b.started.runtime.bots.keys()];
    const file = a.started.runtime.fleet().get(elsewhere!)!.config.file;

    // Changed: a (which does not run it) keeps its outline; b restarts it with the new text.
    await writeFile(file, botFile(elsewhere!, "changed"));
    for (const s of [a.started, b.started]) await s.fleet.readFiles([file]);
    expect(a.started.runtime.hosted(elsewhere!)).toBeUndefined();
    expect(pluginsOf(b.started, elsewhere!)).toEqual([{ text: `${elsewhere} changed: {post.body}` }]);
    await b.started.runtime.idle();
    await p.mention(elsewhere!, "again");
    await p.until("its mention answered", () => p.replies(elsewhere!).length === 1);
    expect(p.replies(elsewhere!)).toEqual([`${elsewhere} changed: again`]);

    // Broken: both report it, with its line and column, and the bot goes on as it was.
    await writeFile(
      file,
      `${botFile(elsewhere!, "changed")}  reply_to_bots: maybe\n`.replace("plan: pro", "plan: gold"),
    );
    for (const s of [a.started, b.started]) await s.fleet.readFiles([file]);
    const problems = (lines: Array<Record<string, unknown>>) =>
      lines.filter((l) => l.problem === true && l.file === file).map((l) => l.msg);
    expect(problems(a.lines).length).toBeGreaterThan(0);
    expect(problems(a.lines)).toEqual(problems(b.lines));
    expect(String(problems(a.lines)[0])).toMatch(new RegExp(`${elsewhere}\\.yaml:\\d+:\\d+`));
    expect(pluginsOf(b.started, elsewhere!)).toEqual([{ text: `${elsewhere} changed: {post.body}` }]);
  }, 60_000);
});
