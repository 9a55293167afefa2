/**
 * Flushing the Redis store (./store.ts): what changed in memory since the last flush written
 * to Redis, one shard at a time: a held bot's shard by a write fenced by its lease
 * (./store-fencing.ts), a bot's shard not held here not at all (another process runs it), any
 * other shard (accounts, apps, credentials, status) plainly, in one transaction.
 *
 * Flushes are serialized; a flush asked while one runs waits for it and then writes
 * everything changed by then (a burst of flushes costs two writes, not one each). While Redis
 * is unreachable a flush simply waits (the client queues its commands), so the ledger's
 * "durable before sending" holds through an outage, unless the process gives up on Redis
 * ({@link Flusher.abandon}): then every flush, waiting or new, ends at once, writing nothing.
 */
import { keyError } from "./key-error.ts";
import type { ShardPath } from "../store/shards.ts";
import type { Redis } from "./connect.ts";
import type { BotFences } from "./store-fencing.ts";
import { isBotShard, type ShardedValues } from "./store-sharding.ts";

/** The store's writing; see the module comment. */
export class Flusher {
  /** Round trips to Redis so far (a flush's writes count one per shard). */
  writes = 0;
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private isAbandoned = false;
  private abandoned = () => {};
  private readonly abandonedNow = new Promise<void>((resolve) => (this.abandoned = resolve));

  constructor(
    private readonly redis: Redis,
    private readonly values: ShardedValues,
    private readonly fences: BotFences | undefined,
    private readonly readOnly: boolean,
  ) {}

  /** Whether the process gave up on Redis ({@link abandon}). */
  get gaveUp(): boolean {
    return this.isAbandoned;
  }

  /** Resolves once the flush on its way (if any) has ended, written or not. */
  settled(): Promise<void> {
    return this.tail;
  }

  /** Writes everything changed so far; see the module comment. */
  flush(): Promise<void> {
    if (this.readOnly || this.isAbandoned) return Promise.resolve();
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = undefined;
      return this.writeOnce();
    });
    this.queued = Promise.race([run, this.abandonedNow]);
    this.tail = run.catch(() => undefined);
    return this.queued;
  }

  /** Gives up writing: every flush, waiting or new, ends at once; what was not written stays among the changes. */
  abandon(): void {
    this.isAbandoned = true;
    this.abandoned();
  }

  private async writeOnce(): Promise<void> {
    const batch = this.values.takeDirty();
    if (batch.size === 0) return;
    try {
      await Promise.all([...batch].map(([shard, fields]) => this.writeShard(shard, fields)));
    } catch (err) {
      // Not written: keep them for the next flush.
      for (const [shard, fields] of batch) this.values.redirty(shard, fields);
      throw err;
    }
  }

  /** One shard's write: fenced for a held bot, dropped for a bot not held, plain otherwise. */
  private async writeShard(shard: ShardPath, fields: Set<string>): Promise<void> {
    const ops = this.values.opsOf(shard, fields);
    if (ops.length === 0) return;
    if (this.fences && isBotShard(shard)) {
      this.writes += await this.fences.write(shard, ops);
      return;
    }
    this.writes++;
    const multi = this.redis.multi();
    for (const [command, ...args] of ops) multi.call(command, ...args);
    const hash = String(ops[0]![1]);
    const replies =
      (await multi.exec().catch((err: unknown) => {
        throw keyError(err, hash);
      })) ?? [];
    for (const [err] of replies) if (err) throw keyError(err, hash);
  }
}
