/**
 * Moderation: the offline abuse classifier that the `moderate` plugin asks before hiding
 * a reply (see `classifier.ts` for what counts as abusive and `score.ts` for the scoring),
 * and what the plugin adds around it: how sure the classifier is (`band.ts`), a second
 * opinion from a judge for the replies it is unsure of (`judge/`), the author's history and
 * the thread (`evidence/`), an operator's review (`review/`), the decision made from all of
 * them (`decide.ts`), and the counts `/metrics` reads (`tallies.ts`).
 *
 * @example
 * ```ts
 * import { createClassifier } from "../moderation/index.ts";
 * const classifier = createClassifier({ block: ["buy followers"], threshold: 0.5 });
 * const { abusive, rules } = classifier.classify(reply.text);
 * if (abusive) await ctx.hide(); // and log rules[0].rule, the rule that fired
 * ```
 */
export { createClassifier, warmClassifier } from "./classifier.ts";
export { DEFAULT_THRESHOLD, WEIGHTS } from "./score.ts";
export { ModerationOptionError, type ModerationOption } from "./option-error.ts";
export type { Assessment, Classifier, ClassifierOptions, RuleHit, RuleKind, Verdict } from "./types.ts";
export { evidenceOf, isUnsure, UNSURE_BAND } from "./band.ts";
export { decide, topRule, type DecisionInput, type DecisionSource, type ModerationDecision } from "./decide.ts";
export { CUT_LIMITS, CUT_STEPS, cutFor, mutualMatters, type Facts } from "./evidence/cut.ts";
export { AuthorHistory, HISTORY_WINDOW_MS, MUTUAL_TTL_MS, type AuthorHistoryFact } from "./evidence/history.ts";
export { RingRecord, type KeyValue } from "./evidence/kv.ts";
export { PILE_ON_DEFAULTS, PileOns, type PileOnFact } from "./evidence/pile-on.ts";
export { NEAR_IDENTICAL, nearIdentical, overlap, signatureOf, type Signature } from "./evidence/similar.ts";
export {
  describeCategory,
  kindOfCategory,
  LLAMA_GUARD_CATEGORIES,
  MODERATION_CATEGORIES,
  type JudgeKind,
} from "./judge/categories.ts";
export type { JudgeConfig, JudgeOpinion } from "./judge/clients.ts";
export {
  forgetSharedJudges,
  Judge,
  JUDGE_DEFAULTS,
  judgeName,
  sharedJudge,
  type JudgeResult,
  type JudgeSettings,
} from "./judge/judge.ts";
export { JudgeError, type JudgeFailure } from "./judge/request.ts";
export { JUDGED_LIMIT, JudgedReplies, type JudgedRecord } from "./judge/judged.ts";
export {
  ReviewExamples,
  type DecidedReplies,
  type DecidedReply,
  type ExampleMatch,
  type ReviewExample,
} from "./review/examples.ts";
export { moderationTallies, Tally } from "./tallies.ts";
