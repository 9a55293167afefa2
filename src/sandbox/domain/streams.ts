/**
 * The two streams' domain: which new posts each delivers, and the one-connection-per-app
 * rule of the filtered stream (wire-facts 2.8).
 *
 * - Filtered stream: each new public post is tested against the app's current rules (so
 *   rule changes apply to the next post, with no reconnect) and delivered with the rules
 *   it matched.
 * - Sample stream: "about 1%" is decided by the post id alone: a post is in the sample
 *   when the FNV-1a hash of its decimal id is 0 modulo 100. Deterministic, so a test can
 *   ask {@link inSample} which posts will come through.
 *
 * Connections are the running process's state, not the world's: they live in a table keyed
 * by the sandbox's event bus, so each sandbox (and each test's) has its own.
 */
import type { SandboxPost } from "../model/index.ts";
import { ApiProblem } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { postFacts, visibleTo } from "./posts.ts";
import { matches, requiredValues, valueKeysOf, type OpValue, type PostFacts, type SetOperator } from "./query.ts";
import { compiledRule, rulesOf, type RuleRecord } from "./rules.ts";

const open = new WeakMap<object, Set<string>>();

/** The 429 the service answers to a second filtered-stream connection of an app. */
export function tooManyConnections(): ApiProblem {
  return new ApiProblem(429, {
    title: "ConnectionException",
    detail: "This stream is currently at the maximum allowed connection limit.",
    connection_issue: "TooManyConnections",
    type: PROBLEM_TYPE_BASE + "streaming-connection",
  });
}

/**
 * Takes an app's one filtered-stream connection, or throws the 429 when it is taken.
 * Returns the release function (idempotent).
 */
export function claimConnection(ctx: SandboxContext, appId: string): () => void {
  let apps = open.get(ctx.events);
  if (!apps) open.set(ctx.events, (apps = new Set()));
  if (apps.has(appId)) throw tooManyConnections();
  apps.add(appId);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    apps.delete(appId);
  };
}

/**
 * The app's rules a post matches, as `matching_rules`; empty when the post is not public.
 * Each carries `tag`, `""` for a rule added without one: the service always sends it here
 * (widely used clients read `rule["tag"]` unguarded), while the rules lookup omits it.
 */
export function matchingRules(
  ctx: SandboxContext,
  appId: string,
  post: SandboxPost,
): Array<{ id: string; tag: string }> {
  if (!visibleTo(ctx, undefined, post)) return [];
  const facts = postFacts(ctx, post);
  const rules = rulesOf(ctx, appId);
  const index = ruleIndexOf(rules);
  const candidates = [...index.always];
  for (const { op, value } of keysOf(facts)) {
    const hit = index.byValue.get(op)?.get(value);
    if (typeof hit === "number") candidates.push(hit);
    else if (hit) candidates.push(...hit);
  }
  // Most posts match no rule of an app, or one: no set and no sort for them.
  const order = candidates.length > 1 ? [...new Set(candidates)].sort((a, b) => a - b) : candidates;
  const out: Array<{ id: string; tag: string }> = [];
  for (const i of order) {
    const r = rules[i]!;
    if (matches(compiledRule(r.value), facts)) out.push({ id: r.id, tag: r.tag ?? "" });
  }
  return out;
}

/**
 * A post's {@link valueKeysOf}, for the last post asked about: every open stream tests each
 * new post in turn (one per app), and the keys are the same for each. One post remembered,
 * not every post's keys for as long as the post lives.
 */
function keysOf(facts: PostFacts): readonly OpValue[] {
  if (lastKeys.facts !== facts) lastKeys = { facts, keys: valueKeysOf(facts) };
  return lastKeys.keys;
}
let lastKeys: { facts?: PostFacts; keys: readonly OpValue[] } = { keys: [] };

/**
 * An app's rules by the values a post must have to match them, per operator (a rule's
 * position, or the positions of several rules sharing the value), and the rules that need none.
 */
interface RuleIndex {
  byValue: Map<SetOperator, Map<string, number | number[]>>;
  always: number[];
}

/**
 * Per rules list (replaced whenever the app's rules change): testing each post against
 * every rule of an app with 10,000 bots' packed mention rules (~250) kept the sandbox busy
 * in a flood, and so slowed every reply measured through it. A post is now tested only
 * against the rules it can match (by {@link requiredValues}), and those that require nothing.
 * With 100,000 bots' rules the index holds 200,000 values: each is the rule's own string,
 * under its operator (not a new `op value` key), and a value most often belongs to one rule
 * (a bot's `@name` to its packed rule), so its position is kept bare, not in an array of one.
 */
const ruleIndexes = new WeakMap<readonly RuleRecord[], RuleIndex>();

function ruleIndexOf(rules: readonly RuleRecord[]): RuleIndex {
  let index = ruleIndexes.get(rules);
  if (!index) {
    const made: RuleIndex = { byValue: new Map(), always: [] };
    rules.forEach((r, i) => {
      const keys = requiredValues(compiledRule(r.value));
      if (!keys) return void made.always.push(i);
      for (const { op, value } of keys) {
        let values = made.byValue.get(op);
        if (!values) made.byValue.set(op, (values = new Map()));
        const had = values.get(value);
        if (had === undefined) values.set(value, i);
        else if (typeof had === "number") {
          if (had !== i) values.set(value, [had, i]);
        } else if (!had.includes(i)) had.push(i);
      }
    });
    ruleIndexes.set(rules, made);
    index = made;
  }
  return index;
}

/** Whether a post id falls in the 1% sample (FNV-1a of the decimal id, modulo 100). */
export function inSample(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % 100 === 0;
}

/** Whether the sample stream delivers a post: public and in the sample. */
export const sampled = (ctx: SandboxContext, post: SandboxPost): boolean =>
  inSample(post.id) && visibleTo(ctx, undefined, post);
