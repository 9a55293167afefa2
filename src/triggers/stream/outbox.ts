/**
 * What the hub routed, waiting to be taken: each bot's events as data (a post its own rules
 * matched, or its mentions), and the posts the stream's mark may move past once they are
 * taken. The hub calls no bot: whoever started it pulls ({@link Outbox.take}), commits each
 * bot's events where they go (the bot's inbox in this process, or the handoff to the process
 * that runs it), and then says the batch is taken (`StreamHub.taken`, ../stream-hub.ts), so the stream's
 * mark never moves past a post whose events are not yet where a kill -9 finds them.
 *
 * One taker per hub. A take waits on a promise that the next routed post resolves: nothing
 * runs while the stream is quiet, whatever the number of bots.
 */
import type { BotEvent } from "../events.ts";

/** One bot's events of a routed post (or of a search's posts): its own-rule `post` events, or its `mentions`. */
export interface Routed {
  bot: string;
  kind: "post" | "mentions";
  events: BotEvent[];
}

/** A post the hub delivered (from the stream: `streamed`, or a gap's search). */
export interface DeliveredPost {
  id: string;
  streamed: boolean;
}

/** What one take hands out: every bot's events routed since the last take, and the posts they came from. */
export interface RoutedBatch {
  readonly entries: readonly Routed[];
  readonly posts: readonly DeliveredPost[];
}

/** The hub's outbox; see the module comment. */
export class Outbox {
  private entries: Routed[] = [];
  private posts: DeliveredPost[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  /** Hands events to a bot (nothing when there are none). */
  hand(bot: string, kind: Routed["kind"], events: BotEvent[]): void {
    if (events.length === 0) return;
    this.entries.push({ bot, kind, events });
    this.wake();
  }

  /** A post was delivered: the mark may move past it once what it brought is taken. */
  delivered(post: DeliveredPost): void {
    this.posts.push(post);
    this.wake();
  }

  /** A post delivered and routed: its bots' events (../routing.ts returned them), then the post itself. */
  put(routed: readonly Routed[], post: DeliveredPost): void {
    for (const entry of routed) if (entry.events.length > 0) this.entries.push(entry);
    this.delivered(post);
  }

  /** Whether something routed waits to be taken. */
  get pending(): boolean {
    return this.entries.length > 0 || this.posts.length > 0;
  }

  /**
   * Everything routed since the last take; waits until there is some. Resolves `undefined`
   * once the outbox is closed and empty (what was routed before it closed is still handed out).
   */
  async take(): Promise<RoutedBatch | undefined> {
    if (this.waiter) throw new Error("the stream hub's outbox has one taker at a time");
    while (!this.pending) {
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    // Read when the taker runs: what was routed in the same turn comes in this one batch.
    return this.drain();
  }

  /** No more is routed: a waiting take ends (with what is left, or `undefined`). */
  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private drain(): RoutedBatch {
    const batch = { entries: this.entries, posts: this.posts };
    this.entries = [];
    this.posts = [];
    return batch;
  }
}
