/**
 * Corrections: what the service reports after a response is trusted over the local count.
 *
 * - `x-rate-limit-*` describes the endpoint's tightest window for this credential. It is
 *   matched to the local window of the same maximum, the one with the least room when two
 *   have the same maximum (the service reports the tightest, too), and that window is
 *   corrected down to the reported `remaining`. A limit no local window has means the plan
 *   in the bot file is not the app's plan: that is logged once.
 * - `x-app-limit-24hour-*` and `x-user-limit-24hour-*` correct the app's and the user's
 *   24-hour windows.
 * - Whatever the match, a reported `remaining` of 0 pauses the endpoint until the reported
 *   reset, so even a window postbot does not know of cannot produce a 429.
 *
 * A correction only ever removes room (see `SlidingWindow.correct`); on a 429 the window is
 * not touched, only paused. With windows shared on Redis, the correction and the pause apply
 * to the shared window (every process then sees them), not to this process's mirror.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { RateLimitHeaders } from "../api/rate-limit-headers.ts";
import type { WindowBook } from "./book.ts";
import type { CountedWindow } from "./budget-windows.ts";
import type { LimitScope, Plan } from "./types.ts";

export interface CorrectionTarget {
  book: WindowBook;
  account: { appId: string; plan: Plan };
  endpoint: EndpointKey;
  counted: readonly CountedWindow[];
  /** Holds the endpoint for the account (`user`) or its whole app (`app`) until `until`. */
  pause(until: number, scope: LimitScope): void;
}

/** Applies what the service reported after a response (status `status`) to the endpoint's windows. */
export function correctFromHeaders(t: CorrectionTarget, headers: RateLimitHeaders, status: number): void {
  const { counted, book, endpoint } = t;
  const now = book.clock.now();
  const apply = (match: CountedWindow | undefined, remaining: number | undefined) => {
    if (!match || remaining === undefined || status === 429) return;
    const before = match.window.remaining(now);
    if (book.correct(match.key, match.window, match.limit.max, remaining)) {
      book.log.debug(
        { window: match.key, counted_remaining: before, service_remaining: remaining },
        "budget corrected by the service's headers",
      );
    }
  };
  const pauseIfSpent = (remaining: number | undefined, resetAt: number | undefined, scope: LimitScope) => {
    if (remaining === 0 && resetAt !== undefined && resetAt > now) t.pause(resetAt, scope);
  };

  const w = headers.window;
  if (w) {
    let match: CountedWindow | undefined;
    if (w.limit !== undefined) {
      for (const c of counted) {
        if (c.limit.max !== w.limit) continue;
        if (!match || c.window.remaining(now) < match.window.remaining(now)) match = c;
      }
      if (!match && counted.length > 0) {
        const ours = counted
          .map((c) => `${c.limit.max}/${c.limit.per} ${c.limit.scope === "app" ? "A" : "U"}`)
          .join("; ");
        book.warnOnce(
          `limit|${endpoint}|${w.limit}|${t.account.appId}`,
          { endpoint, service_limit: w.limit, plan: t.account.plan },
          `the service reports a limit of ${w.limit} for ${endpoint}, but the ${t.account.plan} plan has ${ours}; is the bot file's plan the app's plan?`,
        );
      }
    }
    apply(match, w.remaining);
    pauseIfSpent(w.remaining, w.resetAt, match?.limit.scope ?? "user");
  }
  for (const [h, scope] of [
    [headers.app24h, "app"],
    [headers.user24h, "user"],
  ] as const) {
    if (!h) continue;
    apply(
      counted.find((c) => c.limit.scope === scope && c.limit.per === "24h"),
      h.remaining,
    );
    pauseIfSpent(h.remaining, h.resetAt, scope);
  }
}
