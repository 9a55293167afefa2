/**
 * The {@link Store} that several `bot start` processes share: the state in Redis
 * (`--state redis://HOST:PORT/DB`, or a Redis Cluster), with the same synchronous in-memory
 * reads and writes as the file store and an awaited {@link Store.flush} that makes them
 * durable in Redis. Three parts, each its own module:
 *
 * - sharding (./store-sharding.ts): one Redis hash per file of the file store's table
 *   (../store/shards.ts), `postbot:state:bots/greeter`, `postbot:state:accounts/<id>`,
 *   `postbot:state:credentials`... (each in its owner's slot on a cluster), a field per value;
 *   the values read into memory and which changed;
 * - fencing (./store-fencing.ts): with `fencing` given, a bot's hash is read when the process
 *   starts running the bot ({@link RedisStore.hold}) and forgotten when it stops
 *   ({@link RedisStore.drop}); every write to it is fenced by the bot's lease, so a process
 *   that lost the bot has its writes refused, and {@link RedisStore.flushFor} then rejects for
 *   that bot, which is what keeps its ledger from sending; writes to a bot this process does
 *   not hold are dropped;
 * - flushing (./store-flushing.ts): what changed, written shard by shard (everything but the
 *   bots' shards plainly: accounts, tokens, apps, status are shared); while Redis is
 *   unreachable a flush waits, so the ledger's "durable before sending" holds through an outage.
 */
import type { Redis } from "./connect.ts";
import { silentLogger, type Logger } from "../log.ts";
import { FencedError } from "../fencing.ts";
import { redisKeys } from "./keys.ts";
import { scanKeys } from "./scan.ts";
import { botShard, defaultShardRule, type ShardPath } from "../store/shards.ts";
import type { StagedWrite } from "../store/staged-write.ts";
import type { Retention, Store } from "../store/store.ts";
import { BotFences, type Fencing } from "./store-fencing.ts";
import { Flusher } from "./store-flushing.ts";
import { fieldOf, isBotShard, ShardedValues, splitField } from "./store-sharding.ts";
import { allOrEachAlone, turnBatch } from "../turn-batch.ts";

export type { Fencing } from "./store-fencing.ts";

export interface RedisStoreOptions {
  redis: Redis;
  /** Every key starts with it (default `postbot:`). */
  prefix?: string;
  logger?: Logger;
  /** Reads everything, writes nothing (`bot status`). */
  readOnly?: boolean;
  /** Bots' values are read only for held bots and written fenced; see the module comment. */
  fencing?: Fencing;
  /** Whether {@link Store.close} also closes the connection (default: yes). */
  closeConnection?: boolean;
  /** Whether every bot's values are read at open (default: only without `fencing`); `bot auth` needs none. */
  loadBots?: boolean;
}

/** A {@link Store} in Redis; see the module comment. */
export interface RedisStore extends Store {
  readonly redis: Redis;
  /** Reads `bot`'s values from Redis (replacing any in memory): call once its lease is held. */
  hold(bot: string): Promise<void>;
  /** Reads one shared value again from Redis (another process may have written it since). */
  reread(namespace: string, key: string): Promise<void>;
  /** Forgets `bot`'s values in memory, written or not: call once it no longer runs here. */
  drop(bot: string): void;
  /**
   * Like {@link Store.flush}, and rejects with {@link FencedError} when the value's write was
   * refused because its bot's lease was lost: what the ledger awaits before sending.
   */
  flushFor(namespace: string, key: string): Promise<void>;
  /** See {@link Store.flushPartOf}: the value's shard only, after that shard's writes on their way. */
  flushPartOf(namespace: string, key: string): Promise<void>;
  stageFor(namespace: string, key: string): Promise<StagedWrite>;
  /**
   * Gives up writing (Redis is unreachable and the process stops without it): every flush,
   * waiting or new, ends at once; {@link flushFor} and {@link stageFor} reject, so nothing is
   * sent as if recorded. What was not written stays listed by {@link unsaved}.
   */
  abandon(): void;
  /** The changes not written to Redis: how many, per namespace, and the held bots they are of. */
  unsaved(): { changes: number; namespaces: Record<string, number>; bots: string[] };
  /** Round trips to Redis so far (a flush's writes count one per shard). */
  readonly writes: number;
}

/** A {@link RedisStore} over the three parts of it: values by shard, the bots' fences, the flushes. */
class RedisStateStore implements RedisStore {
  private readonly fences: BotFences | undefined;
  private readonly flusher: Flusher;

  constructor(
    readonly redis: Redis,
    private readonly values: ShardedValues,
    fencing: Fencing | undefined,
    log: Logger,
    private readonly options: RedisStoreOptions,
  ) {
    this.fences = fencing ? new BotFences(fencing, log) : undefined;
    this.flusher = new Flusher(redis, values, this.fences, options.readOnly ?? false);
  }

  get writes(): number {
    return this.flusher.writes;
  }

  get<T>(namespace: string, key: string): T | undefined {
    return this.values.spaces.get<T>(namespace, key);
  }
  set(namespace: string, key: string, value: unknown): void {
    this.values.put(namespace, key, value, false);
  }
  adopt(namespace: string, key: string, value: unknown): void {
    this.values.put(namespace, key, value, true);
  }
  delete(namespace: string, key: string): void {
    this.values.delete(namespace, key);
  }
  entries<T>(namespace: string): Array<[string, T]> {
    return this.values.spaces.entries<T>(namespace);
  }
  entriesOf<T>(namespace: string, prefix: string): Array<[string, T]> {
    return this.values.spaces.entriesOf<T>(namespace, prefix);
  }
  retain(namespace: string, retention: Retention): void {
    this.values.spaces.retain(namespace, retention);
  }
  whereIs(namespace: string, key: string): string {
    return `the Redis key ${this.values.hashOf(defaultShardRule(namespace, key))}`;
  }

  flush(): Promise<void> {
    return this.flusher.flush();
  }

  /** A held bot's shard whose writes were refused, or a bot's shard not held here: nothing of it is written. */
  private fenced(shard: ShardPath): boolean {
    return !!this.fences && isBotShard(shard) && !this.fences.writable(shard);
  }

  flushPartOf(namespace: string, key: string): Promise<void> {
    return this.flusher.flushShard(defaultShardRule(namespace, key));
  }

  async flushFor(namespace: string, key: string): Promise<void> {
    const shard = defaultShardRule(namespace, key);
    // Its own shard only: a write of other shards on its way (every bot's status) is not waited for.
    await this.flusher.flushShard(shard);
    if (this.flusher.gaveUp) throw unwritten();
    if (this.fenced(shard)) throw await this.fences!.notHeld(shard);
  }

  async stageFor(namespace: string, key: string): Promise<StagedWrite> {
    if (this.options.readOnly) throw new Error("this store only reads");
    const shard = defaultShardRule(namespace, key);
    this.values.markDirty(namespace, key);
    // A write on its way may carry an older value of this field: ours must reach Redis after it.
    await this.flusher.shardSettled(shard);
    const fence = this.fences && isBotShard(shard) ? await this.fences.fenceOf(shard) : undefined;
    if (this.flusher.gaveUp) throw unwritten();
    // Every change of the shard goes with it (a finished action's record rides on the next mark).
    const fields = this.values.takeShard(shard, fieldOf(namespace, key));
    const ops = this.values.opsOf(shard, fields);
    return {
      ops,
      ...(fence
        ? { fence: { lease: fence.lease, key: fence.key, value: fence.value, heartbeat: fence.heartbeat } }
        : {}),
      done: (failure) => {
        if (failure === undefined) {
          this.flusher.writes++;
          return;
        }
        this.values.redirty(shard, fields);
        if (fence && failure instanceof FencedError) void this.fences!.refusedWith(fence.bot, failure.lease);
      },
    };
  }

  async hold(bot: string): Promise<void> {
    await this.holding.load(bot);
  }

  /**
   * The bots held in one turn (a start holds 64 at a time), their hashes read in one pipeline
   * (../turn-batch.ts); when that fails, each alone, so that one bot's bad key fails that bot.
   */
  private readonly holding = turnBatch<string, undefined>((bots) =>
    allOrEachAlone(bots, async (many) => {
      const shards = many.map(botShard);
      for (const shard of shards) this.values.forgetShard(shard);
      await this.values.load(shards.map((shard) => this.values.hashOf(shard)));
      for (const [i, shard] of shards.entries()) this.fences?.hold(shard, many[i]!);
    }),
  );

  async reread(namespace: string, key: string): Promise<void> {
    await this.rereading.load([namespace, key]);
  }

  /** Values read again in one turn (the status of each bot a start starts), one `HMGET` a hash; see {@link holding}. */
  private readonly rereading = turnBatch<readonly [string, string], undefined>((values) =>
    allOrEachAlone(values, (many) => this.values.rereadMany(many)),
  );

  drop(bot: string): void {
    const shard = botShard(bot);
    this.fences?.drop(shard);
    this.values.forgetShard(shard);
  }

  abandon(): void {
    this.flusher.abandon();
  }

  unsaved(): { changes: number; namespaces: Record<string, number>; bots: string[] } {
    const namespaces: Record<string, number> = {};
    const bots = new Set<string>();
    let changes = 0;
    for (const [shard, fields] of this.values.pending()) {
      const bot = this.fences?.botOf(shard);
      if (this.fences && isBotShard(shard) && !bot) continue; // dropped anyway: not this process's to write
      for (const field of fields) {
        const [namespace] = splitField(field);
        namespaces[namespace] = (namespaces[namespace] ?? 0) + 1;
        changes++;
      }
      if (bot) bots.add(bot);
    }
    return { changes, namespaces, bots: [...bots].sort() };
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      if (this.options.closeConnection ?? true) await this.redis.quit().catch(() => this.redis.disconnect());
    }
  }
}

/** What an abandoned store must not let pass as written. */
const unwritten = () => new Error("not written: Redis is unreachable and this process is stopping without it");

/** Opens the state in Redis and reads it (the shared values; bots' values on {@link RedisStore.hold}). */
export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  const { redis, fencing } = options;
  const keys = redisKeys(redis, options.prefix);
  const readOnly = options.readOnly ?? false;
  const values = new ShardedValues(redis, keys, readOnly);
  const allHashes = await scanKeys(redis, keys.pattern("state:*"));
  const loadBots = options.loadBots ?? (readOnly || !fencing);
  await values.load(loadBots ? allHashes : allHashes.filter((h) => !keys.nameOf(h)?.startsWith("state:bots/")));
  return new RedisStateStore(redis, values, fencing, options.logger ?? silentLogger, options);
}

/**
 * Opens the state in Redis to read it (`bot status`): everything, no writes, with what the
 * processes keep outside the state hashes (the apps' merged status, the monthly read counts:
 * ./app-status.ts) put in; `close()` disconnects.
 */
export async function readRedisState(url: string, source = "--state"): Promise<RedisStore> {
  const [{ connectRedis }, { readSharedStatus }] = await Promise.all([
    import("./connect.ts"),
    import("./app-status.ts"),
  ]);
  const redis = await connectRedis(url, { source, name: "postbot:status" });
  try {
    const store = await openRedisStore({ redis, readOnly: true });
    await readSharedStatus(store, redis);
    return store;
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}
