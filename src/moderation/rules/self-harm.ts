/**
 * Incitement to self-harm: "kill yourself", "kys", "drink bleach", "off yourself" as a
 * command (not "take care of yourself").
 */
import { possessive, yourself } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const SELF_HARM: readonly PhraseRuleEntry[] = [
  {
    id: "threat:kill-yourself/verb-yourself",
    pattern: () => `(?:kill|hang|end|neck|unalive|rope|drown|delete) ${yourself()}`,
    hit: "kill urslf",
    miss: "you can end the call yourself",
  },
  {
    id: "threat:kill-yourself/slit-your-wrists",
    pattern: () => `slit ${possessive} (?:wrists|wrist|throat)`,
    hit: "slit your wrists",
    miss: "slit your bagel before toasting it",
  },
  {
    id: "threat:kys/kys",
    pattern: () => `kys|kyfs`,
    hit: "kys",
    miss: "the skys the limit",
  },
  {
    id: "threat:drink-bleach/drink-bleach",
    pattern: () => `(?:drink|chug|swallow|eat) (?:some )?(?:bleach|tide pods|antifreeze|poison)`,
    hit: "go drink bleach",
    miss: "bleach the sink, don't drink it",
  },
  // "off yourself" as a command: at the start of a sentence or after a word that makes it one
  // ("go", "just", "should", "and"). Normalised, "off" is "of" (repeats collapse), so without
  // the command "take care of yourself" and "be proud of yourself" fired it.
  {
    id: "threat:kill-yourself/off-yourself",
    pattern: () =>
      `(?:^[^a-z0-9]*|(?<=[.!?;:,][^a-z0-9]*)|` +
      `(?<=(?<![a-z0-9])(?:go|just|pls|please|plz|should|shoud|shld|must|gonna|wanna|to|and|why dont|` +
      `why not|dont forget to)[^a-z0-9]+))` +
      `off ${yourself()}(?![a-z0-9])`,
    hit: "off yourself",
    miss: "take care of yourself",
  },
];
