/**
 * Moderation: the offline abuse classifier that the `moderate` plugin asks before hiding
 * a reply. See `classifier.ts` for what counts as abusive and `score.ts` for the scoring.
 *
 * @example
 * ```ts
 * import { createClassifier } from "../moderation/index.ts";
 * const classifier = createClassifier({ block: ["buy followers"], threshold: 0.5 });
 * const { abusive, rules } = classifier.classify(reply.text);
 * if (abusive) await ctx.hide(); // and log rules[0].rule, the rule that fired
 * ```
 */
export { createClassifier } from "./classifier.ts";
export { DEFAULT_THRESHOLD, WEIGHTS } from "./score.ts";
export { ModerationOptionError, type ModerationOption } from "./option-error.ts";
export type { Classifier, ClassifierOptions, RuleHit, RuleKind, Verdict } from "./types.ts";
