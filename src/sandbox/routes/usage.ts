/**
 * `GET /2/usage/posts` (wire-facts 2.18): how many posts the caller's project read through
 * the capped endpoints (recent search and the filtered stream), per day and in the current
 * cap period, with the cap and the day of the month it resets. The numbers are what the
 * platform counted while it served those endpoints (`data.meter.posts_read`), so they are
 * exactly what the sandbox delivered.
 *
 * Choices where the service leaves room:
 * - The sandbox has no projects: each app is its own project, so `project_id` and the one
 *   `client_app_id` are both the app's id.
 * - `project_cap` is given only for a plan that has a monthly cap (spec 8.1 rule 5: basic).
 * - The counts are strings, as real responses send them (wire-facts 2.18; clients accept both).
 * - Without `usage.fields` the answer has `project_id`, `project_cap`, `project_usage` and
 *   `cap_reset_day`; the daily series come when asked for.
 * - Days are UTC days, oldest first, today included; the platform keeps daily counts for
 *   the current cap period only, so days before it count zero.
 */
import { USAGE_FIELDS, type Usage } from "../../api/types.ts";
import { capStatus } from "../meter/cap.ts";
import type { RouteTable } from "../route.ts";
import { readFields } from "../domain/expand.ts";
import { Params } from "../domain/params.ts";
import { ok } from "./common.ts";

const DAY_MS = 24 * 3_600_000;
const DEFAULT_USAGE_FIELDS = ["project_id", "project_cap", "project_usage", "cap_reset_day"] as const;

/** Usage handlers by endpoint key. */
export const usageRoutes: RouteTable = {
  "GET /2/usage/posts": (req) => {
    const q = new Params(req.query, ["days", "usage.fields"]);
    const days = q.int("days", 1, 90, 7);
    const fields = readFields(
      q,
      "usage.fields",
      USAGE_FIELDS,
      q.get("usage.fields") === undefined ? DEFAULT_USAGE_FIELDS : [],
    );
    const app = req.caller.app;
    const data = req.sandbox.data;
    const now = req.sandbox.clock.now();
    const status = capStatus(data, app, now);
    const perDay = data.meter.posts_read[app.id] ?? {};
    const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
    const series = Array.from({ length: days }, (_, i) => {
      const day = new Date(today - (days - 1 - i) * DAY_MS).toISOString();
      return { date: day, usage: String(perDay[day.slice(0, 10)] ?? 0) };
    });
    const out: Usage = {};
    if (fields.has("project_id")) out.project_id = app.id;
    if (fields.has("project_cap") && status.cap !== undefined) out.project_cap = String(status.cap);
    if (fields.has("project_usage")) out.project_usage = String(status.used);
    if (fields.has("cap_reset_day")) out.cap_reset_day = status.resetDayOfMonth;
    if (fields.has("daily_project_usage")) out.daily_project_usage = { project_id: app.id, usage: series };
    if (fields.has("daily_client_app_usage"))
      out.daily_client_app_usage = [{ client_app_id: app.id, usage: series, usage_result_count: series.length }];
    return ok({ data: out });
  },
};
