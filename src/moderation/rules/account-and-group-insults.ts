/**
 * Insults aimed at the people behind the account ("whoever runs this is a moron", "your
 * admins are clowns") or at a group the reply addresses ("what a bunch of idiots", "you're
 * all morons"). The same words about an absent third party ("the referee is an idiot") do
 * not fire: the account's people read their replies. Each hit is named after the insult it
 * caught (`insult:clowns`).
 */
import {
  accountPeople,
  addressedGroup,
  collective,
  copula,
  insultPredicate,
  mods,
  plurals,
  possessive,
  staff,
  words,
  you,
} from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const ACCOUNT_AND_GROUP_INSULTS: readonly PhraseRuleEntry[] = [
  {
    id: "insult:<word>/account-people-are",
    pattern: () =>
      `${accountPeople()} ${words(6)}${copula} (?:${words(3)}(?:or|and) )?(?:all |just |such |a bunch of |a pack of |` +
      `nothing but )?${insultPredicate()}`,
    hit: "dev is a clown lmao",
    miss: "the admins are clearly overworked",
  },
  {
    id: "insult:<word>/these-insults",
    pattern: () => `(?:all )?(?:these|those) ${mods()}(?<word>${plurals()})(?= in| here| on| replying|[^a-z0-9]*$)`,
    hit: "these clowns in the replies",
    miss: "these clowns at the circus",
  },
  {
    id: "insult:<word>/tell-them-they-are",
    pattern: () =>
      `tell ${accountPeople()} ${words(3)}(?:he|she|they|theyre|hes|shes|hes|their|there) ${copula}? ?${insultPredicate()}`,
    hit: "tell the dev he's a useless prick",
    miss: "tell the dev he's a beast",
  },
  {
    id: "insult:<word>/staff-are-a-bunch-of",
    pattern: () =>
      `(?:the|${possessive}) ${staff()} (?:${copula} )?(?:(?:a |such a )?${collective()} of )${mods()}(?<word>${plurals()})`,
    hit: "your mods, a bunch of cowards",
    miss: "your mods, a bunch of heroes",
  },
  {
    id: "insult:<word>/you-are-all",
    pattern: () => `(?:${you()}re|${you()} are|ur|youre|${you()} r) all (?:${collective()} of )?${insultPredicate()}`,
    hit: "you're all morons",
    miss: "you're all invited",
  },
  {
    id: "insult:<word>/group-is",
    pattern: () =>
      `${addressedGroup()} ${words(4)}${copula} (?:${words(3)}(?:or|and|like) )?(?:all |just |such |a |` +
      `nothing but )?(?:${collective()} of )?${insultPredicate()}`,
    hit: "y'all are trash",
    miss: "y'all are hilarious",
  },
  {
    id: "insult:<word>/what-a-bunch-of",
    pattern: () => `(?:what|such) (?:a |an )?${collective()} of ${mods()}(?<word>${plurals()})`,
    hit: "what a bunch of idiots",
    miss: "what a bunch of cute puppies",
  },
  {
    id: "insult:<word>/bunch-of",
    pattern: () => `(?:${collective()} of|buncha) ${mods()}(?<word>${plurals()})(?! of)`,
    hit: "a pack of morons",
    miss: "a pack of biscuits",
  },
  {
    id: "insult:<word>/full-of",
    pattern: () => `(?:full of|filled with|nothing but) ${mods()}(?<word>${plurals()})`,
    hit: "the replies are full of idiots",
    miss: "I hope your heart is full today",
  },
  {
    id: "insult:<word>/bare-plural",
    pattern: () => `^${mods()}(?<word>${plurals()})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;])`,
    hit: "morons.",
    miss: "clowns at the circus were brilliant",
  },
];
