/**
 * The compiled index of the bot files (../config/compiled-index.ts) in the deployment's Redis,
 * so that `bot start` processes sharing the state share what they parsed of their bot files:
 * one hash of the deployment (its slot on a cluster), compiled key → the file's data. It is a
 * cache: it expires a week after its last write (entries of files changed since go with it),
 * and whatever fails with it costs only the parsing it would have saved.
 *
 * Each process starts loading at its place among the members announced so far (sorted by
 * name): four processes started together each start a quarter of the way further along the
 * files, and parse about a quarter of them.
 */
import type { CompiledIndex } from "../config/compiled-index.ts";
import type { Redis } from "./connect.ts";
import type { Leases } from "./leases.ts";

/** How long the index lasts after its last write. */
const KEEP_MS = 7 * 24 * 3600_000;

/** Fields a command: one command of 100,000 arguments overflowed the client's stack. */
const FIELDS_PER_COMMAND = 1_000;

/** The deployment's bot index for the process `owner` (a member already), starting at its place among the members. */
export async function redisBotIndex(leases: Leases, owner: string): Promise<CompiledIndex> {
  const { redis } = leases;
  const key = leases.keys.deployment("bot-index");
  const members = (await leases.members()).filter((_, i) => i % 2 === 0);
  const names = [...new Set([...members, owner])].sort();
  return {
    start: names.indexOf(owner) / names.length,
    async get(fields) {
      const out: Array<Buffer | null> = [];
      for (let i = 0; i < fields.length; i += FIELDS_PER_COMMAND)
        out.push(...(await redis.hmgetBuffer(key, ...fields.slice(i, i + FIELDS_PER_COMMAND))));
      return out;
    },
    async set(entries) {
      for (let i = 0; i < entries.length; i += FIELDS_PER_COMMAND)
        await hset(redis, key, entries.slice(i, i + FIELDS_PER_COMMAND));
      await redis.pexpire(key, KEEP_MS);
    },
  };
}

function hset(redis: Redis, key: string, entries: ReadonlyArray<readonly [string, Buffer]>): Promise<number> {
  return redis.hset(key, ...entries.flatMap(([field, value]) => [field, value]));
}
