/**
 * The shape of one phrase rule: a record of data, so the rule files read as tables and one
 * test (test/moderation/rules.test.ts) can check every rule the same way.
 */

/**
 * One phrase rule: a pattern with its own id and an example it must catch and one it must
 * not.
 *
 * @example
 * ```ts
 * {
 *   id: "threat:dox/found-your-details",
 *   pattern: `(?:found|got|...) ${possessive} ...`,
 *   hit: "found your address",
 *   miss: "I found your address on the contact page, sending the invoice",
 * }
 * ```
 */
export interface PhraseRule {
  /**
   * `kind:family/name`, unique among the rules: `threat:dox/found-your-details`. The part
   * before the slash, `threat:dox`, is the rule a verdict reports (`RuleHit.rule`), shared by
   * every pattern of the family, so a bot's `allow: ["threat:dox"]` and a log search for it
   * cover them all; the whole id is the hit's `pattern`, so an `allow` entry or a log line can
   * name this one. The family `<word>` (`insult:<word>/you-insult`) names each hit after the
   * insult its `(?<word>…)` group caught (`insult:idiot`). The kind is `threat`, `harassment` or `insult`
   * and decides the weight (`score.ts`).
   */
  readonly id: string;
  /** The pattern, in the language of `pattern.ts`, over the text as `normalize.ts` collapses it. */
  readonly pattern: string;
  /** A reply the pattern catches, as someone would write it. */
  readonly hit: string;
  /** A reply it must not catch, as close to `hit` as the pattern allows: where its edge lies. */
  readonly miss: string;
}

/**
 * A phrase rule as its file writes it: its pattern a function, called once when the rules
 * are first needed (`phraseRules()` of `index.ts`), because a pattern interpolates pieces
 * compiled from word lists (`fragments.ts`), which importing postbot should not pay for.
 */
export type PhraseRuleEntry = Omit<PhraseRule, "pattern"> & {
  /** Builds {@link PhraseRule.pattern}. */
  readonly pattern: () => string;
};
