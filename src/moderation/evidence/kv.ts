/**
 * The key-value state moderation keeps per bot (an author's hides, the judge's verdicts,
 * review items and decisions): the shape of the plugin API's `BotStore`, named here because
 * this folder imports nothing above the base. Values must be JSON.
 */
export interface KeyValue {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
  delete(key: string): void;
}

/**
 * A bounded map kept in a {@link KeyValue}, one key per entry (`PREFIX:ID`), so reading or
 * writing one entry costs one small read or write whatever the size: the state store copies
 * and saves each value written, so one big value rewritten for every reply would cost that
 * reply the whole map. The ids are kept in a ring of `max` slots (`PREFIX#0`...): adding an
 * id past `max` forgets the oldest one's entry. A version (`PREFIX#version`) moves on every
 * write, so a reader that keeps an index in memory knows when to rebuild it.
 */
export class RingRecord<T> {
  constructor(
    private readonly kv: KeyValue,
    private readonly prefix: string,
    private readonly max: number,
  ) {}

  get(id: string): T | undefined {
    return this.kv.get<T>(`${this.prefix}:${id}`);
  }

  set(id: string, value: T): void {
    if (this.get(id) === undefined) {
      const next = this.kv.get<number>(`${this.prefix}#next`) ?? 0;
      const slot = `${this.prefix}#${next % this.max}`;
      const old = this.kv.get<string>(slot);
      if (old !== undefined && old !== id) this.kv.delete(`${this.prefix}:${old}`);
      this.kv.set(slot, id);
      this.kv.set(`${this.prefix}#next`, next + 1);
    }
    this.kv.set(`${this.prefix}:${id}`, value);
    this.kv.set(`${this.prefix}#version`, this.version() + 1);
  }

  /** Moves on every {@link set}. */
  version(): number {
    return this.kv.get<number>(`${this.prefix}#version`) ?? 0;
  }

  /** The ids, most recently added first (at most `max`). */
  ids(): string[] {
    const next = this.kv.get<number>(`${this.prefix}#next`) ?? 0;
    const ids: string[] = [];
    for (let n = next - 1; n >= Math.max(0, next - this.max); n--) {
      const id = this.kv.get<string>(`${this.prefix}#${n % this.max}`);
      if (id !== undefined && this.get(id) !== undefined) ids.push(id);
    }
    return ids;
  }

  /** Every entry, most recently added first. */
  entries(): Array<[string, T]> {
    return this.ids().map((id) => [id, this.get(id)!]);
  }
}
