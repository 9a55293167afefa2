/**
 * Every test file's setup (vitest.config.ts `setupFiles`): when a test fails, its failure also
 * says what the frozen clocks still wait for.
 *
 * A timer on a frozen clock comes due only when the test advances it. So when a transient
 * failure's retry (a rules update, a reconnect, an action's retry) is scheduled on a test's
 * frozen clock, whatever the test waits for behind it never comes: an `expect.poll` or a wait
 * times out, or vitest's own 20 s timeout ends the test, with nothing naming the retry. The
 * failure then lists, per frozen clock, its timers by what scheduled them (`file:line
 * (function)`) and how far ahead the nearest of each is due.
 */
import { beforeEach } from "vitest";
import { frozenClocks, type AdjustableClock } from "../../src/clock.ts";

/** At most this many schedulers per clock (the earliest due); the rest are counted. */
const SHOWN = 10;

/**
 * The frozen clocks made before this file: by the files that ran earlier in the same worker,
 * whose modules it shares (`isolate: false`, vitest.config.ts), still reachable until
 * garbage-collected. This setup runs again before each file, so they are another file's, and
 * a failure here does not list them.
 */
const earlier = new WeakSet(frozenClocks());

beforeEach(({ onTestFailed }) => {
  onTestFailed(({ task }) => {
    const error = task.result?.errors?.[0];
    const waiting = frozenClocks()
      .filter((clock) => !earlier.has(clock))
      .map(describeWaiting)
      .filter((lines) => lines.length > 0);
    if (error && waiting.length > 0)
      error.message += `\n\nTimers on frozen clocks, which come due only when the test advances them (a retry among them is what the test waited for?):\n${waiting.flat().join("\n")}`;
  });
});

/** What `clock` waits for, one line per scheduler, earliest first; none when nothing waits. */
export function describeWaiting(clock: AdjustableClock): string[] {
  const timers = clock.waiting();
  if (timers.length === 0) return [];
  const bySite = new Map<string, { inMs: number; count: number }>();
  for (const t of timers) {
    const seen = bySite.get(t.by);
    if (seen) seen.count++;
    else bySite.set(t.by, { inMs: t.inMs, count: 1 });
  }
  const sites = [...bySite];
  const lines = sites
    .slice(0, SHOWN)
    .map(
      ([by, { inMs, count }]) => `    in ${humanMs(inMs)}${count > 1 ? ` (and ${count - 1} more, later)` : ""}: ${by}`,
    );
  if (sites.length > SHOWN) lines.push(`    ... and ${sites.length - SHOWN} more places`);
  const total = `${timers.length} timer${timers.length === 1 ? "" : "s"}`;
  return [`  the clock at ${new Date(clock.now()).toISOString()} (${total}):`, ...lines];
}

function humanMs(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}
