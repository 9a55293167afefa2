/**
 * Budget windows journaled by what changed. A window is the sorted list of its requests'
 * times (budget-book.ts); each request adds a time at the end and time drops the oldest at
 * the front, while the list itself may hold 10,000 times (an app's day of posts). Writing it
 * whole on every flush made each journal line ~80 KB; the delta is a few numbers.
 *
 * A delta `[from, to, ...added]` means: keep the earlier value's times within `[from, to]`,
 * then append `added` (which may replace times the earlier value had after `to`: a request's
 * time moved to its answer's). It is written only when it gives back exactly the new value from the
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

function isNumbers(v: unknown): v is number[] {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "number") return false;
  return true;
}

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
 * the value is better journaled whole (short, not a list of times, or not a run of `before`
 * followed by new times). The run may stop short of `before`'s end: the queue moves a
 * request's time to when it was answered, so the last times change as well as grow.
 */
export function windowDelta(before: unknown, after: unknown): number[] | undefined {
  if (!isNumbers(before) || !isNumbers(after) || after.length < MIN_LENGTH || before.length === 0) return undefined;
  const start = before.indexOf(after[0]!);
  if (start < 0) return undefined;
  let kept = 0;
  while (start + kept < before.length && kept < after.length && before[start + kept] === after[kept]) kept++;
  // Two requests in the same millisecond, one of them moved to its answer's time: `before`
  // ends [..., t, t], `after` [..., t, t']. The range [from, t] cannot keep one t of two, so
  // the run stops before its last time's equals, which go with the added times instead
  // (100 replies a second made this one flush in ten, and each wrote the app's whole day).
  while (kept > 0 && start + kept < before.length && before[start + kept - 1] === before[start + kept]) kept--;
  if (kept === 0 || kept * 2 < after.length) return undefined; // mostly new: as cheap whole
  const from = after[0]!;
  const to = before[start + kept - 1]!;
  // applyDelta(before, delta) must give `after` back: the run is all of `before` within
  // [from, to] (checked without building it, in plain loops: this runs on every flush of a
  // window, and an app's day holds thousands of times).
  const end = start + kept;
  for (let i = 0; i < start; i++) {
    const t = before[i]!;
    if (t >= from && t <= to) return undefined;
  }
  for (let i = start; i < end; i++) {
    const t = before[i]!;
    if (t < from || t > to) return undefined;
  }
  for (let i = end; i < before.length; i++) {
    const t = before[i]!;
    if (t >= from && t <= to) return undefined;
  }
  const delta = [from, to];
  for (let i = kept; i < after.length; i++) delta.push(after[i]!);
  return delta;
}
