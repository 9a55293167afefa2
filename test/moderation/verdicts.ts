/**
 * The classifiers and checks the moderation tests share, one file per kind of abuse: the
 * shipped classifier (rules and model), the rules alone, and yes/no lists of replies.
 */
import { expect } from "vitest";
import { createClassifier, type Verdict } from "../../src/moderation/index.ts";

/** The classifier as a bot with default options has it: rules and the shipped model. */
export const classifier = createClassifier();
/** The rules alone, without the model: what a rule catches, not what the model adds. */
export const rulesAlone = createClassifier({}, null);
/** The rule of each hit of a verdict, in order. */
export const rules = (v: Verdict) => v.rules.map((r) => r.rule);
/** Whether the default classifier calls a text abusive. */
export const abusive = (text: string) => classifier.classify(text).abusive;

/** Each `yes` text is abusive and each `no` text is not, with default options. */
export const check = (texts: { yes: string[]; no: string[] }) => {
  for (const text of texts.yes) expect(abusive(text), text).toBe(true);
  for (const text of texts.no) expect(abusive(text), text).toBe(false);
};

/** Each `yes` text fires `rule` with the rules alone; each `no` text is not abusive by the rules alone. */
export const checkRule = (rule: string, texts: { yes: string[]; no: string[] }) => {
  for (const text of texts.yes) expect(rules(rulesAlone.classify(text)), text).toContain(rule);
  for (const text of texts.no) expect(rulesAlone.classify(text).abusive, text).toBe(false);
};
