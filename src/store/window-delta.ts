/**
 * Budget windows journaled by what changed. A window is the sorted list of its requests'
 * times (budget-book.ts); each request adds a time at the end and time drops the oldest at
 * the front, while the list itself may hold 10,000 times (an app's day of posts). Writing it
 * whole on every flush made each journal line ~80 KB; the delta is a few numbers.
 *
 * A delta `[from, to, ...added]` means: keep the earlier value's times within `[from, to]`,
 * then append `added`. It is written only when it gives back exactly the new value from the
 * value journaled before it (checked when encoding), so replaying the journal in order
 * rebuilds every value. Replayed over a newer copy (the files a checkpoint wrote while the
 * journal was still on disk), the range keeps what the earlier value had and drops what
 * came later, so the journal's last line still decides; what the newer copy may have lost at
 * the front are times that had left the window. That is why only the `budget.windows`
 * namespace is journaled this way: there, losing the front is expiry, not data loss.
 */

/** The tag of a delta record. */
export const WINDOW_DELTA = "w";

/** The namespace whose values are journaled as deltas (budget-book.ts's windows). */
export const DELTA_NAMESPACE = "budget.windows";

/** Below this many times a window is journaled whole (a delta saves nothing). */
const MIN_LENGTH = 16;

const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === "number");

/** Whether a record's payload is a delta: `[from, to, ...added]`, all numbers. */
export const isDelta = (v: unknown): v is number[] => isNumbers(v) && v.length >= 2;

/** The value a delta makes of the value before it (a missing or non-list value counts as empty). */
export function applyDelta(before: unknown, delta: readonly number[]): number[] {
  const [from, to] = delta as [number, number];
  const kept = isNumbers(before) ? before.filter((t) => t >= from && t <= to) : [];
  for (let i = 2; i < delta.length; i++) kept.push(delta[i]!);
  return kept;
}

/**
 * The delta that turns `before` (the value last journaled) into `after`, or undefined when
 * the value is better journaled whole (short, not a list of times, or not changed at its
 * ends only).
 */
export function windowDelta(before: unknown, after: unknown): number[] | undefined {
  if (!isNumbers(before) || !isNumbers(after) || after.length < MIN_LENGTH || before.length === 0) return undefined;
  const to = before[before.length - 1]!;
  let k = 0;
  while (k < after.length && after[k]! <= to) k++;
  if (k === 0) return undefined; // nothing kept: the whole value is as short
  const delta = [after[0]!, to, ...after.slice(k)];
  const rebuilt = applyDelta(before, delta);
  if (rebuilt.length !== after.length || rebuilt.some((t, i) => t !== after[i])) return undefined;
  return delta;
}
