/**
 * Test helpers for the action layer: a frozen clock, a logger whose lines can be read, a
 * fake service that enforces the plan's windows exactly as the real one does, counting 429s,
 * a counter of requests in flight to a loopback service (the benchmarks use it too), and
 * whether a promise has settled once the pending microtasks ran.
 */
import type { Action, Executed, Executor } from "../../src/actions/action.ts";
import { createActionSystem, type ActionSystemOptions } from "../../src/actions/layer.ts";
import { RateLimitError } from "../../src/api/errors.ts";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { limitsFor, SlidingWindow, WINDOW_MS, type Plan } from "../../src/limits/index.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { captureLogs } from "../helpers/log.ts";

export const START = Date.parse("2026-01-05T12:00:00Z");

export const logSink = () => captureLogs();

export function setup(options: Partial<ActionSystemOptions> & { store?: Store; clock?: AdjustableClock } = {}) {
  const clock = options.clock ?? createClock({ frozen: true, start: START });
  const store = options.store ?? createMemoryStore();
  const { lines, logger } = logSink();
  const system = createActionSystem({ store, clock, logger, ...options });
  return { clock, store, lines, logger, system };
}

/** An executor that records what it was asked to send and answers like the service. */
export function recordingExecutor(clock: { now(): number }) {
  const calls: Array<{ action: Action; at: number }> = [];
  let id = 1000;
  const executor: Executor = async (action) => {
    calls.push({ action, at: clock.now() });
    return {
      result: {
        data: action.kind === "reply" || action.kind === "post" ? { id: String(++id), text: "x" } : { ok: true },
      },
    };
  };
  return { calls, executor };
}

/**
 * A fake service: the plan's windows, U per user and A per app, on the same clock, the way
 * spec part 8 describes them; answers 429 when a window is full and counts how often.
 */
export function fakeService(clock: { now(): number }, plans: Record<string, Plan>) {
  const windows = new Map<string, SlidingWindow>();
  const stats = { ok: 0, tooMany: 0 };
  const execute = async (action: Action, appId: string): Promise<Executed> => {
    const limits = limitsFor(action.endpoint, plans[appId]!);
    if (limits === "unavailable") throw new Error("unavailable");
    const now = clock.now();
    const counted = limits.map((l) => {
      const key = `${action.endpoint}|${l.scope === "app" ? `a:${appId}` : `u:${action.userId}`}|${l.per}`;
      let w = windows.get(key);
      if (!w) windows.set(key, (w = new SlidingWindow(l.max, WINDOW_MS[l.per])));
      return { l, w };
    });
    const full = counted.find((c) => c.w.remaining(now) === 0);
    if (full) {
      stats.tooMany++;
      throw new RateLimitError(
        { method: "POST", path: action.endpoint },
        { limit: full.l.max, remaining: 0, resetAt: full.w.resetAt(now) },
      );
    }
    for (const c of counted) c.w.record(now);
    stats.ok++;
    const tight = counted.reduce((a, b) => (b.w.remaining(now) < a.w.remaining(now) ? b : a));
    return {
      result: { data: { id: String(stats.ok) } },
      headers: {
        "x-rate-limit-limit": String(tight.l.max),
        "x-rate-limit-remaining": String(tight.w.remaining(now)),
        "x-rate-limit-reset": String(Math.ceil(tight.w.resetAt(now) / 1000)),
      },
    };
  };
  return { stats, execute };
}

/**
 * Counts requests on their way to a loopback service (the sandbox). Real I/O does not follow
 * the frozen clock, so after moving it, `settle()` waits until the requests it released have
 * finished: until nothing was in flight at three checks in a row.
 */
export function inFlightCounter() {
  let n = 0;
  /** Runs a request, counting it while it is on its way. */
  const counted = async <R>(run: () => Promise<R>): Promise<R> => {
    n++;
    try {
      return await run();
    } finally {
      n--;
    }
  };
  return {
    inFlight: () => n,
    counted,
    /** The executor `send`, each of its requests counted. */
    executor:
      (send: Executor): Executor =>
      (action, signal) =>
        counted(() => send(action, signal)),
    async settle(): Promise<void> {
      for (let quiet = 0; quiet < 3; ) {
        await new Promise((r) => setTimeout(r, 2));
        quiet = n === 0 ? quiet + 1 : 0;
      }
    },
  };
}

/** Whether a promise has settled after the pending microtasks ran. */
export async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}
