/**
 * The names of postbot's keys in Redis, and on a Redis Cluster the hash slot each lives in.
 *
 * On one Redis (`redis://`, `unix://`) a key is the deployment's prefix and its name:
 * `postbot:lease:bot:greeter`, `postbot:state:bots/greeter`, as they always were.
 *
 * On a Redis Cluster (`redis+cluster://`) a script or a transaction may only touch keys of one
 * hash slot, and the slot of a key is that of its hash tag (the text between its first `{`
 * and the next `}`). So every key carries a tag that says whose it is, after the prefix:
 *
 * | owner | tag | keys |
 * |---|---|---|
 * | a bot | `{b<bucket>}` | its claim and fence, the heartbeat of each process holding bots of the bucket, its state hash, its handoff stream, its caps' windows |
 * | an account | `{u<bucket>}` | its windows and pauses, its state hash |
 * | an app | `{a:<app id>}` | its stream lease and who asks for it, handoff bell, directory and state, stream mark, windows, pauses, read counts, status parts, state hash |
 * | the deployment | `{d}` | the members, the fleet, sign-ins in progress, the shared state hashes, the bot files' index |
 *
 * e.g. `postbot:{b417}:lease:bot:greeter` and `postbot:{b417}:state:bots/greeter`. A bot's
 * bucket is a hash of its name into {@link BUCKETS} buckets: every key of a bot is in its
 * bucket's slot (so a fenced write, which checks the bot's claim and its holder's heartbeat
 * and writes its state in one script, touches one slot), and what a process does for many bots
 * at once (renewing its heartbeats, reading their handoff streams) goes to Redis as one command
 * per bucket rather than one per bot. 1,024 buckets spread the bots over a cluster's masters within a few per cent,
 * and over as many as 1,024 masters.
 */
import type { Redis } from "./connect.ts";

/** How many slot buckets bots' (and accounts') keys are spread over on a cluster. Fixed: it is in every key's name. */
export const BUCKETS = 1024;

/** postbot's key prefix when none is given: two deployments may share one Redis with two prefixes. */
export const DEFAULT_PREFIX = "postbot:";

/** The key names of one deployment; see the module comment. */
export interface RedisKeys {
  readonly prefix: string;
  /** Whether keys carry hash tags (the Redis is a cluster). */
  readonly cluster: boolean;
  /** A key of bot `bot` (in its bucket's slot on a cluster). */
  bot(bot: string, name: string): string;
  /** A key of the account (user id) `user`. */
  user(user: string, name: string): string;
  /** A key of app `app` (its own slot on a cluster). */
  app(app: string, name: string): string;
  /** A key of the whole deployment. */
  deployment(name: string): string;
  /** The SCAN pattern of this deployment's keys whose name matches `glob`, whatever their slot. */
  pattern(glob: string): string;
  /** A key's name without its prefix and tag (`undefined`: not one of this deployment's). */
  nameOf(key: string): string | undefined;
  /** Which slot a key is in, as far as keys go together: its tag ('' on one Redis, where every key goes with every other). */
  slotOf(key: string): string;
}

/** FNV-1a of a name, into {@link BUCKETS}. */
export function bucketOf(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

/** The key names for `redis` (tagged when it is a cluster) under `prefix`. */
export function redisKeys(redis: Pick<Redis, "isCluster">, prefix = DEFAULT_PREFIX): RedisKeys {
  return keyLayout(redis.isCluster, prefix);
}

const layouts = new Map<string, RedisKeys>();

/** {@link redisKeys} by whether the Redis is a cluster (shared: one layout per prefix and kind). */
export function keyLayout(cluster: boolean, prefix = DEFAULT_PREFIX): RedisKeys {
  const id = `${cluster ? "c" : "s"}${prefix}`;
  let layout = layouts.get(id);
  if (!layout) layouts.set(id, (layout = cluster ? tagged(prefix) : plain(prefix)));
  return layout;
}

function plain(prefix: string): RedisKeys {
  const key = (name: string) => `${prefix}${name}`;
  return {
    prefix,
    cluster: false,
    bot: (_bot, name) => key(name),
    user: (_user, name) => key(name),
    app: (_app, name) => key(name),
    deployment: key,
    pattern: (glob) => `${prefix}${glob}`,
    nameOf: (k) => (k.startsWith(prefix) ? k.slice(prefix.length) : undefined),
    slotOf: () => "",
  };
}

function tagged(prefix: string): RedisKeys {
  const key = (tag: string, name: string) => `${prefix}{${tag}}:${name}`;
  return {
    prefix,
    cluster: true,
    bot: (bot, name) => key(`b${bucketOf(bot)}`, name),
    user: (user, name) => key(`u${bucketOf(user)}`, name),
    app: (app, name) => key(`a:${app}`, name),
    deployment: (name) => key("d", name),
    pattern: (glob) => `${prefix}{*}:${glob}`,
    nameOf(k) {
      if (!k.startsWith(`${prefix}{`)) return undefined;
      const close = k.indexOf("}:", prefix.length);
      return close < 0 ? undefined : k.slice(close + 2);
    },
    slotOf(k) {
      const open = k.indexOf("{");
      const close = open < 0 ? -1 : k.indexOf("}", open + 1);
      return close > open + 1 ? k.slice(open + 1, close) : k;
    },
  };
}

/** Items grouped by the slot of their key (one group on one Redis), each group in the items' order. */
export function bySlot<T>(keys: RedisKeys, items: readonly T[], keyOf: (item: T) => string): T[][] {
  if (!keys.cluster) return items.length > 0 ? [[...items]] : [];
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const slot = keys.slotOf(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}

/** The values of many keys (in their order), `MGET` by slot and at most 1,000 keys a command. */
export async function getMany(redis: Redis, keys: RedisKeys, names: readonly string[]): Promise<Array<string | null>> {
  const at = new Map(names.map((name, i) => [name, i]));
  const out: Array<string | null> = new Array(names.length).fill(null);
  const reads: Array<Promise<void>> = [];
  for (const group of bySlot(keys, names, (k) => k)) {
    for (let i = 0; i < group.length; i += 1_000) {
      const some = group.slice(i, i + 1_000);
      reads.push(
        redis.mget(some).then((values) => {
          for (const [j, value] of values.entries()) out[at.get(some[j]!)!] = value;
        }),
      );
    }
  }
  await Promise.all(reads);
  // A name given twice got its value once, at its last place: copy it to the others.
  if (at.size < names.length) for (const [i, name] of names.entries()) out[i] = out[at.get(name)!] ?? null;
  return out;
}
