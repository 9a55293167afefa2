/**
 * Swearing and slurs (profanity.ts, the word lists of lexicon.ts): seen through masks and
 * spellings, swearing alone is not abuse, a slur always is, and look-alike words are neither.
 */
import { describe, expect, it } from "vitest";
import { WEIGHTS } from "../../src/moderation/index.ts";
import { classifier, rulesAlone, rules, abusive, check } from "./verdicts.ts";

describe("profanity: swearing, however it is masked, and the words it is not", () => {
  it("finds profanity, obfuscated or not, without calling swearing alone abusive", () => {
    for (const text of [
      "this is fucking awesome",
      "this is fuuuucking awesome",
      "this is f**king awesome",
      "holy sh1t",
    ]) {
      const v = classifier.classify(text);
      expect(v.abusive, text).toBe(false);
      expect(v.score, text).toBe(WEIGHTS.profanity);
      expect(v.rules[0]!.rule, text).toMatch(/^profanity:(fuck|shit)$/);
    }
  });

  it("reads words masked with symbols against known words, not symbol by symbol", () => {
    expect(rules(classifier.classify("what an !diot"))).toEqual(["insult:idiot"]);
    expect(classifier.classify("f!ck you").rules[0]).toEqual({
      rule: "insult:fuck-you",
      pattern: "insult:fuck-you/fuck-you",
      match: "f!ck you",
      weight: WEIGHTS.insult,
    });
    check({
      yes: ["shut up you @sshole", "you absolute tw@t", "@ss hat", "you're a s!ut", "what a c***", "fμck you"],
      no: ["wow!!!", "!important", "e-mail me", "@sam_codes great post", "price: $5!"],
    });
  });

  it("has no Scunthorpe problem", () => {
    for (const text of [
      "Scunthorpe",
      "assessment",
      "cocktail",
      "Essex",
      "Sussex",
      "classic",
      "therapist",
      "shiitake",
      "Penistone",
      "cockpit",
    ]) {
      expect(classifier.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
  });

  it("still lets swearing for emphasis and look-alike words through", () => {
    check({
      yes: [],
      no: [
        "this is fucking brilliant",
        "holy shit that's great",
        "fuck yes, finally some good news",
        "the fucking train was late again",
        "Scunthorpe",
        "cocktail",
        "assassin",
        "classic",
        "Penistone",
        "therapist",
        "grape",
        "Cockermouth is lovely",
        "Sussex cricket",
      ],
    });
  });
});

describe("slurs, however they are spelt", () => {
  it("calls a slur abusive however it is used, but not the words that contain one", () => {
    const v = classifier.classify("typical tr4nny");
    expect(v.rules[0]).toEqual({ rule: "slur:tranny", match: "tr4nny", weight: WEIGHTS.slur });
    expect(v.abusive).toBe(true);
    for (const text of [
      "pasta e fagioli",
      "fire retardant",
      "the Rio Negro",
      "a chink in the armour",
      "Dick Van Dyke",
    ]) {
      expect(classifier.classify(text).abusive, text).toBe(false);
    }
  });

  it("reads a slur spelt out with dots or dashes after a one-letter word", () => {
    for (const text of ["you're a f.a.g.g.o.t", "ur a f-a-g-g-o-t", "what a f a g g o t", "you're a n.i.g.g.e.r"]) {
      expect(
        rulesAlone.classify(text).rules.map((r) => r.rule),
        text,
      ).toContainEqual(expect.stringMatching(/^slur:/));
    }
    expect(rules(rulesAlone.classify("you absolute m.o.r.o.n"))).toContain("insult:moron");
    expect(rules(rulesAlone.classify("you're a m.o.r.o.n"))).toContain("insult:moron");
  });

  it("knows slurs outside obscenity's list, with doubled letters and masks, and not the words that contain them", () => {
    for (const text of [
      "typical zipperhead",
      "shut up you poofter",
      "go home pikey",
      "filthy wetbacks",
      "you f*ggot",
      "ni99er",
    ]) {
      expect(rulesAlone.classify(text).abusive, text).toBe(true);
    }
    for (const text of [
      "kaffir lime leaves in the curry",
      "Donald Fagen's new album",
      "dinner in Mong Kok",
      "honky tonk piano night",
      "Terry Wogan on the radio",
    ]) {
      expect(
        rulesAlone.classify(text).rules.filter((r) => r.rule.startsWith("slur:")),
        text,
      ).toEqual([]);
    }
  });
});
