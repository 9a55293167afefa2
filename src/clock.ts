/**
 * The one source of time in postbot.
 *
 * Everything that waits or measures (rate-limit windows, polling, cron, stream back-off and
 * keep-alives, OAuth timestamp checks) takes a {@link Clock} instead of calling `Date.now()`
 * or `setTimeout` directly, so tests move time instead of sleeping and the sandbox can be
 * fast-forwarded with `POST /_sandbox/clock`.
 *
 * @example
 * ```ts
 * const clock = createClock({ frozen: true, start: Date.parse("2026-01-01T00:00:00Z") });
 * const done = clock.sleep(60_000);
 * await clock.advance(60_000); // `done` resolves; no real minute passes
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, on this clock. */
  now(): number;
  /** Runs `fn` once this clock has moved `ms` forward. Returns a function that cancels it. */
  setTimeout(fn: () => void, ms: number): () => void;
  /** Resolves after `ms` on this clock; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock that can also be moved forward by hand: tests and the sandbox's admin API use it. */
export interface AdjustableClock extends Clock {
  /**
   * Moves the clock forward by `ms`, running every timer that falls due, in order, each at its
   * own time, and letting the promise continuations they start settle before the next one.
   */
  advance(ms: number): Promise<void>;
  /** How many timers are waiting (useful to assert that something is, or is not, scheduled). */
  pending(): number;
}

export interface ClockOptions {
  /**
   * A frozen clock moves only when {@link AdjustableClock.advance} is called: the test clock.
   * A running clock (the default) follows real time plus whatever it has been advanced by.
   */
  frozen?: boolean;
  /** Start time in ms since the epoch (default: now). */
  start?: number;
}

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
}

/** Lets promise chains started by a timer run before the next timer fires. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Creates a clock; see {@link ClockOptions} for frozen (tests) or running (real time) mode. */
export function createClock(options: ClockOptions = {}): AdjustableClock {
  const frozen = options.frozen ?? false;
  const realStart = Date.now();
  let offset = (options.start ?? realStart) - realStart;
  let frozenAt = options.start ?? realStart;
  let seq = 0;
  let timers: Timer[] = [];
  let wake: NodeJS.Timeout | undefined;
  let advancing = false;

  const now = () => (frozen ? frozenAt : Date.now() + offset);

  const takeDue = (until: number): Timer | undefined => {
    let best: Timer | undefined;
    for (const t of timers) {
      if (t.due <= until && (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq))) best = t;
    }
    if (best) timers = timers.filter((t) => t !== best);
    return best;
  };

  /** Arms one real timer for the earliest due timer (running mode only). */
  const arm = () => {
    if (frozen) return;
    if (wake) clearTimeout(wake);
    wake = undefined;
    if (timers.length === 0) return;
    const earliest = Math.min(...timers.map((t) => t.due));
    wake = setTimeout(fireDue, Math.max(0, earliest - now()));
  };

  function fireDue() {
    wake = undefined;
    for (let t = takeDue(now()); t; t = takeDue(now())) t.fn();
    arm();
  }

  const clock: AdjustableClock = {
    now,
    setTimeout(fn, ms) {
      const timer: Timer = { due: now() + Math.max(0, ms), seq: seq++, fn };
      timers.push(timer);
      if (!advancing) arm();
      return () => {
        timers = timers.filter((t) => t !== timer);
        if (!advancing) arm();
      };
    },
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          cancel();
          reject(signal?.reason);
        };
        const cancel = clock.setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, ms);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    async advance(ms) {
      if (ms < 0) throw new RangeError("a clock only moves forward");
      const target = now() + ms;
      advancing = true;
      try {
        await settle();
        for (let t = takeDue(target); t; t = takeDue(target)) {
          if (frozen) frozenAt = Math.max(frozenAt, t.due);
          else offset += Math.max(0, t.due - now());
          t.fn();
          await settle();
        }
        if (frozen) frozenAt = target;
        else offset += Math.max(0, target - now());
      } finally {
        advancing = false;
        arm();
      }
      await settle();
    },
    pending: () => timers.length,
  };
  return clock;
}

/** The real clock, for production use where nothing needs to move time by hand. */
export const systemClock: Clock = createClock();
