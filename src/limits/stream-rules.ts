/**
 * How many filtered-stream rules an app may keep, and how long each may be, by plan: the
 * one place both the sandbox (which refuses past them) and the client side (which packs
 * bots' rules within them) read these numbers from.
 *
 * Where they come from: the spec names no caps (`npm run check:spec` therefore has nothing
 * to check them against). Pro's numbers are the real service's published ones for its
 * Pro tier, 1,000 rules per app of up to 1,024 characters each; a request past them gets a
 * per-rule `…/problems/rule-cap` or `…/problems/invalid-rules` error (wire-facts 2.7, 3.1).
 * Basic and free have no filtered stream in the spec's limit table (`—` for connect and the
 * rules endpoints, see `table.ts` and `plan-limits.ts`), so they have no caps: `undefined`
 * means "no rule can be kept at all".
 */
import type { Plan } from "./types.ts";

/** The rule caps of one plan. */
export interface StreamRuleCaps {
  /** Rules one app may keep at a time. */
  readonly maxRules: number;
  /** Characters (Unicode code points) of one rule's value. */
  readonly maxRuleLength: number;
}

/** Rule caps by plan; `undefined` where the plan has no filtered stream. */
export const STREAM_RULE_CAPS: Readonly<Record<Plan, StreamRuleCaps | undefined>> = {
  pro: { maxRules: 1000, maxRuleLength: 1024 },
  basic: undefined,
  free: undefined,
};
