/**
 * The compiled index of the bot files (../config/compiled-index.ts) in the deployment's Redis,
 * so that `bot start` processes sharing the state share what they parsed of their bot files:
 * one hash of the deployment (its slot on a cluster), compiled key → the file's data. It is a
 * cache: it expires a week after its last write (entries of files changed since go with it),
 * and whatever fails with it costs only the parsing it would have saved.
 */
import type { CompiledIndex } from "../config/compiled-index.ts";
import type { Redis } from "./connect.ts";
import type { RedisKeys } from "./keys.ts";

/** How long the index lasts after its last write. */
const KEEP_MS = 7 * 24 * 3600_000;

/** Fields a command: one command of 100,000 arguments overflowed the client's stack. */
const FIELDS_PER_COMMAND = 1_000;

/** The deployment's index of its bot files, in the Redis of `keys`. */
export function redisBotIndex(redis: Redis, keys: RedisKeys): CompiledIndex {
  const key = keys.deployment("bot-index");
  return {
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
