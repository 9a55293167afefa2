/**
 * Several runtimes ("processes") in this test process sharing one real Redis: who runs which
 * bot, the fencing of a stale holder, and a Redis outage. The sandbox and the bots run on one
 * frozen clock; each process's lease renewals run on its own clock (a running one, or a frozen
 * one for a process that stalls), and lease expiry is Redis's real TTL, kept short.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClock, type AdjustableClock, type Clock } from "../../src/clock.ts";
import { definePlugin } from "../../src/runtime/plugin.ts";
import { provisionBots, type ProvisionedBot } from "../../src/runtime/provision.ts";
import { startRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { openSharedState, type SharedState } from "../../src/scale/shared-state.ts";
import { connectRedis } from "../../src/store/redis/connect.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { testBotConfig } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`hi @${ctx.author.username} from ${bot.name}: ${ctx.post.text}`);
    });
  },
});

const TTL = 1_500;
const EVERY = 400;
const NAMES = ["b1", "b2", "b3", "b4", "b5", "b6"];

let redis: RedisServer;
let sandbox: Sandbox;
let clock: AdjustableClock;
let hosted: ProvisionedBot[];
const procs: Proc[] = [];

interface Proc {
  name: string;
  shared: SharedState;
  runtime: Runtime;
  lines: Array<Record<string, unknown>>;
}

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});
afterEach(async () => {
  for (const p of procs.splice(0)) await p.shared.stop().catch(() => p.shared.redis.disconnect());
  await sandbox?.close();
  const admin = await connectRedis(redis.url);
  await admin.flushdb();
  admin.disconnect();
});

async function world(): Promise<void> {
  clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  sandbox = await createSandbox({ clock });
  const configs = NAMES.map((name) => testBotConfig({ name, plan: "pro", triggers: { mentions: { via: "poll" } }, plugins: { echo: {} } }, { echo }));
  hosted = await provisionBots(sandbox, configs);
}

/** A "process": its own Redis connection, state store, claims (on `claimsClock`) and runtime. */
async function proc(name: string, claimsClock: Clock = createClock(), settleMs?: number): Promise<Proc> {
  const { lines, logger } = captureLogs("info");
  const shared = await openSharedState({ url: redis.url, bots: NAMES, clock: claimsClock, logger, ttlMs: TTL, everyMs: EVERY, ...(settleMs !== undefined ? { settleMs } : {}) });
  const runtime = await startRuntime({ baseUrl: sandbox.url, bots: hosted, store: shared.store, clock, logger, hosting: "claimed", drainMs: 500 });
  await shared.run(runtime);
  const p = { name, shared, runtime, lines };
  procs.push(p);
  return p;
}

/** Waits (real time, bounded) for a condition that depends on lease renewals and Redis TTLs. */
async function until(what: string, ok: () => boolean, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not within ${boundMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const running = (ps: Proc[]) => ps.flatMap((p) => [...p.runtime.bots.keys()]);

/** Every bot runs in exactly one of `ps`. */
const balanced = (ps: Proc[], perProcess?: number) => {
  const all = running(ps);
  return all.length === NAMES.length && new Set(all).size === NAMES.length && (perProcess === undefined || ps.every((p) => p.runtime.bots.size === perProcess));
};

async function settle(ps: Proc[]): Promise<void> {
  for (let i = 0; i < 2; i++) for (const p of ps) await p.runtime.idle();
}

function repliesOf(bot: string): string[] {
  const user = Object.values(sandbox.context.data.world.users).find((u) => u.username === bot);
  return Object.values(sandbox.context.data.world.posts)
    .filter((p) => p.author_id === user?.id)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((p) => p.in_reply_to_post_id ?? "");
}

async function mentionEach(text: string): Promise<Map<string, string>> {
  const alice = Object.values(sandbox.context.data.world.users).find((u) => u.username === "alice") ?? (await sandbox.admin.createUser({ username: "alice", name: "alice" }));
  const ids = new Map<string, string>();
  for (const bot of NAMES) ids.set(bot, (await sandbox.admin.createPost({ author_id: alice.id, text: `@${bot} ${text}` })).id);
  return ids;
}

describe("bots shared by processes on one Redis", () => {
  it("three processes share six bots, two each, none twice; every mention is answered once", async () => {
    await world();
    const ps = await Promise.all([proc("P1"), proc("P2"), proc("P3")]);
    // Started together: each waited to see the others, then took its share; nobody gave any back.
    await until("two bots each", () => balanced(ps, 2));
    for (const p of ps) expect(p.lines.filter((l) => /giving back/.test(String(l.msg))), p.name).toEqual([]);
    await settle(ps); // each bot's first poll, at its start, is done
    const first = await mentionEach("hello");
    await clock.advance(15_000);
    await settle(ps);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([first.get(bot)]);
    expect(balanced(ps, 2)).toBe(true);

    // P3 stops (Ctrl-C): its bots, saved, go to the other two.
    const p3 = procs.splice(procs.indexOf(ps[2]!), 1)[0]!;
    const gone = [...p3.runtime.bots.keys()];
    await p3.shared.stop();
    await until("P1 and P2 run all", () => balanced(ps.slice(0, 2), 3));
    await settle(ps.slice(0, 2));
    const second = await mentionEach("again");
    await clock.advance(15_000);
    await settle(ps.slice(0, 2));
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([first.get(bot), second.get(bot)]);
    expect(gone.every((bot) => running(ps.slice(0, 2)).includes(bot))).toBe(true);
  }, 60_000);

  it("a process that stalls loses its bots to the others; its own writes are refused and it stops them, one line each", async () => {
    await world();
    const stalled = await proc("stalled", createClock({ frozen: true }), 0); // never renews
    expect(stalled.runtime.bots.size).toBe(NAMES.length);
    const mentions = await mentionEach("who answers?");
    const live = await proc("live");
    // The stalled process's leases and membership expire by Redis's TTL: the live one takes all.
    await until("live runs all six", () => live.runtime.bots.size === NAMES.length, 10_000);
    // The stalled one still believes it runs them: both poll, both see the mentions.
    expect(stalled.runtime.bots.size).toBe(NAMES.length);
    await clock.advance(15_000);
    await settle([live, stalled]);
    await until("the stalled process stops all six", () => stalled.runtime.bots.size === 0);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([mentions.get(bot)]);
    const refusals = stalled.lines.filter((l) => /another process runs it now/.test(String(l.msg)));
    expect(refusals.map((l) => l.bot).sort()).toEqual(NAMES);
    const stops = stalled.lines.filter((l) => /lease lost/.test(String(l.msg)));
    expect(stops.map((l) => l.bot).sort()).toEqual(NAMES);
  }, 60_000);

  it("Redis away longer than the leases: nothing is sent meanwhile, the log says so once, and all resumes once it is back", async () => {
    await world();
    const ps = [await proc("P1"), await proc("P2")];
    await until("three bots each", () => balanced(ps, 3));
    await settle(ps); // the first polls of the bots' new hosts are saved: their next ones are due in 12 s
    await redis.stop();
    const during = await mentionEach("while Redis is away");
    await clock.advance(15_000);
    // The polls found the mentions, but their handlers cannot record a reply: none is sent.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([]);
    // Longer than the leases' TTL (they expire by Redis's clock, also while it is down).
    await new Promise((r) => setTimeout(r, TTL + 200));
    await redis.restart();
    await until("every mention answered", () => NAMES.every((bot) => repliesOf(bot).length === 1), 15_000);
    await settle(ps);
    await clock.advance(15_000);
    await settle(ps);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([during.get(bot)]);
    expect(balanced(ps)).toBe(true);
    for (const p of ps) {
      expect(p.lines.filter((l) => /lost the connection to Redis/.test(String(l.msg))), p.name).toHaveLength(1);
      expect(p.lines.filter((l) => /is back: resuming/.test(String(l.msg))), p.name).toHaveLength(1);
    }
  }, 60_000);
});
