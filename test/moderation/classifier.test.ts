/**
 * What every verdict of the classifier does, whatever fired: the words as the author wrote
 * them, hits in order, the same verdict every time, quotes that report abuse left alone, and
 * the bot's threshold. The rules of each kind of abuse are tested in the file of their kind.
 */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { createClassifier, DEFAULT_THRESHOLD, WEIGHTS } from "../../src/moderation/index.ts";
import { classifier, rules, abusive } from "./verdicts.ts";

describe("createClassifier: every verdict", () => {
  it("reports the original text of each hit, as the author wrote it", () => {
    const v = classifier.classify("wow, f u c k y0u");
    expect(v.rules).toContainEqual({
      rule: "insult:fuck-you",
      pattern: "insult:fuck-you/fuck-you",
      match: "f u c k y0u",
      weight: WEIGHTS.insult,
    });
    expect(v.rules).toContainEqual({ rule: "profanity:fuck", match: "f u c k", weight: WEIGHTS.profanity });
  });

  it("ignores the @mentions that address a reply", () => {
    expect(classifier.classify("@Scunthorpe_FC @dickens_fan great post").rules).toEqual([]);
    expect(rules(classifier.classify("@postbot you're an idiot"))).toEqual(["insult:idiot"]);
  });

  it("is pure: the same text always gets the same verdict, and an empty text none", () => {
    const text = "you stupid cunt, I know where you live";
    expect(classifier.classify(text)).toEqual(classifier.classify(text));
    expect(createClassifier().classify(text)).toEqual(classifier.classify(text));
    expect(classifier.classify("")).toEqual({ abusive: false, score: 0, rules: [] });
  });

  it("lists hits in the order they occur in the text", () => {
    const v = classifier.classify("kys, you worthless piece of shit");
    expect(rules(v)).toEqual(["threat:kys", "insult:piece of shit", "profanity:shit"]);
  });

  it("refuses a text that is not a string", () => {
    expect(() => classifier.classify(42 as unknown as string)).toThrow(TypeError);
  });

  it("does not count abuse quoted to report it, but does count a quote with nothing reported", () => {
    for (const text of [
      "the troll who wrote 'kys' got banned, good",
      "someone replied 'kill yourself' to me and got suspended",
      '"you idiot" is not an argument',
    ]) {
      expect(classifier.classify(text), text).toEqual({ abusive: false, score: 0, rules: [] });
    }
    expect(abusive("'kys' lol")).toBe(true);
    expect(abusive("it's 'kys' time, loser")).toBe(true);
  });
});

describe("createClassifier: threshold", () => {
  it("defaults to a threshold that hides insults but not swearing alone", () => {
    expect(DEFAULT_THRESHOLD).toBe(0.5);
    expect(classifier.classify("this is shit").abusive).toBe(false);
    expect(classifier.classify("you idiot").abusive).toBe(true);
  });

  it("compares the score with the bot's threshold", () => {
    const strict = createClassifier({ threshold: 0.3 });
    const lenient = createClassifier({ threshold: 0.75 });
    expect(strict.classify("this is shit")).toMatchObject({ abusive: true, score: 0.3 });
    expect(lenient.classify("you idiot")).toMatchObject({ abusive: false, score: 0.7 });
    expect(lenient.classify("you fucking idiot")).toMatchObject({ abusive: true, score: 0.79 });
    expect(lenient.classify("kys")).toMatchObject({ abusive: true, score: 0.95 });
  });

  it("rejects a threshold outside (0, 1] with a message saying what to write", () => {
    for (const bad of [0, -0.1, 1.5, Number.NaN, "0.5"]) {
      expect(() => createClassifier({ threshold: bad as number }), String(bad)).toThrow(UserError);
    }
    expect(() => createClassifier({ threshold: 2 })).toThrow(
      /threshold must be a number above 0 and at most 1 \(got 2\)/,
    );
    expect(createClassifier({ threshold: 1 }).classify("x").abusive).toBe(false);
  });
});
