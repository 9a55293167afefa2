/** Usage (spec 4.1 "Posts"): the project's post consumption against its cap (app-only). */
import type { CallOptions, Caller } from "../caller.ts";
import type { UsageField } from "../params.ts";

export function usageGroup(c: Caller) {
  return {
    /** `GET /2/usage/posts`: daily usage of the last `days` (1–90), the cap and its reset day. */
    posts: (query?: { days?: number; "usage.fields"?: readonly UsageField[] }, options?: CallOptions) =>
      c.request("GET /2/usage/posts", { query }, options),
  };
}
