/**
 * The plan's windows of one endpoint for one account: every limit of spec part 8.2 that
 * applies (the user's U windows are the account's own, the app's A windows are shared by
 * every account of the app), each with the part of its maximum the bot's reserve leaves
 * usable.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { WindowBook } from "./book.ts";
import { limitsFor } from "./plan-limits.ts";
import { WINDOW_MS, type Limit, type LimitScope, type Plan } from "./types.ts";
import type { SlidingWindow } from "./window.ts";

/** One plan window as an account counts it. */
export interface CountedWindow {
  key: string;
  limit: Limit;
  window: SlidingWindow;
  /** The part of `max` the reserve leaves usable. */
  usable: number;
}

/** Whose requests a window or a pause counts: `<endpoint>|u:<user id>` or `<endpoint>|a:<app id>`. */
export const scopeKey = (
  account: { appId: string; userId: string },
  endpoint: EndpointKey,
  scope: LimitScope,
): string => (scope === "app" ? `${endpoint}|a:${account.appId}` : `${endpoint}|u:${account.userId}`);

/**
 * What the reserve leaves of a maximum: `max - floor(max * reserve)`, so a reserve below
 * 100% never turns a window of 1 into a window of 0 (the action would never run).
 */
export const usableOf = (max: number, reserve: number): number => max - Math.floor(max * reserve);

/** Checks a reserve (a share of every window kept unused), naming the option when it is wrong. */
export function checkReserve(reserve: number): number {
  if (!(reserve >= 0 && reserve < 1))
    throw new RangeError(`reserve must be at least 0 and below 1 (0% to 99%), got ${reserve}`);
  return reserve;
}

/** The windows of the endpoints of one account, cached (the queue asks for them on every wake). */
export class EndpointWindows {
  private readonly cache = new Map<EndpointKey, CountedWindow[]>();

  constructor(
    private readonly book: WindowBook,
    private readonly account: { appId: string; userId: string; plan: Plan },
    private readonly reserve: number,
  ) {}

  /** The plan's limits for an endpoint, or `"unavailable"` when the plan does not offer it. */
  limits(endpoint: EndpointKey): readonly Limit[] | "unavailable" {
    return limitsFor(endpoint, this.account.plan);
  }

  of(endpoint: EndpointKey): CountedWindow[] {
    const cached = this.cache.get(endpoint);
    if (cached && cached.every((c) => this.book.window(c.key, c.limit.max, WINDOW_MS[c.limit.per]) === c.window))
      return cached;
    const limits = this.limits(endpoint);
    const fresh =
      limits === "unavailable"
        ? []
        : limits.map((limit) => {
            const key = `${scopeKey(this.account, endpoint, limit.scope)}|${limit.per}`;
            return {
              key,
              limit,
              window: this.book.window(key, limit.max, WINDOW_MS[limit.per]),
              usable: usableOf(limit.max, this.reserve),
            };
          });
    this.cache.set(endpoint, fresh);
    return fresh;
  }
}
