/**
 * Filtered-stream rules (wire-facts 2.7): each app's own set of `{id, value, tag?}`, where
 * `value` is a query of `query.ts`. The stream reads the current rules for every new
 * post, so a change reaches a connected stream at once, without reconnecting.
 *
 * Adding is judged rule by rule, as the service does (wire-facts 2.7: per-rule failures go
 * in `errors[]`): an invalid rule (bad query, longer than the plan's cap, tag too long) gets
 * an `invalid-rules` error, a duplicate (of a stored rule or one earlier in the request) a
 * `duplicate-rules` error, and each rule past the plan's rule cap (`STREAM_RULE_CAPS`, in
 * `limits/stream-rules.ts`) a `rule-cap` error; every other rule of the same request is
 * created. The summary counts invalid and duplicate rules as `invalid` (captured answers
 * show a duplicate as `valid: 0, invalid: 1`) and rules refused by the cap as valid but
 * not created. The answer is 201 when something was created, else 200 (the service answers
 * a request whose rules were all refused with 200 and the errors; only a malformed body is
 * a 400).
 */
import { PROBLEM_TYPE_BASE, type Problem, type RulesSummary, type StreamRule } from "../../api/types.ts";
import { STREAM_RULE_CAPS, type StreamRuleCaps } from "../../limits/stream-rules.ts";
import { compareIds, nextId, type SandboxApp, type WorldData } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";
import { parseQuery, QueryError, type Query } from "./query.ts";
import { codePointsUpTo } from "./code-points.ts";

/** A plan without a filtered stream keeps no rules (reachable only through the domain). */
const NO_RULES: StreamRuleCaps = { maxRules: 0, maxRuleLength: Number.MAX_SAFE_INTEGER };

/** The longest tag. */
export const MAX_TAG_LENGTH = 128;

/** A stored rule: its app, value, optional tag and creation time. */
export type RuleRecord = WorldData["stream_rules"][string];

/**
 * Each app's rules, kept per rules table (the world's object, replaced when the world is) and
 * dropped by {@link addRules} and {@link deleteRules}, the only writers: every post is
 * matched against its apps' rules, and scanning every rule of every app for each was the
 * sandbox's cost with thousands of rules.
 */
const rulesByApp = new WeakMap<object, Map<string, readonly RuleRecord[]>>();

/** An app's rules, oldest first. */
export function rulesOf(ctx: SandboxContext, appId: string): readonly RuleRecord[] {
  const table = ctx.data.world.stream_rules;
  let apps = rulesByApp.get(table);
  if (!apps) rulesByApp.set(table, (apps = new Map()));
  let rules = apps.get(appId);
  if (!rules) {
    rules = Object.values(table)
      .filter((r) => r.app_id === appId)
      .sort((a, b) => compareIds(a.id, b.id));
    apps.set(appId, rules);
  }
  return rules;
}

/**
 * Drops one app's kept rules after its rules changed; the other apps' stay, with what the
 * streams keep per rules list (their index of 25,000 bots' values each, with 100,000 bots
 * over 4 apps): one app's hub changing its rules made every app's stream index its rules anew.
 */
function changed(ctx: SandboxContext, appId: string): void {
  rulesByApp.get(ctx.data.world.stream_rules)?.delete(appId);
}

const compiled = new Map<string, Query>();

/** The parsed query of a stored rule (parsed once per distinct value). */
export function compiledRule(value: string): Query {
  let q = compiled.get(value);
  if (!q) {
    if (compiled.size > 10_000) compiled.clear();
    q = parseQuery(value, Number.MAX_SAFE_INTEGER);
    compiled.set(value, q);
  }
  return q;
}

/** A rule as the service shows it: `{id, value, tag?}`. */
export const toWire = (r: RuleRecord): StreamRule =>
  r.tag !== undefined ? { id: r.id, value: r.value, tag: r.tag } : { id: r.id, value: r.value };

/** The outcome of an add or delete: what the route answers. */
export interface RulesOutcome {
  status: number;
  data?: StreamRule[];
  summary: RulesSummary;
  errors: Problem[];
}

function invalidRule(value: string, details: string[]): Problem {
  return { value, details, title: "UnprocessableEntity", type: PROBLEM_TYPE_BASE + "invalid-rules" };
}

function overCap(value: string, plan: string, caps: StreamRuleCaps): Problem {
  return {
    value,
    title: "RuleCapExceeded",
    detail: `Rule cap exceeded: the ${plan} plan allows ${caps.maxRules} rules per app; delete rules before adding more.`,
    type: PROBLEM_TYPE_BASE + "rule-cap",
  };
}

/** Why a rule is invalid on this plan (empty when it is valid). */
function ruleProblems(item: { value: string; tag?: string }, plan: string, caps: StreamRuleCaps): string[] {
  const details: string[] = [];
  if (codePointsUpTo(item.value, caps.maxRuleLength) > caps.maxRuleLength) {
    details.push(`Rule is longer than ${caps.maxRuleLength} characters, the limit of the ${plan} plan`);
  } else {
    try {
      parseQuery(item.value, caps.maxRuleLength);
    } catch (e) {
      if (!(e instanceof QueryError)) throw e;
      details.push(e.message);
    }
  }
  if (item.tag !== undefined && codePointsUpTo(item.tag, MAX_TAG_LENGTH) > MAX_TAG_LENGTH)
    details.push(`The tag is longer than ${MAX_TAG_LENGTH} characters`);
  return details;
}

/**
 * Adds rules (or, with `dryRun`, only checks them), rule by rule: see the module comment
 * for what is refused and how it is counted.
 */
export function addRules(
  ctx: SandboxContext,
  app: SandboxApp,
  items: Array<{ value: string; tag?: string }>,
  dryRun: boolean,
): RulesOutcome {
  const caps = STREAM_RULE_CAPS[app.plan] ?? NO_RULES;
  const existing = rulesOf(ctx, app.id);
  const errors: Problem[] = [];
  const fresh: Array<{ value: string; tag?: string }> = [];
  let invalid = 0;
  const seen = new Map(existing.map((r) => [r.value, r.id] as const));
  for (const item of items) {
    const value = item.value;
    const details = ruleProblems(item, app.plan, caps);
    if (details.length) {
      invalid++;
      errors.push(invalidRule(value, details));
    } else if (seen.has(value)) {
      invalid++;
      const id = seen.get(value);
      errors.push({
        value,
        ...(id ? { id } : {}),
        title: "DuplicateRule",
        type: PROBLEM_TYPE_BASE + "duplicate-rules",
      });
    } else if (existing.length + fresh.length >= caps.maxRules) {
      errors.push(overCap(value, app.plan, caps));
    } else {
      seen.set(value, "");
      fresh.push(item);
    }
  }
  const now = ctx.clock.now();
  const made: RuleRecord[] = fresh.map((f) => ({
    id: nextId(ctx.data, now),
    app_id: app.id,
    value: f.value,
    created_at: now,
    ...(f.tag !== undefined ? { tag: f.tag } : {}),
  }));
  if (!dryRun) for (const r of made) ctx.data.world.stream_rules[r.id] = r;
  if (!dryRun && made.length > 0) changed(ctx, app.id);
  const out: RulesOutcome = {
    status: made.length && !dryRun ? 201 : 200,
    summary: { created: made.length, not_created: items.length - made.length, valid: items.length - invalid, invalid },
    errors,
  };
  if (made.length) out.data = made.map(toWire);
  return out;
}

/** Deletes rules by id or by value (or, with `all`, every rule of the app). */
export function deleteRules(
  ctx: SandboxContext,
  app: SandboxApp,
  target: { ids?: string[]; values?: string[]; all?: boolean },
  dryRun: boolean,
): RulesOutcome {
  const mine = rulesOf(ctx, app.id);
  const errors: Problem[] = [];
  const doomed = new Set<RuleRecord>();
  if (target.all) for (const r of mine) doomed.add(r);
  // By map, not by a scan of the app's rules per id: a body may name tens of thousands.
  const byId = new Map(mine.map((r) => [r.id, r] as const));
  const byValue = new Map<string, RuleRecord>();
  for (const r of mine) if (!byValue.has(r.value)) byValue.set(r.value, r);
  for (const id of target.ids ?? []) {
    const r = byId.get(id);
    if (r) doomed.add(r);
    else errors.push(missing("ids", id));
  }
  for (const value of target.values ?? []) {
    const r = byValue.get(value);
    if (r) doomed.add(r);
    else errors.push(missing("values", value));
  }
  if (!dryRun) for (const r of doomed) delete ctx.data.world.stream_rules[r.id];
  if (!dryRun && doomed.size > 0) changed(ctx, app.id);
  return { status: 200, summary: { deleted: doomed.size, not_deleted: errors.length }, errors };
}

function missing(parameter: string, value: string): Problem {
  return {
    value,
    detail: `Could not find rule with ${parameter}: [${value}].`,
    title: "Not Found Error",
    resource_type: "rule",
    parameter,
    resource_id: value,
    type: PROBLEM_TYPE_BASE + "resource-not-found",
  };
}
