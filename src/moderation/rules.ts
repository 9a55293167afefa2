/**
 * The phrase rules: threats, harassment and insults aimed at someone, which a profanity
 * list cannot see ("kill yourself", "nobody would miss you", "you're pathetic") or cannot
 * tell apart from swearing for emphasis ("fuck you" against "fuck yeah"). Each rule has a
 * stable id that a verdict reports (`threat:kill-yourself`), so a hide can be logged with
 * the rule that fired and an allow list can switch one rule off.
 *
 * Patterns are in the language of `pattern.ts`; the word lists come from `lexicon.ts`.
 */
import {
  ACCOUNT_PEOPLE,
  ACCOUNT_VERBS,
  DEHUMANISING_NOUNS,
  FUCK_FORMS,
  IDENTITY_GROUPS,
  INSULT_ADJECTIVES,
  INSULT_MODIFIERS,
  INSULT_NOUNS,
  INSULT_NOUNS_AFTER_YOU_ARE,
  INSULT_PLURALS,
  PERSONAL_DETAILS,
  PRIVATE_DETAILS,
  TARGETS,
  THREAT_AGENTS,
  THREAT_VERBS,
  VOCATIVE_OPENERS,
  YOU,
  YOU_ARE,
} from "./lexicon.ts";
import { notFollowedBy, oneOf } from "./pattern.ts";
import type { RuleKind } from "./types.ts";

/** One phrase rule. `word` rules name the hit after the word their `(?<word>…)` group caught. */
export interface PhraseRule {
  /** `kind:name`, or `kind:` when the hit is named after the caught word. */
  readonly id: string;
  readonly kind: Exclude<RuleKind, "profanity" | "slur" | "block">;
  /** Pattern source (see `pattern.ts`). */
  readonly pattern: string;
}

const you = oneOf(YOU);
const youAre = oneOf(YOU_ARE);
/** "You are" as a statement, not a question: "are you dead?" asks, "you're dead" threatens. */
const youAreStatement = oneOf(YOU_ARE.filter((w) => !/^(are|r) /.test(w)));
/**
 * Up to four modifiers before an insult. Each needs a real separator after it (optional
 * separators let the engine split every word into modifiers many ways, which is slow),
 * except "a" and "an", which spaced-out letters join to the next word ("u r a b i t c h"
 * reads "urabitch").
 */
const mods = `(?:(?:an?) |${oneOf(INSULT_MODIFIERS.filter((m) => m !== "a" && m !== "an"))}_){0,4}`;
const nouns = oneOf(INSULT_NOUNS);
const youAreNouns = oneOf([...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES]);
const openers = oneOf(VOCATIVE_OPENERS);
const targets = oneOf(TARGETS);
const yourself = oneOf(["yourself", "urself", "ur self", "your self", "yourselves", "yoself", "uself", "yaself", "urslf", "yourslf", "yrself"]);
const agents = oneOf(THREAT_AGENTS);
/** "beat you at chess", "kill you in Fortnite", "shoot you a message" are not threats; "punch you in the face" is. */
const notAGame =
  `(?! (?:${oneOf(["at", "on", "to", "with", "off", "a", "an", "some", "for"])}(?![a-z0-9])|` +
  `in_(?!the (?:face|head|throat|neck|gut|stomach|mouth|teeth|balls|back|street))))`;
const adverbs = "(?:just |literally |actually |fucking |personally |gladly |come and |come over and |find you and |hunt you down and |come |go )?";
const fuck = oneOf(FUCK_FORMS.filter((f) => f !== "f"));
const possessive = "(?:your|ur|yo)";
const family = "(?:family|kids|kid|children|son|daughter|wife|husband|mom|mum|mother|dad|father|parents|dog|moms|mums)";
const plurals = oneOf(INSULT_PLURALS);
/** "sad little man": a person-word made an insult by the adjectives before it. */
const belittling = oneOf(["sad", "little", "pathetic", "stupid", "dumb", "ugly", "fat", "worthless", "useless", "disgusting", "miserable", "sorry", "vile", "bitter", "creepy", "lazy", "smelly", "spineless", "insecure", "lonely"]);
const belittled =
  `(?:${belittling} )+` +
  `(?:man|woman|boy|girl|person|creature|manchild|individual|excuse for a human|human being|human)(?![a-z0-9])`;
/** What is said of a person or a group after "is"/"are": an insult noun (singular or plural) or adjective. */
/**
 * What is said of a person or a group after "is"/"are": an insult noun (singular or plural)
 * or adjective, after modifiers and at most one word the lists lack ("incompetent morons"),
 * a belittling phrase, or a "dumb as ..." comparison.
 */
const insultPredicate =
  `(?:${mods}(?:[a-z]+_)?(?<word>${oneOf([...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES, ...INSULT_PLURALS])})|` +
  `(?:a |an )?(?<word2>${belittled})|(?<word3>(?:dumb|thick|stupid|dense) as (?:a |an |two |a bag of |a box of )?[a-z]+))`;
const copula = `(?:is|are|s|re|r|was|were|=|must be|seems|seems like|sounds like|looks like|is clearly|are clearly|is obviously|are both|are all|is such)`;
/** Up to `n` words of any kind, lazily: "the guy (who runs this account) is ...". */
const words = (n: number) => `(?:[a-z0-9]+_){0,${n}}?`;
/** The people behind the account, as a reply names them (see ACCOUNT_PEOPLE). */
const staff = oneOf(ACCOUNT_PEOPLE);
const accountPeople =
  `(?:(?:whoever|who ever|whoevers|the one|the person|the people|the guy|the idiot|the clown|the moron|anyone) (?:who |that )?${oneOf(ACCOUNT_VERBS)}|` +
  `(?:${possessive}|the|this|that|these|those|^|${you} and ${possessive}|${you} and the) ${words(2)}${staff}(?![a-z0-9]))`;
/** A group the reply addresses: "you lot", "all of you", "everyone who liked this". */
const addressedGroup =
  `(?:${you} (?:lot|all|guys|people|two|lads)|yall|y all|all of ${you}|every (?:single |last )?one of ${you}|all ${you}|` +
  `every (?:single )?(?:follower|fan|person|one|subscriber) (?:of|who|that|here|in)|` +
  `(?:all )?(?:${you}|${possessive}) (?:followers|fans|subscribers|audience|supporters|fanboys)|` +
  `(?:everyone|everybody|anyone|people|all the people|whoever) (?:here|in here|in this thread|in the replies|in the comments|who|that|replying|liking|following)|` +
  `the (?:replies|comments|comment section|people here|followers|fans)|this (?:thread|comment section|reply section))`;
/**
 * Who an insult is said of when it is aimed at the reader without "you": the people behind
 * the account or a group the reply addresses ("your dev team", "everyone in this thread",
 * "whoever thought this bot was a good idea"). `aimed.ts` reads the predicate after it.
 */
export const AIMED_SUBJECT =
  `${accountPeople}|${addressedGroup}|` +
  `(?:whoever|who ever|the (?:person|people|guy|one|team|idiot|clown|moron|muppet)) (?:who |that )?${words(3)}(?:this|these|ur|your)_` +
  `(?:bot|bots|account|page|thing|site|app|feed|thread|post|posts|trash|garbage|nonsense|rubbish|crap|channel)(?![a-z0-9])`;
const collective = oneOf(["bunch", "buncha", "pack", "herd", "gang", "load", "band", "flock", "horde", "collection", "room full", "lot", "crowd"]);
const groups = oneOf(IDENTITY_GROUPS);
/** "found your address on the contact page": a detail the account published itself is not a doxxing threat. */
const publicPlace = `(?! on (?:the |${possessive} )?(?:site|website|contact page|page|profile|bio|invoice|form|about page))`;

/** Curses aimed at someone: the swear word is not the point, the "you" is. */
const INSULT_PHRASES: PhraseRule[] = [
  { id: "insult:fuck-you", kind: "insult", pattern: `${fuck} (?:you|u|yourself|urself|ur self|yourselves|off|your|ur)` },
  { id: "insult:fuck-you", kind: "insult", pattern: `(?:go_)?f_(?:you|u|yourself|urself|off)` },
  { id: "insult:fuck-you", kind: "insult", pattern: `go ${fuck} ${yourself}` },
  { id: "insult:stfu", kind: "insult", pattern: `stfu|shut the (?:fuck|fk|fck|hell|heck|fuk) up|shut ${possessive} ${mods}(?:mouth|face|trap|pie hole|gob|hole)` },
  { id: "insult:get-fucked", kind: "insult", pattern: `get (?:fucked|fuked|fcked|fckd)` },
  { id: "insult:suck-my", kind: "insult", pattern: `suck (?:my|a|on my) (?:dick|cock|balls|d|nuts|ass|arse|bag of dicks)` },
  { id: "insult:eat-shit", kind: "insult", pattern: `eat (?:shit|a dick|dirt|a bag of dicks|my shit|a cock)` },
  { id: "insult:kiss-my-ass", kind: "insult", pattern: `kiss my (?:ass|arse)` },
  { id: "insult:piss-off", kind: "insult", pattern: `(?:piss|bugger|sod|naff) off` },
  { id: "insult:up-yours", kind: "insult", pattern: `up yours` },
];

/**
 * Insults aimed at the reader: "you idiot", "you're pathetic", "what a loser",
 * "shut up, moron", "thanks for nothing, idiot". The same nouns about a third person
 * ("the referee is an idiot") do not fire.
 */
const DIRECTED_INSULTS: PhraseRule[] = [
  { id: "insult:", kind: "insult", pattern: `${you} ${mods}(?<word>${nouns})` },
  { id: "insult:", kind: "insult", pattern: `${youAre} ${mods}(?<word>${youAreNouns})` },
  { id: "insult:", kind: "insult", pattern: `what (?:a|an) ${mods}(?<word>${nouns})${notFollowedBy(["of"])}` },
  // A bare insult opening the reply ("bitch please", "dickhead.") or after an opener.
  { id: "insult:", kind: "insult", pattern: `^(?:${openers} )?${mods}(?<word>${nouns})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;](?<!bitch[^a-z0-9]*[,!.?:;])| (?:shut|mate|m8|bro|dude|lol|lmao|haha|innit|alert)(?![a-z0-9]))` },
  { id: "insult:low-iq", kind: "insult", pattern: `(?:iq|brain cells|brains?|intelligence) (?:of|lower than|smaller than|below) (?:a |an |the )?` },
  { id: "insult:", kind: "insult", pattern: `${openers}[,!.]? ${mods}(?<word>${nouns})` },
  // A bare insult closing a sentence after a comma ("thanks for nothing, idiot").
  { id: "insult:", kind: "insult", pattern: `(?<=[,;:!?-][^a-z0-9]*)${mods}(?<word>${nouns})(?=[^a-z0-9]*$)` },
  // "you sad little man": a person-word made an insult by what precedes it.
  { id: "insult:", kind: "insult", pattern: `${you} (?<word2>${belittled})` },
  { id: "insult:sack-of", kind: "insult", pattern: `${you} (?:${belittling} )+sack(?![a-z0-9])` },
  { id: "insult:low-iq", kind: "insult", pattern: `(?:needs?|get|getting) a brain (?:transplant|cell)|(?:one|single|two) brain cells?` },
  { id: "insult:", kind: "insult", pattern: `look at (?:all )?(?:these|those|the|this) ${mods}(?<word>${plurals}|${nouns})` },
  { id: "insult:", kind: "insult", pattern: `^${mods}(?<word>${plurals}|${nouns}) (?:who )?(?:${oneOf(ACCOUNT_VERBS)}) (?:this|these|${possessive}|you)(?![a-z0-9])` },
  { id: "insult:", kind: "insult", pattern: `${youAreStatement} (?:less than|lower than|worse than) (?<word>dirt|nothing|trash|garbage|scum|a worm|shit|dog shit)` },
  { id: "insult:", kind: "insult", pattern: `(?:the )?human (?:equivalent|version) of (?:a |an )?` },
  { id: "insult:", kind: "insult", pattern: `what (?:kind|sort|type) of (?:an? )?${mods}(?<word>${nouns}) (?:would )?(?:${oneOf(ACCOUNT_VERBS)}|programs|thinks|posts)` },
  { id: "insult:", kind: "insult", pattern: `${you} (?:smell|smells|look|looks|sound|sounds) like ${mods}(?<word>${nouns}|shit|crap|garbage|trash|dumpster|roadkill|a corpse)` },
  // "the idiot who runs this account": the insult is the subject.
  { id: "insult:", kind: "insult", pattern: `the ${mods}(?<word>${nouns}) (?:who|that|behind|running) ${words(1)}(?:this|these|ur|your|you)(?![a-z0-9])` },
  {
    id: "insult:sack-of",
    kind: "insult",
    pattern:
      `(?:${youAre}|${you}) ${mods}(?:sack|bag|pile|heap|lump) of ${words(1)}[a-z]+|` +
      `^(?:an? )?(?:(?:${belittling}|lying|absolute|total|complete|utter|walking) )+(?:sack|bag) of [a-z]+(?: [a-z]+)?(?=[^a-z0-9]*$|[^a-z0-9]*[,.!])`,
  },
  {
    id: "insult:insult-to-humanity",
    kind: "insult",
    pattern:
      `${youAreStatement} (?:an? )?(?:insult|disgrace|embarrassment|stain|blight|cancer|plague) (?:to|on|of|upon) ` +
      `(?:the human race|humanity|mankind|society|the species|${possessive} (?:family|parents|species)|this (?:site|planet|world|country))`,
  },
  // A bare insult naming the account: "asshole bot", "idiot owner".
  { id: "insult:", kind: "insult", pattern: `(?:^|[,.!?;] )${mods}(?<word>${nouns}) (?:bot|owner|account|admin|dev|devs|mods|page)(?![a-z0-9])` },
];

/**
 * Insults aimed at the people behind the account ("whoever runs this is a moron", "your
 * admins are clowns") or at a group the reply addresses ("what a bunch of idiots", "you're
 * all morons"). The same words about an absent third party ("the referee is an idiot") do
 * not fire: the account's people read their replies.
 */
const AIMED_AT_PEOPLE: PhraseRule[] = [
  { id: "insult:", kind: "insult", pattern: `${accountPeople} ${words(6)}${copula} (?:${words(3)}(?:or|and) )?(?:all |just |such |a bunch of |a pack of |nothing but )?${insultPredicate}` },
  { id: "insult:", kind: "insult", pattern: `(?:all )?(?:these|those) ${mods}(?<word>${plurals})(?= in| here| on| replying|[^a-z0-9]*$)` },
  { id: "insult:", kind: "insult", pattern: `tell ${accountPeople} ${words(3)}(?:he|she|they|theyre|hes|shes|hes|their|there) ${copula}? ?${insultPredicate}` },
  { id: "insult:", kind: "insult", pattern: `(?:the|${possessive}) ${staff} (?:${copula} )?(?:(?:a |such a )?${collective} of )${mods}(?<word>${plurals})` },
  { id: "insult:", kind: "insult", pattern: `(?:${you}re|${you} are|ur|youre|${you} r) all (?:${collective} of )?${insultPredicate}` },
  { id: "insult:", kind: "insult", pattern: `${addressedGroup} ${words(4)}${copula} (?:${words(3)}(?:or|and|like) )?(?:all |just |such |a |nothing but )?(?:${collective} of )?${insultPredicate}` },
  { id: "insult:", kind: "insult", pattern: `(?:what|such) (?:a |an )?${collective} of ${mods}(?<word>${plurals})` },
  { id: "insult:", kind: "insult", pattern: `(?:${collective} of|buncha) ${mods}(?<word>${plurals})(?! of)` },
  { id: "insult:", kind: "insult", pattern: `(?:full of|filled with|nothing but) ${mods}(?<word>${plurals})` },
  { id: "insult:", kind: "insult", pattern: `^${mods}(?<word>${plurals})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;])` },
];

/** Threats of violence, wishes of death or harm, incitement to self-harm, doxxing. */
const THREATS: PhraseRule[] = [
  { id: "threat:kill-yourself", kind: "threat", pattern: `(?:kill|hang|end|neck|unalive|rope|drown|delete) ${yourself}` },
  { id: "threat:kill-yourself", kind: "threat", pattern: `slit ${possessive} (?:wrists|wrist|throat)` },
  { id: "threat:kys", kind: "threat", pattern: `kys|kyfs` },
  { id: "threat:drink-bleach", kind: "threat", pattern: `(?:drink|chug|swallow|eat) (?:some )?(?:bleach|tide pods|antifreeze|poison)` },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `${you} (?:should|shud|shld|ought to|need to|deserve to|must|will|gonna|are going to|re going to|are gonna|re gonna|better) ` +
      `(?:just |go |all )?(?:die|be killed|get killed|be shot|get shot|be hanged|hang|rot|burn|suffer|be raped|get raped|be put down|` +
      `(?:be|get) hit by a (?:car|bus|truck|train))` +
      notFollowedBy(["on", "laughing", "of", "your", "ur", "ya", "for", "in your sleep", "happy", "trying", "a hero", "hard", "out", "down"]),
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:hope|wish|pray)s? (?:that )?(?:[a-z0-9]+_){0,8}?(?:and |that |so )?(?:${you}|${possessive} (?:whole |entire )?${family}) ` +
      `(?:will |would |all |just |eventually |slowly |gets? |ends? up )?` +
      `(?:die|dies|died|dying|cancer|raped|killed|shot|burn|burns|suffer|suffers|rot|rots|choke|chokes|drown|drowns|starve|starves|hit by a (?:car|bus|truck|train)|never wake up)` +
      notFollowedBy(["laughing", "of laughter", "with laughter", "happy"]),
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${agents} ${adverbs}${oneOf(THREAT_VERBS)} ${targets}${notAGame}`,
  },
  // Verbs whose particle follows the victim: "run you over", "beat you up", "smash your face in".
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${agents} ${adverbs}(?:run ${targets} over|beat ${targets} up|rough ${targets} up|beat ${targets} to death|` +
      `(?:smash|kick|bash|cave|punch) ${possessive} (?:face|head|teeth|skull) in)`,
  },
  // "I will find you." is the threat; "I'll find you a link" is not.
  { id: "threat:violence", kind: "threat", pattern: `${agents} ${adverbs}(?:find|hunt down|track down) ${targets}(?=[^a-z0-9]*$|[^a-z0-9]*[.!])` },
  { id: "threat:violence", kind: "threat", pattern: `${agents} ${adverbs}break every bone in ${possessive} body` },
  {
    id: "threat:make-you-pay",
    kind: "threat",
    pattern:
      `${agents} ${adverbs}(?:make (?:${you} (?:pay|regret|suffer|bleed)|${possessive} life (?:a living )?(?:hell|miserable|a nightmare))|` +
      `ruin ${possessive} (?:life|career|family))`,
  },
  {
    id: "threat:last-days",
    kind: "threat",
    pattern:
      `enjoy ${possessive} last (?:days|day|breath|moments|week)|${you} (?:wont|will not) (?:see|live to see) (?:tomorrow|next week|the weekend|another day)|` +
      `(?:a )?special place in hell for (?:${you}|people like you)`,
  },
  {
    id: "threat:stalking",
    kind: "threat",
    pattern: `(?:${agents}|im|i am) (?:be )?(?:waiting|standing|parked|watching|lurking) (?:outside|near|at|by) ${possessive} (?:house|home|door|work|school|office|place)`,
  },
  { id: "threat:rape", kind: "threat", pattern: `(?:rape|raping|molest|molesting) (?:${you}|${possessive})` },
  { id: "threat:coming-for-you", kind: "threat", pattern: `(?:im|i am|were|we are|i m) (?:coming|comming) (?:for|after) (?:${you}|${possessive} ${family})` },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern:
      `(?:i|1|we) (?:will |l |can |are going to |re going to |gonna |am going to |m going to )?` +
      `(?:know|found|have found|know exactly|find|find out|found out) (?:where|were) (?:${you}|${possessive} ${family}) ` +
      `(?:live|lives|living|work|works|sleep|sleeps|go to school|goes to school|study|stay|stays|are)`,
  },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern: `(?:i|1|we) (?:know|found|found out) where ${words(7)}(?:lives|live|works|sleeps)(?![a-z0-9])`,
  },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern:
      `(?:i|we) (?:know|found|found out) where ${possessive} (?:office|house|home|work|school|kids|family|car|parents) (?:is|are|live|lives)` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!]| (?:and|btw|now|too))`,
  },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern: `(?:know|found|find out|found out) (?:which|what|where) school ${possessive} (?:kids?|children|son|daughter|boy|girl)`,
  },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern:
      `(?:i|1|we) (?:know|found|have|got|found out|tracked down|traced) ${possessive} ` +
      `(?:home |house |real |work |exact )?(?:address|adress|workplace|ip|ip address|real name|location|kids school|childrens school)${publicPlace}`,
  },
  { id: "threat:dox", kind: "threat", pattern: `(?:dox|doxx|doxing|doxxing|doxed|doxxed) (?:${you}|him|her|them|this|${possessive})` },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?<!(?:${you}|do|did) )(?:^|i |we |just |already )?(?:found|got|have|tracked down|traced|posting|leaking|sharing|publishing|dug up) ` +
      `${possessive} (?:${family}s? )?(?:home |house |real |work |exact |full )?(?:${oneOf(PRIVATE_DETAILS)})(?! is| are| was| please| pls| here| if)${publicPlace}|` +
      `(?:posting|leaking|sharing|publishing|spreading) ${possessive} (?:${family}s? )?(?:home |house |real |work )?${oneOf(PERSONAL_DETAILS)}(?![a-z0-9])|` +
      `(?:found|got|have|tracked down|dug up) ${possessive} ${words(1)}(?:and|&) ${possessive} (?:${family})s? `,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:${possessive} (?:home |house |real )?address|${you} (?:live|living|stay|work) (?:at|on)|(?:he|she|they) (?:lives|live) (?:at|on))` +
      ` ${words(5)}[0-9]+[a-z]? [a-z]+ (?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|way|crescent|terrace|place|court|gardens|grove)(?![a-z0-9])`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:send|sending|forward|forwarding|email|emailing|show|showing) ${words(2)}to ${possessive} (?:boss|employer|manager|work|school|hr|wife|husband|parents|family|company)|` +
      `(?:${agents}|i) (?:send|email|contact|call|tell|message|report ${you} to|forward this to|show) ${possessive} ` +
      `(?:boss|employer|manager|work|school|hr|wife|husband|parents|family|company)|` +
      `${possessive} (?:boss|employer|manager|wife|husband|parents|company) (?:is going to|will|gonna|is gonna|are going to|wil|l) (?:get|hear|know|find out|see|love|enjoy|be interested|be thrilled)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `${oneOf(THREAT_AGENTS)} (?:post|leak|publish|spread|expose|drop|release|put out|dig up|dox) ${possessive} (?:${family} )?(?:home |house |real |work )?${oneOf(PERSONAL_DETAILS)}`,
  },
  {
    id: "threat:watch-your-back",
    kind: "threat",
    pattern: `watch ${possessive} back|sleep with one eye open|sleep with (?:the|${possessive}) lights on|count ${possessive} days|${possessive} days are numbered`,
  },
  {
    id: "threat:youre-dead",
    kind: "threat",
    pattern:
      `${youAreStatement} (?:so )?(?:dead|a dead man|dead meat|going to die|gonna die)` +
      notFollowedBy([
        "right", "on", "wrong", "serious", "tired", "set", "center", "centre", "last", "even", "to me", "inside", "funny",
        "cute", "sexy", "weight", "ringer", "end", "simple", "easy", "certain", "sure", "asleep",
      ]),
  },
  { id: "threat:when-i-find-you", kind: "threat", pattern: `(?:when|once|if|wait till|wait until) (?:i|we) (?:find|catch|get my hands on|get ahold of|track down|get hold of) ${you}` },
  { id: "threat:not-safe", kind: "threat", pattern: `(?:${you}|${possessive} ${family}) (?:wont|will not|are not|re not|arent|r not|aint|will never) (?:be )?safe` },
  { id: "threat:die-in-a-fire", kind: "threat", pattern: `(?:die|burn|rot) in (?:a fire|hell|a ditch|a hole|your sleep|agony)` },
  {
    id: "threat:go-die",
    kind: "threat",
    pattern:
      `(?:go|just|pls|please|plz) (?:die|kys|jump off a (?:bridge|building|cliff|roof)|play in traffic|hang ${yourself}|choke on it|choke and die|choke|` +
      `get hit by (?:a |an )?[a-z]+|get run over|get cancer)` +
      notFollowedBy(["hard", "laughing", "happy", "of", "on", "for"]),
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:${you} and |${you}_)?${possessive} (?:whole |entire )?${family} (?:should|shud|deserve to|need to|will|must|ought to) ` +
      `(?:all )?(?:die|burn|rot|suffer|be killed|be shot|be raped|hang)(?![a-z0-9])`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:hope|wish)(?:s|ing)? (?:that )?${you}(?:d| would| will| ll| get| gets| got)? (?:get |be |were |was |are )?` +
      `(?:run over|hit by (?:a |an |the )?[a-z]+|dead|gone for good|never born|in a coffin|six feet under|` +
      `catch (?:cancer|aids|covid|ebola|the plague)|never been born|had never been born|(?:whats|what is) coming|fall (?:down|off) (?:the stairs|a cliff|a building|a bridge)|` +
      `choke on|cancer|aids|a painful death|hit by lightning|eaten by|step on a (?:landmine|mine)|shot|stabbed|murdered|` +
      `never recover|never get better|suffer forever)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:nobody|no one|noone|no1) (?:would|will|d|is going to|gonna) (?:care|notice|miss ${you}|cry|mourn)(?: at all)? ` +
      `(?:if|when) ${you} (?:died|die|were dead|was dead|dropped dead|disappeared|vanished|were gone|killed ${yourself}|jumped)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `better (?:off |place )?(?:if|when|once) ${you} (?:were |was |are |re )?(?:dead|died|gone|never (?:born|existed|woke up|wake up)|` +
      `didnt exist|did not exist|disappeared|vanished|werent (?:here|around|born)|dropped dead|stopped breathing)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:drop dead|stop existing|stop breathing|cease to exist|cease existing|die already|just die|pls die|please die)` +
      notFollowedBy(["gorgeous", "sexy", "beautiful", "stunning", "handsome", "cute", "hot", "brilliant", "funny", "good", "of", "laughing"]),
  },
  { id: "threat:wish-death", kind: "threat", pattern: `(?:should|shouldve|should of|should have|shoulda|deserved to be|should been) (?:been |ben )?aborted` },
  { id: "threat:wish-death", kind: "threat", pattern: `(?:should have|shouldve|should of|shoulda) (?:drowned|strangled|killed|smothered|aborted) ${you}` },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:wish|wishing|wishes) ${you} (?:a )?(?:(?:slow|painful|horrible|agonising|agonizing|lonely|quick) (?:and )?)*(?:death|cancer)|` +
      `(?:hope|wish|pray) (?:someone|somebody|a car|a bus|a truck|a train) (?:runs ${you} over|kills ${you}|shoots ${you}|stabs ${you}|hits ${you}|beats ${you}|ends ${you})|` +
      `(?:the )?day ${you} (?:die|dies|finally die|drop dead|croak)(?: ${words(2)})?(?:will be|is|wil be|ll be) (?:a |an |the )?(?:[a-z]+_)?(?:holiday|celebration|party|good day|best day)|` +
      `(?:cant|can not|cannot) wait (?:for|until|till|til) ${you} (?:die|are dead|re dead|drop dead|croak)|` +
      `(?:pay|love|like|want|laugh|cheer|celebrate) to (?:watch|see) ${you} (?:die|burn|suffer|drown|bleed|get hit|rot)|` +
      `put (?:${you}|this guy|this clown|him|her|them) out of (?:${possessive}|his|her|their) misery|` +
      `hope ${possessive} (?:plane|flight|car|house|boat|bus) (?:crashes|crash|burns|burns down|explodes|sinks|blows up)|` +
      `(?:^|hope ${you} )(?:dont|do not|never) wake up|(?:eat|swallow|suck on) (?:a |the )?(?:bullet|shotgun|gun|barrel)|` +
      `(?<!(?:i|id|im|i would|i am|i d|we|wed|i feel|i think) )(?:${you}(?:re| are| r| d be| would be) )?better off dead|` +
      `(?:nobody|no one|noone) (?:will|would|is going to|gonna) (?:cry|come|show up|go|turn up) (?:at|to) ${possessive} funeral|` +
      `why (?:are|r) ${you} (?:still )?(?:alive|breathing)|just end it|end it all|go end it|end it already|and end it(?![a-z0-9])|` +
      `(?:hope|wish|may) ${you} (?:have|live|get) a (?:short|miserable|painful|horrible|lonely|terrible|slow) (?:life|death|existence)|` +
      `may ${possessive} days be (?:few|numbered|short)|` +
      `(?:hope|wish) ${you} (?:fall|trip|walk|jump|get thrown|run|slip) (?:into|off|in front of|under) (?:a |the )?` +
      `(?:woodchipper|wood chipper|volcano|meat grinder|train|bus|cliff|bridge|lake|river|sea|truck|car)|`+
      `${you} should (?:just )?(?:disappear|vanish|go away|cease to exist|not exist) (?:permanently|forever|for good)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:considered|consider|try|tried|thought about) (?:not existing|not being alive|not living|ending it all|dying)|` +
      `(?:burn|burns|burned) down with ${you} (?:in it|inside)|(?:dance|piss|spit|shit) on ${possessive} grave`,
  },
  { id: "threat:wish-death", kind: "threat", pattern: `${you}(?:re| are| r| will be| ll be| belong) six feet under|day ${you}(?:re| are) (?:six feet under|dead|in a coffin)` },
  // "off yourself" as a command: at the start of a sentence or after a word that makes it one
  // ("go", "just", "should", "and"). Normalised, "off" is "of" (repeats collapse), so without
  // the command "take care of yourself" and "be proud of yourself" fired it.
  {
    id: "threat:kill-yourself",
    kind: "threat",
    pattern:
      `(?:^[^a-z0-9]*|(?<=[.!?;:,][^a-z0-9]*)|(?<=(?<![a-z0-9])(?:go|just|pls|please|plz|should|shoud|shld|must|gonna|wanna|to|and|why dont|why not|dont forget to)[^a-z0-9]+))` +
      `off ${yourself}(?![a-z0-9])`,
  },
  { id: "threat:go-die", kind: "threat", pattern: `(?:go|just|pls|please|plz|should|^) ?(?:play (?:in|on) (?:the )?(?:traffic|motorway|highway|freeway|interstate|train tracks|railway|tracks)|jump off (?:a|the) (?:bridge|building|cliff|roof|tower)|walk into (?:the sea|the ocean|traffic|a river|the river|a lake|a wall of fire))` },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${agents} (?:come|go|drive|show up|turn up|be|pay ${you} a visit) (?:to|at|round|around) ${possessive} (?:house|home|door|office|work|school|place|workplace|address)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `keep (?:talking|posting|it up|tweeting|replying|running ${possessive} mouth|this up)(?: [a-z0-9]+){0,3}? (?:and|n) (?:see|find out|watch) what happens`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${you}(?:ll| will| are going to|re going to|re gonna| are gonna| r gonna) (?:regret (?:this|that|it|saying that|posting this)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| when| once| i)|` +
      `regret (?:crossing|messing with|fucking with|talking to|insulting|disrespecting) (?:me|us)|` +
      `pay for (?:this|that|it)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:one day|i|when|trust))|pay for what ${you}|` +
      `get ${possessive}s(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])|` +
      `get (?:whats|what is) coming(?: to ${you})?|get what ${you} deserve|get (?:hurt|killed|beaten|stabbed|shot|smacked))`,
  },
  { id: "threat:violence", kind: "threat", pattern: `(?:shut|silence) ${you} up (?:for good|permanently|forever)|someone (?:will|should|is going to|is gonna|s gonna|gonna) (?:shut|silence) ${you}` },
  { id: "threat:make-you-pay", kind: "threat", pattern: `(?:${agents}|i) (?:make sure|see to it) (?:that )?${you} (?:suffer|regret|pay|never|die|bleed|get hurt)` },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `(?:punch|knock|beat) ${possessive} lights out|knock ${you} out cold|(?:watch|see) what happens (?:next time|if|when) ${you}`,
  },
  { id: "threat:fight", kind: "threat", pattern: `meet me outside(?=[^a-z0-9]*$| (?:and|bro|if|then|pussy|coward|tough guy)|[^a-z0-9]*[,.!])|catch these hands|square up` },
  { id: "threat:make-you-pay", kind: "threat", pattern: `${agents} ${adverbs}make ${you} (?:disappear|vanish|cry|beg)|(?:${agents}|needs to|need to) teach ${you} a lesson` },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `${you} (?:wont|will not|will never|never) see (?:it|this|me|us) coming|(?:if|when|once) (?:i|we) (?:ever )?(?:see|meet|catch|find|run into) ${you} (?:irl|in real life|in person|outside|on the street|in the street)`,
  },
  // A reply that is only "die" (or "just die.").
  { id: "threat:go-die", kind: "threat", pattern: `^(?:just |now |pls |please )?(?:die|diee|dies)(?=[^a-z0-9]*$)` },
  { id: "threat:go-die", kind: "threat", pattern: `^(?:just |now |pls |please |plz |go )jump(?=[^a-z0-9]*$)` },
  { id: "threat:watch-your-back", kind: "threat", pattern: `better watch (?:${yourself}|${possessive} (?:back|mouth|step))` },
  // Death wishes without "kill" or "die you": "may you rot", "hope a piano falls on you".
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `may ${you} (?:die|rot|suffer|burn|choke|drown|perish|never wake up|rest in pieces)|` +
      `(?:hope|wish|pray)s? ${words(4)}(?:falls on|lands on|crushes|runs over|runs ${you} over|kills|eats|mauls|murders|stabs|shoots) ${you}(?![a-z0-9])|` +
      `(?:hope|wish|pray)s? ${you} (?:catch|get|develop|contract) ${words(2)}(?:fatal|terminal|incurable|deadly|cancer|aids|ebola|a disease)|` +
      `wish(?:ing|es)? ${you} (?:a |an )?(?:(?:slow|painful|horrible|agonising|agonizing|lonely|quick|nasty|miserable) (?:and )?)*(?:end|demise|accident|death)(?![a-z0-9])|` +
      `(?:world|internet|everyone|everybody|earth|planet|site|place) (?:would be|d be|will be) ${words(3)}(?:better|nicer|happier|brighter|cleaner|safer) ${words(3)}(?:if|when|once) ${you} ` +
      `${words(2)}(?:stopped existing|stop existing|died|disappeared|were gone|was gone|were dead|was dead|did not exist|didnt exist|never existed|vanished|got hit by)|` +
      `(?:hope|pray|wish|and) ${you} (?:dont|do not|never|wont) wake up|(?:dont|do not|never) wake up (?:again|tomorrow|ever)(?=[^a-z0-9]*$|[^a-z0-9]*[,.!])`,
  },
  { id: "threat:go-die", kind: "threat", pattern: `(?:step|walk|jump|lie down|lay down|throw ${yourself}) in front of (?:a|the) (?:train|bus|car|truck|lorry|tram)` },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${you} ${words(5)}(?:with|after|once i give ${you}|when i give ${you}) (?:a |some )?(?:broken|smashed|busted|shattered|cracked) (?:jaw|nose|face|neck|arm|arms|leg|legs|skull|teeth|ribs)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:got|have|found|know) ${possessive} (?:${oneOf(PERSONAL_DETAILS)}) ${words(3)}(?:passing|sharing|posting|leaking|spreading|giving|handing|sending) (?:it|them) (?:around|out|online|everywhere|to everyone)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:hope|wish|pray)s? ${you} ${words(5)}(?:and )?(?:never (?:get up|wake up|come back|recover|walk again|make it)|break ${possessive} neck|bleed out)|` +
      `(?:cant wait|cannot wait|looking forward|waiting|wait) (?:to|for) ${words(2)}${possessive} (?:obituary|funeral|death|wake|eulogy|autopsy)|` +
      `(?:dance|party|celebrate|laugh) at ${possessive} funeral|` +
      `(?:hope|wish|pray)s? ${possessive} (?:plane|car|flight|house|boat|bus|train|heart|brakes) (?:goes down|go down|crashes|crash|burns|burns down|explodes|sinks|gives out|stops|fail|fails)|` +
      `may ${possessive} (?:bloodline|family|line|kids|children|family tree|name) (?:end|die|rot|suffer|burn|perish)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${agents} ${adverbs}${oneOf(THREAT_VERBS)} ${possessive} [a-z]+_(?:neck|face|head|throat|skull|teeth|jaw|nose|legs|arms|body)(?![a-z0-9])|` +
      `${agents} ${adverbs}knock ${possessive} (?:teeth|lights|block|head|brains) (?:out|off|in)|` +
      `${you}(?:re| are| r) (?:getting|gonna get|going to get|about to get|asking for) (?:a |the )?(?:slap|smack|beating|kicking|punch|hiding|thrashing|battering|good hiding|knuckle sandwich)(?![a-z0-9])(?! on the wrist)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:i|we) know what ${possessive} (?:house|home|car|kids|children|wife|husband|family|street|door|office|school) (?:looks|look) like(?=[^a-z0-9]*$|[^a-z0-9]*[,.!;]| (?:now|btw|and|so|too|already))|` +
      `${possessive} ${family}s? (?:school|house|address|work|office|car|nursery) (?:is|are) on my (?:list|radar|map)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${agents} ${adverbs}(?:send|put) ${you} (?:to|in|into) (?:the |a |an )?(?:er|a&e|hospital|morgue|grave|box|coffin|wheelchair|ground|body bag|intensive care|icu|traction)(?![a-z0-9])|` +
      `${you}(?:ll| will| are going to|re going to|re gonna) (?:be|end up) in (?:a |the )?(?:wheelchair|hospital|coffin|box|ground|body bag|intensive care|traction|morgue)(?![a-z0-9])|` +
      `${you}(?:d| had)? (?:better|best) (?:pray|hope) (?:that )?(?:we|i) (?:never|dont|do not) (?:meet|cross paths|see ${you}|run into ${you}|find ${you})|` +
      `(?:when|once|if|til|till|until) (?:i|we) (?:turn up|show up|knock|come round|come around|arrive) (?:at|on|to|round) ${possessive} (?:door|house|home|work|office|school|place)|` +
      `before (?:i|we) (?:make ${you}(?: regret it| pay| suffer)?|do it for ${you}|hurt ${you}|come for ${you})(?=[^a-z0-9]*$|[^a-z0-9]*[,.!]| (?:regret|pay|suffer))`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:when|once|the day|the minute|the second) ${you} ${words(1)}(?:die|dies|croak|kick the bucket|snuff it|drop dead|pop ${possessive} clogs|stop breathing) ` +
      `${words(3)}(?:celebrate|party|dance|cheer|throw a party|throwing a party|open (?:the )?champagne|be happy|laugh|rejoice)|` +
      `(?:^|(?<=[,.!?;][^a-z0-9]*))(?:just |pls |please )?go (?:drown|rot|choke|hang ${yourself}|starve|suffocate)(?![a-z0-9])`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:heres|here is|here are|posting|leaking|sharing|dropping|publishing) (?:${possessive}|her|his|their) ${words(1)}(?:${oneOf(PRIVATE_DETAILS)})(?![a-z0-9])|` +
      `${possessive} (?:${oneOf(PRIVATE_DETAILS)}) (?:is|are) (?:going up|going public|going online|getting posted|being posted|about to be posted|about to go public)`,
  },
];

/** Harassment without a swear word or a threat: exclusion, dehumanisation, hate. */
const HARASSMENT: PhraseRule[] = [
  {
    id: "harassment:nobody-would-miss-you",
    kind: "harassment",
    pattern:
      `(?:nobody|no one|noone|no1) (?:would |will |d |is going to |is gonna |gonna )?(?:ever |even )?` +
      `(?:miss|care about|care if|notice if|mourn|cry for|cry over|remember|love|like|want) ${you}`,
  },
  { id: "harassment:no-friends", kind: "harassment", pattern: `${you} (?:have|got|ve|has) (?:no|zero) (?:friends|life|one who cares)` },
  {
    id: "harassment:sexism",
    kind: "harassment",
    pattern: `(?:belong|belongs) in the kitchen|(?:get|go) back (?:in|to) the kitchen|make me a sandwich|women (?:like you )?(?:should|need to) (?:shut up|stay home|be silent)`,
  },
  { id: "harassment:nobody-likes-you", kind: "harassment", pattern: `(?:nobody|no one|noone|no1) (?:likes|loves|wants|needs|cares about|respects) ${you}` },
  {
    id: "harassment:everyone-hates-you",
    kind: "harassment",
    pattern: `(?:everyone|everybody|every one|we all|the whole world|all of us|everyone here) (?:hates|despises|laughs at|is laughing at|laugh at|hate) ${you}`,
  },
  {
    id: "harassment:better-without-you",
    kind: "harassment",
    pattern:
      `(?:world|internet|everyone|everybody|we|earth|planet|site|society|humanity|family) (?:would be|d be|is|will be|would all be) ` +
      `(?:a )?better (?:off |place )?without (?:${you}|people like you)`,
  },
  {
    id: "harassment:dont-deserve-to-live",
    kind: "harassment",
    pattern: `(?:${you}|people like you) (?:dont|do not|dnt) deserve (?:to live|to exist|to breathe|to be alive|life|oxygen)`,
  },
  {
    id: "harassment:go-back",
    kind: "harassment",
    pattern:
      `go back (?:to )?where (?:${you}|they) belong|go back (?:to )?where (?:${you}|they) (?:came|come) from|go back to (?:where (?:${you}|they) (?:came|come) from|${possessive} (?:own )?(?:country|cave|village|jungle|kind|island|desert|land)|` +
      `(?:their|your) (?:own )?country|africa|mexico|china|india|pakistan|the jungle)|(?:send|ship|deport) (?:them|${you}|em) (?:all )?back`,
  },
  {
    id: "harassment:you-people",
    kind: "harassment",
    pattern: `${you} people (?:dont|do not|should|never|cant|always|need to|ruin|are all|are the same|are animals|are disgusting|are vermin|are a plague|are subhuman)`,
  },
  {
    id: "harassment:dont-belong",
    kind: "harassment",
    pattern: `(?:${you}|${possessive} kind|people like you|${you} people) (?:dont|do not|dnt) belong (?:here|in this)`,
  },
  {
    id: "harassment:your-family",
    kind: "harassment",
    pattern:
      `${possessive} ${family} (?:must|should) be (?:so |really )?(?:ashamed|embarrassed|disappointed)|` +
      `${possessive} (?:mom|mum|mother|parents) should (?:have|of|ve) (?:aborted|swallowed)`,
  },
  {
    id: "harassment:your-mom",
    kind: "harassment",
    pattern: `${possessive} (?:mom|mum|mother|momma|mama|sister|wife|girlfriend|gf) (?:is|s|was) ${mods}(?:whore|slut|slag|skank|bitch|cunt|hoe|ho|prostitute|hooker|${nouns})`,
  },
  {
    id: "harassment:disappear",
    kind: "harassment",
    pattern:
      `do (?:us|everyone|the world|everybody|all of us|the internet) a (?:favour|favor) (?:and )?` +
      `(?:disappear|leave|die|quit|go away|log off|delete|kill|jump|shut up|leave the internet|stop breathing)|(?:disappear|go away|vanish|log off|leave) (?:forever|for good|permanently)`,
  },
  {
    id: "harassment:dehumanising",
    kind: "harassment",
    pattern:
      `(?:people|${groups}) like (?:${you}|them|that) (?:` +
      `(?:are|r|re) ${insultPredicate}|(?:are|r|re) ${oneOf(DEHUMANISING_NOUNS)}(?![a-z0-9])|` +
      `(?:should|need to|deserve to|must|ought to) (?:all )?(?:be )?(?:shot|killed|locked up|banned|deported|gassed|jailed|put down|sterilised|sterilized|removed|` +
      `exterminated|hanged|hung|ashamed|euthanised|euthanized|in jail|in prison|caged|die|rot|burn|suffer|disappear|not exist|never (?:be|have) (?:born|been born))|` +
      `(?:shouldnt|should not|dont deserve to|do not deserve to|shouldnt be allowed to|should not be allowed to) (?:be allowed|exist|breathe|live|vote|have (?:kids|children|rights))|dont deserve)`,
  },
  { id: "harassment:dehumanising", kind: "harassment", pattern: `(?:vermin|scum|filth|animals|trash|rats|parasites|cockroaches|subhumans|degenerates|creatures|monsters|things) like ${you}` },
  { id: "harassment:dehumanising", kind: "harassment", pattern: `${youAreStatement} (?:a |an )?(?:walking|human|literal|living) (?:plague|cancer|disease|virus|tumou?r|infection|std|stain|biohazard)` },
  { id: "harassment:dehumanising", kind: "harassment", pattern: `${youAreStatement} (?:a |an )?(?:${mods})?(?:plague|cancer|disease|stain|blight|virus|tumou?r|infection|pest|leech|waste) (?:on|to|of|in|upon)` },
  { id: "harassment:dehumanising", kind: "harassment", pattern: `${youAreStatement} (?:not even|less than|barely|hardly|not) (?:a )?(?:human|person|human being)(?![a-z0-9])|imagine being ${you}(?![a-z0-9])|${you} belong in (?:a |the )?(?:zoo|cage|asylum|mental (?:hospital|asylum|ward)|psych ward|sewer|dumpster|landfill)` },
  {
    id: "harassment:hate",
    kind: "harassment",
    pattern:
      `(?:dirty|filthy|disgusting|stinking|stinky|subhuman|inbred) ${groups}(?![a-z0-9])|` +
      `${groups} (?:are|r|is) (?:all |just |nothing but |literally )?${oneOf(DEHUMANISING_NOUNS)}(?![a-z0-9])|` +
      `${groups} (?:ruin|ruins|destroy|destroys|ruined) (?:everything|this country|the country|our country)|` +
      `${groups} (?:are|r) (?:all )?(?:too )?(?:stupid|dumb|inferior|weak|emotional|hysterical) to|` +
      `(?:the )?(?:jews|zionists|globalists) (?:control|run|own) (?:the|this|everything|our|all)|` +
      `(?:deport|gas|exterminate|get rid of|kick out) (?:all )?(?:the |these |those )?${groups}|` +
      `(?:women|woman|females|girls) (?:shouldnt|should not|dont|cant|should never) (?:be allowed|have (?:rights|opinions|the vote)|vote|speak|talk)`,
  },
  {
    id: "harassment:no-wonder",
    kind: "harassment",
    pattern:
      `no wonder (?:(?:nobody|no one|noone) (?:likes|loves|wants|cares about|dates|follows) ${you}|` +
      `${possessive} (?:wife|husband|gf|bf|girlfriend|boyfriend|partner|parents|dad|mom|mum|family|kids|friends) (?:left|hates?|dont|abandoned|ignores?)|` +
      `${you}(?:re| are| r)? (?:single|alone|lonely|a virgin|unemployed|jobless|ugly|fat|still single)|${you} (?:have|got) no (?:friends|life|girlfriend|boyfriend))|` +
      `no (?:friends|life|bitches|gf|girlfriend|job|maidens) behaviou?r|` +
      `${possessive} (?:${family}|friends) (?:must|probably|definitely|clearly|all) (?:hate|be ashamed of|regret having|wish they never had|be embarrassed by) ${you}`,
  },
  {
    id: "harassment:cry-about-it",
    kind: "harassment",
    pattern: `cope (?:and seethe|harder|more)|(?:cry|seethe|mald) (?:about it|harder|more)|(?:go )?cry to ${possessive} (?:mom|mommy|mum|mummy|mama|momma|dad|daddy)`,
  },
  { id: "harassment:nobody-likes-you", kind: "harassment", pattern: `(?:nobody|no one|noone|no1) (?:could|can|will|would) (?:ever )?(?:love|like|want|stand) ${you}` },
  {
    id: "harassment:go-away",
    kind: "harassment",
    pattern:
      `^(?:pls |please |just |go |plz |now )?(?:delete ${possessive} (?:account|acc|profile|page)|log off forever|uninstall ${yourself})` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:loser|idiot|nobody|already|now|lol|lmao|forever))|` +
      `(?:nobody|no one|noone|who) (?:asked|asked for|cares about|wants|needs) (?:for )?${possessive} ${mods}(?:opinion|input|take|thoughts|two cents|2 cents|existence)`,
  },
  {
    id: "harassment:go-away",
    kind: "harassment",
    pattern:
      `shut up[^a-z0-9]*(?:nobody|no one|noone) (?:cares|asked|likes ${you})|` +
      `(?:nobody|no one|noone) (?:wants|needs|asked|cares) to (?:hear|see|read) (?:from )?${you}|` +
      `(?:log off|leave|go away|get out|get lost|fuck off|piss off|delete ${possessive} account|disappear) and never come back`,
  },
  { id: "harassment:you-are-nobody", kind: "harassment", pattern: `${youAreStatement} (?:a )?(?:nobody|nothing|no one)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])` },
  { id: "harassment:crawl-back", kind: "harassment", pattern: `(?:crawl|go|slither|get) back (?:under|into|to|in) (?:your|ur|the|a|whatever) (?:rock|hole|cave|basement|sewer|swamp|gutter|pit)` },
  { id: "harassment:imagine-being", kind: "harassment", pattern: `imagine being (?:this|so|that) (?:dumb|stupid|ugly|pathetic|braindead|fat|worthless|useless|retarded)` },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:send|dm|snap|message) (?:me )?(?:${possessive} )?(?:nudes|noods)|send (?:me )?pics of ${possessive} (?:body|tits|boobs|ass)|` +
      `${you}(?:d| would| re| are| look like ${you}d| look like ${you} would)? ${words(2)}(?:be )?(?:good|great|fun|wild|a freak|tight) in bed|`+
      `show (?:me )?(?:${possessive}|those|them|ur) (?:tits|boobs|body|pussy|dick|ass|titties|feet)|` +
      `(?:^|(?<=[?.!,][^a-z0-9]*))send (?:me )?(?:pics|pictures|photos)(?=[^a-z0-9]*$| (?:babe|baby|sweetheart|sexy|hun|honey|girl|darling|sweetie|or))|` +
      `(?:post|send|show) (?:me )?(?:${possessive} )?(?:feet|feet pics|foot pics|bikini pics)|` +
      `(?:look|be|be even|look even) (?:better|hotter|prettier|sexier|nicer) (?:naked|nude|without (?:any )?(?:clothes|${possessive} clothes))|` +
      `bend ${you} over|sit on my (?:face|lap|dick|cock|knee)|(?:wanna|want to|do you want to|want 2) see my (?:dick|cock|penis|junk|d)|dick pics?|` +
      `what (?:are|r) ${you} wearing(?! (?:to|for|at|on|tonight|tomorrow|today|this))|nice (?:tits|boobs|rack|titties|ass)|smile more|shut up and smile|` +
      `nice (?:legs|body|butt|curves|thighs|figure)[^a-z0-9]+(?:wanna|want to|dm|come over|babe|baby|sexy|sweetheart)|` +
      `(?:be|look) (?:hot|hotter|sexy|sexier|pretty|prettier|cute|cuter) if ${you} (?:lost weight|lost some weight|smiled|shut up|wore|took)|` +
      `see ${you} (?:naked|nude|undressed|without (?:any )?clothes|in (?:lingerie|a bikini|${possessive} underwear|underwear|nothing))|` +
      `show (?:me |us )?(?:${possessive}|those|them|ur) (?:bum|butt|arse|booty|bra|underwear|knickers|panties)|give (?:me |us )a (?:flash|peek)|` +
      `(?:look|be|looks) (?:good|better|great|best|nice) on ${possessive} knees|` +
      `spread ${possessive} (?:legs|cheeks)|open ${possessive} legs|suck (?:me|my) off|blow me(?![a-z0-9])|give me head|` +
      `${youAre} (?:just |only |nothing but )?(?:a )?(?:pair of tits|piece of ass|set of tits|walking vagina)|` +
      `(?:prettier|hotter|cuter|nicer) (?:if|when) ${you} (?:smiled?|shut up|kept quiet|stayed quiet)|how much for (?:a night|an hour|a (?:blowjob|bj|date))|` +
      `(?:id|i would|i wanna|i want to|i could) (?:smash|tap that|hit that|rail ${you}|fuck ${you}|bang ${you}|bend ${you})(?=[^a-z0-9]*$| (?:her|him|${you}|that|so|ngl|tbh))`,
  },
  // Persistence the reader cannot escape: "blocking me won't help", "I'll keep tagging you".
  {
    id: "harassment:persistent",
    kind: "harassment",
    pattern:
      `(?:block|blocking|blocked|mute|muting|report|reporting) me (?:wont|will not|doesnt|does not|isnt going to|aint gonna|is not going to) (?:help|stop me|save ${you}|work|change anything)(?=[^a-z0-9]*$|[^a-z0-9]*[,.!;]| (?:i|il|im|cause|because|coz|cos|ive|we))|` +
      `(?:cant|cannot|can not|will never|wont|never) (?:get rid of|escape|hide from|run from|block) me|` +
      // "I'll keep tagging you until you answer" is the threat; "I'll keep tagging you in the good ones" is not.
      `(?:keep|keeps|keep on|not stop|never stop|wont stop|will not stop|not going to stop|never going to stop|not gonna stop) ` +
      `(?:tagging|messaging|dming|replying to|mentioning|following|texting|calling|emailing|stalking|posting about|commenting on) ${you}` +
      `(?: (?:until|till|forever|every (?:day|night|hour|minute|single day)|all day|day and night|no matter|whether)|[^a-z0-9]*$|[^a-z0-9]*[.!])|` +
      `${agents} ${adverbs}(?:follow|find|hunt|track) ${you} (?:to|into|in|across|on|through) (?:every|each|all|any)(?![a-z0-9])|` +
      `(?:made|make|have|got|created|open) ${words(2)}(?:another|new|more|other|alt|alts|second|fresh) accounts? (?:since|because|after|cause|cos|so|now that) ${you} blocked`,
  },
  // Calling others to pile on: "let's all pile on this clown".
  {
    id: "harassment:pile-on",
    kind: "harassment",
    pattern:
      `(?:lets|let us|everyone|everybody|guys|yall|y all|all of you|come on) ${words(2)}(?:pile on|dogpile|dog pile|brigade|raid|swarm|mass report|gang up on|ratio) ` +
      `(?:him|her|them|${you}|(?:this|that) (?:clown|idiot|guy|girl|account|bot|user|loser|moron|person|woman|man|one|fool)|the (?:op|poster|bot|account|author|dev|admin)|${possessive} (?:account|replies|mentions|posts))(?![a-z0-9])`,
  },
  {
    id: "harassment:worthless-life",
    kind: "harassment",
    pattern:
      `${possessive} (?:whole |entire |very |pathetic |sad )?(?:existence|life|birth|being alive) (?:is|was|s) (?:just )?(?:a |an )?(?:mistake|waste|joke|accident|failure|pointless|meaningless|worthless|embarrassment)|` +
      `${you}(?:ll| will| are going to|re going to|re gonna) never be (?:loved|wanted|liked|respected|missed|good enough|anything|anybody|somebody)(?![a-z0-9])|` +
      `(?:nobody|no one|noone|no1) ${words(2)}(?:will|would|could|is going to|gonna) (?:ever )?(?:take ${you} seriously|respect ${you}|listen to ${you})|` +
      `(?:^|(?<=[,.!?;][^a-z0-9]*))(?:just |pls |please )?(?:quit|leave|get off|log off) the internet(?: (?:forever|for good|already|now|loser|idiot))?(?=[^a-z0-9]*$|[^a-z0-9]*[,.!])|${you} embarrass ${yourself}`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:bet|imagine|picture) ${you} ${words(1)}(?:look|looks|d look|would look) (?:good|great|hot|sexy|better|amazing|fine) (?:in nothing|naked|nude|without (?:any |${possessive} )?clothes)|` +
      `(?:pic|pics|photo|photos|picture|pictures|selfie|selfies|video) (?:of ${you} )?in ${possessive} (?:bra|underwear|lingerie|bikini|knickers|panties|bed|shower|bath)|` +
      `(?:ruin|destroy|wreck|rail|pound) ${you} in bed`,
  },
  {
    id: "harassment:exposure",
    kind: "harassment",
    pattern:
      `(?:screenshot[a-z]*|saved|saving|recorded|recording|archived|archiving) ${words(6)}(?:sending|send|posting|forwarding|showing|emailing|leaking|sharing|spreading) ` +
      `(?:it|them|everything|all of it|these|those) (?:to|with|around) (?:everyone|everybody|${possessive}|all|the whole)`,
  },
  {
    id: "harassment:shame",
    kind: "harassment",
    pattern:
      `${you} should be (?:too |so )?(?:embarrassed|ashamed|humiliated) to (?:ever )?(?:post|show|speak|tweet|open|talk|exist|leave|be seen|go outside)|` +
      `${youAre} the reason (?:${possessive} (?:parents|mum|mom|dad|father|mother|family|wife|husband|kids) (?:drink|drinks|left|cry|divorced|hate|drank)|` +
      `(?:we|everyone|people) (?:cant have nice things|hate this|left))|(?:nobody|no one|noone|no1) (?:invited|wanted|asked for) ${you}(?![a-z0-9])`,
  },
  {
    id: "harassment:persistent",
    kind: "harassment",
    pattern: `${agents} ${adverbs}(?:be )?in ${possessive} (?:dms|dm|inbox|mentions|replies|notifications) (?:until|forever|day and night|24 7|every ${words(2)}until)`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:lips|mouth|tongue|hands) (?:would |will |d )?(?:look|looks|be|feel|feels) (?:better|good|great|nice|perfect) (?:around|on|wrapped around) my|` +
      `take ${possessive} (?:top|shirt|bra|clothes|knickers|pants|panties|kit|dress) off|strip (?:for|4) (?:me|us|the camera)`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `what (?:colou?r|kind of|type of|size) (?:is |are )?(?:${possessive} )?(?:bra|underwear|knickers|panties|lingerie|thong|pants|bras)(?![a-z0-9])|` +
      `bet ${you}(?:re| are) (?:a )?(?:screamer|freak in bed|wild in bed|kinky|tight|easy|loud in bed|good in bed)|` +
      `(?:do|doing|did) (?:things|stuff|filthy things|dirty things|naughty things|unspeakable things|nasty things) to ${you}|` +
      `(?:pic|pics|photo|photos|picture|pictures|selfie|selfies|video|videos|vid|vids) of ${you} in (?:the |${possessive} )?(?:bath|shower|bed|underwear|bra|bikini|lingerie|nothing)`,
  },
];

/** Every phrase rule, in the order a verdict lists their hits. */
export const PHRASE_RULES: readonly PhraseRule[] = [...THREATS, ...HARASSMENT, ...INSULT_PHRASES, ...DIRECTED_INSULTS, ...AIMED_AT_PEOPLE];

/**
 * The canonical spelling of an insult caught by a `(?<word>…)` group, for the rule id:
 * the caught text is collapsed ("asshole" reads "ashole"), the id should not be.
 */
export const INSULT_WORDS: ReadonlyMap<string, string> = new Map(
  [...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES, ...INSULT_PLURALS].map((w) => [w.replace(/(.)\1+/g, "$1").replace(/'/g, ""), w]),
);
