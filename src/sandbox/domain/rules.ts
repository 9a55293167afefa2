/**
 * Filtered-stream rules (wire-facts 2.7): each app's own set of `{id, value, tag?}`, where
 * `value` is a query of `query.ts`. The stream reads the current rules for every new
 * post, so a change reaches a connected stream at once, without reconnecting.
 *
 * Caps per plan (the real service's published ones; the spec shows none): pro 1000 rules
 * of up to 1024 characters, basic 25 of up to 512, free 5 of up to 512 (the stream itself
 * is unavailable on basic and free, but rules can still be checked with `dry_run`).
 *
 * Adding is all-or-nothing for errors that make a request wrong (an invalid rule, the cap):
 * nothing is created and the answer is 400. Duplicates (of a stored rule or within the
 * request) are only skipped, reported in `errors`, and the rest is created.
 */
import { PROBLEM_TYPE_BASE, type Problem, type RulesSummary, type StreamRule } from "../../api/types.ts";
import type { Plan } from "../../limits/types.ts";
import { compareIds, nextId, type SandboxApp, type WorldData } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";
import { parseQuery, QueryError, type Query } from "./query.ts";

/** Rules per app and characters per rule, by plan (see the module comment). */
export const RULE_CAPS: Record<Plan, { rules: number; length: number }> = {
  pro: { rules: 1000, length: 1024 },
  basic: { rules: 25, length: 512 },
  free: { rules: 5, length: 512 },
};

/** The longest tag. */
export const MAX_TAG_LENGTH = 128;

/** A stored rule: its app, value, optional tag and creation time. */
export type RuleRecord = WorldData["stream_rules"][string];

/** An app's rules, oldest first. */
export function rulesOf(ctx: SandboxContext, appId: string): RuleRecord[] {
  return Object.values(ctx.data.world.stream_rules)
    .filter((r) => r.app_id === appId)
    .sort((a, b) => compareIds(a.id, b.id));
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
export const toWire = (r: RuleRecord): StreamRule => (r.tag !== undefined ? { id: r.id, value: r.value, tag: r.tag } : { id: r.id, value: r.value });

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

/**
 * Adds rules (or, with `dryRun`, only checks them). See the module comment for the
 * all-or-nothing and duplicate behaviour.
 */
export function addRules(ctx: SandboxContext, app: SandboxApp, items: Array<{ value: string; tag?: string }>, dryRun: boolean): RulesOutcome {
  const cap = RULE_CAPS[app.plan];
  const existing = rulesOf(ctx, app.id);
  const errors: Problem[] = [];
  const fresh: Array<{ value: string; tag?: string }> = [];
  let invalid = 0;
  const seen = new Map(existing.map((r) => [r.value, r.id] as const));
  for (const item of items) {
    const value = item.value;
    const details: string[] = [];
    if (Array.from(value).length > cap.length) details.push(`Rule is longer than ${cap.length} characters, the limit of the ${app.plan} plan`);
    else {
      try {
        parseQuery(value, cap.length);
      } catch (e) {
        if (!(e instanceof QueryError)) throw e;
        details.push(e.message);
      }
    }
    if (item.tag !== undefined && Array.from(item.tag).length > MAX_TAG_LENGTH) details.push(`The tag is longer than ${MAX_TAG_LENGTH} characters`);
    if (details.length) {
      invalid++;
      errors.push(invalidRule(value, details));
      continue;
    }
    if (seen.has(value)) {
      const id = seen.get(value);
      errors.push({ value, ...(id ? { id } : {}), title: "DuplicateRule", type: PROBLEM_TYPE_BASE + "duplicate-rules" });
      continue;
    }
    seen.set(value, "");
    fresh.push(item);
  }
  const valid = items.length - invalid;
  const refused = (more: Problem[]): RulesOutcome => ({
    status: 400,
    summary: { created: 0, not_created: items.length, valid, invalid },
    errors: [...errors, ...more],
  });
  if (invalid) return refused([]);
  if (existing.length + fresh.length > cap.rules) {
    return refused([
      {
        title: "RuleCapExceeded",
        detail: `Rule cap exceeded: the ${app.plan} plan allows ${cap.rules} rules; the app has ${existing.length} and this request adds ${fresh.length}.`,
        type: PROBLEM_TYPE_BASE + "rule-cap",
      },
    ]);
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
  const out: RulesOutcome = {
    status: made.length && !dryRun ? 201 : 200,
    summary: { created: made.length, not_created: items.length - made.length, valid, invalid },
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
  for (const id of target.ids ?? []) {
    const r = mine.find((m) => m.id === id);
    if (r) doomed.add(r);
    else errors.push(missing("ids", id));
  }
  for (const value of target.values ?? []) {
    const r = mine.find((m) => m.value === value);
    if (r) doomed.add(r);
    else errors.push(missing("values", value));
  }
  if (!dryRun) for (const r of doomed) delete ctx.data.world.stream_rules[r.id];
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
