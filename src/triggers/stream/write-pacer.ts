/**
 * How often the hub changes the app's rules while its bots keep changing. The rules endpoint
 * has a small window of its own (pro: 100 writes per 15 minutes for the whole app,
 * ../../limits/table.ts), and every directory change of a deployment that starts 25,000 bots
 * of an app came as one more write: some 100 changes in the first minutes used the window up,
 * and the last bots waited for it to slide (minutes) for their mention rule.
 *
 * So the writes are paced as a bucket of a quarter of the window, refilled at one write for
 * each two of the window's share of time (pro: one per 18 s). At most three quarters of the
 * window go to updates; the rest stays for the full syncs of reconnects and for whoever holds
 * the stream next. While an update waits, the changes that come meanwhile join it
 * (./rule-sync.ts).
 *
 * A fifth of the bucket (5 writes on pro) is kept for the moment the changes pause; the rest
 * goes to changes as they come (a fleet change here and there is applied at once). A start of
 * 25,000 bots of an app publishes them over a minute or two, a change at every reading of
 * the directory: spending the whole bucket on the first 25 of them left the bots published
 * after it ran dry up to a refill's time (18 s) behind the last publish for their rule. With
 * a fifth kept, the changes that keep coming past the rest go one write per refill, and the
 * write of the last ones goes as soon as a reading finds nothing new
 * ({@link WritePacer.delay} `paused`).
 */
import type { Clock } from "../../clock.ts";

/** The window of the app's rule writes: at most `max` in any `windowMs`. */
export interface RuleWriteWindow {
  max: number;
  windowMs: number;
}

/** The pace of one hub's rule writes; see the module comment. */
export class WritePacer {
  private readonly burst: number;
  /** The writes the changes as they come may leave in the bucket: kept for when they pause. */
  private readonly kept: number;
  private readonly refillMs: number;
  private tokens: number;
  private at: number;

  constructor(
    window: RuleWriteWindow,
    private readonly clock: Clock,
  ) {
    this.burst = Math.max(1, Math.floor(window.max / 4));
    this.kept = Math.floor(this.burst / 5);
    this.refillMs = window.windowMs / Math.max(1, Math.floor(window.max / 2));
    this.tokens = this.burst;
    this.at = clock.now();
  }

  /**
   * How long until the next write may go (0: now). `paused`: the changes have paused (the
   * write carries the last of them), so it may spend the part of the bucket kept for that;
   * otherwise it waits while only that part is left.
   */
  delay(paused = true): number {
    this.refill();
    const floor = paused ? 1 : this.kept + 1;
    return this.tokens >= floor ? 0 : Math.ceil((floor - this.tokens) * this.refillMs);
  }

  /** A write went (or was tried: the service counts a refused one too). */
  spent(): void {
    this.refill();
    this.tokens -= 1;
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + Math.max(0, now - this.at) / this.refillMs);
    this.at = now;
  }
}
