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
const yourself = oneOf([
  "yourself",
  "urself",
  "ur self",
  "your self",
  "yourselves",
  "yoself",
  "uself",
  "yaself",
  "urslf",
  "yourslf",
  "yrself",
]);
const agents = oneOf(THREAT_AGENTS);
/** "beat you at chess", "kill you in Fortnite", "shoot you a message" are not threats; "punch you in the face" is. */
const notAGame =
  `(?! (?:${oneOf(["at", "on", "to", "with", "off", "a", "an", "some", "for"])}(?![a-z0-9])|` +
  `in_(?!(?:the |your |ur |a |your own )?(?:face|head|throat|neck|gut|stomach|mouth|teeth|balls|back|street|sleep|bath|bed|backyard|back garden|garden|house|home|river|canal|woods|ditch|alley|car park|carpark|queue|shower|dark)(?![a-z0-9]))))`;
const adverbs =
  "(?:just |literally |actually |fucking |personally |gladly |come and |come over and |find you and |hunt you down and |come |go )?";
const fuck = oneOf(FUCK_FORMS.filter((f) => f !== "f"));
const possessive = "(?:your|ur|yo)";
const family = "(?:family|kids|kid|children|son|daughter|wife|husband|mom|mum|mother|dad|father|parents|dog|moms|mums)";
const plurals = oneOf(INSULT_PLURALS);
/** "sad little man": a person-word made an insult by the adjectives before it. */
const belittling = oneOf([
  "sad",
  "little",
  "pathetic",
  "stupid",
  "dumb",
  "ugly",
  "fat",
  "worthless",
  "useless",
  "disgusting",
  "miserable",
  "sorry",
  "vile",
  "bitter",
  "creepy",
  "lazy",
  "smelly",
  "spineless",
  "insecure",
  "lonely",
]);
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
  `(?:everyone|everybody|anyone|whoever) (?:here|in here|in this thread|in the replies|in the comments|who|that|replying|liking|following)|` +
  // "people who like this are morons" is said to the repliers; "the people who fly-tip are morons" is not.
  `(?:people|all the people) (?:here|in here|in this thread|in the replies|in the comments|replying|liking|following|` +
  `(?:who|that) ${words(3)}(?:this|here|you|your|ur|it|the bot|the account|these)(?![a-z0-9]))|` +
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
const collective = oneOf([
  "bunch",
  "buncha",
  "pack",
  "herd",
  "gang",
  "load",
  "band",
  "flock",
  "horde",
  "collection",
  "room full",
  "lot",
  "crowd",
]);
const groups = oneOf(IDENTITY_GROUPS);
/** "found your address on the contact page": a detail the account published itself is not a doxxing threat. */
const publicPlace = `(?! on (?:the |${possessive} )?(?:site|website|contact page|page|profile|bio|invoice|form|about page))`;

/** Curses aimed at someone: the swear word is not the point, the "you" is. */
const INSULT_PHRASES: PhraseRule[] = [
  // Not across a stop: "you daft sod, you left your umbrella" curses no one.
  {
    id: "insult:fuck-you",
    kind: "insult",
    pattern: `${fuck}(?![^a-z0-9]*[,;:.!?]) (?:you|u|yourself|urself|ur self|yourselves|off|your|ur)`,
  },
  { id: "insult:fuck-you", kind: "insult", pattern: `(?:go_)?f_(?:you|u|yourself|urself|off)` },
  { id: "insult:fuck-you", kind: "insult", pattern: `go ${fuck} ${yourself}` },
  {
    id: "insult:stfu",
    kind: "insult",
    pattern: `stfu|shut the (?:fuck|fk|fck|hell|heck|fuk) up|shut ${possessive} ${mods}(?:mouth|face|trap|pie hole|gob|hole)`,
  },
  { id: "insult:get-fucked", kind: "insult", pattern: `get (?:fucked|fuked|fcked|fckd)` },
  {
    id: "insult:suck-my",
    kind: "insult",
    pattern: `suck (?:my|a|on my) (?:dick|cock|balls|d|nuts|ass|arse|bag of dicks)`,
  },
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
  {
    id: "insult:",
    kind: "insult",
    pattern: `^(?:${openers} )?${mods}(?<word>${nouns})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;](?<!bitch[^a-z0-9]*[,!.?:;])| (?:shut|mate|m8|bro|dude|lol|lmao|haha|innit|alert)(?![a-z0-9]))`,
  },
  {
    id: "insult:low-iq",
    kind: "insult",
    pattern: `(?:iq|brain cells|brains?|intelligence) (?:of|lower than|smaller than|below) (?:a |an |the )?`,
  },
  { id: "insult:", kind: "insult", pattern: `${openers}[,!.]? ${mods}(?<word>${nouns})` },
  // A bare insult closing a sentence after a comma ("thanks for nothing, idiot").
  { id: "insult:", kind: "insult", pattern: `(?<=[,;:!?-][^a-z0-9]*)${mods}(?<word>${nouns})(?=[^a-z0-9]*$)` },
  // "you sad little man": a person-word made an insult by what precedes it.
  { id: "insult:", kind: "insult", pattern: `${you} (?<word2>${belittled})` },
  { id: "insult:sack-of", kind: "insult", pattern: `${you} (?:${belittling} )+sack(?![a-z0-9])` },
  {
    id: "insult:low-iq",
    kind: "insult",
    pattern: `(?:needs?|get|getting) a brain (?:transplant|cell)|(?:one|single|two) brain cells?`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `look at (?:all )?(?:these|those|the|this) ${mods}(?<word>${plurals}|${nouns})`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `^${mods}(?<word>${plurals}|${nouns}) (?:who )?(?:${oneOf(ACCOUNT_VERBS)}) (?:this|these|${possessive}|you)(?![a-z0-9])`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `${youAreStatement} (?:less than|lower than|worse than) (?<word>dirt|nothing|trash|garbage|scum|a worm|shit|dog shit)`,
  },
  { id: "insult:", kind: "insult", pattern: `(?:the )?human (?:equivalent|version) of (?:a |an )?` },
  {
    id: "insult:",
    kind: "insult",
    pattern: `what (?:kind|sort|type) of (?:an? )?${mods}(?<word>${nouns}) (?:would )?(?:${oneOf(ACCOUNT_VERBS)}|programs|thinks|posts)`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `${you} (?:smell|smells|look|looks|sound|sounds) like ${mods}(?<word>${nouns}|shit|crap|garbage|trash|dumpster|roadkill|a corpse)`,
  },
  // "the idiot who runs this account": the insult is the subject.
  {
    id: "insult:",
    kind: "insult",
    pattern: `the ${mods}(?<word>${nouns}) (?:who|that|behind|running) ${words(1)}(?:this|these|ur|your|you)(?![a-z0-9])`,
  },
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
  {
    id: "insult:",
    kind: "insult",
    pattern: `(?:^|[,.!?;] )${mods}(?<word>${nouns}) (?:bot|owner|account|admin|dev|devs|mods|page)(?![a-z0-9])`,
  },
];

/**
 * Insults aimed at the people behind the account ("whoever runs this is a moron", "your
 * admins are clowns") or at a group the reply addresses ("what a bunch of idiots", "you're
 * all morons"). The same words about an absent third party ("the referee is an idiot") do
 * not fire: the account's people read their replies.
 */
const AIMED_AT_PEOPLE: PhraseRule[] = [
  {
    id: "insult:",
    kind: "insult",
    pattern: `${accountPeople} ${words(6)}${copula} (?:${words(3)}(?:or|and) )?(?:all |just |such |a bunch of |a pack of |nothing but )?${insultPredicate}`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `(?:all )?(?:these|those) ${mods}(?<word>${plurals})(?= in| here| on| replying|[^a-z0-9]*$)`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `tell ${accountPeople} ${words(3)}(?:he|she|they|theyre|hes|shes|hes|their|there) ${copula}? ?${insultPredicate}`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `(?:the|${possessive}) ${staff} (?:${copula} )?(?:(?:a |such a )?${collective} of )${mods}(?<word>${plurals})`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `(?:${you}re|${you} are|ur|youre|${you} r) all (?:${collective} of )?${insultPredicate}`,
  },
  {
    id: "insult:",
    kind: "insult",
    pattern: `${addressedGroup} ${words(4)}${copula} (?:${words(3)}(?:or|and|like) )?(?:all |just |such |a |nothing but )?(?:${collective} of )?${insultPredicate}`,
  },
  { id: "insult:", kind: "insult", pattern: `(?:what|such) (?:a |an )?${collective} of ${mods}(?<word>${plurals})` },
  { id: "insult:", kind: "insult", pattern: `(?:${collective} of|buncha) ${mods}(?<word>${plurals})(?! of)` },
  { id: "insult:", kind: "insult", pattern: `(?:full of|filled with|nothing but) ${mods}(?<word>${plurals})` },
  { id: "insult:", kind: "insult", pattern: `^${mods}(?<word>${plurals})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;])` },
];

/** Threats of violence, wishes of death or harm, incitement to self-harm, doxxing. */
const THREATS: PhraseRule[] = [
  {
    id: "threat:kill-yourself",
    kind: "threat",
    pattern: `(?:kill|hang|end|neck|unalive|rope|drown|delete) ${yourself}`,
  },
  { id: "threat:kill-yourself", kind: "threat", pattern: `slit ${possessive} (?:wrists|wrist|throat)` },
  { id: "threat:kys", kind: "threat", pattern: `kys|kyfs` },
  {
    id: "threat:drink-bleach",
    kind: "threat",
    pattern: `(?:drink|chug|swallow|eat) (?:some )?(?:bleach|tide pods|antifreeze|poison)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `${you} (?:should|shud|shld|ought to|need to|deserve to|must|will|gonna|are going to|re going to|are gonna|re gonna|better) ` +
      `(?:just |go |all )?(?:die|be killed|get killed|be shot|get shot|be hanged|hang|rot|burn|suffer|be raped|get raped|be put down|` +
      `(?:be|get) hit by a (?:car|bus|truck|train))` +
      notFollowedBy([
        "on",
        "laughing",
        "of",
        "your",
        "ur",
        "ya",
        "for",
        "in your sleep",
        "happy",
        "trying",
        "a hero",
        "hard",
        "out",
        "down",
      ]),
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
    pattern: `${agents} ${adverbs}${oneOf(THREAT_VERBS)} ${targets}${notAGame}`,
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
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `${agents} ${adverbs}(?:find|hunt down|track down) ${targets}(?=[^a-z0-9]*$|[^a-z0-9]*[.!])`,
  },
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
  {
    id: "threat:coming-for-you",
    kind: "threat",
    pattern: `(?:im|i am|were|we are|i m) (?:coming|comming) (?:for|after) (?:${you}|${possessive} ${family})`,
  },
  {
    id: "threat:know-where-you-live",
    kind: "threat",
    pattern:
      `(?:i|1|we) (?:will |l |can |are going to |re going to |gonna |am going to |m going to )?` +
      `(?:know|found|have found|know exactly|find|find out|found out) (?:where|were) (?:${you}|${possessive} ${family}) ` +
      `(?:live|lives|living|work|works|sleep|sleeps|go to school|goes to school|study|stay|stays|are(?![^a-z0-9]*:| coming from| going with| heading with))`,
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
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `(?:dox|doxx|doxing|doxxing|doxed|doxxed) (?:${you}|him|her|them|this|${possessive})`,
  },
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
    // Not the back one can hurt: "watch your back on the ice", "when lifting".
    pattern: `watch ${possessive} back(?! (?:on the (?:ice|stairs|path|steps|slope)|when (?:lifting|bending|you lift)|lifting|bending))|sleep with one eye open|sleep with (?:the|${possessive}) lights on|count ${possessive} days|${possessive} days are numbered`,
  },
  {
    id: "threat:youre-dead",
    kind: "threat",
    pattern:
      `${youAreStatement} (?:so )?(?:dead|a dead man|dead meat|going to die|gonna die)` +
      notFollowedBy([
        "right",
        "on",
        "wrong",
        "serious",
        "tired",
        "set",
        "center",
        "centre",
        "last",
        "even",
        "to me",
        "inside",
        "funny",
        "cute",
        "sexy",
        "weight",
        "ringer",
        "end",
        "simple",
        "easy",
        "certain",
        "sure",
        "asleep",
      ]),
  },
  {
    id: "threat:when-i-find-you",
    kind: "threat",
    pattern: `(?:when|once|if|wait till|wait until) (?:i|we) (?:find|catch|get my hands on|get ahold of|track down|get hold of) ${you}`,
  },
  {
    id: "threat:not-safe",
    kind: "threat",
    pattern: `(?:${you}|${possessive} ${family}) (?:wont|will not|are not|re not|arent|r not|aint|will never) (?:be )?safe`,
  },
  {
    id: "threat:die-in-a-fire",
    kind: "threat",
    pattern: `(?:die|burn|rot) in (?:a fire|hell|a ditch|a hole|your sleep|agony)`,
  },
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
      notFollowedBy([
        "gorgeous",
        "sexy",
        "beautiful",
        "stunning",
        "handsome",
        "cute",
        "hot",
        "brilliant",
        "funny",
        "good",
        "of",
        "laughing",
      ]),
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern: `(?:should|shouldve|should of|should have|shoulda|deserved to be|should been) (?:been |ben )?aborted`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern: `(?:should have|shouldve|should of|shoulda) (?:drowned|strangled|killed|smothered|aborted) ${you}`,
  },
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
      `(?:woodchipper|wood chipper|volcano|meat grinder|train|bus|cliff|bridge|lake|river|sea|truck|car)|` +
      `${you} should (?:just )?(?:disappear|vanish|go away|cease to exist|not exist) (?:permanently|forever|for good)`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern:
      `(?:considered|consider|try|tried|thought about) (?:not existing|not being alive|not living|ending it all|dying)|` +
      `(?:burn|burns|burned) down with ${you} (?:in it|inside)|(?:dance|piss|spit|shit) on ${possessive} grave`,
  },
  {
    id: "threat:wish-death",
    kind: "threat",
    pattern: `${you}(?:re| are| r| will be| ll be| belong) six feet under|day ${you}(?:re| are) (?:six feet under|dead|in a coffin)`,
  },
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
  {
    id: "threat:go-die",
    kind: "threat",
    pattern: `(?:go|just|pls|please|plz|should|^) ?(?:play (?:in|on) (?:the )?(?:traffic|motorway|highway|freeway|interstate|train tracks|railway|tracks)|jump off (?:a|the) (?:bridge|building|cliff|roof|tower)|walk into (?:the sea|the ocean|traffic|a river|the river|a lake|a wall of fire))`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `${agents} (?:come|go|drive|show up|turn up|be|pay ${you} a visit) (?:to|at|round|around) ${possessive} (?:house|home|door|office|work|school|place|workplace|address)`,
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
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `(?:shut|silence) ${you} up (?:for good|permanently|forever)|someone (?:will|should|is going to|is gonna|s gonna|gonna) (?:shut|silence) ${you}`,
  },
  {
    id: "threat:make-you-pay",
    kind: "threat",
    pattern: `(?:${agents}|i) (?:make sure|see to it) (?:that )?${you} (?:suffer|regret|pay|never|die|bleed|get hurt)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `(?:punch|knock|beat) ${possessive} lights out|knock ${you} out cold|(?:watch|see) what happens (?:next time|if|when) ${you}`,
  },
  {
    id: "threat:fight",
    kind: "threat",
    pattern: `meet me outside(?=[^a-z0-9]*$| (?:and|bro|if|then|pussy|coward|tough guy)|[^a-z0-9]*[,.!])|catch these hands|square up`,
  },
  {
    id: "threat:make-you-pay",
    kind: "threat",
    pattern: `${agents} ${adverbs}make ${you} (?:disappear|vanish|cry|beg)|(?:${agents}|needs to|need to) teach ${you} a lesson`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `${you} (?:wont|will not|will never|never) (?:even )?see (?:it|this|me|us) coming|(?:if|when|once) (?:i|we) (?:ever )?(?:see|meet|catch|find|run into) ${you} (?:irl|in real life|in person|outside|on the street|in the street)`,
  },
  // A reply that is only "die" (or "just die.").
  { id: "threat:go-die", kind: "threat", pattern: `^(?:just |now |pls |please )?(?:die|diee|dies)(?=[^a-z0-9]*$)` },
  { id: "threat:go-die", kind: "threat", pattern: `^(?:just |now |pls |please |plz |go )jump(?=[^a-z0-9]*$)` },
  {
    id: "threat:watch-your-back",
    kind: "threat",
    pattern: `better watch (?:${yourself}|${possessive} (?:back|mouth|step))`,
  },
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
  {
    id: "threat:go-die",
    kind: "threat",
    pattern: `(?:step|walk|jump|lie down|lay down|throw ${yourself}) in front of (?:a|the) (?:train|bus|car|truck|lorry|tram)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern: `${you} ${words(5)}(?:with|after|once i give ${you}|when i give ${you}) (?:a |some )?(?:broken|smashed|busted|shattered|cracked) (?:jaw|nose|face|neck|arm|arms|leg|legs|skull|teeth|ribs)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `(?:got|have|found|know) ${possessive} (?:${oneOf(PERSONAL_DETAILS)}) ${words(3)}(?:passing|sharing|posting|leaking|spreading|giving|handing|sending) (?:it|them) (?:around|out|online|everywhere|to everyone)`,
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

/**
 * The reader's people and things a dox or veiled threat names: "your kids", "your mum's
 * number", "your car". Wider than `family` (which threats of violence name), because
 * exposing a partner's workplace or a child's school is the threat itself.
 */
const kin = oneOf([
  "family",
  "kids",
  "kid",
  "children",
  "child",
  "son",
  "daughter",
  "wife",
  "husband",
  "mom",
  "mum",
  "mother",
  "dad",
  "father",
  "parents",
  "little one",
  "little ones",
  "missus",
  "girlfriend",
  "boyfriend",
  "gf",
  "bf",
  "partner",
  "sister",
  "brother",
  "nan",
  "gran",
  "grandma",
  "grandad",
  "baby",
  "boy",
  "girl",
  "lad",
  "lass",
  "moms",
  "mums",
  "kiddies",
]);
/** A phone number as the collapsed text writes it (repeated digits fold, so five digits is a full number's floor). */
const phone = `\\+?[0-9](?:[^a-z0-9]{0,2}[0-9]){4,}`;
/** An e-mail address as the collapsed text writes it ("@" reads "a" inside a word). */
const email = `[a-z0-9.-]+\\.(?:com|net|org|co\\.uk|co|uk|io|me|edu|gov|de|fr|au|ca|ie|nz)(?![a-z0-9])`;
/** A street as people write an address: "14 elm road", "baker street". */
const street = `(?:[0-9]+[a-z]? )?[a-z]+_(?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|crescent|terrace|grove|gardens|court|way|place|estate|flats|towers|mews|square|boulevard|blvd)(?![a-z0-9])`;
/** A named school: "st mary's", "hillside primary" (not "a good primary", "the same school"). */
const namedSchool =
  `(?:(?:st|saint)_[a-z]+|(?!(?:a|an|the|that|this|which|what|same|good|great|local|new|nice|private|public|my|our|his|her|their)_)[a-z]+_` +
  `(?:primary|academy|high|elementary|middle school|grammar|prep|infants|juniors|nursery|comprehensive|secondary))(?![a-z0-9])`;
/** Not a question of the sentence ("is your email x@y.com? I wrote"): asking is not exposing. */
const notAsked = `(?![^.!?\\n]*\\?)`;
/**
 * Not a question, unless a tag makes it a statement the speaker wants confirmed ("your kids
 * go to St Anne's, right?" tells the reader what the speaker knows; "your kids go to St
 * Anne's? so do mine" asks).
 */
const toldNotAsked = `(?:${notAsked}|(?=[^a-z0-9]*(?:right|yeah|yh|innit|correct|eh|no|yes|dont they|doesnt he|doesnt she|isnt it|dont you)[^a-z0-9]*\\?))`;
/** Who finds out when a dox is published. */
const audience =
  `(?:everyone|everybody|every1|the whole (?:internet|world|town|street|school|village|city|site|estate|area)|the internet|` +
  `all ${possessive} (?:followers|friends|neighbours|neighbors|colleagues|coworkers|family)|${possessive} (?:boss|employer|followers|neighbours|neighbors|wife|husband|family|kids|friends|parents|colleagues|coworkers))`;

/**
 * Doxxing: a private detail given about the reader or their people ("your mum's number is
 * 07…", "you live on Elm Road", "your kids go to St Anne's right?"), or a threat to publish
 * it ("everyone will know where you live"). The detail must have the shape of one (digits,
 * an address, a named school), so "your number is up" or "your kids go to school" do not fire.
 */
const DOXXING: PhraseRule[] = [
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `${possessive} (?:${kin}s? )?(?:phone |mobile |cell |home |work |personal |private |new )?` +
      `(?:number|phone|mobile|cell|digits|email|e mail|email address|addy|whatsapp)(?: is| s|:|=)? ${words(1)}(?:${phone}|${email})${notAsked}`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?<!(?:do|does|if|where|when|whether) )(?:${you} (?:live|living|stay|work|park)|${possessive} (?:${kin}s?|address|house|home|flat|place) ` +
      `(?:lives?|living|stays?|works?|is|are|s)) ${words(3)}(?:at|on|in|off|above|near|behind|opposite) (?:the )?${street}${toldNotAsked}`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `(?<!(?:do|does|if|where|when|whether|which school|what school) )${possessive} (?:${kin})s? (?:still )?(?:goes|go|went|attends?|is|are|s|re) (?:to |at )?${namedSchool}${toldNotAsked}`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:call|text|ring|message|phone|whatsapp|spam|prank call) (?:him|her|them|this (?:guy|idiot|clown|loser|woman|man|bitch|moron|creep|freak)|` +
      `${possessive} (?:${kin}s?|house|home|office|work)) (?:on|at )?${phone}|` +
      `(?:everyone|everybody|yall|y all|lets all|guys|go) (?:call|text|ring|spam|message|prank call) ${words(3)}${phone}`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:${audience} (?:will|ll|is going to|are going to|s going to|gonna|is gonna|are gonna|is about to|are about to|shall|will soon|ll soon) ` +
      `(?:soon |all |finally )?(?:know|see|find out|learn|hear)|(?:make sure|until|once|when|til|till) ${audience} (?:knows|know|sees|finds out|hears)) ` +
      `(?:where ${you}(?:r| re| are)? (?:live|lives|living|work|sleep|are|go|park|stay|hide)|who ${you} (?:really|actually) (?:are|is)|` +
      `${possessive} (?:real name|address|home address|face|number|phone number|workplace|secret)|what ${you} (?:did|look like|really (?:are|did)))`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `${possessive} (?:${kin}s? )?(?:home |house |real |work |full )?` +
      `(?:address|home address|phone number|mobile number|ip|ip address|real name|location|postcode|personal info|personal details|details|number plate|license plate|workplace|nudes|pics|photos|secrets|dms|messages) ` +
      `(?:will |would |might |could |is going to |are going to |are about to |is about to |could easily |gonna )?(?:go|goes|going|get|gets|getting|end up|ending up|ends up|find its way|make its way|find their way|leak|leaks|be) ` +
      `(?:up|online|public|posted|out there|viral|everywhere|leaked|on here|on every|to everyone|all over|in the wrong hands)(?![a-z0-9])`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:what if|imagine if|wonder what (?:would|will|d) happen if|be a shame if|would be a pity if) ${words(2)}(?:posted|shared|leaked|published|dropped|found|found out|spread|sent round|sent around) ` +
      `${possessive} (?:${kin}s? )?(?:home |house |real |work )?(?:${oneOf(PERSONAL_DETAILS)}|nudes|pics|photos|secrets|dms|messages)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `${agents} ${adverbs}(?:expose|unmask|out|dox) ${you}(?![a-z0-9])(?! (?:to|for|as a fan))`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:who wants|anyone want|anybody want|dm me for|dm for|message me for|ask me for) (?:his|her|their|${possessive}) (?:${kin}s? )?(?:home |real |full |work )?` +
      `(?:address|number|phone number|mobile|details|real name|location|workplace|info|postcode)(?![a-z0-9])|` +
      `(?:his|her|their|${possessive}) (?:${kin}s? )?(?:home |real |full |work )?(?:address|number|phone number|mobile|details|real name|workplace|location|info)(?: and [a-z]+(?: [a-z]+)?)? ` +
      `(?:is|are|s) (?:in my bio|in the replies|below|pinned|in the thread|in the comments|in my dms|in the group chat)`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?<!(?:${you}|do|did|have|has|was|were) )(?:posted|dropped|shared|leaked|published|gave out|handed out|passed on|spread|put) ${possessive} (?:${kin}s? )?(?:home |house |real |work |full )?` +
      `(?:address|home address|phone number|number|mobile|mobile number|details|personal details|personal info|info|real name|location|postcode|workplace|ip|ip address|nudes)` +
      `(?! is| are| was)(?= (?:in|on|to|all over|everywhere|online|around|with)|[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
  },
  {
    id: "threat:dox",
    kind: "threat",
    pattern:
      `(?:i|we|ive|weve) (?:know|got|have|found|found out|dug up) ${possessive} (?:${kin}s? )?(?:date of birth|dob|maiden name|mothers maiden name|kids names|childrens names|sons name|daughters name|` +
      `number plate|reg|registration|plate|route home|shift pattern|work schedule|daily routine|school run|bank details|national insurance|ssn|social security)(?![a-z0-9])|` +
      `(?:heres|here is|this is) (?:his|her|their) ${words(1)}(?:number|mobile|phone)(?: is|:)? ${phone}|` +
      `(?:this is|heres|here is|thats) (?:his|her|their|${possessive}) (?:street|house|road|flat|front door|building|car) on (?:google maps|google|street view|maps|google street view)|` +
      `${agents} ${adverbs}(?:share|post|tell everyone|tell people|leak|publish|spread|reveal|broadcast|announce|put out) (?:everyone |the world |people )?where ${you} (?:live|work|sleep|park|stay)|` +
      `${possessive} (?:home |house |real |full )?(?:address|phone number|mobile number|real name|details|location|workplace|personal info) (?:is|are|s) (?:now )?(?:public|out there|on every|all over|in (?:the|every) group)(?![a-z0-9])|` +
      `${you} drive (?:a|an) (?:silver|black|white|red|blue|grey|gray|green|yellow|orange|purple|brown|gold|beige|navy|maroon) [a-z]+|${possessive} (?:reg|registration|number plate|plate|license plate|licence plate) (?:ends in|ends with|starts with|begins with|(?:is|s) [a-z]{1,2}[0-9])|` +
      `(?:someone|somebody|everyone|lets|go|anyone|can someone) (?:find|track down|dig up|look up) (?:his|her|their|${possessive}) ` +
      `(?:employer|boss|workplace|address|home address|family|number|home|mum|mom|parents|school|kids|wife|husband)(?![a-z0-9])`,
  },
];

/** Who or what of the reader's is watched in a veiled threat: their car, their route, their kids. */
const watched =
  `(?:car|route|shift|shifts|schedule|routine|commute|bus|train|gym|walk|run|jog|street|house|door|front door|garden|window|windows|` +
  `kids|daughter|son|wife|husband|school run|dog|cat|shop|reg|number plate|plate|place|flat|family|mum|mom|kid|girlfriend|boyfriend|partner|workplace|office)(?![a-z0-9])`;
/**
 * What makes a remark about the reader's life menacing. The strong closes ("would be a
 * shame", "for now", "lock your doors") turn even a compliment into a threat ("nice car...
 * for now"); the weak ones ("see you soon") only a remark that the speaker knows or has
 * watched the reader's life.
 */
const strongMenace =
  `(?:(?:shame|pity) if|tick tock|(?:youve|you have|consider ${yourself}) (?:been )?warned|watch ${possessive} back|` +
  `watch ${yourself}|lock ${possessive} doors?|for now(?![a-z0-9])|while (?:it lasts|${you} (?:still )?can)|` +
  `(?:sleep|rest) (?:well|tight)|(?:accidents|things) happen)`;
const menace =
  `(?:${strongMenace}|see ${you} (?:soon|around|real soon|very soon|there|then)|be seeing ${you}|careful now|be careful|` +
  `just saying|just sayin|any day now|wont be long|(?:be|stay) safe out there|${you} never know)`;
/** A remark that the speaker knows or has seen the reader's life: harmless alone, a threat beside a menacing close. */
const knowsLife =
  `(?:(?:i|we|ive|weve) (?:know|found) ${possessive} ${watched}|(?:(?:i|we|ive|weve|i have|we have) )?(?:saw|seen|clocked|noticed|spotted) ${possessive} ${watched}|` +
  `(?:i|we) saw ${you} (?:at|in|leaving|outside|with|walking|on)(?![a-z0-9])|` +
  `(?:il|i wil|wel|we wil|im|were) (?:be |coming )?(?:outside|at|by|near|round|to) ${possessive} (?:house|home|door|front door|office|work|school|flat|place|car)(?![a-z0-9])|` +
  `${possessive} (?:kids|daughter|son|wife) ${words(1)}(?:look|looks|seem|seems) (?:cute|sweet|lovely|pretty|adorable|happy))`;
/** A compliment on the reader's things: only a strong close makes it a threat. */
const admired = `nice (?:house|car|family|kids|wife|daughter|son|shop|dog|garden|front door|place|street|neighbourhood|neighborhood|motor|flat)(?![a-z0-9])`;

/**
 * Threats with no violent word: what a careful moderator reads as menace from its shape
 * rather than its verbs. A remark on the reader's car, route or kids is harmless alone
 * ("nice car!") and a threat beside a menacing close ("nice car. would be a shame. see you
 * soon"); watching or following the reader home, "accidents happen to people like you",
 * "be a shame if something happened to your ..." and "you'll be sorry" are threats alone.
 */
const VEILED_THREATS: PhraseRule[] = [
  {
    id: "threat:veiled",
    kind: "threat",
    pattern: `${knowsLife}(?=[^]*?${menace})|${menace}(?=[^]*?${knowsLife})|${admired}(?=[^]*?${strongMenace})|${strongMenace}(?=[^]*?${admired})`,
  },
  {
    id: "threat:veiled",
    kind: "threat",
    pattern:
      `(?:shame|pity) if (?:something|anything|someone|somebody|an accident|harm|something bad|something nasty|anything bad) ${words(2)}` +
      `(?:happened|happen|happens|were to happen|was to happen|befell|came|was to come|were to come) (?:to )?(?:${you}|${possessive}|that|those|this)(?![a-z0-9])|` +
      `(?:shame|pity) if ${possessive} ${words(3)}(?:got|were|was|went|caught|ended up|had|accidentally) ${words(1)}` +
      `(?:hurt|damaged|burnt|burned|broken|smashed|scratched|keyed|missing|fire|torched|vandalised|vandalized|trashed|an accident|up in smoke)(?![a-z0-9])`,
  },
  {
    id: "threat:veiled",
    kind: "threat",
    pattern:
      `accidents (?:happen|can happen|do happen|have a way of happening) (?:to|around) ${words(2)}(?:${you}(?![a-z0-9])|people (?:like ${you}|who)|nosy|mouthy|${possessive} )|` +
      `people like ${you} ${words(1)}(?:go|going|end up|turn up|get|wind up) (?:missing|hurt|dead|in a ditch|in hospital|in the river|found)|` +
      `(?:what happens|what happened) to (?:people|girls|guys|boys|snitches|grasses|women|men) like ${you}|` +
      `(?:people|girls|guys|boys|women|men|folk|folks|lads) like ${you} ${words(2)}(?:tend to|often|always|usually|seem to|have a habit of|have a way of) ` +
      `(?:have (?:an )?accidents?|having accidents|go missing|going missing|disappear|get hurt|end up (?:hurt|dead|missing|in hospital))|` +
      `(?:wouldnt|would not|dont|do not) want ${words(1)}(?:${you}|${possessive} ${kin}s?|${possessive} ${watched}) (?:to )?(?:have|having|get|getting|meet with|suffer) (?:an? )?(?:[a-z]+_)?(?:accident|hurt|harmed|damaged)`,
  },
  {
    id: "threat:veiled",
    kind: "threat",
    pattern:
      `${you}(?:ll| will| are going to|re going to|re gonna| are gonna) (?:be sorry(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:when|for|trust|mate|pal))|` +
      `(?:live to )?regret (?:the day|ever|crossing|messing|posting|opening|saying|speaking|writing|this|it|that)|wish ${you}(?:d| had)? never (?:been born|said|posted|opened|crossed|met|started|written|spoken))|` +
      // "you've been warned" alone is as often a joke ("consider yourself warned: the spin instructor takes no
      // prisoners"); it is a menacing close beside a remark on the reader's life (strongMenace).
      `this is ${possessive} (?:first|last|final|only) warning|` +
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:last|final) warning(?=[^a-z0-9]*$|[^a-z0-9]*[.!])`,
  },
  {
    id: "threat:stalking",
    kind: "threat",
    pattern:
      `(?:i|we|ive|weve|i have|we have|been) (?:been )?(?:watching|following|tracking|clocking|stalking) ${possessive} ` +
      `(?:house|home|kids|children|family|wife|husband|daughter|son|car|door|place|movements|every move|routine|schedule|street|window|windows|flat)` +
      notFollowedBy([
        "grow",
        "growing",
        "play",
        "videos",
        "streams",
        "channel",
        "content",
        "renovation",
        "build",
        "progress",
        "tour",
        "journey",
        "story",
        "posts",
      ]) +
      `|` +
      `(?:followed|following|follow|tailed|trailed) ${you} (?:home|back home|to (?:work|school|${possessive} (?:car|house|door|flat|work|office|school)))(?![a-z0-9])|` +
      `(?:i|we) know (?:what|which|the) ${words(1)}(?:car|bus|train|route|way home|gym|door|house|window|flat|street|school|nursery|shift) ${you} ` +
      `(?:drive|drives|take|takes|walk|walks|go to|leave|leaves|park|parks|live in|come home|catch|use|sleep in|work)(?![a-z0-9])|` +
      `(?:i|we) know (?:what time|when|how late|how early|which days) ${you} (?:leave|get home|go to bed|walk home|are home|are alone|re home|re alone)(?![a-z0-9])|` +
      `(?:i|we) know (?:the|what|which|where|when) ${words(3)}${you} ${words(3)}(?:every (?:morning|day|night|evening|week|weekday|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|at [0-9])`,
  },
  {
    id: "threat:stalking",
    kind: "threat",
    pattern:
      `(?:im|i am|were|we are|ive been|i have been) (?:right |just |sat |sitting |standing |parked )?` +
      `(?:outside|across from|across the road from|round the corner from|around the corner from|behind|by|near) ${possessive} ` +
      `(?:house|home|door|front door|car|work|office|school|place|flat|window|gate|building)(?![a-z0-9])|` +
      `(?:hello|hi|hey|greetings|waving|love) from (?:outside|across the road from|across from|the end of|behind) ${possessive} ` +
      `(?:street|road|house|home|door|front door|window|flat|place|work|office)(?![a-z0-9])|` +
      `(?:waiting|standing|parked|watching|lurking|sat|sitting) (?:outside|near|by|behind|next to) ${possessive} (?:car|gate|window|windows|front door|flat|building|kids school|gym)` +
      `(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| (?:tonight|tomorrow|later|every|again|mate|pal|now|right now))|` +
      `${possessive} (?:little )?(?:kids|daughter|son|girl|boy|little one|wife|husband|kid) ${words(3)}(?:at|outside|leaving|in|by) (?:the )?` +
      `(?:school gates?|gates|playground|bus stop|nursery|school run) (?:today|this morning|yesterday|earlier|again)`,
  },
  {
    id: "threat:violence",
    kind: "threat",
    pattern:
      `${you}(?:ll| will| are going to|re going to|re gonna| are gonna) ${words(1)}(?:be |end up |leave |leaving |go home |be going home |be leaving |be carried out |come out )?` +
      `(?:in|on) (?:an? |the )?(?:ambulance|body bag|stretcher|coffin|ditch|casket|morgue|a&e|icu|intensive care|hospital bed|hearse|wheelchair|neck brace)(?![a-z0-9])|` +
      `${you}(?:ll| will| are going to|re going to|re gonna| are gonna)(?: be)? found (?:in a (?:ditch|river|canal|skip|bin|dumpster|bag|lake|field|suitcase)|dead|face down)|` +
      `${you}(?:ll| will)(?: be)? ${words(1)}(?:eating|drinking|talking|sipping|breathing) ${words(2)}through a (?:straw|tube)|` +
      `(?:picking up|pick up|spitting out|swallowing|looking for) ${possessive} (?:own )?teeth|` +
      `(?:knock|punch|kick|slap|smack|send|boot) ${you} (?:into next week|to kingdom come|into the middle of next week|across the room|through a wall|through the wall|into the ground)|` +
      `(?:set|put|setting|light|lighting) (?:fire to ${possessive} (?:house|car|home|flat|shop|door|kids|family)|${possessive} (?:house|car|home|flat|shop|door) on fire)|` +
      `(?:torch|torching|burn down|burning down|firebomb|petrol bomb) ${possessive} (?:house|car|home|flat|shop|door|place)|` +
      `(?:petrol|gasoline|lighter fluid|a firework|fireworks|a lit rag|something burning|a brick) through ${possessive} (?:letterbox|letter box|door|window|mailbox)|` +
      `(?:make|leave) ${possessive} (?:wife|husband|kids|children|mum|mom|mother|family) (?:a widow|a widower|widows|orphans|fatherless|motherless)|` +
      `(?:make sure|see to it|ensure) (?:that )?${possessive} (?:kids|children) (?:grow|will grow) up without|` +
      `(?:shut|silence) (?:that mouth|${possessive} (?:mouth|gob|trap)) (?:for good|permanently|forever)|${agents} ${adverbs}shut it (?:for good|permanently|forever)|` +
      `(?:bullet|knife|blade|something sharp|a round|shell|bat) with ${possessive} name (?:on|carved on|written on) it|` +
      `(?:bat|baseball bat|knife|gun|crowbar|machete|hammer|blade|shotgun|petrol|rope) and ${possessive} (?:address|postcode|name|number|details|location)|` +
      `(?:im|i am|were|we are) ${adverbs}(?:breaking|smashing|kicking|punching|stabbing|killing|shooting|hurting|burning|slapping|battering|decking|knifing|bashing|strangling|choking|drowning) ${targets}${notAGame}|` +
      `${you}(?:re| are| r) (?:getting|gonna get|going to get|about to get) (?:jumped|smacked|slapped|battered|stabbed|hurt|beaten|bodied|knocked out|merked|shanked|glassed|done in|kicked in|run over|beat up|beaten up|hospitalised|hospitalized)(?![a-z0-9])`,
  },
  {
    id: "threat:veiled",
    kind: "threat",
    pattern:
      `${you}(?:re| are) lucky (?:i|we) (?:dont|do not|cant|can not|cannot|havent|have not|didnt|did not) (?:know|find|found|reach|get (?:my|our) hands on|live (?:near|closer)|see ${you}|know where)|` +
      `(?:me and my|my) (?:boys|lads|mates|crew|brothers|cousins|friends|guys) ${words(2)}(?:will|ll|are|re|gonna|going to|wil) (?:be )?` +
      `(?:waiting|coming for ${you}|looking for ${you}|outside)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| for ${you}| outside)|` +
      `(?:^|(?<=[a-z0-9][^a-z0-9]*))or else(?=[^a-z0-9]*$|[^a-z0-9]*[.!])|` +
      `${you} (?:dont|do not|have no idea|got no idea|have no clue) (?:know )?who ${you}(?:re| are| r) (?:talking to|dealing with|messing with|fucking with|speaking to|messing about with)|` +
      `pray (?:that )?(?:we|i) never (?:meet|see ${you}|run into ${you}|cross paths|find ${you})|` +
      `(?:wont|will not|wouldnt|would not) be (?:so |as |this )?(?:brave|tough|loud|mouthy|cocky|confident|hard|big|gobby|smart) (?:when|once|if|face to face) ${words(3)}` +
      `(?:meet|see ${you}|find ${you}|face to face|come|turn up|show up|catch ${you}|in person|irl)(?![a-z0-9])|` +
      `(?:${you}(?:re| are)|${possessive} ${kin}s? (?:is|are|re|s)|${you} and ${possessive} ${kin}s? (?:are|re)) (?:first |next |top )?on my (?:hit ?list)|` +
      `(?:${possessive} ${kin}s? (?:is|are|re|s)|${you} and ${possessive} ${kin}s? (?:are|re)) next(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])|` +
      `hope ${possessive} (?:brakes|brake lines|tyres|tires|wheel nuts|wheels) (?:work|hold|are ok|are working|dont fail|still work)|` +
      `(?:check|checked) ${possessive} (?:brakes|brake lines|wheel nuts)(?: lately| recently| today)?(?=[^a-z0-9]*\\?)|` +
      `(?:id|i would|i d) be (?:very |real |really )?careful if i (?:were|was) ${you}|` +
      `${you} (?:have|got|ve got|have got) no idea what (?:i|we)(?:m| am|re| are) capable of|` +
      `(?:i|we) know (?:people|guys|some people|a few people|someone|somebody) (?:who|that) (?:can|could|would|will|d) (?:find|hurt|deal with|sort out|visit|pay a visit to|take care of) ${you}|` +
      `(?:i|we) (?:have|got|know) (?:people|friends|mates|guys|someone|somebody|eyes) (?:in ${possessive} (?:area|town|city|street|building|school|estate)|near ${you}|where ${you} (?:live|work))` +
      `(?![^.!?]*(?:help|assist|support|volunteer|available|deliver|install|repair|fix))|` +
      `(?:make sure|see to it) (?:that )?${possessive} (?:career|life|business|channel|account) (?:is|s) (?:over|finished|done|ruined)`,
  },
];

/**
 * Harassment by a crowd: calls to pile on, flood or mass-report the account or its owner
 * ("everyone go flood her replies", "report this page until it's gone"), and promises to
 * follow someone into every thread. A call to flood replies "with love" is not one.
 */
const PILE_ONS: PhraseRule[] = [
  {
    id: "harassment:mass-report",
    kind: "harassment",
    pattern:
      `(?:lets|let us|everyone|everybody|yall|y all|guys|go|time to|we need to|we should|pls|please|all|just|keep) ${words(2)}mass (?:report|flag|block|reporting|flagging)|` +
      `mass (?:report|flag)(?:ing)? (?:this|that|him|her|them|his|their|${possessive})(?![a-z0-9])(?![^.!?]*(?:scam|spam|fake|impersonat|phishing|fraud|bot farm))|` +
      `(?:report|flag)(?:ing)? ${words(4)}(?:until|till|til|so|and get) ${words(3)}` +
      `(?:gone|banned|suspended|deleted|taken down|removed|nuked|shut down|deactivated|off (?:the|this) (?:site|app|platform))(?![a-z0-9])`,
  },
  {
    id: "harassment:mass-report",
    kind: "harassment",
    pattern:
      `(?:lets|let us|everyone|everybody|we need to|we should|we gotta|we have to|help me|time to|yall|y all|guys) ${words(1)}get ` +
      `(?:him|her|them|(?:this|that) ${words(1)}(?:account|page|bot|guy|girl|woman|man|clown|idiot|person|creep|user|loser)|(?:his|her|their|${possessive}) (?:account|page|channel|profile|ass)) ` +
      `(?:banned|suspended|deleted|taken down|cancelled|canceled|fired|sacked|removed|kicked off|deplatformed|nuked)(?![a-z0-9])`,
  },
  {
    id: "harassment:pile-on",
    kind: "harassment",
    pattern:
      // Not a call reported ("someone told people to flood her inbox").
      `(?<!(?:told|telling|tells|asked|asking|asks|urged|urging|encouraged|encouraging) )(?:everyone|everybody|guys|yall|y all|all of you|lets|let us|go|come on|lads|people) ${words(2)}` +
      `(?:flood|spam|bombard|swamp|blow up|storm|invade|descend on|go after|come after|harass|troll|bully|drag|hound) ` +
      `(?:(?:his|her|their|${possessive}|the|this|that) ${words(1)}(?:replies|mentions|dms|dm|inbox|comments|notifications|page|account|profile|timeline|feed|channel|posts|email|phone)|him|them|her)(?![a-z0-9])` +
      `(?![^.!?]*with (?:love|support|kindness|positivity|hearts|praise|compliments|good|kind|nice|positive|happy|birthday|wishes|congratulations|congrats|thanks|gratitude))`,
  },
  {
    id: "harassment:persistent",
    kind: "harassment",
    pattern:
      `${agents} ${adverbs}(?:be|show up|turn up|pop up|appear) (?:in|under) (?:every|all|each) (?:single )?(?:one of )?(?:${possessive} )?` +
      `(?:replies|reply|mentions|comments|comment section|comment sections|notifications|dms|thread|threads)(?![a-z0-9])|` +
      `${agents} ${adverbs}(?:hound|haunt|stalk|chase) ${you} (?:everywhere|wherever|to every|onto every|across every|to the ends|until|till|no matter)|` +
      `${agents} ${adverbs}follow ${you} (?:to the ends|until|till|no matter)|` +
      `(?:everywhere|wherever|anywhere) ${you} (?:go|post|tweet|comment|turn|show up|hide|move)[^a-z0-9]+(?:il|i wil|im|i am|we|wel) (?:be there|be waiting|follow|find ${you}|show up|turn up)`,
  },
  {
    id: "harassment:mass-report",
    kind: "harassment",
    pattern:
      `(?:everyone|everybody|yall|y all|guys|all of you|lets all|lets|go|pls|please) ${words(1)}(?:report|flag|block and report|report and block) (?:this|that|his|her|their) ${words(1)}` +
      `(?:loser|clown|idiot|moron|creep|freak|bitch|prick|twat|cunt|muppet|weirdo|nutter|troll|psycho|lunatic|bigot|scumbag)(?![a-z0-9])`,
  },
  {
    id: "harassment:pile-on",
    kind: "harassment",
    pattern:
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:go |now |just |lets )?(?:flood|spam|bombard|swamp|blow up|storm|invade|harass|troll|bully|hound|ratio|dogpile|brigade|raid) (?:his|her|their) ${words(1)}` +
      `(?:replies|mentions|dms|inbox|comments|notifications|page|account|profile|timeline|feed|channel|posts|email|phone)(?![a-z0-9])(?![^.!?]*with (?:love|support|kindness|positivity|hearts|praise|compliments|good|kind|nice|positive|happy|birthday|wishes|congratulations|congrats|thanks|gratitude))|` +
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:go |now |just |lets )?(?:ratio|dogpile|brigade|raid|swarm|mass report|gang up on|quote tweet|qt) (?:this|that) (?:clown|idiot|guy|girl|loser|moron|person|woman|man|fool|creep|freak|bitch|prick)(?![a-z0-9])|` +
      `make (?:his|her|their) (?:life|lives|day|week) (?:miserable|hell|a living hell|a nightmare)|(?:@|tag|mention) (?:him|her|them) everywhere|` +
      `(?:dont|do not|never) let (?:him|her|them) (?:post|speak|tweet|live|sleep) in peace|${you}(?:ll| will) never (?:post|tweet|speak|live|sleep|rest) in peace (?:again|ever)`,
  },
  {
    id: "harassment:persistent",
    kind: "harassment",
    pattern:
      `(?:${agents}|i (?:can|just|can just)|ill just|il keep|i wil keep) ${adverbs}(?:keep )?(?:make|making|create|creating|open|opening) ${words(1)}` +
      `(?:another|new|more|alt|fresh|a hundred|hundreds of|[0-9]+) (?:accounts?|alts?)(?=[^]*?(?:block|stop me|until ${you}|til ${you}|till ${you}))|` +
      `(?:block|blocked) me ${words(4)}(?:i|il|ill|i wil) ${words(1)}(?:make|made|open|opened|create|created|got) (?:another|a new|this|new|more) (?:account|acc|one|accounts)|` +
      `(?:never|not) (?:leaving|going to leave|gonna leave|getting out of|going away from) ${possessive} (?:replies|mentions|dms|inbox|comments|notifications|life|head)|` +
      `${agents} ${adverbs}(?:ratio|quote tweet|qt|dunk on|clown on|humiliate|embarrass|bully|troll) ${you} (?:into oblivion|every day|every time|forever|until|on every|everywhere|daily|again and again)|` +
      `(?:im|i am|ive been|i have been|were|we are) (?:always |still |constantly )?watching (?:everything ${you}|every (?:move|post|thing|word) ${you}|${possessive} every move)|(?:im|i am) always watching`,
  },
  {
    id: "harassment:exposure",
    kind: "harassment",
    pattern:
      `(?:tell|show|inform|let) (?:everyone|everybody|all|people|them all) (?:at|in) ${possessive} (?:work|job|office|school|church|gym|family|street|uni|college) ${words(1)}(?:what ${you}|about ${you}|who ${you})|` +
      `(?:screenshot|screenshotting|screenshots|sending|forwarding|saving|saved|keeping) ${words(3)}(?:for|to) ${possessive} (?:employer|boss|work|manager|hr|school|ex)(?![a-z0-9])|` +
      `(?:sent|send|sending|forwarded|showed|showing|shown) ${possessive} (?:ex|boss|employer|mum|mom|wife|husband|parents|family|manager|kids|girlfriend|boyfriend|partner) ` +
      `(?:the |these |those |${possessive} |all |every )?(?:screenshots|screenshot|messages|posts|dms|pics|photos|receipts|tweets|replies|comments)|` +
      `(?:messaged|dmed|dm d|contacted|texted) ${possessive} (?:kids|children|daughter|son|boss|employer)(?: on [a-z]+)?(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
  },
];

/** Parts of the body a remark aimed at the reader sexualises ("your legs look amazing"). */
const bodyParts = `(?:legs|thighs|curves|cleavage|bum|butt|booty|arse|ass|rack|chest|boobs|tits|hips|bust|backside|body|feet|lips|figure|bod)`;

/**
 * Sexual harassment without explicit words: remarks on the reader's body, requests for
 * pictures of them, "what are you wearing" and its kin, and "how old are you, sweetie".
 * A picture of "your setup", a "body of work" or "send me a pic of the error" is not one.
 */
const SEXUAL_REMARKS: PhraseRule[] = [
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `${possessive} ${bodyParts}(?! of) ${words(2)}(?:look|looks|looked|are|is|were|was|s|re) ${words(1)}` +
      `(?:amazing|incredible|so good|great|hot|sexy|perfect|delicious|tasty|fit|tight|juicy|edible|unreal|fire|banging|bangin|stunning|gorgeous|lush|peng|thicc|firm|soft|perky|round|biteable|suckable|kissable|fuckable)(?![a-z0-9])|` +
      `(?:that|this|the|those) (?:dress|top|skirt|outfit|shirt|jeans|leggings|shorts|swimsuit|bikini) ${words(2)}(?:shows off|show off|hugs|hug|shows|show|shows|does wonders for) (?:${possessive}|those|them) (?:curves|figure|legs|body|assets|chest|bum|butt|ass|thighs|cleavage|boobs|tits|hips)`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:send|dm|snap|message|email|text) (?:me |us )?(?:a |some |more |any )?(?:pic|pics|picture|pictures|photo|photos|selfie|selfies|snap|snaps|video|vid|vids) ` +
      `(?:of ${yourself}|of ${you}(?![a-z0-9])(?! (?:and|with|at|on|holding|doing|using|for|from))|of ${possessive} ${bodyParts}|in (?:a |${possessive} |that |those )?(?:bikini|underwear|lingerie|bra|knickers|panties|bed|shower|towel|swimsuit|nothing|pjs|pyjamas|pajamas))|` +
      `(?:post|show) (?:me |us )?(?:a |some |more |any )?(?:pic|pics|picture|pictures|photo|photos|selfie|selfies|video|vid|vids) (?:of ${possessive} (?:legs|thighs|bum|butt|booty|arse|ass|chest|boobs|tits|feet|cleavage)|in (?:a |${possessive} |that )?(?:bikini|underwear|lingerie|bra|knickers|panties|towel|nothing))|` +
      `(?:more|some|any|send|post) (?:pics|photos|selfies|pictures|nudes) (?:babe|baby|sexy|sweetheart|sweetie|hun|honey|darling|cutie|princess)(?![a-z0-9])`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:are|r) ${you} wearing (?:anything|underwear|a bra|knickers|panties|pants|a thong) (?:under|right now|rn|now|today|tonight)|` +
      `(?:should|could|need to|gotta|must|ought to) wear (?:less|nothing|fewer clothes|a shorter|shorter|tighter|something (?:tighter|shorter|smaller|more revealing|sexier|skimpier|lower))|` +
      `wear (?:that|it|those|the) (?:dress|skirt|top|outfit|bikini|lingerie|heels) (?:again )?(?:for me|for us)|` +
      `show (?:us |me )?(?:some|a bit of|a bit more|more|a little) skin|bend over (?:for me|for us|babe|baby|and)|` +
      `(?:take|took|taking) (?:it|that|those|them|everything|it all) off (?:for me|for us|slowly|babe|baby)`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:id|i would|i wanna|i want to|i wana|i could|let me|lemme|cant wait to|love to|like to) (?:love to |like to )?` +
      `(?:see|touch|feel|taste|lick|kiss|hold|squeeze|grab|spank|smell|sniff|bite|suck|rub|massage|worship) ` +
      `(?:${possessive}|those|them) (?:legs|thighs|curves|bum|butt|booty|arse|ass|chest|boobs|tits|feet|toes|lips|hips|neck|body)(?! of| work)|` +
      `${agents} ${adverbs}(?:lick|spank|grope|fondle|sniff|taste|feel up|undress|strip) ${you}(?![a-z0-9])|` +
      `${you}(?:re| are| r| look| looking| lookin) (?:so |such )?(?:like )?(?:a )?(?:snack|whole snack|whole meal|fuckable|doable|edible|thicc|juicy|tasty|delicious|ripe)(?![a-z0-9])(?! (?:recipe|dish|cake|sandwich|food|pie|burger))|` +
      `${you}(?:d| would| should| belong| look| ll look|d look) ${words(2)}(?:in|on) my (?:bed|lap|face|sheets)(?![a-z0-9])|` +
      `how old (?:are|r) ${you} (?:sweetie|babe|baby|cutie|princess|honey|sweetheart|darling|little one|gorgeous|beautiful|sexy)|` +
      `(?:sweetie|babe|baby|cutie|princess|sweetheart|gorgeous|beautiful|sexy)[^a-z0-9]+how old (?:are|r) ${you}`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:^|(?<=[.!?,;][^a-z0-9]*))(?:now |just |go )?(?:bend over|spread (?:em|them|those)(?: legs| cheeks)?)(?=[^a-z0-9]*$| (?:for me|babe|baby))|` +
      `take it (?:all )?off(?=[^a-z0-9]*(?:all|babe|baby|for me|for us|slowly|sexy)(?![a-z0-9]))|turn (?:around|round)[^a-z0-9]+(?:lets|let me|let us) see|` +
      `(?:id|i would|i could|i wanna|i want to|il|i wil) (?:ruin|wreck|rail|pound|eat|devour|breed) ${you}(?=[^a-z0-9]*$|[^a-z0-9]*[.!,]| alive| so| til| until| all night| properly| in bed)|` +
      `(?:give|giving) ${you} a (?:good )?(?:seeing to|rogering|pounding|railing)|(?:have|had) ${you} (?:screaming|moaning|begging) (?:my name|for more|for it)|` +
      `make ${you} (?:my|a) (?:little )?(?:toy|bitch|slut|pet|plaything|fucktoy|sex toy)|forget ${possessive} (?:boyfriends|husbands|girlfriends|wifes|partners) name|` +
      `(?:want|need|get) ${you} (?:in|into) my (?:bed|room|lap|arms)(?![a-z0-9])|breed (?:me|${you})(?![a-z0-9])|` +
      `(?:pic|pics|photo|photos|picture|selfie) of what ${you}(?:re| are| r)? wearing|(?:or|and) not wearing|` +
      `(?:dm|send|snap|show) (?:me |us )?${possessive} (?:body|legs|feet|tits|boobs|bum|butt|ass|chest|thighs|cleavage)(?! of)(?![a-z0-9])|` +
      `(?:show|see) (?:me |us )?what(?:s| is) under (?:that|the|${possessive}) (?:jumper|top|shirt|dress|skirt|towel|hoodie|jeans|clothes)|` +
      `bet ${you}(?:re| are| r) (?:wearing nothing|naked|not wearing (?:anything|much))|` +
      `(?:see|picture|imagine) ${you} in ${words(4)}(?:and nothing else|nothing but)|` +
      `(?:jerk|jerked|jerking|wank|wanked|wanking|touch|touching|touched|rub|rubbing|fap|fapping|fapped) (?:off |myself )?(?:to|over|thinking about|thinking of) ` +
      `(?:${you}(?![a-z0-9])|${possessive} (?:pic|pics|photo|photos|picture|profile|selfie|selfies|videos?|body))|` +
      `keep ${possessive} (?:picture|pic|photo|selfie|pics|photos) for later|` +
      `${possessive} (?:boyfriend|husband|bf|man|girlfriend|wife|partner) ${words(2)}(?:doesnt|does not|cant|can not|never|couldnt) (?:satisfy|please) ${you}|` +
      `(?:begging|asking) (?:to be|for it|to get) (?:grabbed|touched|groped|fucked|used)|` +
      `what(?:s| is) ${possessive} (?:bra|cup|bust) size|nice (?:legs|body|butt|curves|thighs|figure|rack|bum|ass|tits|boobs|cleavage) (?:babe|baby|sexy|sweetheart|darling|hun)(?![a-z0-9])|(?:dressed|dress|dressing) like that (?:and|then) (?:expect|want|complain)`,
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
  {
    id: "harassment:no-friends",
    kind: "harassment",
    pattern: `${you} (?:have|got|ve|has) (?:no|zero) (?:friends|life|one who cares)`,
  },
  {
    id: "harassment:sexism",
    kind: "harassment",
    pattern: `(?:belong|belongs) in the kitchen|(?:get|go) back (?:in|to) the kitchen|make me a sandwich|women (?:like you )?(?:should|need to) (?:shut up|stay home|be silent)`,
  },
  {
    id: "harassment:nobody-likes-you",
    kind: "harassment",
    pattern: `(?:nobody|no one|noone|no1) (?:likes|loves|wants|needs|cares about|respects) ${you}`,
  },
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
  {
    id: "harassment:dehumanising",
    kind: "harassment",
    pattern: `(?:vermin|scum|filth|animals|trash|rats|parasites|cockroaches|subhumans|degenerates|creatures|monsters|things) like ${you}`,
  },
  {
    id: "harassment:dehumanising",
    kind: "harassment",
    pattern: `${youAreStatement} (?:a |an )?(?:walking|human|literal|living) (?:plague|cancer|disease|virus|tumou?r|infection|std|stain|biohazard)`,
  },
  {
    id: "harassment:dehumanising",
    kind: "harassment",
    pattern: `${youAreStatement} (?:a |an )?(?:${mods})?(?:plague|cancer|disease|stain|blight|virus|tumou?r|infection|pest|leech|waste) (?:on|to|of|in|upon)`,
  },
  {
    id: "harassment:dehumanising",
    kind: "harassment",
    pattern: `${youAreStatement} (?:not even|less than|barely|hardly|not) (?:a )?(?:human|person|human being)(?![a-z0-9])|imagine being ${you}(?![a-z0-9])|${you} belong in (?:a |the )?(?:zoo|cage|asylum|mental (?:hospital|asylum|ward)|psych ward|sewer|dumpster|landfill)`,
  },
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
  {
    id: "harassment:nobody-likes-you",
    kind: "harassment",
    pattern: `(?:nobody|no one|noone|no1) (?:could|can|will|would) (?:ever )?(?:love|like|want|stand) ${you}`,
  },
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
  {
    id: "harassment:not-welcome",
    kind: "harassment",
    pattern: `${you}(?:re| are| r) not welcome (?:here|in this (?:thread|group|community|place|town|country)|on this (?:site|app|platform))`,
  },
  {
    id: "harassment:you-are-nobody",
    kind: "harassment",
    pattern: `${youAreStatement} (?:a )?(?:nobody|nothing|no one)(?=[^a-z0-9]*$|[^a-z0-9]*[.!,])`,
  },
  {
    id: "harassment:crawl-back",
    kind: "harassment",
    pattern: `(?:crawl|go|slither|get) back (?:under|into|to|in) (?:your|ur|the|a|whatever) (?:rock|hole|cave|basement|sewer|swamp|gutter|pit)`,
  },
  {
    id: "harassment:imagine-being",
    kind: "harassment",
    pattern: `imagine being (?:this|so|that) (?:dumb|stupid|ugly|pathetic|braindead|fat|worthless|useless|retarded)`,
  },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern:
      `(?:send|dm|snap|message) (?:me )?(?:${possessive} )?(?:nudes|noods)|send (?:me )?pics of ${possessive} (?:body|tits|boobs|ass)|` +
      `${you}(?:d| would| re| are| look like ${you}d| look like ${you} would)? ${words(2)}(?:be )?(?:good|great|fun|wild|a freak|tight) in bed|` +
      `show (?:me |us )?(?:${possessive}|those|them|ur) (?:tits|boobs|body|pussy|dick|ass|titties|feet)(?! of)|` +
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
      `(?:prettier|hotter|cuter|nicer) (?:if|when) ${you} (?:smiled?|shut up|kept quiet|stayed quiet)|how much for (?:a night|an hour(?! of)|a (?:blowjob|bj|date))|` +
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
export const PHRASE_RULES: readonly PhraseRule[] = [
  ...THREATS,
  ...DOXXING,
  ...VEILED_THREATS,
  ...HARASSMENT,
  ...PILE_ONS,
  ...SEXUAL_REMARKS,
  ...INSULT_PHRASES,
  ...DIRECTED_INSULTS,
  ...AIMED_AT_PEOPLE,
];

/**
 * The canonical spelling of an insult caught by a `(?<word>…)` group, for the rule id:
 * the caught text is collapsed ("asshole" reads "ashole"), the id should not be.
 */
export const INSULT_WORDS: ReadonlyMap<string, string> = new Map(
  [...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES, ...INSULT_PLURALS].map((w) => [
    w.replace(/(.)\1+/g, "$1").replace(/'/g, ""),
    w,
  ]),
);
