/**
 * Curses aimed at someone: the swear word is not the point, the "you" is ("fuck you",
 * "stfu", "piss off"; not "fuck yeah").
 */
import { fuck, mods, possessive, yourself } from "./fragments.ts";
import type { PhraseRuleEntry } from "./phrase-rule.ts";

export const CURSES: readonly PhraseRuleEntry[] = [
  // Not across a stop: "you daft sod, you left your umbrella" curses no one.
  {
    id: "insult:fuck-you/fuck-you",
    pattern: () => `${fuck()}(?![^a-z0-9]*[,;:.!?]) (?:you|u|yourself|urself|ur self|yourselves|off|your|ur)`,
    hit: "fck u",
    miss: "fuck yeah!",
  },
  {
    id: "insult:fuck-you/f-you",
    pattern: () => `(?:go_)?f_(?:you|u|yourself|urself|off)`,
    hit: "F U",
    miss: "f is for friday",
  },
  {
    id: "insult:fuck-you/go-fuck-yourself",
    pattern: () => `go ${fuck()} ${yourself()}`,
    hit: "go f*ck urself",
    miss: "go fuck up the competition",
  },
  {
    id: "insult:stfu/stfu",
    pattern: () =>
      `stfu|shut the (?:fuck|fk|fck|hell|heck|fuk) up|shut ${possessive} ${mods()}(?:mouth|face|trap|pie hole|gob|hole)`,
    hit: "stfuuuu",
    miss: "shut the door please",
  },
  {
    id: "insult:get-fucked/get-fucked",
    pattern: () => `get (?:fucked|fuked|fcked|fckd)`,
    hit: "get fucked",
    miss: "go get 'em, tiger",
  },
  {
    id: "insult:suck-my/suck-my",
    pattern: () => `suck (?:my|a|on my) (?:dick|cock|balls|d|nuts|ass|arse|bag of dicks)`,
    hit: "suck my dick",
    miss: "Moby Dick is a great book",
  },
  {
    id: "insult:eat-shit/eat-shit",
    pattern: () => `eat (?:shit|a dick|dirt|a bag of dicks|my shit|a cock)`,
    hit: "eat shit",
    miss: "eat your greens",
  },
  {
    id: "insult:kiss-my-ass/kiss-my-ass",
    pattern: () => `kiss my (?:ass|arse)`,
    hit: "kiss my ass",
    miss: "kiss my cat for me",
  },
  {
    id: "insult:piss-off/piss-off",
    pattern: () => `(?:piss|bugger|sod|naff) off`,
    hit: "piss off, loser",
    miss: "she was pissed off about the train",
  },
  {
    id: "insult:up-yours/up-yours",
    pattern: () => `up yours`,
    hit: "up yours",
    miss: "i'll come round yours tonight with the board games",
  },
];
