/**
 * The ledger and the budget both on Redis (`bot start --state redis://`): an action's
 * durable "pending" mark is written by the script that takes its budget slot, fenced by its
 * bot's lease. Both or neither: a take with no room writes no mark, and a stale holder (its
 * lease claimed again by another process) gets neither the slot nor the mark, and sends
 * nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createActionSystem } from "../../src/actions/layer.ts";
import type { LedgerEntry } from "../../src/actions/index.ts";
import { createClock } from "../../src/clock.ts";
import { RedisWindows } from "../../src/redis/shared-windows.ts";
import type { Lease } from "../../src/fencing.ts";
import { Leases } from "../../src/redis/leases.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { captureLogs } from "../helpers/log.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const START = Date.parse("2026-03-02T12:00:00Z");
const LIKES = "POST /2/users/:id/likes|u:100|24h";

let server: RedisServer;
let redis: Redis;
beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
});
afterEach(async () => {
  await redis.flushdb();
});
afterAll(async () => {
  redis?.disconnect();
  await server?.close();
});

/** One process running bot "g" under `lease`, its ledger and windows on Redis; the executor records what it sends. */
async function processOf(lease: () => Lease | undefined) {
  const clock = createClock({ frozen: true, start: START });
  const { lines, logger } = captureLogs("info");
  const leases = new Leases(redis);
  const refused: string[] = [];
  const store = await openRedisStore({
    redis,
    closeConnection: false,
    logger,
    fencing: { leases, current: async () => lease(), refused: (bot) => void refused.push(bot) },
  });
  await store.hold("g");
  const windows = new RedisWindows(redis);
  const system = createActionSystem({ store, clock, logger, sharedWindows: windows });
  const sent: string[] = [];
  const bot = system.bot({
    bot: "g",
    account: { appId: "app", userId: "100", plan: "basic" },
    executor: async (action) => {
      // What Redis holds the moment the request leaves: the mark must be there already.
      const marked = await redis.hget("postbot:state:bots/g", `ledger\u0000${action.key}`);
      sent.push(`${action.target}:${marked ? (JSON.parse(marked) as [number, LedgerEntry])[1].state : "no mark"}`);
      return { result: { data: { liked: true } } };
    },
  });
  const counted = () => windows.used(LIKES, 24 * 3_600_000, clock.now());
  return { clock, system, bot, store, sent, refused, lines, counted };
}

describe("the ledger's mark written with the budget's slot", () => {
  it("marks before sending, in the same round trip as the slot: one script call per action", async () => {
    const leases = new Leases(redis);
    const lease = (await leases.claim("bot:g", "P1", 60_000))!;
    const p = await processOf(() => lease);
    await p.bot.like("1"); // the script loaded, windows read
    const calls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info("commandstats"))?.[1] ?? 0);
    await redis.config("RESETSTAT");
    const before = await calls();
    expect(await p.bot.like("2")).toMatchObject({ status: "sent" });
    expect(await calls()).toBe(before + 1); // the take and the mark (the first like's move went with it)
    expect(p.sent).toEqual(["1:pending", "2:pending"]);
    expect(await p.counted()).toBe(2);
    p.system.close();
  });

  it("a take with no room writes no mark: the action waits, queued, and is marked when room comes", async () => {
    const leases = new Leases(redis);
    const lease = (await leases.claim("bot:g", "P1", 60_000))!;
    const p = await processOf(() => lease);
    // Another process used the whole 200/24h of the account.
    const other = new RedisWindows(redis);
    for (let i = 0; i < 200; i++)
      expect((await other.take([{ key: LIKES, windowMs: 24 * 3_600_000, allowed: 200 }], [], START - 1_000)).ok).toBe(
        true,
      );
    const like = p.bot.like("3");
    // Its claim is refused: it waits for the clock, its claim no longer on its way.
    for (
      let calm = 0;
      calm < 3;
      calm = p.system.queue.claimsInFlight() === 0 && p.system.queue.list().length === 1 ? calm + 1 : 0
    )
      await new Promise((r) => setTimeout(r, 5));
    const entry = async () => {
      const raw = await redis.hget("postbot:state:bots/g", "ledger\u0000g:like:3");
      return raw ? (JSON.parse(raw) as [number, LedgerEntry])[1].state : undefined;
    };
    expect(await entry()).not.toBe("pending");
    expect(p.store.get<LedgerEntry>("ledger", "g:like:3")?.state).toBe("queued");
    await p.clock.advance(24 * 3_600_000);
    expect(await like).toMatchObject({ status: "sent" });
    expect(p.sent).toEqual(["3:pending"]);
    p.system.close();
  });

  it("a stale holder gets neither slot nor mark and sends nothing; its store stops the bot", async () => {
    const leases = new Leases(redis);
    const mine = (await leases.claim("bot:g", "P1", 60_000))!;
    const p = await processOf(() => mine);
    expect(await p.bot.like("4")).toMatchObject({ status: "sent" });
    // Its lease ran out and another process claimed the bot (a new fencing token).
    await leases.release(mine);
    await leases.claim("bot:g", "P2", 60_000);
    const outcome = await p.bot.like("5");
    expect(outcome).toMatchObject({
      status: "failed",
      reason: expect.stringMatching(/^not sent: could not record it in the ledger first \(lease "bot:g" .* refused\)$/),
    });
    expect(p.sent).toEqual(["4:pending"]);
    expect(await p.counted()).toBe(1); // no slot taken for it
    expect(await redis.hget("postbot:state:bots/g", "ledger\u0000g:like:5")).toBeNull();
    expect(p.refused).toEqual(["g"]);
    expect(p.lines.filter((l) => /another process runs it now/.test(String(l.msg)))).toHaveLength(1);
    p.system.close();
  });
});
