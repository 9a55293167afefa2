/**
 * Damaged state that must not go unsaid. A bot's own state (its file `state/bots/NAME.json`,
 * or its Redis hash) deleted or emptied while its status says it ran: the bot is not started
 * (it would answer again what it answered, its ledger gone with the rest), the log and its
 * status say where its state was and what to do, the other bots go on; `--afresh NAME`
 * starts it on purpose. An identity kept in the state and changed since (one digit of the
 * user id): asked of the service again, said, and the bot answers. Counted from the
 * service's side: its requests to post (a reply sent twice is a second request, even when the
 * service refuses the same text twice).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start, type Started } from "../../src/hosting/start.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
import { captureLogs } from "../helpers/log.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { connectRedis } from "../../src/redis/connect.ts";

const T0 = Date.parse("2026-03-02T12:00:00Z");
const dirs: string[] = [];
const open: Array<{ close(): Promise<void> }> = [];
let started: Started | undefined;
afterEach(async () => {
  await started?.stop();
  started = undefined;
  for (const o of open.splice(0).reverse()) await o.close();
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const botFile = (name: string) =>
  [
    `name: ${name}`,
    "plan: pro",
    "account:",
    `  token: \${${name.toUpperCase()}_TOKEN}`,
    `  token_secret: \${${name.toUpperCase()}_SECRET}`,
    "triggers:",
    "  mentions: {}",
    "plugins:",
    "  reply:",
    `    text: "${name} heard {post.text}"`,
  ].join("\n");

/** A service (the sandbox, on its own), two bots with tokens in their files, and alice who mentions them. */
async function world() {
  const clock = createClock({ frozen: true, start: T0 });
  const sandbox: Sandbox = await createSandbox({ clock });
  open.push(sandbox);
  const app = await sandbox.admin.createApp({ plan: "pro" });
  const dir = await mkdtemp(join(tmpdir(), "postbot-damaged-"));
  dirs.push(dir);
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
  };
  const ids: Record<string, string> = {};
  for (const name of ["alpha", "beta"]) {
    const user = await sandbox.admin.createUser({ username: name });
    const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
    ids[name] = user.id;
    env[`${name.toUpperCase()}_TOKEN`] = token.token;
    env[`${name.toUpperCase()}_SECRET`] = token.token_secret;
    await writeFile(join(dir, `${name}.yaml`), botFile(name));
  }
  const alice = await sandbox.admin.createUser({ username: "alice" });
  const data = join(dir, "data");
  const run = async (extra: { afresh?: string[]; state?: string } = {}) => {
    const { lines, logger } = captureLogs("info");
    const starting = start({
      bots: dir,
      plugins: "plugins",
      data,
      clock,
      logger,
      env,
      watch: false,
      ...(extra.afresh ? { afresh: extra.afresh } : {}),
      ...(extra.state ? { state: { url: extra.state, source: "--state" } } : {}),
    });
    // With Redis, the processes announce themselves for a while (on the clock) before claiming bots.
    let done = false;
    void starting.finally(() => (done = true)).catch(() => undefined);
    while (extra.state && !done) {
      await clock.advance(500);
      await new Promise((r) => setImmediate(r));
    }
    started = await starting;
    return { started, said: () => lines.map((l) => String(l.msg)), lines };
  };
  const mention = (text: string) => sandbox.admin.createPost({ author_id: alice.id, text });
  /** Lets the bots poll and answer. */
  const settle = async () => {
    await clock.advance(3_000);
    await started!.runtime.idle();
  };
  /** The bot's replies the service holds. */
  const replies = (name: string) =>
    Object.values(sandbox.context.data.world.posts)
      .filter((p) => p.author_id === ids[name])
      .map((p) => p.text);
  /** Every request to post the service had (201 or refused): a reply sent twice counts twice. */
  const postRequests = () =>
    Object.values(sandbox.context.data.meter.stats["POST /2/posts"] ?? {}).reduce((a, b) => a + b, 0);
  const stop = async () => {
    await started!.stop();
    started = undefined;
  };
  return { clock, sandbox, dir, data, env, ids, run, mention, settle, replies, postRequests, stop };
}

/** The first run: each bot answers one mention, its status saved saying its state is kept. */
async function firstRun(w: Awaited<ReturnType<typeof world>>, state?: string) {
  const { started: s } = await w.run(state ? { state } : {});
  await w.mention("@alpha hello");
  await w.mention("@beta hello");
  await w.settle();
  expect(w.replies("alpha")).toEqual(["alpha heard @alpha hello"]);
  expect(w.replies("beta")).toEqual(["beta heard @beta hello"]);
  // With the state in files, the status is saved at once (in Redis, it is at the latest when the bot stops).
  if (!state) expect(s.store.get<BotStatus>("status", "alpha")?.stateSince).toBe(T0);
  await w.stop();
  expect(w.postRequests()).toBe(2);
}

const refusal = (where: string, since = T0) =>
  `bot alpha is not started: its state (${where}) is missing, though its status says the bot ran with it since ${new Date(since).toISOString()}: started afresh, it would answer again what it answered. Restore it from a backup, or start the bot afresh knowing that: bot start --afresh alpha; the other bots go on`;

describe("a bot's state file deleted or emptied while its status says it ran", () => {
  it.each([
    ["deleted", null],
    ["emptied of its values", '{"version":1,"namespaces":{}}'],
  ])(
    "%s: the bot is not started, said with where and what to do; the others go on; nothing answered twice",
    async (_how, text) => {
      const w = await world();
      await firstRun(w);
      const file = join(w.data, "state", "bots", "alpha.json");
      expect(JSON.parse(await readFile(file, "utf8")).namespaces.kept).toBeDefined();
      if (text === null) await rm(file);
      else await writeFile(file, text);

      const { started: s, said } = await w.run();
      expect(said()).toContain(refusal(file));
      expect(s.runtime.bots.has("alpha")).toBe(false);
      expect(s.runtime.status().find((b) => b.bot === "alpha")?.paused?.reason).toMatch(
        /^not started: its state \(.*alpha\.json\) is missing/,
      );
      await w.mention("@beta again");
      await w.settle();
      expect(w.replies("beta")).toEqual(["beta heard @beta hello", "beta heard @beta again"]);
      expect(w.replies("alpha")).toEqual(["alpha heard @alpha hello"]);
      // alpha's mention was not answered again: one request more, beta's.
      expect(w.postRequests()).toBe(3);
      // Still refused at the next start (its status kept what it said), until told otherwise.
      await w.stop();
      const again = await w.run();
      expect(again.said()).toContain(refusal(file));
      await w.stop();

      // --afresh alpha: started, on purpose, and said.
      const afresh = await w.run({ afresh: ["alpha"] });
      expect(afresh.said()).toContainEqual(
        expect.stringMatching(/^bot alpha starts afresh \(--afresh\): its state, kept since .* was missing/),
      );
      expect(afresh.started.runtime.bots.has("alpha")).toBe(true);
    },
  );

  it("a state file emptied to nothing stops the start, naming it and what to do", async () => {
    const w = await world();
    await firstRun(w);
    const file = join(w.data, "state", "bots", "alpha.json");
    await writeFile(file, "");
    await expect(w.run()).rejects.toThrow(
      `${file} is not a valid postbot state file (the file is empty). Nothing was changed. Restore it from a backup, fix it by hand, or move the file away`,
    );
    expect(w.postRequests()).toBe(2);
  });
});

describe("a bot's Redis key deleted while its status says it ran", () => {
  let redis: RedisServer;
  it("the bot is not started, said with the key and what to do; the others go on", async () => {
    redis = await startRedisServer();
    open.push({ close: () => redis.close() });
    const w = await world();
    await firstRun(w, redis.url);
    const client = await connectRedis(redis.url);
    try {
      expect(await client.del("postbot:state:bots/alpha")).toBe(1);
    } finally {
      client.disconnect();
    }
    const { started: s, said } = await w.run({ state: redis.url });
    await w.settle();
    // Its status says since when (the first run claimed it a few seconds of the clock after T0).
    const since = s.store.get<BotStatus>("status", "alpha")?.stateSince;
    expect(since).toBeGreaterThanOrEqual(T0);
    expect(said()).toContain(refusal("the Redis key postbot:state:bots/alpha", since));
    expect(s.runtime.bots.has("alpha")).toBe(false);
    await w.mention("@beta again");
    await w.settle();
    expect(w.replies("beta")).toEqual(["beta heard @beta hello", "beta heard @beta again"]);
    expect(w.postRequests()).toBe(3);
  });
});

describe("an identity kept in the state and changed since", () => {
  it("one digit of its user id changed: asked again, said with the bot and the file, and the bot answers", async () => {
    const w = await world();
    await firstRun(w);
    const file = join(w.data, "state", "bots", "alpha.json");
    const saved = JSON.parse(await readFile(file, "utf8")) as { namespaces: Record<string, Array<[string, unknown]>> };
    const entry = saved.namespaces.identity!.find(([key]) => key === "alpha")!;
    const identity = entry[1] as { userId: string };
    const last = identity.userId.at(-1)!;
    identity.userId = identity.userId.slice(0, -1) + (last === "9" ? "8" : String(Number(last) + 1));
    await writeFile(file, JSON.stringify(saved));

    const { said } = await w.run();
    expect(said()).toContain(
      `bot alpha: the identity kept in the state (${file}) said user ${identity.userId} (@alpha), but the service says this account is user ${w.ids.alpha} (@alpha): the record was changed after it was written (by hand, or damaged). The bot goes on as the service's, kept in its place; nothing to do, unless this comes back: then look for what else writes ${file}`,
    );
    await w.mention("@alpha are you there");
    await w.settle();
    expect(w.replies("alpha")).toEqual(["alpha heard @alpha hello", "alpha heard @alpha are you there"]);
    expect(w.postRequests()).toBe(3);
  });
});
