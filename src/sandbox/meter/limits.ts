/**
 * Spec part 8 enforced: every limit of the endpoint's row for the app's plan, U windows per
 * user access token and A windows per app, all applying together. Windows are sliding
 * (`SlidingWindow`) and are saved in `data.meter.windows` (see windows.ts), so a restarted
 * sandbox remembers how much of every window was spent.
 *
 * Every v2 answer carries the `x-rate-limit-*` headers of the tightest window; post creation
 * also carries the 24-hour ones (wire-facts 5.1). A refused request is not counted.
 */
import type { EndpointKey } from "../../api/endpoints.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { limitsFor, type SlidingWindow } from "../../limits/index.ts";
import { PLANS, WINDOW_MS, type Limit } from "../../limits/types.ts";
import type { SandboxApp } from "../model/index.ts";
import { ApiProblem, httpProblem } from "../problems.ts";
import type { WindowBook } from "./windows.ts";

interface Counted {
  limit: Limit;
  key: string;
  window: SlidingWindow;
}

const epochSeconds = (ms: number) => String(Math.ceil(ms / 1000));

/** The three `x-rate-limit-*` headers of one window at `now`. */
function rateHeaders(c: Counted, now: number, prefix = "x-rate-limit"): Record<string, string> {
  return {
    [`${prefix}-limit`]: String(c.limit.max),
    [`${prefix}-remaining`]: String(c.window.remaining(now)),
    [`${prefix}-reset`]: epochSeconds(c.window.resetAt(now)),
  };
}

/** The 24-hour headers post creation carries, from its 24-hour U and A windows. */
function dayHeaders(counted: Counted[], now: number): Record<string, string> {
  let out: Record<string, string> = {};
  for (const c of counted) {
    if (c.limit.per !== "24h") continue;
    out = { ...out, ...rateHeaders(c, now, c.limit.scope === "app" ? "x-app-limit-24hour" : "x-user-limit-24hour") };
  }
  return out;
}

/** The endpoints whose answers carry the 24-hour headers (wire-facts 5.1 saw them on post creation only). */
const DAY_HEADER_ENDPOINTS: ReadonlySet<EndpointKey> = new Set<EndpointKey>(["POST /2/posts"]);

/** 403 for an endpoint the app's plan does not offer, naming the plans that do. */
export function unavailableOnPlan(key: EndpointKey, app: SandboxApp): ApiProblem {
  const offering = PLANS.filter((plan) => limitsFor(key, plan) !== "unavailable");
  const where =
    offering.length > 0
      ? `it is available on the ${offering.join(" and ")} plan${offering.length > 1 ? "s" : ""}`
      : "no plan offers it";
  return new ApiProblem(403, {
    client_id: app.client_id,
    title: "Client Forbidden",
    detail: `${key} is not available on the ${app.plan} plan; ${where}.`,
    reason: "client-not-enrolled",
    registration_url: "https://developer.twitter.com/en/portal/products",
    required_enrollment: offering[0] ?? "Enterprise",
    type: PROBLEM_TYPE_BASE + "client-forbidden",
    status: 403,
  });
}

/**
 * Counts a request against every window of its row, or refuses it: 403 when the plan does
 * not offer the endpoint, 429 (not counted) when any window is full. Returns the rate-limit
 * headers for the answer.
 *
 * @param userKey the caller's U-window key; absent for app-only callers, which have no U windows.
 */
export function meterRequest(
  book: WindowBook,
  key: EndpointKey,
  app: SandboxApp,
  userKey: string | undefined,
  now: number,
): Record<string, string> {
  const limits = limitsFor(key, app.plan);
  if (limits === "unavailable") throw unavailableOnPlan(key, app);

  const counted: Counted[] = [];
  for (const limit of limits) {
    const who = limit.scope === "app" ? `a:${app.id}` : userKey;
    if (!who) continue;
    const wkey = `${key}|${who}|${limit.per}`;
    counted.push({ limit, key: wkey, window: book.get(wkey, limit.max, WINDOW_MS[limit.per]) });
  }
  if (counted.length === 0) return {};

  const withDay = DAY_HEADER_ENDPOINTS.has(key);
  const full = counted.find((c) => c.window.remaining(now) === 0);
  if (full) {
    const headers = { ...rateHeaders(full, now), ...(withDay ? dayHeaders(counted, now) : {}) };
    throw httpProblem(429, "Too Many Requests", "Too Many Requests", headers);
  }

  for (const c of counted) c.window.record(now);
  let tightest = counted[0]!;
  for (const c of counted) {
    const r = c.window.remaining(now);
    const t = tightest.window.remaining(now);
    if (r < t || (r === t && c.window.resetAt(now) > tightest.window.resetAt(now))) tightest = c;
  }
  return { ...rateHeaders(tightest, now), ...(withDay ? dayHeaders(counted, now) : {}) };
}
