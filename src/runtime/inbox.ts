/**
 * A bot's inbox: events fetched from the service and not yet handled, kept in the state
 * store, and the cursors of the triggers that fetched them. A trigger's events and its
 * cursor's move are written together ({@link Inbox.add}) and made durable by one flush, so a
 * crash can neither lose a fetched event nor fetch it twice; an event leaves the inbox once
 * its handlers have run. On start, what is left is handled first.
 */
import type { Store } from "../store/store.ts";
import { CURSORS_NAMESPACE, type BotEvent, type CursorMove } from "../triggers/events.ts";

/** Events kept at most per bot; past it the oldest are dropped (and reported). */
export const INBOX_LIMIT = 10_000;

/** One bot's inbox; see the module comment. */
export class Inbox {
  private readonly namespace: string;
  /** Events in the store's namespace (counted once, then kept), so adding one is not O(inbox). */
  private size: number | undefined;

  constructor(
    private readonly store: Store,
    bot: string,
  ) {
    this.namespace = inboxNamespace(bot);
  }

  /**
   * Adds events not already waiting, and moves a trigger's cursor with them; does not flush
   * ({@link flush} makes both durable at once). Returns the events added and the ids of any
   * dropped to stay bounded.
   */
  add(events: readonly BotEvent[], cursor?: CursorMove): { added: BotEvent[]; dropped: string[] } {
    const result = events.length > 0 ? this.put(events) : { added: [], dropped: [] };
    if (cursor) {
      if (cursor.value === undefined) this.store.delete(CURSORS_NAMESPACE, cursor.key);
      else this.store.set(CURSORS_NAMESPACE, cursor.key, cursor.value);
    }
    return result;
  }

  private put(events: readonly BotEvent[]): { added: BotEvent[]; dropped: string[] } {
    this.size ??= this.store.entries(this.namespace).length;
    const added = events.filter((e) => this.store.get(this.namespace, e.id) === undefined);
    for (const e of added) this.store.set(this.namespace, e.id, e);
    this.size += added.length;
    if (this.size <= INBOX_LIMIT) return { added, dropped: [] };
    const all = this.store.entries<BotEvent>(this.namespace);
    const dropped = all.slice(0, Math.max(0, all.length - INBOX_LIMIT)).map(([id]) => id);
    for (const id of dropped) this.store.delete(this.namespace, id);
    this.size = all.length - dropped.length;
    return { added, dropped };
  }

  /** A trigger's cursor, as last moved. */
  cursor<T>(key: string): T | undefined {
    return this.store.get<T>(CURSORS_NAMESPACE, key);
  }

  /** Makes what was added (events and cursors) durable. */
  flush(): Promise<void> {
    return this.store.flush();
  }

  /** Whether an event waits here (fetched, not yet handled). */
  has(id: string): boolean {
    return this.store.get(this.namespace, id) !== undefined;
  }

  /** Marks an event handled. */
  done(id: string): void {
    if (this.size !== undefined && this.store.get(this.namespace, id) !== undefined) this.size--;
    this.store.delete(this.namespace, id);
  }

  /** Events waiting, oldest first. */
  pending(): BotEvent[] {
    return this.store.entries<BotEvent>(this.namespace).map(([, e]) => e);
  }
}

/**
 * The events waiting in a bot's inbox, oldest first, read straight from the state: for those
 * that only look (`bot say`, a start's "resumed from" line), so the running bot's {@link Inbox}
 * stays the one object that changes it.
 */
export function waitingEvents(store: Store, bot: string): BotEvent[] {
  return store.entries<BotEvent>(inboxNamespace(bot)).map(([, e]) => e);
}

function inboxNamespace(bot: string): string {
  return `inbox:${bot}`;
}
