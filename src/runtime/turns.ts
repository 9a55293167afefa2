/**
 * Whose turn it is among a bot's events of one order key (by default the user an event comes
 * from): one of a key runs at a time, the ones that come meanwhile wait aside, oldest first,
 * and the next of a key takes the first free turn after the one before it ended. The inbox
 * (./inbox.ts) asks it before starting an event and tells it when one ends: plain bookkeeping,
 * in memory, that calls nothing.
 */
import type { BotEvent } from "../triggers/events.ts";

/** The order keys with an event running, and the events waiting aside for them; see the module comment. */
export class Turns {
  /** Keys with an event running now. */
  private readonly busy = new Set<string>();
  /** Events that came while their key's previous one ran, per key, oldest first. */
  private readonly held = new Map<string, BotEvent[]>();
  private heldCount = 0;

  /** Events waiting aside. */
  get size(): number {
    return this.heldCount;
  }

  /** The ids of the events waiting aside. */
  *ids(): Iterable<string> {
    for (const events of this.held.values()) for (const e of events) yield e.id;
  }

  /** Whether `event` may start now (its key is free, and now taken); otherwise it waits aside for its key. */
  take(event: BotEvent, key: string): boolean {
    if (!this.busy.has(key)) {
      this.busy.add(key);
      return true;
    }
    const later = this.held.get(key);
    if (later) later.push(event);
    else this.held.set(key, [event]);
    this.heldCount++;
    return false;
  }

  /** The key's running event ended: the key is free, and its next event waiting aside (if one) comes out to go first. */
  release(key: string): BotEvent | undefined {
    this.busy.delete(key);
    const later = this.held.get(key);
    const next = later?.shift();
    if (!next) return undefined;
    this.heldCount--;
    if (later!.length === 0) this.held.delete(key);
    return next;
  }

  /** Forgets the events waiting aside that the inbox dropped. */
  drop(gone: ReadonlySet<string>): void {
    for (const [key, events] of this.held) {
      const kept = events.filter((e) => !gone.has(e.id));
      this.heldCount -= events.length - kept.length;
      if (kept.length > 0) this.held.set(key, kept);
      else this.held.delete(key);
    }
  }
}
