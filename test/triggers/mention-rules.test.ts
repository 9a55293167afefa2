import { describe, expect, it } from "vitest";
import type { StreamRule } from "../../src/api/types.ts";
import { STREAM_RULE_CAPS } from "../../src/limits/stream-rules.ts";
import { mentionRuleValue, packUsernames, planMentionRules, usernamesOf } from "../../src/triggers/mention-rules.ts";

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
});
