/**
 * Ids are decimal strings too large for a number (wire-facts 1.1); ordering them is needed
 * for `since_id` cursors. The sandbox uses this comparison too (its model re-exports it);
 * the client does not import the sandbox.
 */

/** Compares two decimal ids numerically: negative, zero or positive. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
