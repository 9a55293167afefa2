/**
 * The monthly post cap (spec 8.1 rule 5): on the basic plan, at most 500,000 posts a month
 * delivered through recent search and the filtered stream. The month runs from the app's
 * enrolment day (the day of the month it was created on) to the day before the next one.
 * Once spent, those endpoints answer 429 `usage-capped` until the next enrolment day.
 */
import type { EndpointKey } from "../../api/endpoints.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { CAPPED_ENDPOINTS, MONTHLY_POST_CAP } from "../../limits/index.ts";
import type { SandboxApp, SandboxData } from "../model/index.ts";
import { ApiProblem } from "../problems.ts";

const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/**
 * The first day (UTC) of the cap period containing `now`: the latest enrolment day not after
 * today. An enrolment day past the end of a short month falls on that month's last day.
 */
export function capPeriodStart(createdAt: number, now: number): string {
  const enrolDay = new Date(createdAt).getUTCDate();
  const d = new Date(now);
  let y = d.getUTCFullYear();
  let m = d.getUTCMonth();
  if (d.getUTCDate() < Math.min(enrolDay, daysIn(y, m))) {
    m -= 1;
    if (m < 0) (m = 11), (y -= 1);
  }
  return dayKey(Date.UTC(y, m, Math.min(enrolDay, daysIn(y, m))));
}

/** The first day of the next period: when a spent cap resets. */
export function capResetDay(createdAt: number, now: number): string {
  const start = new Date(`${capPeriodStart(createdAt, now)}T00:00:00Z`);
  const enrolDay = new Date(createdAt).getUTCDate();
  let y = start.getUTCFullYear();
  let m = start.getUTCMonth() + 1;
  if (m > 11) (m = 0), (y += 1);
  return dayKey(Date.UTC(y, m, Math.min(enrolDay, daysIn(y, m))));
}

/** Posts the app read through capped endpoints in the current period. */
export function postsReadThisPeriod(data: SandboxData, app: SandboxApp, now: number): number {
  const start = capPeriodStart(app.created_at, now);
  let sum = 0;
  for (const [day, n] of Object.entries(data.meter.posts_read[app.id] ?? {})) if (day >= start) sum += n;
  return sum;
}

/** The app's cap status, for `GET /2/usage/posts` and the refusal below. */
export function capStatus(data: SandboxData, app: SandboxApp, now: number) {
  return {
    cap: MONTHLY_POST_CAP[app.plan],
    used: postsReadThisPeriod(data, app, now),
    periodStart: capPeriodStart(app.created_at, now),
    resetDay: capResetDay(app.created_at, now),
    /** Day of the month the cap resets on (`cap_reset_day` of the usage endpoint). */
    resetDayOfMonth: new Date(app.created_at).getUTCDate(),
  };
}

/** Throws 429 usage-capped when the endpoint is capped and the app's cap is spent. */
export function checkCap(data: SandboxData, key: EndpointKey, app: SandboxApp, now: number): void {
  const cap = MONTHLY_POST_CAP[app.plan];
  if (cap === undefined || !CAPPED_ENDPOINTS.includes(key)) return;
  if (postsReadThisPeriod(data, app, now) < cap) return;
  throw new ApiProblem(429, {
    title: "UsageCapExceeded",
    detail: "Usage cap exceeded: Monthly product cap",
    type: PROBLEM_TYPE_BASE + "usage-capped",
    period: "Monthly",
    scope: "Product",
  });
}

/** Counts posts delivered through a capped endpoint (by day, pruning days of past periods). */
export function countPostsRead(data: SandboxData, app: SandboxApp, now: number, n: number): void {
  if (!(n > 0)) return;
  const days = (data.meter.posts_read[app.id] ??= {});
  const today = dayKey(now);
  days[today] = (days[today] ?? 0) + n;
  const start = capPeriodStart(app.created_at, now);
  for (const day of Object.keys(days)) if (day < start) delete days[day];
}
