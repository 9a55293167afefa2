/**
 * The shared state on a real Redis Cluster (three masters started by the test,
 * test/helpers/redis-cluster.ts): a script or a transaction whose keys are in two hash slots
 * is refused there (CROSSSLOT, or ioredis's own check before it sends), so running every
 * script postbot has against it shows each keeps to one slot. Each module's work for many
 * bots at once (renewals, reads of leases, sweeps of handoff streams) goes by slot; a bot's
 * keys are in one slot, an app's in another.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { FencedError } from "../../src/fencing.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { connectRedis, type Cluster, type Redis } from "../../src/redis/connect.ts";
import { redisDynamicBots } from "../../src/redis/dynamic-bots.ts";
import { readAppStatus, AppStatusParts } from "../../src/redis/app-status.ts";
import { redisKeys } from "../../src/redis/keys.ts";
import { Leases } from "../../src/redis/leases.ts";
import { redisPendingFlows } from "../../src/redis/pending-flows.ts";
import { RedisScript } from "../../src/redis/script.ts";
import { readMonthlyCounts, RedisWindows } from "../../src/redis/shared-windows.ts";
import { SharedStreams } from "../../src/redis/shared-streams.ts";
import { openRedisStore, readRedisState } from "../../src/redis/store.ts";
import { handoffKeys, handoffState, HandoffReader, HandoffWriter } from "../../src/redis/stream-handoff.ts";
import { readStreamMark, StreamMarkWriter, streamMarkKey } from "../../src/redis/stream-marks.ts";
import { handing } from "../helpers/handoff.ts";
import { startRedisCluster, type RedisCluster } from "../helpers/redis-cluster.ts";
import { until } from "../helpers/until.ts";
import { claimsOf } from "../helpers/claims.ts";

let cluster: RedisCluster;
let redis: Redis;
beforeAll(async () => {
  cluster = await startRedisCluster();
  redis = await connectRedis(cluster.url);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await cluster?.close();
});

const START = Date.parse("2026-03-02T12:00:00Z");
const MIN15 = 15 * 60_000;
const mention = (n: number): BotEvent =>
  ({
    kind: "mention",
    id: `mention:${n}`,
    post: { id: String(n), text: "@g hi", author_id: "9", conversation_id: String(n), edit_history_post_ids: [] },
    author: { id: "9", name: "Crowd", username: "crowd" },
  }) as unknown as BotEvent;

/** The slot of each key, as the cluster computes it. */
const slots = async (keys: string[]) =>
  new Set(await Promise.all(keys.map(async (k) => Number(await redis.cluster("KEYSLOT", k)))));

describe("the shared state on a Redis Cluster", () => {
  it("runs every script postbot has; each keeps to one slot (a cluster refuses any other)", async () => {
    const before = new Map(RedisScript.all().map((s) => [s, s.runs]));
    const clock = createClock({ frozen: true, start: START });
    const leases = new Leases(redis);
    const keys = redisKeys(redis);

    // Leases, the members and the bot claims: 40 bots over many slots, renewed and read by slot.
    const bots = Array.from({ length: 40 }, (_, i) => `bot${i}`);
    const claims = claimsOf({ redis, leases, owner: "P1", bots, clock });
    await claims.announce();
    // The live members, as a process counts them for its share of the apps' streams.
    expect(await leases.liveMembers("P1")).toEqual({ live: 1 });
    const held = await Promise.all(bots.map((b) => leases.claim(`bot:${b}`, "P1", 60_000)));
    expect(held.every((l) => l !== undefined)).toBe(true);
    expect(
      await leases.renewAll(
        held.map((l) => l!),
        60_000,
      ),
    ).toEqual(bots.map(() => true));
    expect(await leases.renew(held[0]!, 60_000)).toBe(true);
    expect((await leases.holder("bot:bot1"))?.owner).toBe("P1");
    expect(await leases.release(held[1]!)).toBe(true);
    expect(await leases.claim("bot:bot2", "P2", 60_000)).toBeUndefined();
    await claims.stop();
    // An app's stream lease, with its own ttl.
    const stream = (await leases.claim("stream:app1", "P1", 60_000))!;
    expect(await leases.renewAll([stream], 60_000)).toEqual([true]);
    expect(await leases.release(stream)).toBe(true);

    // The store: a held bot's values written fenced, shared values plainly, a mark staged with a slot.
    const lease = (await leases.claim("bot:g", "P1", 60_000))!;
    const store = await openRedisStore({
      redis,
      closeConnection: false,
      fencing: { leases, current: async () => lease, refused: () => {} },
    });
    await store.hold("g");
    store.set("kv:g", "count", 1);
    store.set("credentials", "x", { token: "t" });
    store.set("budget.usage", "app1", { periodStart: 1, posts: 2 });
    await store.flush();
    store.set("ledger", "g:reply:p1", { state: "pending" });
    const write = await store.stageFor("ledger", "g:reply:p1");
    const windows = new RedisWindows(redis);
    const claim = [
      { key: "POST /2/posts|a:app1|15m", windowMs: MIN15, allowed: 100 },
      { key: "POST /2/posts|u:100|15m", windowMs: MIN15, allowed: 50 },
      { key: "cap|g|reply|3600000ms", windowMs: 3_600_000, allowed: 10 },
    ];
    const taken = await windows.take(claim, ["POST /2/posts|u:100", "POST /2/posts|a:app1"], START, write);
    expect(taken.ok).toBe(true);
    await store.reread("ledger", "g:reply:p1");
    expect(store.get("ledger", "g:reply:p1")).toEqual({ state: "pending" });
    // A stale holder's staged write is refused, and nothing of its take stays counted.
    const stale = { ...lease };
    await leases.claim("bot:g", "P1", 60_000);
    const other = await openRedisStore({
      redis,
      closeConnection: false,
      fencing: { leases, current: async () => stale, refused: () => {} },
    });
    await other.hold("g");
    other.set("ledger", "g:reply:p2", { state: "pending" });
    await expect(
      windows.take(claim, [], START + 1, await other.stageFor("ledger", "g:reply:p2")),
    ).rejects.toBeInstanceOf(FencedError);
    expect(await windows.used(claim[0]!.key, MIN15, START + 2)).toBe(1);
    // The other windows' operations; an app window with no room gives back what the others took.
    if (taken.ok) await windows.retime(claim[1]!.key, START, START + 10, taken.member);
    await windows.retime(claim[0]!.key, START, START + 10);
    expect(await windows.correct(claim[1]!.key, MIN15, 50, 40, START + 20)).toBe(9);
    await windows.forget(claim[1]!.key, START + 20);
    await windows.pause("POST /2/posts|a:app1", START + 1_000, START + 20);
    const full = await windows.take([{ ...claim[0]!, allowed: 1 }, claim[1]!], [], START + 30);
    expect(full).toMatchObject({ ok: false, binding: claim[0]!.key });
    expect(await windows.used(claim[1]!.key, MIN15, START + 30)).toBe(9);
    expect(await windows.countReads("app1", { start: 7, end: START + 1e9 }, 5, START)).toBe(5);
    expect((await readMonthlyCounts(redis)).get("app1")).toEqual({ periodStart: 7, posts: 5 });
    // The move of the taken slot waits a moment to go with another script; the batch's own goes then.
    await new Promise((r) => setTimeout(r, 100));

    // The stream handoff: entries and bells, a sweep by slot, acknowledgements fenced by the bot's lease.
    const handled: string[] = [];
    const reader = new HandoffReader({
      redis,
      appId: "app1",
      consumer: "P1",
      clock,
      log: silentLogger,
      ...handing(async (_bot, entry) => void handled.push(entry.events[0]!.id)),
      acknowledge: async (_bot, commands) => {
        const h = (await leases.holder("bot:g"))!;
        await leases.fenced({ name: "bot:g", owner: h.owner, token: h.token }, commands);
      },
    });
    reader.start();
    const writer = new HandoffWriter(redis, "app1");
    await writer.send("g", { kind: "mentions", events: [mention(1)] });
    await reader.own(["g", ...bots.slice(0, 5)]);
    await writer.control("connected");
    expect(await handoffState(redis, "app1")).toBe("connected");
    await reader.sweep();
    await until(
      "the entry handled and acknowledged",
      async () => handled.includes("mention:1") && (await redis.xlen(handoffKeys("app1", keys).bot("g"))) === 0,
    );
    await reader.close();

    // The directory of the app's bots, the stream mark, the status parts.
    const streams = new SharedStreams({
      redis,
      leases,
      owner: "P1",
      clock,
      log: silentLogger,
      appOf: new Map([["g", "app1"]]),
      describe: () => [["g", { userId: "100", username: "g", rules: [], mentions: true }]],
      startHub: () => {
        throw new Error("no hub here");
      },
      onControl: () => {},
    });
    await streams.host("g", { userId: "100", username: "g", rules: [], mentions: true });
    expect(await redis.hlen(handoffKeys("app1", keys).directory)).toBe(1);
    await streams.forget("g", "app1");
    expect(await redis.hlen(handoffKeys("app1", keys).directory)).toBe(0);
    // The bots it can describe, published at once by the process that starts the app's hub
    // (its first reading of the directory lists none of them).
    const none = { lists: () => false };
    await (streams as unknown as { publishKnown(appId: string, view: typeof none): Promise<boolean> }).publishKnown(
      "app1",
      none,
    );
    expect(await redis.hlen(handoffKeys("app1", keys).directory)).toBe(1);
    await streams.forget("g", "app1");
    // Which process has the app's connection open: said by its hub's connection, unsaid once closed.
    await redis.set(handoffKeys("app1", keys).connection, "P1");
    await (streams as unknown as { connectionClosed(appId: string): Promise<void> }).connectionClosed("app1");
    expect(await redis.exists(handoffKeys("app1", keys).connection)).toBe(0);
    await streams.close();
    const streamLease = (await leases.claim("stream:app1", "P1", 60_000))!;
    const marks = new StreamMarkWriter(leases, streamMarkKey(keys, "app1"), () => streamLease, silentLogger);
    marks.save({ at: START, until: START, id: "5" });
    await marks.settled();
    expect((await readStreamMark(redis, "postbot:", "app1", silentLogger))?.id).toBe("5");
    const parts = new AppStatusParts(redis, "postbot:", "P1");
    const part = { appId: "app1", plan: "pro" as const, bots: 1, capacity: [], updatedAt: START };
    await parts.publish([part, { ...part, appId: "app2" }], 60_000);
    expect((await readAppStatus(redis)).map((a) => a.appId).sort()).toEqual(["app1", "app2"]);
    await parts.withdraw();
    expect(await readAppStatus(redis)).toEqual([]);

    // The fleet, sign-ins in progress, and `bot status` reading it all.
    const fleet = redisDynamicBots(redis);
    await fleet.put({ name: "dyn", yaml: "name: dyn\n", origin: "api", by: "t", createdAt: START, updatedAt: START });
    await fleet.setPause("dyn", { reason: "test", by: "t", at: START });
    expect((await fleet.pauses()).has("dyn")).toBe(true);
    expect(await fleet.remove("dyn")).toBe(true);
    const flows = redisPendingFlows<string>(redis, clock);
    await flows.put("k", "v", START + 60_000);
    expect(await flows.take("k")).toBe("v");
    const status = await readRedisState(cluster.url);
    expect(status.get("credentials", "x")).toEqual({ token: "t" });
    expect(status.get("kv:g", "count")).toBe(1);
    await status.close();
    await store.close();
    await other.close();

    // Every script ran here, on the cluster.
    const idle = RedisScript.all().filter((s) => s.runs === (before.get(s) ?? 0));
    expect(idle.map((s) => s.source.trim().split("\n")[0])).toEqual([]);
  });

  it("keeps a bot's keys in one slot and an app's in one; many bots' keys spread over every master", async () => {
    const keys = redisKeys(redis);
    const leases = new Leases(redis);
    const greeter = [
      leases.key("bot:greeter"),
      keys.bot("greeter", "fence:bot:greeter"),
      keys.bot("greeter", "state:bots/greeter"),
      handoffKeys("app1", keys).bot("greeter"),
    ];
    expect((await slots(greeter)).size).toBe(1);
    const app = [
      leases.key("stream:app1"),
      ...Object.values(handoffKeys("app1", keys)).filter((k): k is string => typeof k === "string"),
      streamMarkKey(keys, "app1"),
    ];
    expect((await slots(app)).size).toBe(1);
    // 300 bots' leases: on every master, none with more than half of them.
    const ranges = await redis.cluster("SLOTS");
    const perMaster = new Map<number, number>();
    for (const slot of await Promise.all(
      Array.from({ length: 300 }, async (_, i) => Number(await redis.cluster("KEYSLOT", leases.key(`bot:spread${i}`)))),
    )) {
      const port = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
      perMaster.set(port, (perMaster.get(port) ?? 0) + 1);
    }
    expect(perMaster.size).toBe(3);
    expect(Math.max(...perMaster.values())).toBeLessThan(150);
  });

  it("renews one heartbeat per slot bucket a process holds bots in, each in its bucket's slot, not each bot's lease", async () => {
    const commands = async () => {
      let calls = 0;
      for (const node of (redis as Cluster).nodes("master")) {
        const info = await node.info("commandstats");
        for (const m of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== "info") calls += Number(m[2]);
      }
      return calls;
    };
    const clock = createClock({ frozen: true, start: START });
    const leases = new Leases(redis, { prefix: "beats:" });
    const bots = Array.from({ length: 200 }, (_, i) => `hb${i}`);
    const claims = claimsOf({ redis, leases, owner: "P1", bots, clock });
    const beats = [...new Set(bots.map((b) => leases.heartbeatKey({ name: `bot:${b}`, owner: "P1" })))];
    try {
      await claims.start();
      expect(claims.bots()).toHaveLength(200);
      // One heartbeat a bucket, in the slot of that bucket's bots' claims.
      expect(beats.length).toBeGreaterThan(100);
      for (const b of bots.slice(0, 10))
        expect(
          await slots([leases.key(`bot:${b}`), leases.heartbeatKey({ name: `bot:${b}`, owner: "P1" })]),
        ).toHaveProperty("size", 1);
      const renewal = async () => {
        await clock.advance(3_000);
        await until("the renewal done", () => claims["renewedAt"] === clock.now() && !claims["claiming"]);
      };
      for (let i = 0; i < 3; i++) await renewal(); // settled: no look for free bots in the next renewal
      const before = await commands();
      await renewal();
      // A SET a heartbeat and the membership's script: no command per bot beyond that.
      // (200 bots in 182 buckets: 189 commands; each bot's GET and PEXPIRE made 582 before.)
      expect((await commands()) - before).toBeLessThanOrEqual(beats.length + 12);
      expect(Math.min(...(await Promise.all(beats.map((k) => redis.pttl(k)))))).toBeGreaterThan(6_000);
    } finally {
      await claims.stop();
    }
    // Stopped: its claims given back and its heartbeats gone.
    expect(await Promise.all(beats.map((k) => redis.exists(k)))).toEqual(beats.map(() => 0));
  });
});
