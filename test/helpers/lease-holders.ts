/**
 * Which `bot start` process holds each bot, as Redis says: the pid inside the owner of each
 * bot's live claim (`token|host:pid:random`, see src/redis/bot-leases.ts), for tests and benches that
 * run real processes and watch the takeovers. On one Redis or a Redis Cluster alike.
 */
import type { Redis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";

/** Bot name → the pid holding its lease (undefined: nobody). */
export async function leaseHolders(
  redis: Redis,
  names: string[],
  prefix = "postbot:",
): Promise<Map<string, number | undefined>> {
  const leases = new Leases(redis, { prefix });
  // Live claims only: a claim whose process's heartbeat ran out (it died, or hangs) is nobody's.
  const { live: values } = await leases.bots.holders(names);
  return new Map(names.map((n, i) => [n, values[i] ? Number(values[i]!.split("|")[1]!.split(":").at(-2)) : undefined]));
}
