/**
 * Durations as bot files write them (`30s`, `15m`, `1h`, `7d`): short, unambiguous about
 * their unit, and turned into milliseconds at load time so no later code guesses units.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * The accepted form: a whole number and one unit. Exported so the JSON Schema carries the
 * same pattern that the loader enforces.
 */
export const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d)$/;

/** What to write instead of a bad duration (used in error messages). */
export const DURATION_HINT = "write a whole number and a unit: ms, s, m, h or d (30s, 15m, 1h, 1d)";

/**
 * Milliseconds of a duration string, or undefined when it is not one.
 *
 * @example
 * ```ts
 * parseDuration("15m"); // 900000
 * parseDuration("15 minutes"); // undefined
 * ```
 */
export function parseDuration(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/**
 * The shortest exact way to write `ms` as a duration (`90s`, `15m`, `1h`), so messages show
 * limits in the same notation users type.
 */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
