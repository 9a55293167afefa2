/**
 * The built-in's evidence and unsure band (src/moderation/band.ts): which replies a judge is
 * asked about with `when: unsure`, and that classify() is unchanged by the assessment.
 */
import { describe, expect, it } from "vitest";
import { createClassifier, evidenceOf, isUnsure, UNSURE_BAND, WEIGHTS } from "../../src/moderation/index.ts";
import { classifier } from "./verdicts.ts";

describe("the unsure band", () => {
  it("is [0.3, 0.75): swearing alone, banter, one insult or the model alone are unsure; a slur, a threat or an insult with swearing are not", () => {
    expect(UNSURE_BAND).toEqual({ low: 0.3, high: 0.75 });
    const band = (text: string) => classifier.assess(text).unsure;
    expect(band("this is fucking brilliant")).toBe(true); // 0.3
    expect(band("you idiot 😂😂")).toBe(true); // 0.35
    expect(band("you're an idiot")).toBe(true); // 0.7
    expect(band("you fucking idiot")).toBe(false); // 0.79
    expect(band("I will kill you")).toBe(false); // 0.95
    expect(band("lovely photo of the allotment, thanks for sharing")).toBe(false); // nothing
  });

  it("counts the model's probability, scaled so its cut scores as its hit, where no rule but swearing fired", () => {
    const verdict = { abusive: false, score: 0, rules: [] };
    expect(evidenceOf(verdict, 0.91, 0.91)).toBe(WEIGHTS.model);
    expect(evidenceOf(verdict, 0.455, 0.91)).toBe(0.35);
    expect(isUnsure(evidenceOf(verdict, 0.455, 0.91))).toBe(true);
    expect(isUnsure(evidenceOf(verdict, 0.2, 0.91))).toBe(false);
    // Rules decided: the score is the evidence.
    expect(evidenceOf({ abusive: true, score: 0.95, rules: [] }, undefined, 0.91)).toBe(0.95);
  });

  it("assess() gives the same verdict as classify(), the model's probability where it was asked, and none when the bot turned the model off", () => {
    const text = "lovely photo of the allotment, thanks for sharing";
    const assessed = classifier.assess(text);
    expect(assessed.verdict).toEqual(classifier.classify(text));
    expect(assessed.model).toBeTypeOf("number");
    const off = createClassifier({ allow: ["model:abuse"] }).assess(text);
    expect(off.model).toBeUndefined();
    expect(off.evidence).toBe(off.verdict.score);
    // A rule fired: the model is not asked, so it has no probability.
    expect(classifier.assess("I will kill you").model).toBeUndefined();
  });
});
