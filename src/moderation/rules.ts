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
  FUCK_FORMS,
  INSULT_ADJECTIVES,
  INSULT_MODIFIERS,
  INSULT_NOUNS,
  INSULT_NOUNS_AFTER_YOU_ARE,
  PERSONAL_DETAILS,
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
const mods = `(?:${oneOf(INSULT_MODIFIERS)} ){0,4}`;
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
const adverbs = "(?:just |literally |actually |fucking |personally |gladly |come and |come over and |find you and |hunt you down and )?";
const fuck = oneOf(FUCK_FORMS.filter((f) => f !== "f"));
const possessive = "(?:your|ur|yo)";
const family = "(?:family|kids|children|wife|husband|mom|mum|mother|dad|father|parents|dog)";

/** Curses aimed at someone: the swear word is not the point, the "you" is. */
const INSULT_PHRASES: PhraseRule[] = [
  { id: "insult:fuck-you", kind: "insult", pattern: `${fuck} (?:you|u|yourself|urself|ur self|yourselves|off|your|ur)` },
  { id: "insult:fuck-you", kind: "insult", pattern: `(?:go )?f_(?:you|u|yourself|urself)` },
  { id: "insult:fuck-you", kind: "insult", pattern: `go ${fuck} ${yourself}` },
  { id: "insult:stfu", kind: "insult", pattern: `stfu|shut the (?:fuck|fk|fck|hell|heck|fuk) up|shut ${possessive} (?:mouth|face|trap|pie hole|gob|hole)` },
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
  { id: "insult:", kind: "insult", pattern: `^(?:${openers} )?${mods}(?<word>${nouns})(?=[^a-z0-9]*$|[^a-z0-9]*[,!.?:;]| please| shut)` },
  { id: "insult:", kind: "insult", pattern: `${openers}[,!.]? ${mods}(?<word>${nouns})` },
  // A bare insult closing a sentence after a comma ("thanks for nothing, idiot").
  { id: "insult:", kind: "insult", pattern: `(?<=[,;:!?-][^a-z0-9]*)${mods}(?<word>${nouns})(?=[^a-z0-9]*$)` },
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
    pattern:
      `(?:i|1|we) (?:know|found|have|got|found out|tracked down|traced) ${possessive} ` +
      `(?:home |house |real |work |exact )?(?:address|adress|workplace|ip|ip address|real name|location|kids school|childrens school)`,
  },
  { id: "threat:dox", kind: "threat", pattern: `(?:dox|doxx|doxing|doxxing|doxed|doxxed) (?:${you}|him|her|them|this|${possessive})` },
  {
    id: "threat:dox",
    kind: "threat",
    pattern: `${oneOf(THREAT_AGENTS)} (?:post|leak|publish|spread|expose|drop|release|put out|dig up|dox) ${possessive} (?:home |house |real |work )?${oneOf(PERSONAL_DETAILS)}`,
  },
  {
    id: "threat:watch-your-back",
    kind: "threat",
    pattern: `watch ${possessive} back|sleep with one eye open|count ${possessive} days|${possessive} days are numbered`,
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
      `(?:go|just|pls|please|plz) (?:die|kys|jump off a (?:bridge|building|cliff|roof)|play in traffic|hang ${yourself}|choke on it|choke and die|choke)` +
      notFollowedBy(["hard", "laughing", "happy", "of", "on", "for"]),
  },
  // A reply that is only "die" (or "just die.").
  { id: "threat:go-die", kind: "threat", pattern: `^(?:just |now |pls |please )?(?:die|diee|dies)(?=[^a-z0-9]*$)` },
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
      `better (?:off )?without (?:${you}|people like you)`,
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
      `go back to (?:where (?:${you}|they) (?:came|come) from|${possessive} (?:own )?(?:country|cave|village|jungle|kind|island|desert|land)|` +
      `(?:their|your) (?:own )?country)|(?:send|ship|deport) (?:them|${you}|em) (?:all )?back`,
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
      `(?:disappear|leave|die|quit|go away|log off|delete|kill|jump|shut up|leave the internet|stop breathing)|(?:disappear|go away) forever`,
  },
  { id: "harassment:crawl-back", kind: "harassment", pattern: `crawl back (?:under|into|to|in) (?:your|ur|the|a) (?:rock|hole|cave|basement|sewer)` },
  { id: "harassment:imagine-being", kind: "harassment", pattern: `imagine being (?:this|so|that) (?:dumb|stupid|ugly|pathetic|braindead|fat|worthless|useless|retarded)` },
  {
    id: "harassment:sexual",
    kind: "harassment",
    pattern: `send (?:me )?(?:nudes|noods|pics of ${possessive} (?:body|tits|boobs|ass))|show (?:me )?${possessive} (?:tits|boobs|body|pussy|dick|ass)`,
  },
];

/** Every phrase rule, in the order a verdict lists their hits. */
export const PHRASE_RULES: readonly PhraseRule[] = [...THREATS, ...HARASSMENT, ...INSULT_PHRASES, ...DIRECTED_INSULTS];

/**
 * The canonical spelling of an insult caught by a `(?<word>…)` group, for the rule id:
 * the caught text is collapsed ("asshole" reads "ashole"), the id should not be.
 */
export const INSULT_WORDS: ReadonlyMap<string, string> = new Map(
  [...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES].map((w) => [w.replace(/(.)\1+/g, "$1").replace(/'/g, ""), w]),
);
