/**
 * The shapes of the abuse classifier's public API: what a bot's `moderate` configuration
 * gives it and what it answers for each text.
 */

/**
 * The families of rule, each with its own weight (see `score.ts`):
 * - `threat`: violence, wishes of death or harm, incitement to self-harm, doxxing;
 * - `slur`: a slur against a group, however it is used;
 * - `insult`: a swear word or an insult aimed at someone ("fuck you", "you idiot");
 * - `harassment`: exclusion and dehumanisation without swearing ("nobody would miss you");
 * - `model`: the trained model (`model.ts`) found the text abusive, as a whole (`model:abuse`);
 * - `profanity`: a swear word not aimed at anyone ("this is fucking awesome");
 * - `block`: a term from the bot's own `block` list.
 */
export type RuleKind = "threat" | "slur" | "insult" | "harassment" | "model" | "profanity" | "block";

/** One rule that fired on a text. */
export interface RuleHit {
  /** `kind:name`, e.g. `profanity:fuck`, `threat:kill-yourself`, `insult:idiot`, `block:crypto giveaway`. */
  readonly rule: string;
  /**
   * The phrase rule's own id when a phrase rule fired (`threat:dox/found-your-details`, one of
   * the patterns of `threat:dox`; the rules are in `src/moderation/rules/`), so a log line can
   * name the one pattern and an `allow` entry can switch it off alone. Absent for swearing,
   * slurs, the block list, the model and the insult detectors (`aimed.ts`, `third-person.ts`),
   * whose `rule` already names what fired.
   */
  readonly pattern?: string;
  /** The text as the author wrote it that made the rule fire (for the log line of a hide). */
  readonly match: string;
  /** The rule's weight in the score, 0..1. */
  readonly weight: number;
}

/**
 * A hit with where it sits in the original text ([start, end) in UTF-16 units), which the
 * allow list needs; internal, verdicts carry {@link RuleHit}.
 */
export interface PlacedHit extends RuleHit {
  readonly start: number;
  readonly end: number;
}

/** The classifier's answer for one text. */
export interface Verdict {
  /** `score >= threshold`: whether the `moderate` plugin should hide the reply. */
  readonly abusive: boolean;
  /** 0..1: how sure the rules are, combined as described in `score.ts`. */
  readonly score: number;
  /** Every rule that fired, in order of position in the text; empty for a clean text. */
  readonly rules: readonly RuleHit[];
}

/** The `moderate` settings of a bot's YAML that shape the classifier. */
export interface ClassifierOptions {
  /**
   * Words or phrases that always make a reply abusive (rule `block:<term>`, weight 1).
   * Matched as whole words, case-insensitively, through the same de-obfuscation as
   * everything else ("crypt0 g1veaway" hits `crypto giveaway`). A term without letters or
   * digits (an emoji) is matched literally.
   */
  readonly block?: readonly string[];
  /**
   * Words, phrases or rule ids that never count. An entry drops a hit when it names the
   * hit's rule (`"profanity:damn"`, `"threat:watch-your-back"`: every pattern of the
   * family), its pattern (`"threat:dox/found-your-details"`: that one only) or the rule's
   * word (`"sex"` drops `profanity:sex`), or when the hit's text lies inside an occurrence of
   * the entry in the reply (`"Cockburn Street"`). Allow wins over block.
   */
  readonly allow?: readonly string[];
  /** Score from which a text is abusive, in (0, 1]; 0.5 by default (see `score.ts`). */
  readonly threshold?: number;
}

/**
 * A verdict with how sure the built-in is of it (`band.ts`): what the `moderate` plugin needs
 * to decide whether to ask a judge.
 */
export interface Assessment {
  readonly verdict: Verdict;
  /** The built-in's evidence, 0..1: the score, or the trained model's scaled probability where that is more. */
  readonly evidence: number;
  /** Whether the evidence lies in the unsure band (`UNSURE_BAND` of `band.ts`). */
  readonly unsure: boolean;
  /** The trained model's probability, when it was asked (no rule but swearing fired) and not turned off. */
  readonly model?: number;
}

/** A configured classifier. Pure and synchronous: the same text always gets the same verdict. */
export interface Classifier {
  classify(text: string): Verdict;
  /** The verdict with its evidence and whether the built-in is unsure of it (`band.ts`). */
  assess(text: string): Assessment;
}
