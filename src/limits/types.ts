/** The plans of spec part 8 (the Enterprise tier's limits are not shown, so it is not one). */
export type Plan = "pro" | "basic" | "free";
export const PLANS: readonly Plan[] = ["pro", "basic", "free"];

/** The windows of spec part 8.2: per second, per 15 minutes, per 24 hours. */
export type Per = "1s" | "15m" | "24h";
export const WINDOW_MS: Record<Per, number> = { "1s": 1_000, "15m": 15 * 60_000, "24h": 24 * 3_600_000 };

/** Whose limit: each user access token's (U) or the app's (A). */
export type LimitScope = "user" | "app";

/** One limit: at most `max` requests in any `per` interval, counted per user or per app. */
export interface Limit {
  readonly max: number;
  readonly per: Per;
  readonly scope: LimitScope;
}

/**
 * A cell of the part 8.2 tables: the limits that apply together, `"unavailable"` (the plan
 * column shows `—`), or `"absent"` (the spec leaves the cell out; see `ABSENT_CELLS`).
 */
export type LimitCell = readonly Limit[] | "unavailable" | "absent";
