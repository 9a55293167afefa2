/**
 * A sliding window: at most `max` events in any interval of `windowMs` (spec part 8.1 rule 1,
 * "a limit of N per 15 minutes allows N requests in any 15-minute interval").
 *
 * It keeps the time of every event still inside the window, so it is exact: a fixed window
 * would allow 2N across a boundary, and an estimate could send the request that gets a 429.
 * Memory is bounded by `max` (10,000 for the largest limit of the spec).
 */
export class SlidingWindow {
  private times: number[] = [];

  constructor(
    readonly max: number,
    readonly windowMs: number,
    times: readonly number[] = [],
  ) {
    this.times = [...times].sort((a, b) => a - b);
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.times.length && this.times[drop]! <= cutoff) drop++;
    if (drop > 0) this.times.splice(0, drop);
  }

  /** Events counted in the window ending at `now`. */
  used(now: number): number {
    this.prune(now);
    return this.times.length;
  }

  /** Events still allowed at `now`. */
  remaining(now: number): number {
    return Math.max(0, this.max - this.used(now));
  }

  /**
   * When `n` more events (default one) will be allowed: `now` when there is room, otherwise
   * when enough of the oldest counted events have left the window (for one, what
   * `x-rate-limit-reset` reports); Infinity when `n` exceeds `max`.
   */
  nextFreeAt(now: number, n = 1): number {
    this.prune(now);
    const over = this.times.length + n - this.max;
    if (over <= 0) return now;
    if (n > this.max) return Infinity;
    return this.times[over - 1]! + this.windowMs;
  }

  /**
   * When the window resets: when the oldest counted event leaves it (the time reported by
   * `x-rate-limit-reset`), or a full window from `now` when nothing is counted.
   */
  resetAt(now: number): number {
    this.prune(now);
    return this.times.length > 0 ? this.times[0]! + this.windowMs : now + this.windowMs;
  }

  /** Counts `n` events at `now` (callers check room first; this never refuses). */
  record(now: number, n = 1): void {
    this.prune(now);
    for (let i = 0; i < n; i++) this.times.push(now);
  }

  /**
   * Trusts the service's figure: when it reports fewer remaining than counted here (other
   * processes use the same token, or the state was lost), counts the difference as used at
   * `now`. It never frees room the service did not report.
   */
  correct(now: number, remaining: number): void {
    const missing = this.remaining(now) - Math.max(0, remaining);
    if (missing > 0) this.record(now, missing);
  }

  /**
   * Moves one counted event from `from` to the later time `to`. A client counts a request
   * when it sends it, but the service counts it somewhere between sending and answering;
   * moving the event to the answer's time makes the local window free its room no earlier
   * than the service's does, whatever the latency.
   */
  retime(from: number, to: number): void {
    const i = this.times.lastIndexOf(from);
    if (i < 0 || to <= from) return;
    this.times.splice(i, 1);
    let j = this.times.length;
    while (j > 0 && this.times[j - 1]! > to) j--;
    this.times.splice(j, 0, to);
  }

  /** Forgets one event counted at `at` (a request that never reached the service); whether there was one. */
  forget(at: number): boolean {
    const i = this.times.lastIndexOf(at);
    if (i < 0) return false;
    this.times.splice(i, 1);
    return true;
  }

  /** The counted event times, for persistence. */
  snapshot(now: number): number[] {
    this.prune(now);
    return [...this.times];
  }
}
