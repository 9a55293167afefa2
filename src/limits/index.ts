/** Spec part 8 as data: plans, the limit table, the chosen gaps, and the sliding window. */
export * from "./types.ts";
export { SPEC_LIMITS } from "./table.ts";
export { limitsFor, MONTHLY_POST_CAP, CAPPED_ENDPOINTS } from "./plan-limits.ts";
export { STREAM_RULE_CAPS, type StreamRuleCaps } from "./stream-rules.ts";
export { SlidingWindow } from "./window.ts";
