/** Trends (spec 4.1 "Compliance, trends, communities"): by location (app-only) and personalized (user context). */
import type { CallOptions, Caller } from "../caller.ts";
import type { PersonalizedTrendField, TrendField } from "../params.ts";

export function trendsGroup(c: Caller) {
  return {
    /** `GET /2/trends/by/woeid/:id`: trends of a location (a WOEID, e.g. 1 for the world). */
    byLocation: (
      woeid: string | number,
      query?: { max_trends?: number; "trend.fields"?: readonly TrendField[] },
      options?: CallOptions,
    ) => c.request("GET /2/trends/by/woeid/:id", { params: { id: String(woeid) }, query }, options),
    /** `GET /2/users/personalized_trends`: trends for the caller. */
    personalized: (
      query?: { "personalized_trend.fields"?: readonly PersonalizedTrendField[] },
      options?: CallOptions,
    ) => c.request("GET /2/users/personalized_trends", { query }, options),
  };
}
