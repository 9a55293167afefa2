import { describe, expect, it } from "vitest";
import type { StreamRule } from "../../src/api/types.ts";
import { STREAM_RULE_CAPS } from "../../src/limits/stream-rules.ts";
import { MentionPlan, planMentionRules } from "../../src/triggers/mention-plan.ts";
import { mentionRuleValue, packUsernames, usernamesOf } from "../../src/triggers/mention-rules.ts";

const caps = STREAM_RULE_CAPS.pro!;
const names = (n: number, prefix = "bot") =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(5, "0")}`);
const asRules = (values: string[]): StreamRule[] =>
  values.map((value, i) => ({ id: String(1000 + i), value, tag: "postbot:mentions" }));

describe("mention rules", () => {
  it("pack @name OR to:name within the rule length, every name once, and read back what they cover", () => {
    const all = names(10_000, "user_with_name");
    const packs = packUsernames(all, caps.maxRuleLength);
    const values = packs.map(mentionRuleValue);
    expect(values.every((v) => v.length <= caps.maxRuleLength)).toBe(true);
    expect(values.length).toBeLessThan(caps.maxRules);
    expect(values.flatMap((v) => usernamesOf(v)!)).toEqual(all);
    expect(mentionRuleValue(["ann", "bob"])).toBe("(@ann OR to:ann OR @bob OR to:bob) -is:repost");
    expect(usernamesOf("#cats")).toBeUndefined();
  });

  it("change nothing on a restart with the same bots, and one rule when a bot comes or goes", () => {
    const first = planMentionRules(names(300), [], caps, caps.maxRules);
    expect(first.remove).toEqual([]);
    const existing = asRules(first.add);
    const again = planMentionRules(names(300), existing, caps, caps.maxRules);
    expect(again).toEqual({ keep: existing, add: [], remove: [], overflow: [] });

    const added = planMentionRules([...names(300), "newcomer"], existing, caps, caps.maxRules);
    expect(added.remove).toEqual([]);
    expect(added.add).toEqual([mentionRuleValue(["newcomer"])]);

    const gone = planMentionRules(
      names(300).filter((n) => n !== "bot00007"),
      existing,
      caps,
      caps.maxRules,
    );
    expect(gone.remove).toHaveLength(1);
    expect(gone.add).toHaveLength(1);
    expect(usernamesOf(gone.add[0]!)).toEqual(usernamesOf(gone.remove[0]!.value)!.filter((n) => n !== "bot00007"));
  });

  it("repacks when fragments would pass the cap, and says which names found no room", () => {
    const fragments = asRules(names(40).map((n) => mentionRuleValue([n])));
    const repacked = planMentionRules(names(40), fragments, caps, 10);
    expect(repacked.keep).toEqual([]);
    expect(repacked.add).toHaveLength(2);
    expect(repacked.remove).toHaveLength(40);
    const full = planMentionRules(names(100), [], { maxRules: 2, maxRuleLength: 200 }, 2);
    expect(full.add).toHaveLength(2);
    expect(full.overflow.length).toBeGreaterThan(0);
    expect([...full.add.flatMap((v) => usernamesOf(v)!), ...full.overflow].sort()).toEqual(names(100));
  });

  it("kept between the fleet's changes, make for each the plan a fresh one would, by what it moved", () => {
    let next = 0;
    const ruled = (values: string[]): StreamRule[] =>
      values.map((value) => ({ id: `r${++next}`, value, tag: "postbot:mentions" }));
    const plan = new MentionPlan(caps);
    let bots = names(10_000).map((n) => ({ bot: n, username: n }));
    plan.want(bots);
    let rules = ruled(plan.plan([], caps.maxRules).add);
    expect(rules.length).toBeGreaterThan(200);
    for (let round = 0; round < 12; round++) {
      // A bot added, one removed, one renamed (a new object), the rest the same objects.
      const i = (round * 331) % bots.length;
      bots = [
        ...bots.slice(0, i),
        { bot: bots[i]!.bot, username: `Renamed${round}` },
        ...bots.slice(i + 2),
        { bot: `joined${round}`, username: `Joined${round}` },
      ];
      plan.want(bots);
      const delta = plan.plan(rules, caps.maxRules);
      const fresh = planMentionRules(
        bots.map((b) => b.username.toLowerCase()),
        rules,
        caps,
        caps.maxRules,
      );
      expect(delta).toEqual(fresh);
      // Two bots gone (the renamed one's old name among them), two come: at most three rules replaced.
      expect(delta.remove.length).toBeLessThanOrEqual(2);
      expect(delta.add.length).toBeLessThanOrEqual(3);
      rules = [...delta.keep, ...ruled(delta.add)];
    }
    const covered = rules.flatMap((r) => usernamesOf(r.value)!).sort();
    expect(covered).toEqual(bots.map((b) => b.username.toLowerCase()).sort());
  });

  it("kept across a repack from scratch, keep every rule the repack made", () => {
    const plan = new MentionPlan(caps);
    plan.wantNames(names(40));
    // Forty fragments where the app's other rules leave room for ten: repacked from scratch.
    const fragments = asRules(names(40).map((n) => mentionRuleValue([n])));
    const repack = plan.plan(fragments, 10);
    expect([repack.keep, repack.remove.length, repack.add.length]).toEqual([[], 40, 2]);
    const made = repack.add.map((value, i) => ({ id: `new${i}`, value, tag: "postbot:mentions" }));
    // The service has the repack's rules now: nothing more to change.
    expect(plan.plan(made, 10)).toEqual({ keep: made, add: [], remove: [], overflow: [] });
  });
});
