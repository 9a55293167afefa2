/**
 * Waiting, in real time and bounded, for what happens outside the test's clock: lease
 * renewals, Redis's TTLs, other processes. One helper, so every such wait fails the same way:
 * with what was awaited and for how long.
 */

/** Resolves once `probe` says yes (anything but `false`/`undefined`), with that answer; throws `not within N s: what` after `boundMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  boundMs = 15_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`not within ${boundMs / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
