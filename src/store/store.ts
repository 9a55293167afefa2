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
export interface Store {
  get<T>(namespace: string, key: string): T | undefined;
  set<T>(namespace: string, key: string, value: T): void;
  delete(namespace: string, key: string): void;
  /** All entries of a namespace, in insertion order. */
  entries<T>(namespace: string): Array<[string, T]>;
  /** Writes everything set so far to durable storage (atomically: all or nothing). */
  flush(): Promise<void>;
  /** Flushes and releases the store. */
  close(): Promise<void>;
}

/** A store that lives only in memory: for tests and `--dry-run`. */
export function createMemoryStore(): Store {
  const spaces = new Map<string, Map<string, unknown>>();
  const space = (ns: string) => {
    let m = spaces.get(ns);
    if (!m) spaces.set(ns, (m = new Map()));
    return m;
  };
  return {
    get: <T>(ns: string, key: string) => spaces.get(ns)?.get(key) as T | undefined,
    set: (ns, key, value) => void space(ns).set(key, structuredClone(value)),
    delete: (ns, key) => void spaces.get(ns)?.delete(key),
    entries: <T>(ns: string) => [...(spaces.get(ns) ?? new Map<string, unknown>())] as Array<[string, T]>,
    flush: async () => {},
    close: async () => {},
  };
}
