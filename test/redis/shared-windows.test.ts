/**
 * Budgets shared on Redis: several budget books (each the book of one `bot start` process)
 * meet in one real redis-server. Together they never exceed a window and together they use
 * all of it; corrections and pauses one process learns hold the others too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createActionSystem } from "../../src/actions/layer.ts";
import { ActionQueue } from "../../src/actions/index.ts";
import { createClient } from "../../src/api/client.ts";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { BudgetBook, type AccountBudget, type Slot } from "../../src/limits/budget.ts";
import { readMonthlyCounts, RedisWindows } from "../../src/redis/shared-windows.ts";
import { silentLogger } from "../../src/log.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { startSandbox } from "../helpers/sandbox.ts";

const START = Date.parse("2026-01-05T12:00:00Z");
const MIN15 = 15 * 60_000;
const MENTIONS = "GET /2/users/:id/mentions" as const; // basic: 10/15m per user, 15/15m per app

let server: RedisServer;
let redis: Redis;
let clock: AdjustableClock;
let prefix = 0;

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.close();
});
beforeEach(() => {
  clock = createClock({ frozen: true, start: START });
  prefix++;
});

/** One process: its own book (own memory), the shared Redis windows, one bot of app "app". */
function processWith(
  bot: string,
  options: { reserve?: number } = {},
): { book: BudgetBook; budget: AccountBudget; queue: ActionQueue } {
  const book = new BudgetBook({
    store: createMemoryStore(),
    clock,
    shared: new RedisWindows(redis, { prefix: `t${prefix}:` }),
  });
  const budget = book.account({ appId: "app", userId: `user-${bot}`, plan: "basic", bot }, options);
  return { book, budget, queue: new ActionQueue({ clock }) };
}

/** Waits until no queue has a claim on its way to Redis (real time only bounds it: a hang guard). */
async function settled(queues: ActionQueue[]): Promise<void> {
  const until = Date.now() + 10_000;
  for (let calm = 0; calm < 3; ) {
    await new Promise((r) => setTimeout(r, 2));
    calm = queues.every((q) => q.claimsInFlight() === 0) ? calm + 1 : 0;
    if (Date.now() > until) throw new Error("claims still on their way after 10 s");
  }
}

/** Every event time must leave at most `max` in any window of `ms`. */
function mostInAnyWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe("budget windows shared on Redis", () => {
  it("three processes claiming at once get exactly the app's window, never more, and learn when it refills", async () => {
    const procs = ["a", "b", "c"].map((bot) => processWith(bot));
    const results = await Promise.all(procs.flatMap((p) => Array.from({ length: 12 }, () => p.budget.claim(MENTIONS))));
    const granted = results.filter((r) => r.ok);
    expect(granted).toHaveLength(15); // the app's 15/15m, though each user alone could take 10
    for (const r of results) if (!r.ok) expect(r.readyAt).toBe(START + MIN15);
    // Each process now waits for the clock: what Redis said is held locally, no new claim needed.
    for (const p of procs) {
      const r = p.budget.check(MENTIONS);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/window of GET \/2\/users\/:id\/mentions is full/);
    }
    await clock.advance(MIN15);
    const again = await Promise.all(procs.flatMap((p) => Array.from({ length: 12 }, () => p.budget.claim(MENTIONS))));
    expect(again.filter((r) => r.ok)).toHaveLength(15);
  });

  it("three processes' queues under a flood use the whole window, and never exceed it in any 15 minutes", async () => {
    const procs = ["a", "b", "c"].map((bot) => processWith(bot));
    const queues = procs.map((p) => p.queue);
    const times: number[] = [];
    const byBot = new Map<string, number>();
    for (const p of procs) {
      for (let i = 0; i < 40; i++) {
        p.queue
          .acquire({ budget: p.budget, bot: p.budget.account.bot, endpoint: MENTIONS, priority: 1, label: `poll ${i}` })
          .then(
            (slot: Slot) => {
              times.push(slot.at);
              byBot.set(p.budget.account.bot, (byBot.get(p.budget.account.bot) ?? 0) + 1);
            },
            () => undefined,
          ); // closed at the end: the rest never get a slot
      }
    }
    // Four windows' worth of time: 4 x 15 = 60 of the 120 waiting requests can go.
    for (let w = 0; w < 4; w++) {
      await settled(queues);
      expect(times).toHaveLength(15 * (w + 1));
      await clock.advance(MIN15);
    }
    await settled(queues);
    expect(times).toHaveLength(75);
    expect(mostInAnyWindow(times, MIN15)).toBe(15);
    // No process starves: each got slots (per user at most 10 per window).
    for (const bot of ["a", "b", "c"]) expect(byBot.get(bot) ?? 0).toBeGreaterThan(0);
    expect(mostInAnyWindow(times, MIN15)).toBeLessThanOrEqual(15);
    for (const q of queues) q.close();
  });

  it("a correction from one process's answer takes room from every process", async () => {
    const [a, b] = [processWith("a"), processWith("b")];
    const slot = await a.budget.claim(MENTIONS);
    expect(slot.ok).toBe(true);
    // The service says only 3 of the app's 15 are left (someone else used the token's app).
    if (slot.ok)
      a.budget.settle(slot.slot, {
        status: 200,
        headers: {
          "x-rate-limit-limit": "15",
          "x-rate-limit-remaining": "3",
          "x-rate-limit-reset": String((START + MIN15) / 1000),
        },
      });
    await a.book.sharedWrites(); // the correction is written in the background
    const got = await Promise.all(Array.from({ length: 6 }, () => b.budget.claim(MENTIONS)));
    expect(got.filter((r) => r.ok)).toHaveLength(3);
  });

  it("a pause one process learned (remaining 0) holds the other processes until the reset", async () => {
    const [a, b] = [processWith("a"), processWith("b")];
    a.budget.pause(MENTIONS, START + 60_000, "app");
    await a.book.sharedWrites();
    const r = await b.budget.claim(MENTIONS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.readyAt).toBe(START + 60_000);
    await clock.advance(60_000);
    expect((await b.budget.claim(MENTIONS)).ok).toBe(true);
  });

  it("a slot given back (its request never left) frees its room; the answer's time moves the slot in the shared window", async () => {
    const [a, b] = [processWith("a"), processWith("b")];
    const slots: Slot[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await (i % 2 ? a : b).budget.claim(MENTIONS);
      if (r.ok) slots.push(r.slot);
    }
    expect(slots).toHaveLength(15);
    expect((await b.budget.claim(MENTIONS)).ok).toBe(false);
    a.budget.giveBack(slots[1]!);
    await a.book.sharedWrites();
    expect((await a.budget.claim(MENTIONS)).ok).toBe(true);
    expect((await a.budget.claim(MENTIONS)).ok).toBe(false);
    // The first slot is answered 5 s later: it now leaves the shared window 5 s later too.
    const windows = new RedisWindows(redis, { prefix: `t${prefix}:` });
    const appWindow = `${MENTIONS}|a:app|15m`;
    await clock.advance(5_000);
    b.budget.settle(slots[0]!, { status: 200 });
    await b.book.sharedWrites();
    expect(await windows.used(appWindow, MIN15, clock.now())).toBe(15);
    await clock.advance(MIN15 - 5_000);
    expect(await windows.used(appWindow, MIN15, clock.now())).toBe(1);
    await clock.advance(5_000);
    expect(await windows.used(appWindow, MIN15, clock.now())).toBe(0);
  });

  it("keeps the bot's reserve and caps across processes", async () => {
    const [a, b] = [processWith("a", { reserve: 0.4 }), processWith("b", { reserve: 0.4 })];
    // 15 - floor(15 * 0.4) = 9 usable of the app's window; each user 10 - 4 = 6.
    const got = await Promise.all([
      ...Array.from({ length: 8 }, () => a.budget.claim(MENTIONS)),
      ...Array.from({ length: 8 }, () => b.budget.claim(MENTIONS)),
    ]);
    expect(got.filter((r) => r.ok)).toHaveLength(9);
  });

  it("the monthly read cap: three processes' recent searches are each counted once, as the service counts them, and every process sees the total", async () => {
    const t = await startSandbox();
    try {
      const first = await t.account({ plan: "basic" });
      const accounts = [first, await t.account({ app: first.app }), await t.account({ app: first.app })];
      for (let i = 0; i < 4; i++) await t.admin.createPost({ author_id: first.user.id, text: `hello world ${i}` });
      const connections = await Promise.all(accounts.map(() => connectRedis(server.url)));
      // Three processes: each its own state, budget book and Redis connection; one bot each, all of one app.
      const procs = accounts.map((account, p) => {
        const system = createActionSystem({
          store: createMemoryStore(),
          clock: t.clock,
          logger: silentLogger,
          sharedWindows: new RedisWindows(connections[p]!, { prefix: `t${prefix}:` }),
        });
        const client = createClient({
          baseUrl: t.url,
          clock: t.clock,
          logger: silentLogger,
          auth: {
            consumer: { key: account.consumer_key, secret: account.consumer_secret },
            user: { token: account.token, secret: account.token_secret },
          },
        });
        const bot = system.bot({
          bot: `bot${p}`,
          account: { appId: account.app.id, userId: account.user.id, plan: "basic" },
          executor: async () => ({ result: undefined }),
        });
        const search = () =>
          bot.read("GET /2/posts/search/recent", async (signal) => {
            const { body, headers } = await client.exchange(
              "GET /2/posts/search/recent",
              { query: { query: "hello" } },
              { signal },
            );
            return { result: body, headers };
          });
        return { system, client, bot, search };
      });
      // Interleaved, as processes run: 3 searches each, 4 posts each time.
      for (let round = 0; round < 3; round++) await Promise.all(procs.map((p) => p.search()));
      for (const p of procs) await p.system.book.sharedWrites();
      const service = await t.bearer(await t.appBearer(first.app), "GET", "/2/usage/posts");
      expect((JSON.parse(service.text) as { data: { project_usage: string } }).data.project_usage).toBe("36");
      // Each process learns the others' reads from Redis's total with its next read.
      for (const [i, p] of procs.entries()) {
        await p.search();
        await p.system.book.sharedWrites();
        expect(p.bot.budget.monthlyUsage()!.used, `process ${i}`).toBe(36 + 4 * (i + 1));
      }
      // What `bot status` reads: the one counter.
      expect((await readMonthlyCounts(redis, `t${prefix}:`)).get(first.app.id)?.posts).toBe(48);
      for (const p of procs) {
        p.system.close();
        await p.client.close();
      }
      for (const c of connections) c.disconnect();
    } finally {
      await t.close();
    }
  });

  it("the monthly read cap spent by the other processes holds this one's capped reads", async () => {
    const [a, b] = [processWith("a"), processWith("b")];
    b.budget.countPostsRead(499_999);
    await b.book.sharedWrites();
    expect(a.budget.check("GET /2/posts/search/recent").ok, "before it learned of b's reads").toBe(true);
    a.budget.countPostsRead(1);
    await a.book.sharedWrites();
    const r = a.budget.check("GET /2/posts/search/recent");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/monthly cap of 500000 posts .* is spent/);
    expect(a.budget.monthlyUsage()!.used).toBe(500_000);
  });
});

describe("the take script", () => {
  const KEY = "POST /2/users/:id/likes|u:7|15m";
  const claim = [{ key: KEY, windowMs: MIN15, allowed: 15 }];
  const full = (p: string) => `${p}budget:w:${KEY}`;
  const calls = async (command: string) =>
    Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await redis.info("commandstats"))?.[1] ?? 0);

  it("three processes on their own connections, with old events still in the window's key, get exactly what the window has left", async () => {
    const p = `t${prefix}:`;
    const seed = new RedisWindows(redis, { prefix: p });
    // 10 events a window ago (no longer counted; still in the key, which is trimmed only when it looks full) and 3 live ones.
    for (let i = 0; i < 10; i++) expect((await seed.take(claim, [], START - MIN15 - 60_000 + i)).ok).toBe(true);
    for (let i = 0; i < 3; i++) expect((await seed.take(claim, [], START - 1_000 + i)).ok).toBe(true);
    expect(await redis.zcard(full(p))).toBe(13);
    const connections = await Promise.all([0, 1, 2].map(() => connectRedis(server.url)));
    try {
      const windows = connections.map((c) => new RedisWindows(c, { prefix: p }));
      const results = await Promise.all(
        windows.flatMap((w) => Array.from({ length: 12 }, () => w.take(claim, [], START))),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(12); // 15 less the 3 live
      for (const r of results) if (!r.ok) expect(r.readyAt).toBe(START - 1_000 + MIN15);
      expect(await redis.zcard(full(p))).toBe(15); // the old ones trimmed once the window looked full
      expect(await seed.used(KEY, MIN15, START)).toBe(15);
    } finally {
      for (const c of connections) c.disconnect();
    }
  });

  it("a window's key expires its window plus a minute after the last extension; a process extends it at most once a minute, a new key at once", async () => {
    const p = `t${prefix}:`;
    const a = new RedisWindows(redis, { prefix: p });
    await redis.config("RESETSTAT");
    expect((await a.take(claim, [], START)).ok).toBe(true);
    expect(await calls("pexpire")).toBe(1);
    const ttl = await redis.pttl(full(p));
    expect(ttl).toBeGreaterThan(MIN15 + 60_000 - 5_000);
    expect(ttl).toBeLessThanOrEqual(MIN15 + 60_000);
    for (let s = 1; s <= 5; s++) expect((await a.take(claim, [], START + s * 1_000)).ok).toBe(true);
    expect(await calls("pexpire")).toBe(1);
    expect((await a.take(claim, [], START + 61_000)).ok).toBe(true);
    expect(await calls("pexpire")).toBe(2);
    // Another process's first take extends it too; a key removed behind the process's back gets its expiry again.
    expect((await new RedisWindows(redis, { prefix: p }).take(claim, [], START + 62_000)).ok).toBe(true);
    expect(await calls("pexpire")).toBe(3);
    await redis.del(full(p));
    expect((await a.take(claim, [], START + 63_000)).ok).toBe(true);
    expect(await calls("pexpire")).toBe(4);
    expect(await redis.pttl(full(p))).toBeGreaterThan(MIN15);
    // A refused take extends nothing.
    await a.pause("hold", START + 10 * 60_000, START);
    expect((await a.take(claim, ["hold"], START + 200_000)).ok).toBe(false);
    expect(await calls("pexpire")).toBe(4);
  });

  it("a slot given back before its move to the answer's time stays given back", async () => {
    const p = `t${prefix}:`;
    const a = new RedisWindows(redis, { prefix: p });
    const first = await a.take(claim, [], START);
    if (!first.ok) throw new Error("no slot");
    await a.forget(KEY, START, first.member);
    const moved = a.retime(KEY, START, START + 5_000, first.member);
    expect((await a.take(claim, [], START + 6_000)).ok).toBe(true); // the move goes with this take
    await moved;
    expect(await redis.zscore(full(p), first.member)).toBeNull();
    expect(await a.used(KEY, MIN15, START + 6_000)).toBe(1);
  });

  it("takes with no write of the state are answered on their own connection while the store's is busy; a take with a write waits its turn there", async () => {
    const p = `t${prefix}:`;
    const [main, apart] = await Promise.all([0, 1].map(() => connectRedis(server.url)));
    try {
      const windows = new RedisWindows(main!, { prefix: p, apart: apart! });
      // The store's connection is busy (as at a start, behind thousands of the store's commands): here, a wait that ends when told.
      const busy = main!.blpop(`${p}busy`, 0);
      const applied: unknown[] = [];
      const mark = `${p}ledger-mark`;
      const withWrite = windows.take(claim, [], START, {
        ops: [["SET", mark, "pending"]],
        done: (f) => applied.push(f),
      });
      const first = await windows.take(claim, [], START + 1);
      expect(first.ok).toBe(true);
      if (!first.ok) return;
      await windows.retime(KEY, START + 1, START + 2, first.member);
      await windows.pause("hold", START + 10, START + 1);
      expect(await windows.used(KEY, MIN15, START + 1)).toBe(1);
      // The take with the write has not reached Redis: it stays in order with the store's writes.
      expect(applied).toEqual([]);
      expect(await redis.get(mark)).toBeNull();
      await redis.lpush(`${p}busy`, "done");
      await busy;
      expect((await withWrite).ok).toBe(true);
      expect(applied).toEqual([undefined]);
      expect(await redis.get(mark)).toBe("pending");
      expect(await windows.used(KEY, MIN15, START + 2)).toBe(2);
    } finally {
      main!.disconnect();
      apart!.disconnect();
    }
  });
});
