/**
 * Every key matching a pattern, read with SCAN (a few keys at a time, never blocking Redis as
 * KEYS would with a deployment's thousands of keys).
 */
import type { Redis } from "ioredis";

/** The keys matching `pattern` (a glob, as SCAN's MATCH takes it), each once (SCAN may return a key twice). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  for (let cursor = "0"; ; ) {
    const [next, found] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    keys.push(...found);
    cursor = next;
    if (cursor === "0") return [...new Set(keys)];
  }
}
