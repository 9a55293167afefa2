/**
 * Every phrase rule of src/moderation/rules/, checked the same way from its own record: a
 * well-formed, unique id; a pattern that compiles; its `hit` caught, and reported under its
 * id; its `miss` not caught. A new rule is covered by writing its record, nothing else.
 */
import { describe, expect, it } from "vitest";
import { createClassifier } from "../../src/moderation/index.ts";
import { normalize } from "../../src/moderation/normalize.ts";
import { compilePattern } from "../../src/moderation/pattern.ts";
import { parseRuleId, phraseRules } from "../../src/moderation/rules/index.ts";

const rulesAlone = createClassifier({}, null);
const matches = (regex: RegExp, text: string) => {
  regex.lastIndex = 0;
  return regex.test(normalize(text).collapsed.text);
};

describe("the phrase rules, as data", () => {
  it("are many, each with an id of their own", () => {
    expect(phraseRules().length).toBeGreaterThanOrEqual(175);
    const ids = phraseRules().map((r) => r.id);
    const repeated = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(repeated).toEqual([]);
  });

  it.each(phraseRules().map((r) => [r.id, r] as const))("%s is a well-formed record", (_id, rule) => {
    expect(Object.keys(rule).sort()).toEqual(["hit", "id", "miss", "pattern"]);
    const parts = parseRuleId(rule.id);
    expect(parts, `${rule.id}: an id is kind:family/name`).toBeDefined();
    expect(["threat", "harassment", "insult"]).toContain(parts!.kind);
    for (const field of ["pattern", "hit", "miss"] as const) {
      expect(typeof rule[field], field).toBe("string");
      expect(rule[field].trim(), field).not.toBe("");
    }
    expect(rule.miss).not.toBe(rule.hit);
    expect(() => compilePattern(rule.pattern)).not.toThrow();
  });

  it.each(phraseRules().map((r) => [r.id, r] as const))("%s catches its hit and not its miss", (id, rule) => {
    const regex = compilePattern(rule.pattern);
    expect(matches(regex, rule.hit), `hit: ${rule.hit}`).toBe(true);
    expect(matches(regex, rule.miss), `miss: ${rule.miss}`).toBe(false);
    // The classifier reports the hit under this pattern's id (what a log line names), in its family.
    const family = id.slice(0, id.indexOf("/")).replace("<word>", "");
    const hits = rulesAlone.classify(rule.hit).rules.filter((h) => h.pattern === id);
    expect(hits.length, `hit: ${rule.hit}`).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.rule.startsWith(family), hit.rule).toBe(true);
    expect(
      rulesAlone.classify(rule.miss).rules.filter((h) => h.pattern === id),
      `miss: ${rule.miss}`,
    ).toEqual([]);
  });
});
