/**
 * A bot's own `block` and `allow` lists (lists.ts): its terms through the same
 * de-obfuscation as the rules, and allow entries naming a rule, one of its patterns or a word.
 */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { createClassifier } from "../../src/moderation/index.ts";
import { rulesAlone, rules } from "./verdicts.ts";

describe("createClassifier: block list", () => {
  it("blocks the bot's own terms, through the same de-obfuscation, as whole words", () => {
    const c = createClassifier({ block: ["crypto giveaway", "Buy Followers"] });
    expect(c.classify("huge CRYPTO giveaway here")).toEqual({
      abusive: true,
      score: 1,
      rules: [{ rule: "block:crypto giveaway", match: "CRYPTO giveaway", weight: 1 }],
    });
    expect(rules(c.classify("b u y  f0ll0wers now"))).toEqual(["block:Buy Followers"]);
    expect(rules(c.classify("cryptogiveaway"))).toEqual(["block:crypto giveaway"]);
    expect(c.classify("cryptocurrency giveaways").rules).toEqual([]);
  });

  it("matches a term with no letters (an emoji) literally", () => {
    const c = createClassifier({ block: ["🖕"] });
    expect(c.classify("here 🖕🖕").rules).toEqual([
      { rule: "block:🖕", match: "🖕", weight: 1 },
      { rule: "block:🖕", match: "🖕", weight: 1 },
    ]);
    expect(c.classify("here 👍").abusive).toBe(false);
  });

  it("rejects an empty or non-text term with a message naming it", () => {
    expect(() => createClassifier({ block: ["spam", "  "] })).toThrow(UserError);
    expect(() => createClassifier({ block: ["spam", "  "] })).toThrow(/block\[1\]/);
    expect(() => createClassifier({ allow: [3 as unknown as string] })).toThrow(/allow\[0\] must be a non-empty word/);
    expect(() => createClassifier({ block: "spam" as unknown as string[] })).toThrow(/block must be a list/);
  });
});

describe("createClassifier: allow list", () => {
  it("drops a hit inside an allowed phrase, wherever the text has it", () => {
    const strict = createClassifier({ threshold: 0.3 });
    const c = createClassifier({ threshold: 0.3, allow: ["Cumbernauld Cocks FC"] });
    expect(strict.classify("go Cumbernauld Cocks FC!").abusive).toBe(true);
    expect(c.classify("go Cumbernauld Cocks FC!")).toEqual({ abusive: false, score: 0, rules: [] });
    expect(rules(c.classify("Cumbernauld Cocks FC, cock"))).toEqual(["profanity:cock"]);
  });

  it("drops every hit of a named rule or word", () => {
    const c = createClassifier({ allow: ["threat:watch-your-back", "damn", "shit"] });
    expect(c.classify("watch your back on the ice").rules).toEqual([]);
    expect(c.classify("sh1t, that's good").rules).toEqual([]);
    expect(rules(c.classify("kys"))).toEqual(["threat:kys"]);
  });

  it("drops the hits of one pattern named by its id, and of every pattern of a family named by the family", () => {
    const text = "found your address. time to dox this clown";
    expect(rulesAlone.classify(text).rules.map((r) => r.pattern)).toEqual([
      "threat:dox/found-your-details",
      "threat:dox/dox-you",
    ]);
    const one = createClassifier({ allow: ["threat:dox/found-your-details"] }, null).classify(text);
    expect(one.rules.map((r) => [r.rule, r.pattern])).toEqual([["threat:dox", "threat:dox/dox-you"]]);
    expect(createClassifier({ allow: ["threat:dox"] }, null).classify(text)).toEqual({
      abusive: false,
      score: 0,
      rules: [],
    });
    // A pattern that names its hits after the insult: its id drops them whatever the word.
    const insults = createClassifier({ allow: ["insult:<word>/you-insult"] }, null);
    expect(insults.classify("you idiot").rules).toEqual([]);
    expect(insults.classify("you're an idiot").rules.map((r) => r.pattern)).toEqual(["insult:<word>/you-are-insult"]);
  });

  it("refuses an entry shaped like a pattern id that names none, listing the family's patterns", () => {
    expect(() => createClassifier({ allow: ["threat:kys/kyss"] })).toThrow(
      /allow\[0\] names no pattern of threat:kys; its patterns are threat:kys\/kys \(or allow "threat:kys" for all of them\)/,
    );
    expect(() => createClassifier({ allow: ["threat:nope/x"] })).toThrow(
      /allow\[0\] names no phrase rule's pattern: a pattern id is kind:family\/name/,
    );
    expect(() =>
      createClassifier({ allow: ["threat:dox/dox-you", "http://example.com/a", "and/or", "ratio: 3/4"] }),
    ).not.toThrow();
  });

  it("wins over the block list", () => {
    const c = createClassifier({ block: ["giveaway"], allow: ["official giveaway"] });
    expect(c.classify("our official giveaway").abusive).toBe(false);
    expect(c.classify("a giveaway").abusive).toBe(true);
  });
});
