/**
 * A store that reads another and keeps its own writes in memory, over what it read: for
 * `--dry-run`, whose ledger and budgets must start from the real state (an action sent
 * already is a duplicate, not one that "would be sent"; a window spent is spent) and must
 * never change it, whatever store the real state is in.
 */
import { Namespaces } from "./namespaces.ts";
import type { Store } from "./store.ts";

/** `base` read, never written: see the module comment. */
export function overlayStore(base: Store): Store {
  const written = new Namespaces();
  /** Keys deleted here that `base` still has. */
  const deleted = new Map<string, Set<string>>();
  const gone = (ns: string, key: string) => deleted.get(ns)?.has(key) ?? false;
  const undelete = (ns: string, key: string) => deleted.get(ns)?.delete(key);
  return {
    get: <T>(ns: string, key: string) =>
      written.has(ns, key) ? written.get<T>(ns, key) : gone(ns, key) ? undefined : base.get<T>(ns, key),
    set(ns, key, value) {
      written.set(ns, key, value);
      undelete(ns, key);
    },
    adopt(ns, key, value) {
      written.adopt(ns, key, value);
      undelete(ns, key);
    },
    delete(ns, key) {
      written.delete(ns, key);
      let keys = deleted.get(ns);
      if (!keys) deleted.set(ns, (keys = new Set()));
      keys.add(key);
    },
    /** `base`'s entries in its order, with the values written here, then those only written here. */
    entries<T>(ns: string): Array<[string, T]> {
      const mine = new Map(written.entries<T>(ns));
      const out: Array<[string, T]> = [];
      for (const [key, value] of base.entries<T>(ns)) {
        if (mine.has(key)) {
          out.push([key, mine.get(key)!]);
          mine.delete(key);
        } else if (!gone(ns, key)) out.push([key, value]);
      }
      return [...out, ...mine];
    },
    // Bounds what is written here; `base` keeps its own.
    retain: (ns, retention) => written.retain(ns, retention),
    flush: async () => {},
    close: async () => {},
  };
}
