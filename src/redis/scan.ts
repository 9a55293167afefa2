/**
 * Every key matching a pattern, read with SCAN (a few keys at a time, never blocking Redis as
 * KEYS would with a deployment's thousands of keys). On a Redis Cluster each master is
 * scanned: SCAN only sees the keys of the node it runs on.
 */
import type { Cluster, Redis, SingleRedis } from "./connect.ts";

/** The keys matching `pattern` (a glob, as SCAN's MATCH takes it), each once (SCAN may return a key twice). */
export async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const nodes = redis.isCluster ? (redis as Cluster).nodes("master") : [redis as SingleRedis];
  const keys: string[] = [];
  for (const node of nodes) {
    for (let cursor = "0"; ; ) {
      const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      keys.push(...found);
      cursor = next;
      if (cursor === "0") break;
    }
  }
  return [...new Set(keys)];
}
