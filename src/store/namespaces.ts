/**
 * The in-memory heart of every `Store` (./store.ts): values by namespace and key, in insertion
 * order, with the retention each namespace declares. The memory store is just this; the
 * file store is this plus the files it is saved to, so both behave the same in tests.
 */

/** How large a namespace may grow; see `Store.retain` (./store.ts). */
export interface Retention {
  /** The most entries the namespace keeps (when enough of them are evictable). */
  maxEntries: number;
  /** Whether an entry may be dropped (default: all may); an unfinished ledger entry may not. */
  evictable?: (value: unknown, key: string) => boolean;
}

/** Namespaced values in insertion order, with per-namespace retention. */
export class Namespaces {
  private readonly spaces = new Map<string, Map<string, unknown>>();
  private readonly retention = new Map<string, Retention>();

  /**
   * @param onEvict told of every entry a retention rule drops, so a store that keeps more
   *   than values (the file store: which file an entry is in) forgets it too.
   */
  constructor(private readonly onEvict?: (namespace: string, key: string) => void) {}

  has(namespace: string, key: string): boolean {
    return this.spaces.get(namespace)?.has(key) ?? false;
  }

  get<T>(namespace: string, key: string): T | undefined {
    return this.spaces.get(namespace)?.get(key) as T | undefined;
  }

  set(namespace: string, key: string, value: unknown): void {
    let map = this.spaces.get(namespace);
    if (!map) this.spaces.set(namespace, (map = new Map()));
    // A clone, so a caller mutating its object later cannot change what was stored
    // without a `set` (which would skip the write that makes it durable).
    map.set(key, cloneOf(value));
    this.enforce(namespace, map);
  }

  /**
   * Like {@link set} without the copy, for a value nobody else holds (just parsed from a
   * file): loading 10,000 bots' state need not copy it all once more.
   */
  adopt(namespace: string, key: string, value: unknown): void {
    let map = this.spaces.get(namespace);
    if (!map) this.spaces.set(namespace, (map = new Map()));
    map.set(key, value);
    this.enforce(namespace, map);
  }

  delete(namespace: string, key: string): boolean {
    return this.spaces.get(namespace)?.delete(key) ?? false;
  }

  entries<T>(namespace: string): Array<[string, T]> {
    return [...(this.spaces.get(namespace) ?? [])] as Array<[string, T]>;
  }

  /** See `Store.entriesOf` (./store.ts). */
  entriesOf<T>(namespace: string, prefix: string): Array<[string, T]> {
    const out: Array<[string, T]> = [];
    for (const [key, value] of this.spaces.get(namespace) ?? [])
      if (key.startsWith(prefix)) out.push([key, value as T]);
    return out;
  }

  retain(namespace: string, retention: Retention): void {
    if (!(retention.maxEntries >= 0)) throw new RangeError(`retention of ${namespace}: maxEntries must be >= 0`);
    this.retention.set(namespace, retention);
    const map = this.spaces.get(namespace);
    if (map) this.enforce(namespace, map);
  }

  /** Drops the oldest evictable entries until the namespace is within its limit. */
  private enforce(namespace: string, map: Map<string, unknown>): void {
    const rule = this.retention.get(namespace);
    if (!rule || map.size <= rule.maxEntries) return;
    let excess = map.size - rule.maxEntries;
    for (const [key, value] of map) {
      if (excess <= 0) break;
      if (rule.evictable && !rule.evictable(value, key)) continue;
      map.delete(key);
      this.onEvict?.(namespace, key);
      excess--;
    }
  }
}

/**
 * A deep copy. A budget window (an array of up to 10,000 timestamps, set on every request)
 * is copied with `slice`, many times faster than `structuredClone`.
 */
function cloneOf(value: unknown): unknown {
  if (Array.isArray(value) && allNumbers(value)) return value.slice();
  return structuredClone(value);
}

function allNumbers(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== "number") return false;
  return true;
}
