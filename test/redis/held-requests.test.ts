/**
 * A bot's requests end inside its lease (src/actions/holding.ts over src/redis/bot-claims.ts):
 * two processes' bot claims on one Redis, the first frozen (its claims on a clock that does not
 * move, as a process stopped with SIGSTOP: it renews nothing) while a request of its bot waits
 * at a slow service. Its lease runs out in Redis and the second takes the bot over, told to
 * check what was left pending only once the first's requests can no longer arrive; when the
 * first runs again, its request is cut before the service answers it (a service does not act
 * on a request whose client has gone), and it sends nothing more for the bot.
 */
import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/actions/action.ts";
import { heldExecutor } from "../../src/actions/holding.ts";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { LeaseLapsedError, NotHeldError } from "../../src/fencing.ts";
import { BotClaims, TAKEOVER_SETTLE_MS } from "../../src/redis/bot-claims.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { fakeService, type FakeService } from "../api/fake-service.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";
import { claimsOf } from "../helpers/claims.ts";

const TTL = 1_500;
const EVERY = 400;
let server: RedisServer;
const connections: Redis[] = [];
const claims: BotClaims[] = [];
let service: FakeService | undefined;

beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  for (const c of claims.splice(0)) await c.stop().catch(() => undefined);
  for (const r of connections.splice(0)) r.disconnect();
  await service?.close();
  service = undefined;
});
afterAll(async () => {
  await server?.close();
});

/** One process's claims of bot `held`: its own Redis connection, its renewals on `clock`. */
async function process_(
  owner: string,
  clock: AdjustableClock,
  hosted: string[],
  bots = ["held"],
  prefix = "held:",
): Promise<BotClaims> {
  const redis = await connectRedis(server.url);
  connections.push(redis);
  const c = claimsOf({
    redis,
    prefix,
    owner,
    bots,
    clock,
    ttlMs: TTL,
    everyMs: EVERY,
    host: async (bot) => void hosted.push(`${owner} runs ${bot}`),
    unhost: async (bot, why) => void hosted.push(`${owner} stops ${bot} (${why})`),
  });
  claims.push(c);
  await c.start();
  return c;
}

describe("a bot's requests inside its lease", () => {
  it("a frozen holder's request is cut when it runs again, and the one that took the bot over waits before checking", async () => {
    /** Requests the service holds, unanswered, and whether their client hung up. */
    const held: Array<{ res: ServerResponse; gone: boolean }> = [];
    service = await fakeService((_req, res) => {
      const h = { res, gone: false };
      res.once("close", () => (h.gone = !res.writableEnded));
      held.push(h);
    });
    const url = service.url;
    const send: Executor = async (_action, signal) => {
      const res = await fetch(`${url}/2/dm_conversations/with/1/messages`, { method: "POST", signal });
      return { result: await res.json() };
    };
    const action = { kind: "dm", bot: "held", userId: "1", endpoint: "POST /2/posts", target: "1", path: {} } as never;
    const hosted: string[] = [];
    const frozen = createClock({ frozen: true });
    const a = await process_("A", frozen, hosted);
    expect(a.bots()).toEqual(["held"]);
    const sending = heldExecutor("held", send, a)(action, new AbortController().signal).catch((e: unknown) => e);
    await until("the request is at the service", () => held.length === 1, 5_000);

    // A stops renewing (its clock stands still); its lease runs out in Redis, B takes the bot over.
    const b = await process_("B", createClock(), hosted);
    await until("B runs the bot", () => b.bots().includes("held"), 10_000);
    const settledAt = b.settledAt("held");
    expect(settledAt).toBeDefined();
    expect(settledAt! - Date.now()).toBeGreaterThan(TAKEOVER_SETTLE_MS - 5_000);
    expect(held[0]!.gone).toBe(false); // A is frozen: its request still waits at the service

    // A runs again: its lease is past its time, so the request is cut before anything else.
    await frozen.advance(TTL);
    expect(await sending).toBeInstanceOf(LeaseLapsedError);
    await until("the service saw A hang up", () => held[0]!.gone, 5_000);
    await until("A stopped the bot", () => hosted.includes("A stops held (lost)"), 5_000);
    // Nothing more leaves A for the bot.
    const again = await heldExecutor("held", send, a)(action, new AbortController().signal).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(NotHeldError);
    expect(held).toHaveLength(1);
    // B's own requests go.
    const fromB = heldExecutor("held", send, b)(action, new AbortController().signal);
    await until("B's request is at the service", () => held.length === 2, 5_000);
    held[1]!.res.end("{}");
    expect(await fromB).toEqual({ result: {} });
  }, 30_000);
});

describe("the requests of many bots held", () => {
  it("are all cut when the heartbeat runs out, whichever bot's first request armed the cut", async () => {
    const bots = Array.from({ length: 50 }, (_, i) => `many${i}`);
    const frozen = createClock({ frozen: true });
    const a = await process_("A", frozen, [], bots, "many:");
    expect(a.bots()).toHaveLength(50);
    // The first bot's request arms the one timer; the others' requests come after it (a flood
    // of mentions over many bots) and are cut by the same timer, at the same time.
    const lapses = [];
    for (const bot of bots) lapses.push(await a.hold(bot, new AbortController().signal));
    expect(lapses.some((l) => l.aborted)).toBe(false);
    // Redis takes no write meanwhile: the renewals the advance steps through hang, as a
    // process cut off from Redis has them (one answered before the advance ends would move
    // the heartbeat on, and the cut with it).
    const admin = await connectRedis(server.url);
    connections.push(admin);
    await admin.client("PAUSE", "60000", "WRITE");
    try {
      await frozen.advance(TTL);
      expect(lapses.filter((l) => l.aborted)).toHaveLength(50);
      for (const l of lapses) expect(l.reason).toBeInstanceOf(LeaseLapsedError);
    } finally {
      await admin.client("UNPAUSE");
    }
  }, 30_000);
});
