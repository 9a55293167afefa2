/**
 * The phrase rules, as data: each file holds the rules of one kind of abuse, each rule a
 * record with a unique id, its pattern and an example it catches and one it does not
 * (`phrase-rule.ts`). A new rule goes in the file of its kind; test/moderation/rules.test.ts
 * checks every record, and `npm run train:moderation` must run after any change (the model
 * records a fingerprint of these rules and refuses to load beside others: `fingerprint.ts`).
 *
 * The order below is the order in which a verdict lists hits that start and end together.
 *
 * The rules are built and compiled on first use (`phraseRules()`, `compiledRules()`), not
 * when this module is imported: their patterns interpolate pieces compiled from word lists
 * (`fragments.ts`), and importing postbot, which every plugin does, should not pay for them.
 */
import { lazily } from "../lazily.ts";
import { compilePattern } from "../pattern.ts";
import { requiredText, type Required } from "../required-text.ts";
import type { RuleKind } from "../types.ts";
import { INSULT_ADJECTIVES, INSULT_NOUNS, INSULT_NOUNS_AFTER_YOU_ARE, INSULT_PLURALS } from "../lexicon.ts";
import { ACCOUNT_AND_GROUP_INSULTS } from "./account-and-group-insults.ts";
import { CURSES } from "./curses.ts";
import { DEATH_WISHES } from "./death-wishes.ts";
import { DOXXING } from "./doxxing.ts";
import { HARASSMENT } from "./harassment.ts";
import { INSULTS } from "./insults.ts";
import { PILE_ONS } from "./pile-ons.ts";
import type { PhraseRule, PhraseRuleEntry } from "./phrase-rule.ts";
import { SELF_HARM } from "./self-harm.ts";
import { SEXUAL_REMARKS } from "./sexual-remarks.ts";
import { THREATS } from "./threats.ts";
import { VEILED_THREATS } from "./veiled-threats.ts";

export type { PhraseRule, PhraseRuleEntry } from "./phrase-rule.ts";
export { aimedSubject } from "./fragments.ts";

/** Every phrase rule as its file writes it, by file: threats first, then harassment, then insults. */
const ENTRIES: readonly PhraseRuleEntry[] = [
  ...THREATS,
  ...SELF_HARM,
  ...DEATH_WISHES,
  ...DOXXING,
  ...VEILED_THREATS,
  ...HARASSMENT,
  ...PILE_ONS,
  ...SEXUAL_REMARKS,
  ...CURSES,
  ...INSULTS,
  ...ACCOUNT_AND_GROUP_INSULTS,
];

/** The ids of the phrase rules, which an allow list may name; known without building the patterns. */
export const phraseRuleIds = lazily((): ReadonlySet<string> => new Set(ENTRIES.map((rule) => rule.id)));

/** Every phrase rule, its pattern built (once, on first use), in the order of {@link ENTRIES}. */
export const phraseRules = lazily((): readonly PhraseRule[] =>
  ENTRIES.map(({ id, pattern, hit, miss }) => ({ id, pattern: pattern(), hit, miss })),
);

/** The kinds a phrase rule may have (the others come from word lists, the model or the bot's block list). */
export type PhraseKind = Extract<RuleKind, "threat" | "harassment" | "insult">;

/** A phrase rule ready to run: its id, its kind, the rule its hits report, and its regex. */
export interface CompiledRule {
  readonly id: string;
  readonly kind: PhraseKind;
  /** `kind:family`, what a hit reports as its rule; `kind:` for the family `<word>`, which adds the caught word. */
  readonly family: string;
  /** Whether the hit is named after the word its `(?<word>…)` group caught (the family `<word>`). */
  readonly namedByWord: boolean;
  readonly regex: RegExp;
  /** What text a match needs (`required-text.ts`): where the text lacks it, the regex is not run. */
  readonly needs: Required;
}

/** Splits a rule id `kind:family/name` into its parts; undefined when it has another shape. */
export function parseRuleId(id: string): { kind: string; family: string; name: string } | undefined {
  const m = /^([a-z]+):(<word>|[a-z0-9][a-z0-9-]*)\/([a-z0-9][a-z0-9-]*)$/.exec(id);
  return m ? { kind: m[1]!, family: m[2]!, name: m[3]! } : undefined;
}

/**
 * The phrase rules compiled, once, on first use: the classifier runs them and the model's
 * fingerprint reads their compiled sources.
 */
export const compiledRules = lazily((): readonly CompiledRule[] =>
  phraseRules().map((rule) => {
    const parts = parseRuleId(rule.id);
    if (!parts) throw new Error(`phrase rule ${JSON.stringify(rule.id)}: an id is kind:family/name`);
    const namedByWord = parts.family === "<word>";
    const regex = compilePattern(rule.pattern);
    return {
      id: rule.id,
      kind: parts.kind as PhraseKind,
      family: namedByWord ? `${parts.kind}:` : `${parts.kind}:${parts.family}`,
      namedByWord,
      regex,
      needs: requiredText(regex.source),
    };
  }),
);

/**
 * The canonical spelling of an insult caught by a `(?<word>…)` group, for the rule id:
 * the caught text is collapsed ("asshole" reads "ashole"), the id should not be. Built on
 * first use, with the rules.
 */
export const insultWords = lazily(
  (): ReadonlyMap<string, string> =>
    new Map(
      [...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES, ...INSULT_PLURALS].map((w) => [
        w.replace(/(.)\1+/g, "$1").replace(/'/g, ""),
        w,
      ]),
    ),
);
