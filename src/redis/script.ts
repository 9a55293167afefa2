/**
 * A Lua script run atomically inside Redis: postbot's check-and-write steps (a lease's
 * fencing check, a budget's check-and-take) are scripts so no other process can act between
 * the check and the write.
 *
 * Sent by SHA (`EVALSHA`) so each call carries only its keys and arguments; when Redis does
 * not know the script (first call, or after a restart emptied its script cache) it is sent
 * once in full (`EVAL`), which also caches it again.
 *
 * On a Redis Cluster a script runs on the node of its keys' slot, and every key it touches
 * must be among its KEYS and in that one slot (./keys.ts names them so); every script made is
 * listed ({@link RedisScript.all}) with how often it ran, so a test can run each on a cluster.
 *
 * @example
 * ```ts
 * const getOr = new RedisScript(`return redis.call('GET', KEYS[1]) or ARGV[1]`);
 * const value = await getOr.run(redis, ["postbot:x"], ["default"]);
 * ```
 */
import { createHash } from "node:crypto";
import type { Redis } from "./connect.ts";

export class RedisScript {
  private static readonly made: RedisScript[] = [];
  /** Every script made in this process (postbot's are made as their modules load). */
  static all(): readonly RedisScript[] {
    return RedisScript.made;
  }

  readonly sha: string;
  /** How many times it was run (answered or not). */
  runs = 0;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
    RedisScript.made.push(this);
  }

  /** Runs the script with `keys` as KEYS and `args` as ARGV; resolves to what it returns. */
  async run<T = unknown>(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<T> {
    this.runs++;
    try {
      return (await redis.evalsha(this.sha, keys.length, ...keys, ...args)) as T;
    } catch (err) {
      if (!/NOSCRIPT/.test(String((err as Error)?.message))) throw err;
      return (await redis.eval(this.source, keys.length, ...keys, ...args)) as T;
    }
  }
}
