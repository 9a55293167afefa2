/**
 * The app's mention rules as a plan kept between changes: which rule covers each wanted
 * username, which rules must go (a name of theirs is no longer wanted) and which names no
 * rule covers yet. A bot added, changed or removed moves its own name, and the next plan
 * reads only those: at 10,000 mention bots a fleet change planned every bot again (about
 * 10 ms a change, each holding up every bot's events), while the rules mostly stay.
 *
 * The plan is the one {@link planMentionRules} describes (./mention-rules.ts): keep each rule
 * whose names are all wanted, pack the rest in sorted order, repack from scratch when the
 * kept rules and the new ones would not fit the room the cap leaves.
 */
import type { StreamRule } from "../api/types.ts";
import {
  mentionRuleValue,
  packUsernames,
  parsedUsernames,
  type MentionRulesPlan,
  type RuleCaps,
} from "./mention-rules.ts";

/** A bot whose mentions come through the stream, as the plan reads it (its name and username). */
export interface PlannedBot {
  readonly bot: string;
  readonly username: string;
}

/** A mention rule as the plan knows it: the names it covers, and whether it stays. */
interface KnownRule {
  rule: StreamRule;
  /** Its usernames; undefined when it is not a value postbot writes (it goes). */
  names: readonly string[] | undefined;
}

/** The mention rules of one app, planned by what changed; see the module comment. */
export class MentionPlan {
  /** Wanted usernames (lower case), each with how many bots want it. */
  private readonly wanted = new Map<string, number>();
  /** The bots as last wanted, by name: the object given, its username's key, the pass that last named it. */
  private readonly bots = new Map<string, { given: PlannedBot; name: string; seen: number }>();
  private passes = 0;
  /** The mention rules the last plan started from, by id. */
  private readonly rules = new Map<string, KnownRule>();
  /** The rule that covers each name (only rules that stay). */
  private readonly ruleOf = new Map<string, string>();
  /** Rules that go: a name no longer wanted, covered twice, too long, or not one postbot writes. */
  private readonly doomed = new Set<string>();
  /** Wanted names no rule that stays covers. */
  private readonly uncovered = new Set<string>();

  constructor(private readonly caps: RuleCaps) {}

  /**
   * The bots wanted now. A bot given as the same object as before (or with the same username)
   * costs a lookup; only the bots that came, changed or went move the plan.
   */
  want(bots: readonly PlannedBot[]): void {
    const pass = ++this.passes;
    let named = 0;
    for (const given of bots) {
      const known = this.bots.get(given.bot);
      if (known?.seen === pass) continue; // named twice
      named++;
      if (known && (known.given === given || known.given.username === given.username)) {
        known.given = given;
        known.seen = pass;
        continue;
      }
      const name = given.username.toLowerCase();
      this.addName(name);
      if (known) this.dropName(known.name);
      this.bots.set(given.bot, { given, name, seen: pass });
    }
    if (named === this.bots.size) return;
    for (const [bot, known] of this.bots) {
      if (known.seen === pass) continue;
      this.bots.delete(bot);
      this.dropName(known.name);
    }
  }

  /** The usernames wanted, as given to {@link want} (lower case): for a plan of names alone. */
  wantNames(names: readonly string[]): void {
    this.want(names.map((name) => ({ bot: name, username: name })));
  }

  /**
   * What to change so that the rules cover exactly the wanted names, given the app's mention
   * rules now (`existing`: those the last plan made, as the service took them) and the room
   * its other rules leave. Costs the rules that came or went since the last plan and the
   * names that moved; a repack from scratch (rare: fragments past the room) costs all.
   */
  plan(existing: readonly StreamRule[], freeRules: number): MentionRulesPlan {
    this.follow(existing);
    const keep: StreamRule[] = [];
    for (const [id, known] of this.rules) if (!this.doomed.has(id)) keep.push(known.rule);
    // Only the names no kept rule covers are sorted (a bot or two, as the fleet changes).
    const loose = [...this.uncovered].sort();
    let packs = packUsernames(loose, this.caps.maxRuleLength);
    let kept = keep;
    if (kept.length + packs.length > freeRules) {
      // Fragmented over time: start again with the fewest rules.
      kept = [];
      packs = packUsernames([...this.wanted.keys()].sort(), this.caps.maxRuleLength);
    }
    const room = Math.max(0, freeRules - kept.length);
    const keptIds = new Set(kept.map((r) => r.id));
    return {
      keep: kept,
      add: packs.slice(0, room).map(mentionRuleValue),
      remove: existing.filter((r) => !keptIds.has(r.id)),
      overflow: packs.slice(room).flat(),
    };
  }

  /** The rules now: those gone are forgotten (their names uncovered), those new learnt. */
  private follow(existing: readonly StreamRule[]): void {
    const ids = new Set(existing.map((r) => r.id));
    // The rules gone first: the rules that replaced them (a repack) cover the same names.
    if (this.rules.size > 0) for (const id of [...this.rules.keys()]) if (!ids.has(id)) this.forget(id);
    for (const rule of existing) {
      const known = this.rules.get(rule.id);
      if (!known || known.rule.value !== rule.value) this.learn(rule);
      else known.rule = rule;
    }
  }

  /** A rule the plan had not seen: it stays when its names are all wanted and no other rule covers them. */
  private learn(rule: StreamRule): void {
    if (this.rules.has(rule.id)) this.forget(rule.id);
    const names = parsedUsernames(rule.value);
    this.rules.set(rule.id, { rule, names });
    const stays =
      names !== undefined &&
      rule.value.length <= this.caps.maxRuleLength &&
      new Set(names).size === names.length &&
      names.every((n) => this.wanted.has(n) && !this.ruleOf.has(n));
    if (!stays) {
      this.doomed.add(rule.id);
      return;
    }
    for (const n of names) {
      this.ruleOf.set(n, rule.id);
      this.uncovered.delete(n);
    }
  }

  /** A rule gone from the app: the wanted names it covered are uncovered. */
  private forget(id: string): void {
    const known = this.rules.get(id);
    this.rules.delete(id);
    this.doomed.delete(id);
    for (const n of known?.names ?? []) {
      if (this.ruleOf.get(n) !== id) continue;
      this.ruleOf.delete(n);
      if (this.wanted.has(n)) this.uncovered.add(n);
    }
  }

  /** A bot wants `name`. */
  private addName(name: string): void {
    const count = this.wanted.get(name) ?? 0;
    this.wanted.set(name, count + 1);
    if (count === 0 && !this.ruleOf.has(name)) this.uncovered.add(name);
  }

  /** A bot no longer wants `name`: once no bot does, the rule covering it goes. */
  private dropName(name: string): void {
    const count = (this.wanted.get(name) ?? 0) - 1;
    if (count > 0) {
      this.wanted.set(name, count);
      return;
    }
    this.wanted.delete(name);
    this.uncovered.delete(name);
    const id = this.ruleOf.get(name);
    if (id === undefined) return;
    this.doomed.add(id);
    // The rule's other names are covered by no rule that stays: the plan packs them again.
    for (const n of this.rules.get(id)?.names ?? []) {
      if (this.ruleOf.get(n) !== id) continue;
      this.ruleOf.delete(n);
      if (this.wanted.has(n)) this.uncovered.add(n);
    }
  }
}

/**
 * What to change so that the app's mention rules cover exactly `wanted` (lower-case
 * usernames), given the app's existing mention rules and how many rules the app's other
 * (bot-file) rules leave free: a {@link MentionPlan} made for this one plan.
 */
export function planMentionRules(
  wanted: readonly string[],
  existing: readonly StreamRule[],
  caps: RuleCaps,
  freeRules: number,
): MentionRulesPlan {
  const plan = new MentionPlan(caps);
  plan.wantNames(wanted);
  return plan.plan(existing, freeRules);
}
