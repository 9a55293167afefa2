/**
 * Insults aimed at the reader: "you idiot", "you're pathetic", "what a loser", "shut up,
 * moron", "thanks for nothing, idiot". The same nouns about a third person ("the referee is
 * an idiot") do not fire. A pattern whose family is `insult:*` names its hit after the
 * insult it caught (`insult:idiot`).
 */
import { ACCOUNT_VERBS } from "../lexicon.ts";
import { notFollowedBy, oneOf } from "../pattern.ts";
import {
  belittled,
  belittling,
  mods,
  nouns,
  openers,
  plurals,
  possessive,
  words,
  you,
  youAre,
  youAreNouns,
  youAreStatement,
} from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const INSULTS: readonly PhraseRuleEntry[] = [
  {
    id: "insult:<word>/you-insult",
    pattern: () => `${you()} ${mods()}(?<word>${nouns()})`,
    hit: "you tw@t",
    miss: "you too!",
  },
  {
    id: "insult:<word>/you-are-insult",
    pattern: () => `${youAre()} ${mods()}(?<word>${youAreNouns()})`,
    hit: "ur a twat",
    miss: "Twatt is a village in Orkney",
  },
  {
    id: "insult:<word>/what-a-insult",
    pattern: () => `what (?:a|an) ${mods()}(?<word>${nouns()})${notFollowedBy(["of"])}`,
    hit: "what a tw@t",
    miss: "what a clown of a day, ha",
  },
  // A bare insult opening the reply ("bitch please", "dickhead.") or after an opener.
  {
    id: "insult:<word>/bare-insult-opening",
    pattern: () =>
      `^(?:${openers()} )?${mods()}(?<word>${nouns()})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;](?<!bitch[^a-z0-9]*[,!.?:;])|` +
      ` (?:shut|mate|m8|bro|dude|lol|lmao|haha|innit|alert)(?![a-z0-9]))`,
    hit: "pos",
    miss: "Scunthorpe United won again",
  },
  {
    id: "insult:low-iq/iq-of-a",
    pattern: () => `(?:iq|brain cells|brains?|intelligence) (?:of|lower than|smaller than|below) (?:a |an |the )?`,
    hit: "you've got the iq of a houseplant",
    miss: "you've got the patience of a saint",
  },
  {
    id: "insult:<word>/opener-insult",
    pattern: () => `${openers()}[,!.]? ${mods()}(?<word>${nouns()})`,
    hit: "wow, thanks moron",
    miss: "wow, thanks mate",
  },
  // A bare insult closing a sentence after a comma ("thanks for nothing, idiot").
  {
    id: "insult:<word>/bare-insult-closing",
    pattern: () => `(?<=[,;:!?-][^a-z0-9]*)${mods()}(?<word>${nouns()})(?=[^a-z0-9]*$)`,
    hit: "get a life, loser",
    miss: "get well soon, mate",
  },
  // "you sad little man": a person-word made an insult by what precedes it.
  {
    id: "insult:<word>/you-belittling",
    pattern: () => `${you()} (?<word2>${belittled()})`,
    hit: "you sad little man",
    miss: "the character in chapter 3 is a sad lonely little man, so well written",
  },
  {
    id: "insult:sack-of/you-sack",
    pattern: () => `${you()} (?:${belittling()} )+sack(?![a-z0-9])`,
    hit: "you pathetic sack",
    miss: "you sacked the manager?",
  },
  {
    id: "insult:low-iq/brain-cells",
    pattern: () => `(?:needs?|get|getting) a brain (?:transplant|cell)|(?:one|single|two) brain cells?`,
    hit: "whoever made this needs a brain transplant",
    miss: "whoever wrote this post made a typo",
  },
  {
    id: "insult:<word>/look-at-these",
    pattern: () => `look at (?:all )?(?:these|those|the|this) ${mods()}(?<word>${plurals()}|${nouns()})`,
    hit: "look at all these sheep in the replies",
    miss: "look at all these puppies",
  },
  {
    id: "insult:<word>/insults-run-this",
    pattern: () =>
      `^${mods()}(?<word>${plurals()}|${nouns()}) (?:who )?(?:${oneOf(ACCOUNT_VERBS)}) (?:this|these|${possessive}|you)(?![a-z0-9])`,
    hit: "absolute cretins run this account",
    miss: "the person who runs this account is a star",
  },
  {
    id: "insult:<word>/less-than-dirt",
    pattern: () =>
      `${youAreStatement()} (?:less than|lower than|worse than) (?<word>dirt|nothing|trash|garbage|scum|a worm|shit|dog shit)`,
    hit: "you're less than dirt",
    miss: "you're a better cook than me",
  },
  {
    id: "insult:<word>/human-version-of",
    pattern: () => `(?:the )?human (?:equivalent|version) of (?:a |an )?`,
    hit: "you're the human version of a wet sock",
    miss: "you're a beautiful human",
  },
  {
    id: "insult:<word>/what-kind-of-insult",
    pattern: () =>
      `what (?:kind|sort|type) of (?:an? )?${mods()}(?<word>${nouns()}) (?:would )?(?:${oneOf(ACCOUNT_VERBS)}|programs|thinks|posts)`,
    hit: "what kind of idiot programs a bot like this",
    miss: "what kind of chart is this?",
  },
  {
    id: "insult:<word>/you-look-like",
    pattern: () =>
      `${you()} (?:smell|smells|look|looks|sound|sounds) like ${mods()}(?<word>${nouns()}|shit|crap|garbage|trash|dumpster|roadkill|a corpse)`,
    hit: "you smell like a dumpster fire",
    miss: "you look like a movie star",
  },
  // "the idiot who runs this account": the insult is the subject.
  {
    id: "insult:<word>/the-insult-who-runs-this",
    pattern: () =>
      `the ${mods()}(?<word>${nouns()}) (?:who|that|behind|running) ${words(1)}(?:this|these|ur|your|you)(?![a-z0-9])`,
    hit: "the clown who programs this is a hack",
    miss: "the person who runs this account is a star",
  },
  {
    id: "insult:sack-of/sack-of",
    pattern: () =>
      `(?:${youAre()}|${you()}) ${mods()}(?:sack|bag|pile|heap|lump) of ${words(1)}[a-z]+|` +
      `^(?:an? )?(?:(?:${belittling()}|lying|absolute|total|complete|utter|walking) )+(?:sack|` +
      `bag) of [a-z]+(?: [a-z]+)?(?=[^a-z0-9]*$|[^a-z0-9]*[,.!])`,
    hit: "you sack of shit",
    miss: "you scared the crap out of me lol",
  },
  {
    id: "insult:insult-to-humanity/insult-to-humanity",
    pattern: () =>
      `${youAreStatement()} (?:an? )?(?:insult|disgrace|embarrassment|stain|blight|cancer|plague) (?:to|on|of|upon) ` +
      `(?:the human race|humanity|mankind|society|the species|${possessive} (?:family|parents|species)|this (?:site|planet|world|country))`,
    hit: "you're a stain on humanity",
    miss: "you're a credit to humanity",
  },
  // A bare insult naming the account: "asshole bot", "idiot owner".
  {
    id: "insult:<word>/insult-bot",
    pattern: () =>
      `(?:^|[,.!?;] )${mods()}(?<word>${nouns()}) (?:bot|owner|account|admin|dev|devs|mods|page)(?![a-z0-9])`,
    hit: "bag of shit bot",
    miss: "u a bot?",
  },
];
