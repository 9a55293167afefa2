/**
 * Catch-up polls of the bots whose mentions come through the stream: one mentions poll per
 * bot at start and after every reconnect, to close the gap the stream cannot see (what
 * came while the process was down or the connection away).
 *
 * They share the app's window of the mentions endpoint with nothing else, so they are run
 * a few at a time, in the order asked, each waiting for the budget: spread within the
 * window rather than queued all at once (10,000 waiting requests would hold the queue for
 * hours and starve nothing, but cost memory and make `bot status` unreadable). A bot asked
 * for again while it waits is not polled twice; asked for while its poll runs, it is polled
 * once more afterwards (the poll in flight may have started before the reconnect).
 */

export interface CatchUpOptions {
  /** Polls at once (default 4). */
  concurrency?: number;
  /** One bot's poll. */
  poll(bot: string, signal: AbortSignal): Promise<void>;
  onError(bot: string, err: unknown): void;
}

/** The catch-up polls of one app; see the module comment. */
export class CatchUpQueue {
  private readonly waiting = new Set<string>();
  private readonly running = new Set<string>();
  private readonly closer = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  /** Polls finished since start. */
  done = 0;

  constructor(private readonly options: CatchUpOptions) {}

  /** Asks for one poll of each of these bots. */
  request(bots: Iterable<string>): void {
    for (const bot of bots) this.waiting.add(bot);
    this.pump();
  }

  /** Bots waiting for their poll, and those being polled. */
  pending(): { waiting: number; running: number } {
    return { waiting: this.waiting.size, running: this.running.size };
  }

  private pump(): void {
    const max = this.options.concurrency ?? 4;
    while (!this.closer.signal.aborted && this.inFlight.size < max) {
      let bot: string | undefined;
      for (const b of this.waiting) {
        if (this.running.has(b)) continue;
        bot = b;
        break;
      }
      if (bot === undefined) return;
      this.waiting.delete(bot);
      this.running.add(bot);
      const run: Promise<void> = this.options
        .poll(bot, this.closer.signal)
        .catch((err: unknown) => {
          if (!this.closer.signal.aborted) this.options.onError(bot, err);
        })
        .finally(() => {
          this.running.delete(bot);
          this.inFlight.delete(run);
          this.done++;
          this.pump();
        });
      this.inFlight.add(run);
    }
  }

  /** Whether a poll is under way (tests and shutdown wait for it). */
  busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Stops: no new poll starts; polls in flight are aborted. */
  close(): void {
    this.closer.abort();
    this.waiting.clear();
  }
}
