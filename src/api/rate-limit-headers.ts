/**
 * The service reports its own count after every response (spec 8.1 rule 3): the tightest
 * window in `x-rate-limit-*`, and on post creation the 24-hour windows in
 * `x-app-limit-24hour-*` and `x-user-limit-24hour-*` (wire-facts 5.1). The budget layer
 * trusts these over its local count, so they are parsed once, here, and handed on.
 */
import type { RateLimitWindow } from "./errors.ts";

/** Every rate-limit window one response reported. Absent windows were not in the headers. */
export interface RateLimitHeaders {
  /** `x-rate-limit-*`: the endpoint's tightest window for this credential. */
  window?: RateLimitWindow;
  /** `x-app-limit-24hour-*`: the app's 24-hour window. */
  app24h?: RateLimitWindow;
  /** `x-user-limit-24hour-*`: the user's 24-hour window. */
  user24h?: RateLimitWindow;
}

/** Response headers as an HTTP client hands them over (names in lower case). */
export type HeaderBag = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A non-negative integer header, or undefined when absent or not a number (bad input is ignored, not trusted). */
function intHeader(headers: HeaderBag, name: string): number | undefined {
  const raw = first(headers[name])?.trim();
  if (!raw || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

function windowOf(headers: HeaderBag, prefix: string): RateLimitWindow | undefined {
  const limit = intHeader(headers, `${prefix}-limit`);
  const remaining = intHeader(headers, `${prefix}-remaining`);
  const reset = intHeader(headers, `${prefix}-reset`);
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined;
  const w: RateLimitWindow = {};
  if (limit !== undefined) w.limit = limit;
  if (remaining !== undefined) w.remaining = remaining;
  if (reset !== undefined) w.resetAt = reset * 1000;
  return w;
}

/** Reads the rate-limit headers of a response (header names in lower case, as undici gives them). */
export function parseRateLimitHeaders(headers: HeaderBag): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  const window = windowOf(headers, "x-rate-limit");
  const app24h = windowOf(headers, "x-app-limit-24hour");
  const user24h = windowOf(headers, "x-user-limit-24hour");
  if (window) out.window = window;
  if (app24h) out.app24h = app24h;
  if (user24h) out.user24h = user24h;
  return out;
}

/** Whether a response reported any window at all. */
export const hasRateLimitHeaders = (h: RateLimitHeaders): boolean => !!(h.window || h.app24h || h.user24h);
