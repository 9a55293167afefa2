/**
 * Which `bot start` process holds each bot, as Redis says: the pid inside the owner of each
 * bot's lease (`token|host:pid:random`, see src/redis/leases.ts), for tests and benches that
 * run real processes and watch the takeovers.
 */
import type { Redis } from "../../src/redis/connect.ts";

/** Bot name → the pid holding its lease (undefined: nobody); read 1,000 keys at a time. */
export async function leaseHolders(
  redis: Redis,
  names: string[],
  prefix = "postbot:",
): Promise<Map<string, number | undefined>> {
  const values: Array<string | null> = [];
  for (let i = 0; i < names.length; i += 1_000)
    values.push(...(await redis.mget(names.slice(i, i + 1_000).map((n) => `${prefix}lease:bot:${n}`))));
  return new Map(names.map((n, i) => [n, values[i] ? Number(values[i]!.split("|")[1]!.split(":").at(-2)) : undefined]));
}
