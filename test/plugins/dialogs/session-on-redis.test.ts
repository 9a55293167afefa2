/**
 * A session written with a reply, with the state on Redis: it is in the bot's hash together
 * with the reply's pending mark before the request leaves, both written by the one fenced
 * script that takes the request's budget slot (src/plugins/dialogs/durable-scope.ts). On one
 * redis-server and on a Redis Cluster (there the bot's hash and lease share the bot's slot, and
 * the mark goes with the last of the take's scripts, after the app's and the account's windows).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../../src/actions/index.ts";
import { DurableScope, type ScopedRecord } from "../../../src/plugins/dialogs/durable-scope.ts";
import { connectRedis, type Cluster, type Redis } from "../../../src/redis/connect.ts";
import { redisKeys } from "../../../src/redis/keys.ts";
import { shardHash } from "../../../src/redis/store-sharding.ts";
import { Leases } from "../../../src/redis/leases.ts";
import { RedisWindows } from "../../../src/redis/shared-windows.ts";
import { openRedisStore } from "../../../src/redis/store.ts";
import { setup } from "../../actions/helpers.ts";
import { flushAll, startRedisCluster } from "../../helpers/redis-cluster.ts";
import { startRedisServer } from "../../helpers/redis-server.ts";

type Counter = { counter?: { n?: number } };
const SETTINGS = { maxBytes: 200 };

describe.each([
  ["one Redis", startRedisServer],
  ["a Redis Cluster", () => startRedisCluster()],
] as const)("a session written with a reply, on %s", (_, startRedis) => {
  let server: { url: string; close(): Promise<void> };
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedis();
    redis = await connectRedis(server.url);
  }, 60_000);
  afterEach(async () => {
    await flushAll(redis);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.close();
  });

  const inRedis = async (field: string) => {
    const raw = await redis.hget(shardHash(redisKeys(redis), "bots/g.json"), field);
    return raw ? (JSON.parse(raw) as [number, unknown])[1] : undefined;
  };

  it("is in the bot's hash with the pending mark, written by the script that takes the slot", async () => {
    const leases = new Leases(redis);
    const lease = (await leases.claim("bot:g", "P1", 60_000))!;
    const store = await openRedisStore({
      redis,
      closeConnection: false,
      fencing: { leases, current: async () => lease, refused: () => {} },
    });
    await store.hold("g");
    const { system, clock } = setup({ store, sharedWindows: new RedisWindows(redis) });
    const seen: unknown[] = [];
    const layer = system.bot({
      bot: "g",
      account: { appId: "app", userId: "100", plan: "pro" },
      executor: async () => {
        seen.push({
          session: ((await inRedis("session:g\u0000u1")) as ScopedRecord<Counter> | undefined)?.v,
          ledger: ((await inRedis("ledger\u0000g:reply:p1")) as LedgerEntry | undefined)?.state,
        });
        return { result: { data: { id: "9" } } };
      },
    });
    const scope = new DurableScope({ store: layer.store, clock, bot: "g", id: "e1", user: "u1", session: SETTINGS });
    scope.session("counter").n = 1;
    await store.flush();
    expect(await inRedis("session:g\u0000u1")).toBeUndefined();
    const nodes = redis.isCluster ? (redis as Cluster).nodes("master") : [redis];
    const calls = async () => {
      let n = 0;
      for (const node of nodes)
        n += Number(/cmdstat_evalsha:calls=(\d+)/.exec(await node.info("commandstats"))?.[1] ?? 0);
      return n;
    };
    for (const node of nodes) await node.config("RESETSTAT");
    expect(await layer.reply({ id: "p1", author_id: "u1" }, "hello", { rider: scope.rider() })).toMatchObject({
      status: "sent",
    });
    expect(seen).toEqual([{ session: { counter: { n: 1 } }, ledger: "pending" }]);
    // The slot, the mark and the session: one script (on a cluster, one per slot: the app's
    // windows, the account's, then the bot's with the mark).
    expect(await calls()).toBe(redis.isCluster ? 3 : 1);
    system.close();
    await store.close();
  });
});
