/**
 * The service's time, as its responses tell it (their `Date` header), next to the local
 * clock's: what an OAuth 1.0a signature's `oauth_timestamp` and a request's `start_time` /
 * `end_time` must be in. The service refuses a signature more than 5 minutes off its own
 * time (401, code 135), so a host whose clock drifted, or was set an hour off, would have
 * every signed request refused, and a search reaching back from a clock hours ahead would
 * reach into the service's future and find nothing.
 *
 * The local {@link Clock} stays the one source of time for everything that waits or measures;
 * the correction is an offset, applied only where a time goes on the wire. It is learnt from
 * every response and applied only when the clocks disagree by more than
 * {@link CLOCK_TOLERANCE_MS} (a `Date` header has one-second resolution and comes after the
 * service's work, so small differences are noise). The first time it applies, and when the
 * clocks agree again, the log says so once.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";

/** Clocks closer than this are taken to agree (the service allows 5 minutes). */
export const CLOCK_TOLERANCE_MS = 60_000;

/** `2 h 5 min`, `10 min 3 s`, `42 s`: how far off a clock is, for a person. */
export function describeSkew(ms: number): string {
  const total = Math.round(Math.abs(ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}

/** The service's time beside a local clock; see the module comment. */
export class ServiceTime {
  /** What to add to the local clock to get the service's time (0 while they agree). */
  #offset = 0;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    private readonly log: Logger,
  ) {}

  /** The service's time now, as far as its responses told it (ms since the epoch). */
  now(): number {
    return this.clock.now() + this.#offset;
  }

  /** How far the service's clock is ahead of the local one (negative: behind); 0 while they agree. */
  get offsetMs(): number {
    return this.#offset;
  }

  /**
   * Learns from a response's `Date` header, received now. The header is the service's time
   * rounded down to the second, taken when it answered: the middle of that second is the
   * estimate. Returns whether the offset changed (a request refused for its timestamp is then
   * worth signing again).
   */
  observe(date: string | undefined): boolean {
    if (!date) return false;
    const at = Date.parse(date);
    if (!Number.isFinite(at)) return false;
    const seen = at + 500 - this.clock.now();
    const next = Math.abs(seen) > CLOCK_TOLERANCE_MS ? seen : 0;
    const before = this.#offset;
    // Within the header's resolution of the offset in use: keep it (no churn, no log line).
    if (next !== 0 && before !== 0 && Math.abs(next - before) < 2_000) return false;
    this.#offset = next;
    if (before === 0 && next !== 0)
      this.log.warn(
        { clockOffsetMs: next },
        `the local clock is ${describeSkew(next)} ${next > 0 ? "behind" : "ahead of"} the service's (by the Date of its responses): requests are signed with the service's time; set this host's clock right (NTP)`,
      );
    else if (before !== 0 && next === 0)
      this.log.info(
        { clockOffsetMs: 0 },
        "the local clock agrees with the service's again: requests are signed with the local time",
      );
    else if (next !== 0 && Math.abs(next - before) > CLOCK_TOLERANCE_MS)
      this.log.warn(
        { clockOffsetMs: next },
        `the local clock is now ${describeSkew(next)} ${next > 0 ? "behind" : "ahead of"} the service's: requests are signed with the service's time`,
      );
    return next !== before;
  }
}
