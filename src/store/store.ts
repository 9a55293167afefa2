/**
 * postbot's persistent state (cursors, credentials, the action ledger, budget windows,
 * plugins' key-value data) behind one small interface, so the lowdb file store can later
 * be swapped for one shared by several processes.
 *
 * Values live in namespaces (`"credentials"`, `"cursors"`, `"ledger"`, `"kv:greeter"`...).
 * Reads and writes are synchronous and in memory; {@link Store.flush} makes everything
 * written so far durable, so a caller that must not lose a write (the ledger, before it
 * sends a request) awaits it.
 */
import { Namespaces, type Retention } from "./namespaces.ts";
import type { StagedWrite } from "./staged-write.ts";

export type { Retention };

/** The state interface every part of postbot uses; see the module comment. */
export interface Store {
  get<T>(namespace: string, key: string): T | undefined;
  set<T>(namespace: string, key: string, value: T): void;
  /**
   * Like {@link set}, for a value made for the store that its maker never changes afterwards
   * (a budget window's fresh snapshot, 5,000 times for an app's day, stored on every request):
   * kept as it is, without the copy `set` makes. Stores that do not implement it are given
   * such values with {@link set}.
   */
  adopt?<T>(namespace: string, key: string, value: T): void;
  delete(namespace: string, key: string): void;
  /** All entries of a namespace, in insertion order. */
  entries<T>(namespace: string): Array<[string, T]>;
  /**
   * The entries of a namespace whose key starts with `prefix` (one bot's, `<bot>:`), in
   * insertion order, without a copy of the others: a process starting thousands of bots looks
   * for each one's unfinished actions among every bot's. Stores without it are read with
   * {@link entries}.
   */
  entriesOf?<T>(namespace: string, prefix: string): Array<[string, T]>;
  /** Writes everything set so far to durable storage (atomically: all or nothing). */
  flush(): Promise<void>;
  /**
   * Like {@link flushPartOf} (where the store writes its parts apart; like {@link flush}
   * otherwise), and rejects when this value's write was refused: in a store shared by
   * several processes (Redis), a bot's values may be written only by the process holding the
   * bot's lease, and the ledger must not send what it could not record. Stores without such
   * refusals need not implement it (callers fall back to {@link flush}).
   */
  flushFor?(namespace: string, key: string): Promise<void>;
  /**
   * Like {@link flush}, for the part of the store that holds this value only (a bot's own
   * values): it does not wait for the writes of the others (in Redis, every bot's status,
   * written every few seconds in one transaction). Stores that write everything at once need
   * not implement it (callers fall back to {@link flush}).
   */
  flushPartOf?(namespace: string, key: string): Promise<void>;
  /**
   * The write that would make this value durable, for another atomic step to run (see
   * ./staged-write.ts); rejects as {@link flushFor} does when the bot's writes are refused.
   * Stores that cannot hand their writes over do not implement it (callers {@link flushFor}).
   */
  stageFor?(namespace: string, key: string): Promise<StagedWrite>;
  /**
   * Reads one value again from where several processes share it (Redis), replacing the one in
   * memory: for a value another process may have written since this one started (an account
   * signed in through the web on another process). Stores a single process owns need not
   * implement it: what is in memory is all there is.
   */
  reread?(namespace: string, key: string): Promise<void>;
  /**
   * Where a value lives, for messages that send a person to it: the file of the state
   * directory (`.postbot/state/bots/greeter.json`), the Redis key. Stores that cannot say
   * need not implement it.
   */
  whereIs?(namespace: string, key: string): string;
  /** Flushes and releases the store. */
  close(): Promise<void>;
  /**
   * Declares how large a namespace may grow, so that state kept for ever (the action ledger,
   * per-bot data) stays bounded: past `maxEntries`, the oldest-inserted entries that
   * `evictable` allows are dropped. Both built-in stores implement it; a store that does not
   * keeps everything, and owners of a namespace still compact it themselves by age.
   */
  retain?(namespace: string, retention: Retention): void;
}

/** A store that lives only in memory: for tests and `--dry-run`. */
export function createMemoryStore(): Store {
  const spaces = new Namespaces();
  return {
    get: <T>(ns: string, key: string) => spaces.get<T>(ns, key),
    set: (ns, key, value) => spaces.set(ns, key, value),
    adopt: (ns, key, value) => spaces.adopt(ns, key, value),
    delete: (ns, key) => void spaces.delete(ns, key),
    entries: <T>(ns: string) => spaces.entries<T>(ns),
    entriesOf: <T>(ns: string, prefix: string) => spaces.entriesOf<T>(ns, prefix),
    retain: (ns, retention) => spaces.retain(ns, retention),
    flush: async () => {},
    close: async () => {},
  };
}
