/**
 * The Redis store's values (./store.ts) by shard: which Redis hash holds each shard of the
 * state (one hash per file of the file store's table, ../store/shards.ts), the values of the
 * shards read into memory, and which of them changed since they were last written.
 *
 * A hash is `<prefix>state:<shard>` (`postbot:state:bots/greeter`, `postbot:state:credentials`);
 * on a Redis Cluster it carries its owner's tag (`postbot:{b417}:state:bots/greeter`: ./keys.ts),
 * so a bot's hash is in the slot of its lease, which a fenced write checks in the same script.
 * A field per value (`<namespace>\0<key>`) holds `[sequence, value]` as JSON: the sequence keeps
 * a namespace's insertion order across processes, which retention's "oldest first" needs.
 */
import { UserError } from "../errors.ts";
import { keyError } from "./key-error.ts";
import { Namespaces } from "../store/namespaces.ts";
import { defaultShardRule, type ShardPath } from "../store/shards.ts";
import type { Redis } from "./connect.ts";
import type { RedisKeys } from "./keys.ts";

const SEP = "\u0000";

/** A value's field in its shard's hash. */
export const fieldOf = (namespace: string, key: string) => `${namespace}${SEP}${key}`;

/** A field's namespace and key. */
export function splitField(field: string): [namespace: string, key: string] {
  const cut = field.indexOf(SEP);
  return [field.slice(0, cut), field.slice(cut + 1)];
}

/** Whether a shard holds one bot's values (written only by the holder of the bot's lease). */
export const isBotShard = (shard: ShardPath) => shard.startsWith("bots/");

/** The Redis hash of a shard, in its owner's slot on a cluster. */
export function shardHash(keys: RedisKeys, shard: ShardPath): string {
  const name = `state:${shard.replace(/\.json$/, "")}`;
  const slash = shard.indexOf("/");
  const owner = slash < 0 ? "" : shard.slice(slash + 1).replace(/\.json$/, "");
  if (shard.startsWith("bots/")) return keys.bot(owner, name);
  if (shard.startsWith("accounts/")) return keys.user(owner, name);
  if (shard.startsWith("apps/")) return keys.app(owner, name);
  return keys.deployment(name);
}

/** One command bringing a shard's hash up to date: `["HSET", hash, field, json, ...]`. */
export type ShardOp = [string, ...string[]];

/**
 * The most fields one HSET or HDEL of a flush names; a shard with more changes is written by
 * several: a bot's in the same fenced script, so still at once; a shared shard's in transactions
 * of at most as many fields (./store-flushing.ts), sent together in order. A shared shard holds a field
 * per account (100,000 of them at the largest deployment measured): one command for them all
 * would be a call with 200,000 arguments, past what a JavaScript call can take.
 */
const FIELDS_PER_COMMAND = 1_000;

/** The values read into memory, by shard, and what changed; see the module comment. */
export class ShardedValues {
  readonly spaces = new Namespaces((namespace, key) => {
    this.untrack(namespace, key);
    this.markDirty(namespace, key);
  });
  /** Field sequence numbers (first insertion), for the order of a namespace across processes. */
  private readonly seqs = new Map<string, number>();
  /** The fields in memory of each shard, so a bot's can be forgotten without a scan of all. */
  private readonly fieldsOf = new Map<ShardPath, Set<string>>();
  private lastSeq = 0;
  /** Changed fields since the last write, by shard. */
  private dirty = new Map<ShardPath, Set<string>>();

  constructor(
    private readonly redis: Redis,
    readonly keys: RedisKeys,
    private readonly readOnly: boolean,
  ) {}

  hashOf(shard: ShardPath): string {
    return shardHash(this.keys, shard);
  }

  private track(namespace: string, key: string, seq: number): void {
    const field = fieldOf(namespace, key);
    if (this.seqs.has(field)) return;
    this.seqs.set(field, seq);
    const shard = defaultShardRule(namespace, key);
    let set = this.fieldsOf.get(shard);
    if (!set) this.fieldsOf.set(shard, (set = new Set()));
    set.add(field);
  }

  untrack(namespace: string, key: string): void {
    const field = fieldOf(namespace, key);
    if (!this.seqs.delete(field)) return;
    this.fieldsOf.get(defaultShardRule(namespace, key))?.delete(field);
  }

  private nextSeq(): number {
    return (this.lastSeq = Math.max(this.lastSeq + 1, Date.now() * 1000));
  }

  /** Notes a value as changed (to be written at the next flush). */
  markDirty(namespace: string, key: string): void {
    if (this.readOnly) return;
    this.redirty(defaultShardRule(namespace, key), [fieldOf(namespace, key)]);
  }

  /** Puts fields back among the changes (taken for a write that did not happen). */
  redirty(shard: ShardPath, fields: Iterable<string>): void {
    let set = this.dirty.get(shard);
    if (!set) this.dirty.set(shard, (set = new Set()));
    for (const f of fields) set.add(f);
  }

  /** Sets a value in memory (a copy, or with `adopt` the value itself: Store.adopt) and marks it to be written. */
  put(namespace: string, key: string, value: unknown, adopt: boolean): void {
    if (!this.seqs.has(fieldOf(namespace, key))) this.track(namespace, key, this.nextSeq());
    if (adopt) this.spaces.adopt(namespace, key, value);
    else this.spaces.set(namespace, key, value);
    this.markDirty(namespace, key);
  }

  delete(namespace: string, key: string): void {
    this.untrack(namespace, key);
    if (this.spaces.delete(namespace, key)) this.markDirty(namespace, key);
  }

  /** A value read from Redis, put in memory as it is there. */
  private adopt(namespace: string, key: string, seq: number, value: unknown): void {
    this.untrack(namespace, key);
    this.track(namespace, key, seq);
    this.lastSeq = Math.max(this.lastSeq, seq);
    this.spaces.adopt(namespace, key, value);
  }

  /** Reads hashes into memory, in the order of their sequence numbers. */
  async load(hashes: readonly string[]): Promise<void> {
    const replies = await this.readHashes(hashes);
    const rows: Array<[number, string, string, unknown]> = [];
    for (const [i, fields] of replies.entries()) {
      for (const [field, text] of Object.entries(fields)) {
        const [seq, value] = valueOf(hashes[i]!, field, field.includes(SEP) ? text : undefined);
        rows.push([seq, ...splitField(field), value]);
      }
    }
    rows.sort((a, b) => a[0] - b[0]);
    for (const [seq, namespace, key, value] of rows) this.adopt(namespace, key, seq, value);
  }

  /** Every field of each hash: one pipeline on one Redis; on a cluster one command each (a pipeline there must keep to one node). */
  private async readHashes(hashes: readonly string[]): Promise<Array<Record<string, string>>> {
    if (this.keys.cluster)
      return await Promise.all(
        hashes.map((hash) =>
          this.redis.hgetall(hash).catch((err: unknown) => {
            throw keyError(err, hash);
          }),
        ),
      );
    const pipeline = this.redis.pipeline();
    for (const hash of hashes) pipeline.hgetall(hash);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, fields], i) => {
      if (err) throw keyError(err, hashes[i]);
      return fields as Record<string, string>;
    });
  }

  /** Reads one value again from Redis (another process may have written it since). */
  async reread(namespace: string, key: string): Promise<void> {
    await this.rereadMany([[namespace, key]]);
  }

  /** Reads values again from Redis: one `HMGET` a hash (a start rereads the status of each bot it starts, all in one hash). */
  async rereadMany(values: ReadonlyArray<readonly [namespace: string, key: string]>): Promise<void> {
    const byHash = new Map<string, Array<readonly [string, string]>>();
    for (const value of values) {
      const hash = this.hashOf(defaultShardRule(...value));
      const asked = byHash.get(hash);
      if (asked) asked.push(value);
      else byHash.set(hash, [value]);
    }
    await Promise.all(
      [...byHash].map(async ([hash, asked]) => {
        const fields = asked.map(([namespace, key]) => fieldOf(namespace, key));
        const texts = await this.redis.hmget(hash, ...fields).catch((err: unknown) => {
          throw keyError(err, hash);
        });
        for (const [i, [namespace, key]] of asked.entries())
          this.adoptRead(hash, namespace, key, fields[i]!, texts[i]!);
      }),
    );
  }

  /** One value read again (`text`: what Redis has, `null` when nothing). */
  private adoptRead(hash: string, namespace: string, key: string, field: string, text: string | null): void {
    const parsed = text === null ? undefined : valueOf(hash, field, text);
    if (!parsed) {
      this.untrack(namespace, key);
      this.spaces.delete(namespace, key);
      return;
    }
    this.adopt(namespace, key, parsed[0], parsed[1]);
  }

  /** Removes every in-memory value of a shard (and its unwritten changes). */
  forgetShard(shard: ShardPath): void {
    this.dirty.delete(shard);
    for (const field of this.fieldsOf.get(shard) ?? []) {
      this.seqs.delete(field);
      this.spaces.delete(...splitField(field));
    }
    this.fieldsOf.delete(shard);
  }

  /** The Redis commands that bring one shard's changed fields up to date. */
  opsOf(shard: ShardPath, fields: Iterable<string>): ShardOp[] {
    const hash = this.hashOf(shard);
    const sets: string[] = [];
    const dels: string[] = [];
    for (const field of fields) {
      const [namespace, key] = splitField(field);
      if (this.spaces.has(namespace, key))
        sets.push(field, JSON.stringify([this.seqs.get(field) ?? this.nextSeq(), this.spaces.get(namespace, key)]));
      else dels.push(field);
    }
    const ops: ShardOp[] = [];
    for (let at = 0; at < sets.length; at += FIELDS_PER_COMMAND * 2)
      ops.push(["HSET", hash, ...sets.slice(at, at + FIELDS_PER_COMMAND * 2)]);
    for (let at = 0; at < dels.length; at += FIELDS_PER_COMMAND)
      ops.push(["HDEL", hash, ...dels.slice(at, at + FIELDS_PER_COMMAND)]);
    return ops;
  }

  /** Every change since the last call, by shard (taken: put back with {@link redirty} if not written). */
  takeDirty(): Map<ShardPath, Set<string>> {
    const batch = this.dirty;
    this.dirty = new Map();
    return batch;
  }

  /** One shard's changes (taken), or `field` alone when it has none noted. */
  takeShard(shard: ShardPath, field: string): Set<string> {
    const fields = this.dirty.get(shard) ?? new Set([field]);
    this.dirty.delete(shard);
    return fields;
  }

  /** One shard's changes (taken), if it has any. */
  takeShardChanges(shard: ShardPath): Set<string> | undefined {
    const fields = this.dirty.get(shard);
    this.dirty.delete(shard);
    return fields;
  }

  /** The changes not written yet, by shard. */
  pending(): ReadonlyMap<ShardPath, ReadonlySet<string>> {
    return this.dirty;
  }
}

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
