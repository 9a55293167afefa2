/**
 * What the status page shows that no status snapshot holds: each bot's last actions and the
 * latest actions of all bots, kept in memory (bounded) as the runtime reports them, with a
 * subscription for the page's live updates: what changed (an action, an event, a wait, a
 * pause, a stream's connection), so open pages refetch what they show at once. States
 * (a stream's connection, paused bots) are read from the runtime's status, not kept here.
 */
import type {
  ActionSeen,
  EventSeen,
  FleetChange,
  PauseSeen,
  ResponseSeen,
  RuntimeObserver,
  ServiceErrorSeen,
  StreamSeen,
  WaitSeen,
} from "../hosting/observer.ts";

/** What changed, for the page's live updates. */
export type Change =
  | { type: "action"; action: ActionSeen }
  /** Something of one bot changed: an event handled, a wait for budget began, it paused. */
  | { type: "bot"; bot: string }
  /** An app's stream connected or dropped. */
  | { type: "stream"; app: string }
  | { type: "bots" };

/** How many actions are kept per bot and for the whole process. */
export const LAST_ACTIONS_PER_BOT = 5;
export const RECENT_ACTIONS = 30;

/** The in-memory record of recent activity; see the module comment. */
export class Activity implements RuntimeObserver {
  private readonly byBot = new Map<string, ActionSeen[]>();
  private readonly latest: ActionSeen[] = [];
  private readonly listeners = new Set<(change: Change) => void>();

  action(seen: ActionSeen): void {
    const list = this.byBot.get(seen.bot) ?? [];
    list.unshift(seen);
    list.length = Math.min(list.length, LAST_ACTIONS_PER_BOT);
    this.byBot.set(seen.bot, list);
    this.latest.unshift(seen);
    this.latest.length = Math.min(this.latest.length, RECENT_ACTIONS);
    this.emit({ type: "action", action: seen });
  }

  event(seen: EventSeen): void {
    this.emit({ type: "bot", bot: seen.bot });
  }

  waiting(seen: WaitSeen): void {
    this.emit({ type: "bot", bot: seen.bot });
  }

  paused(seen: PauseSeen): void {
    this.emit({ type: "bot", bot: seen.bot });
  }

  /** A bot came, went, or changed: every page may show it (a new row, one less). */
  fleet(_seen: FleetChange): void {
    this.emit({ type: "bots" });
  }

  serviceError(_seen: ServiceErrorSeen): void {
    // Counted by the metrics; the page shows its effects (failed actions, a paused bot).
  }

  response(_seen: ResponseSeen): void {
    // Counted by the metrics.
  }

  stream(seen: StreamSeen): void {
    if (seen.type === "stream-error") return; // an error line inside a live stream changes no state
    this.emit({ type: "stream", app: seen.app });
  }

  /** Every bot may have changed (the runtime started or stops). */
  botsChanged(): void {
    this.emit({ type: "bots" });
  }

  /** A bot's last actions, newest first. */
  lastActions(bot: string): readonly ActionSeen[] {
    return this.byBot.get(bot) ?? [];
  }

  /** The latest actions of every bot, newest first. */
  recent(): readonly ActionSeen[] {
    return this.latest;
  }

  /** Calls `fn` with every change until the returned function is called. */
  subscribe(fn: (change: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: Change): void {
    for (const fn of this.listeners) {
      try {
        fn(change);
      } catch {
        // A listener (one page's connection) must not break the runtime's reporting.
      }
    }
  }
}
