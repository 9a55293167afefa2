/**
 * Flushing the Redis store (./store.ts): what changed in memory since the last flush written
 * to Redis, one shard at a time: a held bot's shard by a write fenced by its lease
 * (./store-fencing.ts), a bot's shard not held here not at all (another process runs it), any
 * other shard (accounts, apps, credentials, status) plainly, in transactions of at most
 * {@link FIELDS_PER_TRANSACTION} fields sent together in order (a shard of fewer changes: one).
 *
 * Flushes are serialized; a flush asked while one runs waits for it and then writes
 * everything changed by then (a burst of flushes costs two writes, not one each). A flush of
 * one shard ({@link Flusher.flushShard}: a bot's ledger mark, its inbox) waits only for the
 * writes of that shard on their way, not for the others': the status of thousands of bots,
 * written every few seconds in one transaction of a megabyte or more, held every mention's
 * ledger mark that came meanwhile (the flood's reply latency tail, every status round). A
 * shard's writes still reach Redis in the order they were taken. While Redis is unreachable
 * a flush simply waits (the client queues its commands), so the ledger's "durable before
 * sending" holds through an outage, unless the process gives up on Redis
 * ({@link Flusher.abandon}): then every flush, waiting or new, ends at once, writing nothing.
 */
import { keyError } from "./key-error.ts";
import type { ShardPath } from "../store/shards.ts";
import type { Redis } from "./connect.ts";
import type { BotFences } from "./store-fencing.ts";
import { isBotShard, type ShardedValues, type ShardOp } from "./store-sharding.ts";

/** The store's writing; see the module comment. */
export class Flusher {
  /** Round trips to Redis so far (a flush's writes count one per shard). */
  writes = 0;
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  /** Each shard's last write on its way (settled: it never rejects), until it ends. */
  private readonly writing = new Map<ShardPath, Promise<void>>();
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

  /** Resolves once every shard's writes on their way have ended. */
  private async allSettled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing.values());
  }

  /** Resolves once the writes of `shard` on their way (if any) have ended, written or not. */
  async shardSettled(shard: ShardPath): Promise<void> {
    for (let w = this.writing.get(shard); w; w = this.writing.get(shard)) await w;
  }

  /**
   * Writes what changed of `shard` (after its writes on their way), not waiting for the other
   * shards' writes; resolves once everything of it changed before the call is in Redis.
   */
  flushShard(shard: ShardPath): Promise<void> {
    if (this.readOnly || this.isAbandoned) return Promise.resolve();
    const run = (async () => {
      await this.shardSettled(shard);
      const fields = this.values.takeShardChanges(shard);
      if (fields) await this.writeInOrder(shard, fields);
    })();
    return Promise.race([run, this.abandonedNow]);
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
    if (batch.size === 0) return await this.allSettled();
    // What a shard's flush took before this one is written too when this one resolves.
    const others = [...this.writing].filter(([shard]) => !batch.has(shard)).map(([, write]) => write);
    // Each shard's write is registered now, with the changes it took (a shard's flush finds them there).
    await Promise.all([...others, ...[...batch].map(([shard, fields]) => this.writeInOrder(shard, fields))]);
  }

  /**
   * Writes `fields` of `shard` once its writes on their way have ended (so they reach Redis in
   * the order they were taken), registered at once as the shard's last write on its way; not
   * written, they are kept for the next flush.
   */
  private writeInOrder(shard: ShardPath, fields: Set<string>): Promise<void> {
    const before = this.writing.get(shard);
    const write = (async () => {
      if (before) await before;
      try {
        await this.writeShard(shard, fields);
      } catch (err) {
        this.values.redirty(shard, fields);
        throw err;
      }
    })();
    const ended = write.then(
      () => undefined,
      () => undefined,
    );
    this.writing.set(shard, ended);
    void ended.then(() => {
      if (this.writing.get(shard) === ended) this.writing.delete(shard);
    });
    return write;
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
    const hash = String(ops[0]![1]);
    // Sent together, in order; each transaction answered (or refused) on its own.
    const sent = transactions(ops).map((some) => {
      const multi = this.redis.multi();
      for (const [command, ...args] of some) multi.call(command, ...args);
      return multi.exec();
    });
    for (const answer of await Promise.allSettled(sent)) {
      if (answer.status === "rejected") throw keyError(answer.reason, hash);
      for (const [err] of answer.value ?? []) if (err) throw keyError(err, hash);
    }
  }
}

/**
 * The most fields one transaction of a plain shard's write carries. Redis runs a
 * transaction's commands all at once, every other client waiting: the status round of a
 * process of 25,000 bots wrote thousands of statuses in one (its first round after the
 * start, every bot's), and each HSET of 1,000 of them was seen taking 5-87 ms in Redis's
 * slowlog with the cores busy, during which no process's mention went on. Split, the other
 * clients' commands run between the transactions.
 */
export const FIELDS_PER_TRANSACTION = 1_000;

/** `ops` in order, grouped into transactions of at most {@link FIELDS_PER_TRANSACTION} fields (an op of more goes alone). */
function transactions(ops: readonly ShardOp[]): ShardOp[][] {
  const out: ShardOp[][] = [];
  let fields = Infinity;
  for (const op of ops) {
    const n = op[0] === "HSET" ? (op.length - 2) / 2 : op.length - 2;
    if (fields + n > FIELDS_PER_TRANSACTION) {
      out.push([]);
      fields = 0;
    }
    out.at(-1)!.push(op);
    fields += n;
  }
  return out;
}
