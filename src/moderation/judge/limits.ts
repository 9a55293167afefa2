/**
 * How much one judge is asked at once and per minute, shared by every bot that uses it: a
 * concurrency limit (requests in flight), a rate limit (a token bucket of `perMinute`
 * requests, refilled evenly, so a burst of `perMinute` is allowed after a quiet minute), and
 * a pause after a 429 until the time the server named. Everything waits on the injected
 * {@link Clock} and gives up when the caller's signal aborts (the judge's timeout), so a
 * reply never waits for a judge longer than that; a wait that cannot end before the
 * deadline is refused at once rather than held.
 */
import type { Clock } from "../../clock.ts";
import { JudgeError } from "./request.ts";

export interface JudgeLimitsOptions {
  /** Requests in flight at once (default 4). */
  concurrency: number;
  /** Requests a minute (default 60). */
  perMinute: number;
  /** Callers that may wait for a slot at once; past it, refused at once (bounds memory; default 256). */
  maxWaiting?: number;
}

/** A judge's limits; see the module comment. */
export class JudgeLimits {
  private inFlight = 0;
  private readonly waiters: Array<() => void> = [];
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: JudgeLimitsOptions,
  ) {
    this.tokens = options.perMinute;
    this.refilledAt = clock.now();
  }

  /** Until when a 429 paused the judge (0: not paused). */
  get paused(): number {
    return this.pausedUntil > this.clock.now() ? this.pausedUntil : 0;
  }

  /** Stops asking until `ms` from now (the server's `retry-after`). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /**
   * Waits for a slot and a token, then returns the function that frees the slot. Throws
   * {@link JudgeError} `rate-limited` while paused, `busy` when the wait would outlast
   * `deadline` (ms on the clock) or too many wait already, `timeout` when `signal` aborts.
   */
  async acquire(signal: AbortSignal, deadline: number): Promise<() => void> {
    const now = this.clock.now();
    if (this.pausedUntil > now)
      throw new JudgeError(
        "rate-limited",
        `rate limited by the server for another ${Math.ceil((this.pausedUntil - now) / 1000)} s`,
      );
    await this.slot(signal);
    try {
      await this.token(signal, deadline);
    } catch (err) {
      this.release();
      throw err;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private slot(signal: AbortSignal): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return Promise.resolve();
    }
    if (this.waiters.length >= (this.options.maxWaiting ?? 256))
      return Promise.reject(new JudgeError("busy", `${this.waiters.length} replies wait for it already`));
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new JudgeError("timeout", "no free slot in time"));
      const take = () => {
        signal.removeEventListener("abort", onAbort);
        this.inFlight++;
        resolve();
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(take);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new JudgeError("timeout", `no free slot in time (${this.options.concurrency} requests in flight)`));
      };
      this.waiters.push(take);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private release(): void {
    this.inFlight--;
    const next = this.waiters.shift();
    if (next) next();
  }

  private refill(now: number): void {
    const rate = this.options.perMinute / 60_000;
    this.tokens = Math.min(this.options.perMinute, this.tokens + (now - this.refilledAt) * rate);
    this.refilledAt = now;
  }

  private async token(signal: AbortSignal, deadline: number): Promise<void> {
    let now = this.clock.now();
    this.refill(now);
    if (this.tokens < 1) {
      const waitMs = Math.ceil((1 - this.tokens) / (this.options.perMinute / 60_000));
      if (now + waitMs > deadline)
        throw new JudgeError("busy", `its rate limit of ${this.options.perMinute} a minute is spent for now`);
      try {
        await this.clock.sleep(waitMs, signal);
      } catch {
        throw new JudgeError("timeout", "no request left in its rate limit in time");
      }
      now = this.clock.now();
      this.refill(now);
    }
    this.tokens -= 1;
  }
}
