/**
 * What the status page shows that no status snapshot holds: each bot's last actions, the
 * latest actions of all bots, and each app's stream connection, kept in memory (bounded) as
 * the runtime reports them, with a subscription for the page's live updates.
 */
import type { ActionSeen, EventSeen, RuntimeObserver, ServiceErrorSeen, StreamSeen } from "./observer.ts";

/** An app's stream connection as last reported. */
export interface StreamState {
  app: string;
  state: "connected" | "reconnecting" | "gave-up";
  /** When it entered this state (ms). */
  since: number;
  cause?: string;
  lastError?: string;
  reconnects: number;
}

/** What changed, for the page's live updates. */
export type Change =
  | { type: "action"; action: ActionSeen }
  | { type: "event"; bot: string }
  | { type: "stream"; stream: StreamState }
  | { type: "bots" };

/** How many actions are kept per bot and for the whole process. */
export const LAST_ACTIONS_PER_BOT = 5;
export const RECENT_ACTIONS = 30;

/** The in-memory record of recent activity; see the module comment. */
export class Activity implements RuntimeObserver {
  private readonly byBot = new Map<string, ActionSeen[]>();
  private readonly latest: ActionSeen[] = [];
  private readonly streamStates = new Map<string, StreamState>();
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
    this.emit({ type: "event", bot: seen.bot });
  }

  serviceError(_seen: ServiceErrorSeen): void {
    // Counted by the metrics; the page shows its effects (failed actions, a paused bot).
  }

  stream(seen: StreamSeen): void {
    if (seen.type === "stream-error") return; // an error line inside a live stream changes no state
    const before = this.streamStates.get(seen.app);
    const state: StreamState = {
      app: seen.app,
      state: seen.type,
      // A report in the same state (a gap recovered while connected) keeps when it was entered.
      since: before?.state === seen.type ? before.since : seen.at,
      reconnects: (before?.reconnects ?? 0) + (seen.type === "reconnecting" ? 1 : 0),
      ...(seen.cause ? { cause: seen.cause } : {}),
      ...(seen.error ? { lastError: seen.error } : before?.lastError ? { lastError: before.lastError } : {}),
    };
    this.streamStates.set(seen.app, state);
    this.emit({ type: "stream", stream: state });
  }

  /** Something changed that the actions and events do not say (a bot paused, the runtime started or stops). */
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

  streams(): StreamState[] {
    return [...this.streamStates.values()];
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
