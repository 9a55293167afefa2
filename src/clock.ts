/**
 * The one source of time in postbot.
 *
 * Everything that waits or measures (rate-limit windows, polling, cron, stream back-off and
 * keep-alives, OAuth timestamp checks) takes a {@link Clock} instead of calling `Date.now()`
 * or `setTimeout` directly, so tests move time instead of sleeping and the sandbox can be
 * fast-forwarded with `POST /_sandbox/clock`.
 *
 * A running clock's timers count elapsed time (the monotonic clock), not the wall clock's
 * reading: the system clock stepped back by NTP or by hand (10 minutes, say) must not hold
 * every poll, lease renewal and retry of the process for those 10 minutes, nor a step forward
 * fire them all at once. `now()` follows the wall clock as it is.
 *
 * @example
 * ```ts
 * const clock = createClock({ frozen: true, start: Date.parse("2026-01-01T00:00:00Z") });
 * const done = clock.sleep(60_000);
 * await clock.advance(60_000); // `done` resolves; no real minute passes
 * ```
 */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

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
  /**
   * The timers waiting, earliest first: how far ahead each is due, and what scheduled it (on
   * a clock that {@link ClockOptions.trace traces}). On a frozen clock nothing comes due unless
   * a test advances it, so a test waiting for a retry scheduled on it (after a transient
   * failure) waits in vain: this names the retry.
   */
  waiting(): WaitingTimer[];
}

/** A timer not yet due ({@link AdjustableClock.waiting}). */
export interface WaitingTimer {
  /** How far ahead of the clock's time it is due. */
  inMs: number;
  /** Its scheduler: the first caller outside this module, `file:line (function)` (`unknown` when not traced). */
  by: string;
}

export interface ClockOptions {
  /**
   * A frozen clock moves only when {@link AdjustableClock.advance} is called: the test clock.
   * A running clock (the default) follows real time plus whatever it has been advanced by.
   */
  frozen?: boolean;
  /** Start time in ms since the epoch (default: now). */
  start?: number;
  /**
   * Records where each timer was scheduled, for {@link AdjustableClock.waiting} (a few µs per
   * timer). Default: on for a frozen clock (a test's), off for a running one.
   */
  trace?: boolean;
}

interface Timer {
  due: number;
  seq: number;
  fn: () => void;
  /** Cancelled timers stay in the heap until they reach its top (cancelling is O(1)). */
  cancelled: boolean;
  /** Where it was scheduled (a traced clock): read only when asked. */
  from?: Error;
}

const before = (a: Timer, b: Timer) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

/**
 * The clock's timers, earliest first (by due time, then by order of creation): a binary
 * heap, because 10,000 hosted bots keep tens of thousands of timers and every handler run
 * starts and cancels one, which a scanned list made O(timers) each.
 */
class TimerHeap {
  private readonly heap: Timer[] = [];
  /** Timers not cancelled. */
  count = 0;

  push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    this.count++;
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  cancel(t: Timer): void {
    if (t.cancelled) return;
    t.cancelled = true;
    this.count--;
    // Many cancelled timers far from the top (handler time limits): rebuild without them.
    if (this.heap.length > 1024 && this.heap.length > 4 * this.count) {
      const kept = this.heap.filter((x) => !x.cancelled).sort((a, b) => (before(a, b) ? -1 : 1));
      this.heap.length = 0;
      for (const x of kept) this.heap.push(x); // a sorted array is a heap
    }
  }

  /** The timers not cancelled, earliest first. */
  live(): Timer[] {
    return this.heap.filter((t) => !t.cancelled).sort((a, b) => (before(a, b) ? -1 : 1));
  }

  /** The earliest timer not cancelled (dropping cancelled ones from the top). */
  peek(): Timer | undefined {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) this.pop();
    return this.heap[0];
  }

  /** Removes and returns the earliest live timer due by `until`. */
  takeDue(until: number): Timer | undefined {
    const t = this.peek();
    if (!t || t.due > until) return undefined;
    this.pop();
    t.cancelled = true;
    this.count--;
    return t;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/** Lets promise chains started by a timer run before the next timer fires. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The time a clock tells: a frozen one holds a value that only {@link AdjustableClock.advance}
 * moves; a running one is the system's time plus an offset that `advance` grows.
 */
interface Hands {
  now(): number;
  /**
   * The time the timers are due on: on a running clock, `now()` as it would read had the
   * system's clock not been stepped since the clock was made (see the module comment); on a
   * frozen one, `now()`.
   */
  tick(): number;
  /** Moves to `at` when it is ahead (a timer's due time during an advance). */
  forwardTo(at: number): void;
  /** Ends an advance at `at`. */
  endAt(at: number): void;
}

/** A frozen clock's time: held, moved only by an advance. */
function frozenHands(start: number): Hands {
  let at = start;
  return {
    now: () => at,
    tick: () => at,
    forwardTo(due) {
      at = Math.max(at, due);
    },
    endAt(target) {
      at = target;
    },
  };
}

/**
 * A running clock's time: the system's, plus what advances added (`start` sets where it
 * begins). Its timers' time is where it began plus the monotonic time elapsed, in whole
 * milliseconds (so never ahead of `now()` while the system's clock is not stepped: floor(a +
 * b) >= floor(a) + floor(b)), plus the same offset.
 */
function runningHands(start: number | undefined): Hands {
  const realStart = Date.now();
  const monoStart = performance.now();
  let offset = (start ?? realStart) - realStart;
  const now = () => Date.now() + offset;
  const tick = () => realStart + Math.floor(performance.now() - monoStart) + offset;
  const forwardTo = (at: number) => {
    offset += Math.max(0, at - tick());
  };
  return { now, tick, forwardTo, endAt: forwardTo };
}

/**
 * The one real timer a running clock keeps, armed for its earliest due timer, so a running
 * clock's timers fire in real time without one system timer each.
 */
function realWake(timers: TimerHeap, tick: () => number): { arm(): void } {
  let wake: NodeJS.Timeout | undefined;
  /** When the armed real timer fires (on this clock). */
  let wakeAt = Infinity;
  /**
   * Arms one real timer for the earliest due timer. A real timer already armed for that time
   * or earlier is kept: when it fires early, it arms the next one.
   */
  const arm = () => {
    const earliest = timers.peek();
    if (!earliest) {
      if (wake) clearTimeout(wake);
      wake = undefined;
      wakeAt = Infinity;
      return;
    }
    if (wake && wakeAt <= earliest.due) return;
    if (wake) clearTimeout(wake);
    wakeAt = earliest.due;
    wake = setTimeout(fireDue, Math.max(0, earliest.due - tick()));
  };
  function fireDue() {
    wake = undefined;
    wakeAt = Infinity;
    for (let t = timers.takeDue(tick()); t; t = timers.takeDue(tick())) t.fn();
    arm();
  }
  return { arm };
}

/** Resolves after `ms` on `clock`; rejects with the signal's reason when aborted. */
function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
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
}

/** Creates a clock; see {@link ClockOptions} for frozen (tests) or running (real time) mode. */
export function createClock(options: ClockOptions = {}): AdjustableClock {
  const frozen = options.frozen ?? false;
  const trace = options.trace ?? frozen;
  const hands = frozen ? frozenHands(options.start ?? Date.now()) : runningHands(options.start);
  const { now, tick } = hands;
  let seq = 0;
  const timers = new TimerHeap();
  // A frozen clock's timers come due only by advance: no real timer.
  const wake = frozen ? { arm() {} } : realWake(timers, tick);
  let advancing = false;

  const clock: AdjustableClock = {
    now,
    setTimeout(fn, ms) {
      const timer: Timer = { due: tick() + Math.max(0, ms), seq: seq++, fn, cancelled: false };
      if (trace) timer.from = new Error("scheduled");
      timers.push(timer);
      if (!advancing) wake.arm();
      return () => {
        timers.cancel(timer);
        // With nothing left to wait for, the real timer must not keep the process alive.
        if (!advancing && timers.count === 0) wake.arm();
      };
    },
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
    async advance(ms) {
      if (ms < 0) throw new RangeError("a clock only moves forward");
      const target = tick() + ms;
      advancing = true;
      try {
        await settle();
        for (let t = timers.takeDue(target); t; t = timers.takeDue(target)) {
          hands.forwardTo(t.due);
          t.fn();
          await settle();
        }
        hands.endAt(target);
      } finally {
        advancing = false;
        wake.arm();
      }
      await settle();
    },
    pending: () => timers.count,
    waiting: () => timers.live().map((t) => ({ inMs: t.due - tick(), by: t.from ? scheduler(t.from) : "unknown" })),
  };
  if (frozen) frozenMade.add(new WeakRef(clock));
  return clock;
}

/** The frozen clocks made in this process and still in use ({@link frozenClocks}). */
const frozenMade = new Set<WeakRef<AdjustableClock>>();

/**
 * The frozen clocks made in this process and still reachable: when a test fails, its harness
 * lists what they wait for (test/helpers/frozen-timers.ts), since a timer on one comes due only
 * when the test advances it.
 */
export function frozenClocks(): AdjustableClock[] {
  const out: AdjustableClock[] = [];
  for (const ref of frozenMade) {
    const clock = ref.deref();
    if (clock) out.push(clock);
    else frozenMade.delete(ref);
  }
  return out;
}

const SELF = import.meta.url;
const SELF_PATH = SELF.startsWith("file:") ? fileURLToPath(SELF) : SELF;

/** The first frame of `from` outside this module and Node's own: `file:line (function)`, the file relative to the working directory. */
function scheduler(from: Error): string {
  for (const line of (from.stack ?? "").split("\n").slice(1)) {
    if (line.includes(SELF_PATH) || line.includes(SELF) || line.includes("node:") || line.includes("<anonymous>"))
      continue;
    const m = /at (?:(.+?) \()?(.+?):(\d+):\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const file = m[2]!.startsWith("file:") ? fileURLToPath(m[2]!) : m[2]!;
    return `${relative(process.cwd(), file)}:${m[3]}${m[1] ? ` (${m[1]})` : ""}`;
  }
  return "unknown";
}

/** The real clock, for production use where nothing needs to move time by hand. */
export const systemClock: Clock = createClock();
