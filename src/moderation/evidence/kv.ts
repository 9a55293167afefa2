/**
 * The key-value state moderation keeps per bot (an author's hides, a conversation's starter,
 * review items and decisions): the shape of the plugin API's `BotStore`, named here because
 * this folder imports nothing above the base. Values must be JSON.
 */
export interface KeyValue {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
  delete(key: string): void;
}

/**
 * A bounded map kept as one value of a {@link KeyValue} (so it needs no listing of keys): at
 * most `max` entries, the least recently written dropped first. For small per-bot facts
 * (an author's hides, a conversation's starter) that must survive a restart.
 */
export class BoundedRecord<T> {
  constructor(
    private readonly kv: KeyValue,
    private readonly key: string,
    private readonly max: number,
  ) {}

  private all(): Record<string, T> {
    return this.kv.get<Record<string, T>>(this.key) ?? {};
  }

  get(id: string): T | undefined {
    const all = this.all();
    return Object.hasOwn(all, id) ? all[id] : undefined;
  }

  set(id: string, value: T): void {
    const all = this.all();
    delete all[id];
    all[id] = value;
    const ids = Object.keys(all);
    for (const old of ids.slice(0, Math.max(0, ids.length - this.max))) delete all[old];
    this.kv.set(this.key, all);
  }

  /** Every entry, oldest written first. */
  entries(): Array<[string, T]> {
    return Object.entries(this.all());
  }
}
