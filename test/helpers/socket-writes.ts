/**
 * Counts the writes a Redis connection makes to its socket from now on: each is a system call
 * and a read for Redis, what a command sent alone costs and a pipeline of many costs once.
 * `except` leaves out the writes whose text matches it (another part's commands meanwhile).
 */
import type { Redis, SingleRedis } from "../../src/redis/connect.ts";

export function socketWrites(redis: Redis, except?: RegExp): () => number {
  const stream = (redis as SingleRedis).stream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  let count = 0;
  stream.write = ((...args: unknown[]) => {
    if (!except?.test(String(args[0]))) count++;
    return write(...args);
  }) as typeof stream.write;
  return () => count;
}
