/**
 * The dynamic bots and pauses of a deployment whose state is in Redis (../store/dynamic-bots.ts):
 * read from Redis at every call, so a bot added or paused by one process (its admin API, its
 * connect flow) is seen by every other. Layout: the hash `<prefix>fleet:bots` (name → the
 * record as JSON), the hash `<prefix>fleet:paused` (name → the pause) and the counter
 * `<prefix>fleet:version`, moved in the same transaction as every change, which is what the
 * processes poll to know when to read the rest.
 */
import type { Redis } from "./connect.ts";
import { redisKeys } from "./keys.ts";
import type { DynamicBot, DynamicBots, FleetPause } from "../store/dynamic-bots.ts";

/** {@link DynamicBots} in Redis, under the deployment's key prefix (default `postbot:`). */
export function redisDynamicBots(redis: Redis, prefix = "postbot:"): DynamicBots {
  // The deployment's keys: one slot on a cluster, so a change and its version go in one transaction.
  const keys = redisKeys(redis, prefix);
  const bots = keys.deployment("fleet:bots");
  const paused = keys.deployment("fleet:paused");
  const version = keys.deployment("fleet:version");
  const exec = async (multi: ReturnType<Redis["multi"]>) => {
    const results = (await multi.exec()) ?? [];
    for (const [err] of results) if (err) throw err;
    return results.map(([, value]) => value);
  };
  return {
    list: async () => Object.values(await redis.hgetall(bots)).map((json) => JSON.parse(json) as DynamicBot),
    async get(name) {
      const json = await redis.hget(bots, name);
      return json === null ? undefined : (JSON.parse(json) as DynamicBot);
    },
    async put(bot) {
      await exec(redis.multi().hset(bots, bot.name, JSON.stringify(bot)).incr(version));
    },
    async remove(name) {
      const [removed] = await exec(redis.multi().hdel(bots, name).hdel(paused, name).incr(version));
      return removed === 1;
    },
    async pauses() {
      const all = await redis.hgetall(paused);
      return new Map(Object.entries(all).map(([name, json]) => [name, JSON.parse(json) as FleetPause]));
    },
    async setPause(name, pause) {
      const multi = redis.multi();
      if (pause) multi.hset(paused, name, JSON.stringify(pause));
      else multi.hdel(paused, name);
      await exec(multi.incr(version));
    },
    version: async () => (await redis.get(version)) ?? "0",
  };
}
