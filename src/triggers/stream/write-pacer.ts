/**
 * How often the hub changes the app's rules while its bots keep changing. The rules endpoint
 * has a small window of its own (pro: 100 writes per 15 minutes for the whole app,
 * ../../limits/table.ts), and every directory change of a deployment that starts 25,000 bots
 * of an app came as one more write: some 100 changes in the first minutes used the window up,
 * and the last bots waited for it to slide (minutes) for their mention rule.
 *
 * So the writes are paced as a bucket: a quarter of the window may go at once (a fleet change
 * here and there is applied at once), then one write for each two of the window's share of
 * time (pro: one per 18 s). While an update waits, the changes that come meanwhile join it
 * (./rule-sync.ts): the bots that join during the wait get their rules in the same write.
 * At most three quarters of the window go to updates; the rest stays for the full syncs of
 * reconnects and for whoever holds the stream next.
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
  private readonly refillMs: number;
  private tokens: number;
  private at: number;

  constructor(
    window: RuleWriteWindow,
    private readonly clock: Clock,
  ) {
    this.burst = Math.max(1, Math.floor(window.max / 4));
    this.refillMs = window.windowMs / Math.max(1, Math.floor(window.max / 2));
    this.tokens = this.burst;
    this.at = clock.now();
  }

  /** How long until the next write may go (0: now). */
  delay(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) * this.refillMs);
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
