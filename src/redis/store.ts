/**
 * The {@link Store} that several `bot start` processes share: the state in Redis
 * (`--state redis://HOST:PORT/DB`), with the same synchronous in-memory reads and writes as
 * the file store and an awaited {@link Store.flush} that makes them durable in Redis.
 *
 * Layout: one Redis hash per file of the file store's table (shards.ts), `postbot:state:bots/greeter`,
 * `postbot:state:accounts/<id>`, `postbot:state:credentials`...; a field per value
 * (`<namespace>\0<key>`), holding `[sequence, value]` as JSON (the sequence keeps the
 * namespace's insertion order, which retention's "oldest first" needs).
 *
 * Who may write a bot's values: only the process that holds the bot's lease (./bot-claims.ts). With
 * `fencing` given, a bot's hash is read when the process starts running the bot
 * ({@link RedisStore.hold}) and forgotten when it stops ({@link RedisStore.drop}); every write to
 * it is a fenced write carrying the lease's token, so a process that lost the lease (another
 * took the bot over) has its writes refused, nothing of them applied. A refusal is checked
 * first ({@link Fencing.verify}): a lease that only ran out while Redis hung, with nobody
 * claiming it since, is claimed again and the write goes again with it. Otherwise
 * {@link RedisStore.flushFor} then rejects for that bot, which is what keeps its ledger from
 * sending; other bots' flushes go on. Writes to a bot this process does not hold are dropped. Everything else (accounts,
 * tokens, apps, status) is shared and written plainly, field by field.
 *
 * While Redis is unreachable a flush simply waits (the client queues its commands), so the
 * ledger's "durable before sending" holds through an outage.
 */
import type { Redis } from "ioredis";
import { silentLogger, type Logger } from "../log.ts";
import { FencedError, type Lease } from "../fencing.ts";
import type { Leases } from "./leases.ts";
import { Namespaces } from "../store/namespaces.ts";
import { scanKeys } from "./scan.ts";
import { botShard, defaultShardRule, type ShardPath } from "../store/shards.ts";
import type { StagedWrite } from "../store/staged-write.ts";
import type { Retention, Store } from "../store/store.ts";
import { UserError } from "../errors.ts";
import { keyError } from "./key-error.ts";

/** Which lease fences each bot's writes (the process's bot claims provide it). */
export interface Fencing {
  leases: Leases;
  /**
   * The lease this process holds for `bot` now, or `undefined` when it does not hold the bot.
   * May wait while the claims are being checked again (after Redis came back).
   */
  current(bot: string): Promise<Lease | undefined>;
  /**
   * A write of `bot` carrying `lease` was refused by its fence: the lease this process holds
   * for it now, checked with Redis (claimed again if it ran out while nobody else claimed it,
   * as after Redis hung), or `undefined` when another process holds it. Without it, the
   * refusal stands.
   */
  verify?(bot: string, lease: Lease): Promise<Lease | undefined>;
  /** A write of `bot` was refused: another process holds it now. Stop running it here. */
  refused(bot: string): void;
}

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

const SEP = "\u0000";
/** How many times a bot's write refused by its fence goes again with a lease claimed anew before the bot is given up. */
const FENCED_RETRIES = 3;
const fieldOf = (namespace: string, key: string) => `${namespace}${SEP}${key}`;

/**
 * A field's value as postbot writes it (`[sequence, value]` in JSON), or a {@link UserError}
 * naming the key, the field and how to remove it (`text` undefined: a field not of postbot's form).
 */
function valueOf(hash: string, field: string, text: string | undefined): [number, unknown] {
  let parsed: unknown;
  try {
    parsed = text === undefined ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "number")
    throw new UserError(
      `Redis key ${hash} field ${JSON.stringify(field.replace(SEP, " "))} is not a postbot value; remove it (redis-cli HDEL ${hash} <field>) and start again`,
    );
  return parsed as [number, unknown];
}

/** Opens the state in Redis and reads it (the shared values; bots' values on {@link RedisStore.hold}). */
export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  const { redis, fencing } = options;
  const prefix = options.prefix ?? "postbot:";
  const log = options.logger ?? silentLogger;
  const readOnly = options.readOnly ?? false;
  const hashOf = (shard: ShardPath) => `${prefix}state:${shard.replace(/\.json$/, "")}`;
  const isBotShard = (shard: ShardPath) => shard.startsWith("bots/");

  /** Field sequence numbers (first insertion), for the order of a namespace across processes. */
  const seqs = new Map<string, number>();
  /** The fields in memory of each shard, so a bot's can be forgotten without a scan of all. */
  const fieldsOf = new Map<ShardPath, Set<string>>();
  const track = (namespace: string, key: string, seq: number) => {
    const field = fieldOf(namespace, key);
    if (seqs.has(field)) return;
    seqs.set(field, seq);
    const shard = defaultShardRule(namespace, key);
    let set = fieldsOf.get(shard);
    if (!set) fieldsOf.set(shard, (set = new Set()));
    set.add(field);
  };
  const untrack = (namespace: string, key: string) => {
    const field = fieldOf(namespace, key);
    if (!seqs.delete(field)) return;
    fieldsOf.get(defaultShardRule(namespace, key))?.delete(field);
  };
  let lastSeq = 0;
  const nextSeq = () => (lastSeq = Math.max(lastSeq + 1, Date.now() * 1000));
  /** Changed fields since the last flush, by shard. */
  let dirty = new Map<ShardPath, Set<string>>();
  /** Bots held here, by their shard. */
  const heldShards = new Map<ShardPath, string>();
  /** Bots whose writes were refused since they were last held. */
  const lost = new Set<string>();
  let writes = 0;

  const markDirty = (namespace: string, key: string) => {
    if (readOnly) return;
    const shard = defaultShardRule(namespace, key);
    let set = dirty.get(shard);
    if (!set) dirty.set(shard, (set = new Set()));
    set.add(fieldOf(namespace, key));
  };
  const spaces = new Namespaces((namespace, key) => {
    untrack(namespace, key);
    markDirty(namespace, key);
  });

  /** Reads hashes into memory, in the order of their sequence numbers. */
  const load = async (hashes: string[]) => {
    const pipeline = redis.pipeline();
    for (const hash of hashes) pipeline.hgetall(hash);
    const replies = (await pipeline.exec()) ?? [];
    const rows: Array<[number, string, string, unknown]> = [];
    for (const [i, [err, fields]] of replies.entries()) {
      if (err) throw keyError(err, hashes[i]);
      for (const [field, text] of Object.entries(fields as Record<string, string>)) {
        const cut = field.indexOf(SEP);
        const [seq, value] = valueOf(hashes[i]!, field, cut < 0 ? undefined : text);
        rows.push([seq, field.slice(0, cut), field.slice(cut + 1), value]);
      }
    }
    rows.sort((a, b) => a[0] - b[0]);
    for (const [seq, namespace, key, value] of rows) {
      untrack(namespace, key);
      track(namespace, key, seq);
      lastSeq = Math.max(lastSeq, seq);
      spaces.adopt(namespace, key, value);
    }
  };

  const allHashes = await scanKeys(redis, `${prefix}state:*`);
  const loadBots = options.loadBots ?? (readOnly || !fencing);
  await load(loadBots ? allHashes : allHashes.filter((h) => !h.startsWith(`${prefix}state:bots/`)));

  /** Removes every in-memory value of a shard (and its unwritten changes). */
  const forgetShard = (shard: ShardPath) => {
    dirty.delete(shard);
    for (const field of fieldsOf.get(shard) ?? []) {
      const cut = field.indexOf(SEP);
      seqs.delete(field);
      spaces.delete(field.slice(0, cut), field.slice(cut + 1));
    }
    fieldsOf.delete(shard);
  };

  /** The Redis commands that bring one shard's changed fields up to date. */
  const opsOf = (shard: ShardPath, fields: Set<string>) => {
    const hash = hashOf(shard);
    const sets: string[] = [];
    const dels: string[] = [];
    for (const field of fields) {
      const cut = field.indexOf(SEP);
      const namespace = field.slice(0, cut);
      const key = field.slice(cut + 1);
      if (spaces.has(namespace, key))
        sets.push(field, JSON.stringify([seqs.get(field) ?? nextSeq(), spaces.get(namespace, key)]));
      else dels.push(field);
    }
    const ops: Array<[string, ...string[]]> = [];
    if (sets.length > 0) ops.push(["HSET", hash, ...sets]);
    if (dels.length > 0) ops.push(["HDEL", hash, ...dels]);
    return ops;
  };

  /** Sets a value in memory (a copy, or with `adopt` the value itself: Store.adopt) and marks it to be written. */
  const put = (namespace: string, key: string, value: unknown, adopt: boolean) => {
    if (!seqs.has(fieldOf(namespace, key))) track(namespace, key, nextSeq());
    if (adopt) spaces.adopt(namespace, key, value);
    else spaces.set(namespace, key, value);
    markDirty(namespace, key);
  };

  /** A write of `bot` was refused by its lease's fence: nothing more of it is written here, and it stops running here. */
  const refuse = (bot: string) => {
    if (lost.has(bot)) return;
    lost.add(bot);
    log.warn(
      { bot },
      `bot ${bot}: another process runs it now (its lease was lost); this process's writes for it are refused`,
    );
    fencing?.refused(bot);
  };

  /** Bots whose refused write is being checked ({@link Fencing.verify}): their writes wait for the answer. */
  const verifying = new Map<string, Promise<void>>();
  /**
   * A write of `bot` carrying `lease` was refused: asks the claims whether the bot is still
   * this process's (its lease may only have run out while Redis hung) and refuses the bot's
   * writes from now on only when it is not. Resolves once decided.
   */
  const refusedWith = (bot: string, lease: Lease): Promise<void> => {
    const running = verifying.get(bot);
    if (running) return running;
    if (!fencing?.verify) {
      refuse(bot);
      return Promise.resolve();
    }
    const check = fencing
      .verify(bot, lease)
      .then(
        (now) => {
          if (!now || now.token === lease.token) refuse(bot);
        },
        () => refuse(bot),
      )
      .finally(() => verifying.delete(bot));
    verifying.set(bot, check);
    return check;
  };
  /** The lease fencing `bot`'s writes now, once any refused write of it has been checked. */
  const leaseOf = async (bot: string): Promise<Lease | undefined> => {
    for (let check = verifying.get(bot); check; check = verifying.get(bot)) await check;
    return lost.has(bot) ? undefined : await fencing?.current(bot);
  };

  /** Puts fields taken for a write that did not happen back among the changes. */
  const redirty = (shard: ShardPath, fields: Iterable<string>) => {
    let set = dirty.get(shard);
    if (!set) dirty.set(shard, (set = new Set()));
    for (const f of fields) set.add(f);
  };

  /** The refusal of a write for a bot not held here (or lost). */
  const notHeld = async (bot: string | undefined, shard: ShardPath) => {
    const lease = bot && fencing ? await fencing.current(bot) : undefined;
    return new FencedError(lease ?? { name: `bot:${bot ?? shard}`, owner: "this process", token: 0 });
  };

  /** One shard's write: fenced for a held bot, dropped for a bot not held, plain otherwise. */
  const writeShard = async (shard: ShardPath, fields: Set<string>) => {
    const ops = opsOf(shard, fields);
    if (ops.length === 0) return;
    if (fencing && isBotShard(shard)) {
      const bot = heldShards.get(shard);
      if (!bot || lost.has(bot)) return;
      for (let attempt = 0; ; attempt++) {
        const lease = await leaseOf(bot);
        if (!lease || heldShards.get(shard) !== bot) return;
        try {
          writes++;
          await fencing.leases.fenced(lease, ops);
          return;
        } catch (err) {
          if (!(err instanceof FencedError)) throw keyError(err, hashOf(shard));
          // The claims may claim it again (its lease ran out while Redis hung, nobody took it):
          // then the write goes again with the new lease; a few times at most.
          if (attempt >= FENCED_RETRIES) {
            refuse(bot);
            return;
          }
          await refusedWith(bot, lease);
        }
      }
    }
    writes++;
    const multi = redis.multi();
    for (const [command, ...args] of ops) multi.call(command, ...args);
    const replies =
      (await multi.exec().catch((err: unknown) => {
        throw keyError(err, hashOf(shard));
      })) ?? [];
    for (const [err] of replies) if (err) throw keyError(err, hashOf(shard));
  };

  const writeOnce = async () => {
    if (dirty.size === 0) return;
    const batch = dirty;
    dirty = new Map();
    try {
      await Promise.all([...batch].map(([shard, fields]) => writeShard(shard, fields)));
    } catch (err) {
      // Not written: keep them for the next flush.
      for (const [shard, fields] of batch) redirty(shard, fields);
      throw err;
    }
  };

  // Flushes are serialized; a flush asked while one runs waits for it and then writes
  // everything changed by then (a burst of flushes costs two writes, not one each).
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  // Once abandoned (RedisStore.abandon), flushes end at once, writing nothing.
  let isAbandoned = false;
  let abandoned = () => {};
  const abandonedNow = new Promise<void>((resolve) => (abandoned = resolve));
  const flush = (): Promise<void> => {
    if (readOnly || isAbandoned) return Promise.resolve();
    if (queued) return queued;
    const run = tail.then(() => {
      queued = undefined;
      return writeOnce();
    });
    queued = Promise.race([run, abandonedNow]);
    tail = run.catch(() => undefined);
    return queued;
  };
  /** What an abandoned store must not let pass as written. */
  const unwritten = () => new Error("not written: Redis is unreachable and this process is stopping without it");

  return {
    redis,
    get writes() {
      return writes;
    },
    get: <T>(namespace: string, key: string) => spaces.get<T>(namespace, key),
    set: (namespace, key, value) => put(namespace, key, value, false),
    adopt: (namespace, key, value) => put(namespace, key, value, true),
    delete(namespace, key) {
      untrack(namespace, key);
      if (spaces.delete(namespace, key)) markDirty(namespace, key);
    },
    entries: <T>(namespace: string) => spaces.entries<T>(namespace),
    whereIs: (namespace, key) => `the Redis key ${hashOf(defaultShardRule(namespace, key))}`,
    retain: (namespace: string, retention: Retention) => spaces.retain(namespace, retention),
    flush,
    async flushFor(namespace, key) {
      await flush();
      if (isAbandoned) throw unwritten();
      const shard = defaultShardRule(namespace, key);
      const bot = fencing && isBotShard(shard) ? heldShards.get(shard) : undefined;
      if (fencing && isBotShard(shard) && (!bot || lost.has(bot))) throw await notHeld(bot, shard);
    },
    async stageFor(namespace, key) {
      if (readOnly) throw new Error("this store only reads");
      const shard = defaultShardRule(namespace, key);
      markDirty(namespace, key);
      // A flush on its way may carry an older value of this field: ours must reach Redis after it.
      await tail;
      let fence: { lease: Lease; key: string; value: string } | undefined;
      const bot = fencing && isBotShard(shard) ? heldShards.get(shard) : undefined;
      if (fencing && isBotShard(shard)) {
        const lease = bot && !lost.has(bot) ? await leaseOf(bot) : undefined;
        if (!bot || !lease || lost.has(bot) || heldShards.get(shard) !== bot) throw await notHeld(bot, shard);
        fence = { lease, key: fencing.leases.key(lease.name), value: fencing.leases.value(lease) };
      }
      if (isAbandoned) throw unwritten();
      // Every change of the shard goes with it (a finished action's record rides on the next mark).
      const fields = dirty.get(shard) ?? new Set([fieldOf(namespace, key)]);
      dirty.delete(shard);
      const ops = opsOf(shard, fields).map(([command, ...args]) => [command, ...args.map(String)] as const);
      return {
        ops,
        ...(fence ? { fence } : {}),
        done(failure) {
          if (failure === undefined) {
            writes++;
            return;
          }
          redirty(shard, fields);
          if (bot && failure instanceof FencedError) void refusedWith(bot, failure.lease);
        },
      };
    },
    async hold(bot) {
      const shard = botShard(bot);
      forgetShard(shard);
      lost.delete(bot);
      await load([hashOf(shard)]);
      heldShards.set(shard, bot);
    },
    async reread(namespace, key) {
      const field = fieldOf(namespace, key);
      const hash = hashOf(defaultShardRule(namespace, key));
      const text = await redis.hget(hash, field).catch((err: unknown) => {
        throw keyError(err, hash);
      });
      const parsed = text === null ? undefined : valueOf(hash, field, text);
      untrack(namespace, key);
      if (!parsed) {
        spaces.delete(namespace, key);
        return;
      }
      track(namespace, key, parsed[0]);
      lastSeq = Math.max(lastSeq, parsed[0]);
      spaces.adopt(namespace, key, parsed[1]);
    },
    drop(bot) {
      const shard = botShard(bot);
      heldShards.delete(shard);
      forgetShard(shard);
    },
    abandon() {
      isAbandoned = true;
      abandoned();
    },
    unsaved() {
      const namespaces: Record<string, number> = {};
      const bots = new Set<string>();
      let changes = 0;
      for (const [shard, fields] of dirty) {
        if (fencing && isBotShard(shard) && !heldShards.has(shard)) continue; // dropped anyway: not this process's to write
        for (const field of fields) {
          const namespace = field.slice(0, field.indexOf(SEP));
          namespaces[namespace] = (namespaces[namespace] ?? 0) + 1;
          changes++;
        }
        const bot = heldShards.get(shard);
        if (bot) bots.add(bot);
      }
      return { changes, namespaces, bots: [...bots].sort() };
    },
    async close() {
      try {
        await flush();
      } finally {
        if (options.closeConnection ?? true) await redis.quit().catch(() => redis.disconnect());
      }
    },
  };
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
