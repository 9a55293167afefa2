/**
 * The building blocks of the phrase rules' patterns, in the language of `pattern.ts`: who a
 * reply addresses ("you", "you're", the people behind the account, a group), insult words
 * and their modifiers, who threatens and whom, the reader's people and private details, and
 * the closes that make a remark menacing. The rule files (`threats.ts`, `doxxing.ts`, ...)
 * are data built from these, so each word list is written once.
 *
 * A piece built from a word list (by `oneOf`) or from such a piece is a function that builds
 * it on its first call ({@link lazily}): compiling the word lists took most of the time of
 * importing postbot, which every plugin's `import { definePlugin } from "postbot"` pays,
 * moderating or not. The pieces written out as text are plain strings.
 */
import {
  ACCOUNT_PEOPLE,
  ACCOUNT_VERBS,
  FUCK_FORMS,
  IDENTITY_GROUPS,
  INSULT_ADJECTIVES,
  INSULT_MODIFIERS,
  INSULT_NOUNS,
  INSULT_NOUNS_AFTER_YOU_ARE,
  INSULT_PLURALS,
  TARGETS,
  THREAT_AGENTS,
  VOCATIVE_OPENERS,
  YOU,
  YOU_ARE,
} from "../lexicon.ts";
import { lazily } from "../lazily.ts";
import { notFollowedBy, oneOf } from "../pattern.ts";

/** "You" and its spellings ("u", "ya"), as the reader is addressed. */
export const you = lazily(() => oneOf(YOU));

/** "You are" and its spellings ("ur", "youre", "are you"). */
export const youAre = lazily(() => oneOf(YOU_ARE));

/** "You are" as a statement, not a question: "are you dead?" asks, "you're dead" threatens. */
export const youAreStatement = lazily(() => oneOf(YOU_ARE.filter((w) => !/^(are|r) /.test(w))));

/**
 * Up to four modifiers before an insult. Each needs a real separator after it (optional
 * separators let the engine split every word into modifiers many ways, which is slow),
 * except "a" and "an", which spaced-out letters join to the next word ("u r a b i t c h"
 * reads "urabitch").
 */
export const mods = lazily(
  () => `(?:(?:an?) |${oneOf(INSULT_MODIFIERS.filter((m) => m !== "a" && m !== "an"))}_){0,4}`,
);

/** The insult nouns ("idiot", "moron"), for "you …" and "what a …". */
export const nouns = lazily(() => oneOf(INSULT_NOUNS));

/** What may follow "you are": insult nouns, nouns only said so ("a joke") and insult adjectives ("pathetic"). */
export const youAreNouns = lazily(() => oneOf([...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES]));

/** Words that open a reply addressed to someone ("ok", "shut up", "thanks"): "ok clown". */
export const openers = lazily(() => oneOf(VOCATIVE_OPENERS));

/** Whom a threat of violence is aimed at: the reader or their people ("you", "your family"). */
export const targets = lazily(() => oneOf(TARGETS));

/** "Yourself" and its spellings ("urself", "yaself"). */
export const yourself = lazily(() =>
  oneOf([
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
  ]),
);

/** Who threatens: "I'll", "we're gonna", "someone should". */
export const agents = lazily(() => oneOf(THREAT_AGENTS));

/** "beat you at chess", "kill you in Fortnite", "shoot you a message" are not threats; "punch you in the face" is. */
export const notAGame = lazily(
  () =>
    `(?! (?:${oneOf(["at", "on", "to", "with", "off", "a", "an", "some", "for"])}(?![a-z0-9])|` +
    `in_(?!(?:the |your |ur |a |your own )?(?:face|head|throat|neck|gut|stomach|mouth|teeth|balls|back|street|sleep|bath|bed|backyard|back garden|garden|house|home|river|canal|woods|ditch|alley|car park|carpark|queue|shower|dark)(?![a-z0-9]))))`,
);

/** What may stand between a threat's agent and its verb ("I'll literally …", "I'll come and …"). */
export const adverbs =
  "(?:just |literally |actually |fucking |personally |gladly |come and |come over and |find you and |hunt you down and |come |go )?";

/** The spellings of "fuck" (not the bare "f", which "f you" reads separately). */
export const fuck = lazily(() => oneOf(FUCK_FORMS.filter((f) => f !== "f")));

/** "Your" as replies spell it. */
export const possessive = "(?:your|ur|yo)";

/** The reader's family, as threats of violence and death wishes name them. */
export const family =
  "(?:family|kids|kid|children|son|daughter|wife|husband|mom|mum|mother|dad|father|parents|dog|moms|mums)";

/** Insult nouns in the plural ("clowns", "morons"), for insults aimed at a group. */
export const plurals = lazily(() => oneOf(INSULT_PLURALS));

/** "sad little man": a person-word made an insult by the adjectives before it. */
export const belittling = lazily(() =>
  oneOf([
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
  ]),
);

/** A belittling phrase: "sad little man", "pathetic excuse for a human". */
export const belittled = lazily(
  () =>
    `(?:${belittling()} )+` +
    `(?:man|woman|boy|girl|person|creature|manchild|individual|excuse for a human|human being|human)(?![a-z0-9])`,
);

/**
 * What is said of a person or a group after "is"/"are": an insult noun (singular or plural)
 * or adjective, after modifiers and at most one word the lists lack ("incompetent morons"),
 * a belittling phrase, or a "dumb as ..." comparison.
 */
export const insultPredicate = lazily(
  () =>
    `(?:${mods()}(?:[a-z]+_)?(?<word>${oneOf([...INSULT_NOUNS, ...INSULT_NOUNS_AFTER_YOU_ARE, ...INSULT_ADJECTIVES, ...INSULT_PLURALS])})|` +
    `(?:a |an )?(?<word2>${belittled()})|(?<word3>(?:dumb|thick|stupid|dense) as (?:a |an |two |a bag of |a box of )?[a-z]+))`,
);

/** What links a subject to what is said of it: "is", "are", "must be", "looks like". */
export const copula = `(?:is|are|s|re|r|was|were|=|must be|seems|seems like|sounds like|looks like|is clearly|are clearly|is obviously|are both|are all|is such)`;

/** Up to `n` words of any kind, lazily: "the guy (who runs this account) is ...". */
export const words = (n: number) => `(?:[a-z0-9]+_){0,${n}}?`;

/** The people behind the account, as a reply names them (see ACCOUNT_PEOPLE). */
export const staff = lazily(() => oneOf(ACCOUNT_PEOPLE));

/** The people behind the account as a reply names them: "whoever runs this", "your dev team", "the admins". */
export const accountPeople = lazily(
  () =>
    `(?:(?:whoever|who ever|whoevers|the one|the person|the people|the guy|the idiot|the clown|the moron|anyone) (?:who |that )?${oneOf(ACCOUNT_VERBS)}|` +
    `(?:${possessive}|the|this|that|these|those|^|${you()} and ${possessive}|${you()} and the) ${words(2)}${staff()}(?![a-z0-9]))`,
);

/** A group the reply addresses: "you lot", "all of you", "everyone who liked this". */
export const addressedGroup = lazily(
  () =>
    `(?:${you()} (?:lot|all|guys|people|two|lads)|yall|y all|all of ${you()}|every (?:single |last )?one of ${you()}|all ${you()}|` +
    `every (?:single )?(?:follower|fan|person|one|subscriber) (?:of|who|that|here|in)|` +
    `(?:all )?(?:${you()}|${possessive}) (?:followers|fans|subscribers|audience|supporters|fanboys)|` +
    `(?:everyone|everybody|anyone|whoever) (?:here|in here|in this thread|in the replies|in the comments|who|that|replying|liking|following)|` +
    // "people who like this are morons" is said to the repliers; "the people who fly-tip are morons" is not.
    `(?:people|all the people) (?:here|in here|in this thread|in the replies|in the comments|replying|liking|following|` +
    `(?:who|that) ${words(3)}(?:this|here|you|your|ur|it|the bot|the account|these)(?![a-z0-9]))|` +
    `the (?:replies|comments|comment section|people here|followers|fans)|this (?:thread|comment section|reply section))`,
);

/**
 * Who an insult is said of when it is aimed at the reader without "you": the people behind
 * the account or a group the reply addresses ("your dev team", "everyone in this thread",
 * "whoever thought this bot was a good idea"). `aimed.ts` reads the predicate after it.
 */
export const aimedSubject = lazily(
  () =>
    `${accountPeople()}|${addressedGroup()}|` +
    `(?:whoever|who ever|the (?:person|people|guy|one|team|idiot|clown|moron|muppet)) (?:who |that )?${words(3)}(?:this|these|ur|your)_` +
    `(?:bot|bots|account|page|thing|site|app|feed|thread|post|posts|trash|garbage|nonsense|rubbish|crap|channel)(?![a-z0-9])`,
);

/** Collective nouns of a group insult ("a bunch of", "a pack of"); fewer than COLLECTIVES of insult-lexicon.ts, which aimed.ts reads. */
export const collective = lazily(() =>
  oneOf([
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
  ]),
);

/** Identity groups, which hate names (see IDENTITY_GROUPS). */
export const groups = lazily(() => oneOf(IDENTITY_GROUPS));

/** "found your address on the contact page": a detail the account published itself is not a doxxing threat. */
export const publicPlace = `(?! on (?:the |${possessive} )?(?:site|website|contact page|page|profile|bio|invoice|form|about page))`;

/**
 * The reader's people and things a dox or veiled threat names: "your kids", "your mum's
 * number", "your car". Wider than `family` (which threats of violence name), because
 * exposing a partner's workplace or a child's school is the threat itself.
 */
export const kin = lazily(() =>
  oneOf([
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
  ]),
);

/** A phone number as the collapsed text writes it (repeated digits fold, so five digits is a full number's floor). */
export const phone = `\\+?[0-9](?:[^a-z0-9]{0,2}[0-9]){4,}`;

/** An e-mail address as the collapsed text writes it ("@" reads "a" inside a word). */
export const email = `[a-z0-9.-]+\\.(?:com|net|org|co\\.uk|co|uk|io|me|edu|gov|de|fr|au|ca|ie|nz)(?![a-z0-9])`;

/** A street as people write an address: "14 elm road", "baker street". */
export const street = `(?:[0-9]+[a-z]? )?[a-z]+_(?:street|st|road|rd|lane|ln|avenue|ave|drive|dr|close|crescent|terrace|grove|gardens|court|way|place|estate|flats|towers|mews|square|boulevard|blvd)(?![a-z0-9])`;

/** A named school: "st mary's", "hillside primary" (not "a good primary", "the same school"). */
export const namedSchool =
  `(?:(?:st|saint)_[a-z]+|(?!(?:a|an|the|that|this|which|what|same|good|great|local|new|nice|private|public|my|our|his|her|their)_)[a-z]+_` +
  `(?:primary|academy|high|elementary|middle school|grammar|prep|infants|juniors|nursery|comprehensive|secondary))(?![a-z0-9])`;

/** Not a question of the sentence ("is your email x@y.com? I wrote"): asking is not exposing. */
export const notAsked = `(?![^.!?\\n]*\\?)`;

/**
 * Not a question, unless a tag makes it a statement the speaker wants confirmed ("your kids
 * go to St Anne's, right?" tells the reader what the speaker knows; "your kids go to St
 * Anne's? so do mine" asks).
 */
export const toldNotAsked = `(?:${notAsked}|(?=[^a-z0-9]*(?:right|yeah|yh|innit|correct|eh|no|yes|dont they|doesnt he|doesnt she|isnt it|dont you)[^a-z0-9]*\\?))`;

/** Who finds out when a dox is published. */
export const audience =
  `(?:everyone|everybody|every1|the whole (?:internet|world|town|street|school|village|city|site|estate|area)|the internet|` +
  `all ${possessive} (?:followers|friends|neighbours|neighbors|colleagues|coworkers|family)|${possessive} (?:boss|employer|followers|neighbours|neighbors|wife|husband|family|kids|friends|parents|colleagues|coworkers))`;

/** Who or what of the reader's is watched in a veiled threat: their car, their route, their kids. */
export const watched =
  `(?:car|route|shift|shifts|schedule|routine|commute|bus|train|gym|walk|run|jog|street|house|door|front door|garden|window|windows|` +
  `kids|daughter|son|wife|husband|school run|dog|cat|shop|reg|number plate|plate|place|flat|family|mum|mom|kid|girlfriend|boyfriend|partner|workplace|office)(?![a-z0-9])`;

/**
 * What makes a remark about the reader's life menacing. The strong closes ("would be a
 * shame", "for now", "lock your doors") turn even a compliment into a threat ("nice car...
 * for now"); the weak ones ("see you soon") only a remark that the speaker knows or has
 * watched the reader's life.
 */
export const strongMenace = lazily(
  () =>
    `(?:(?:shame|pity) if|tick tock|(?:youve|you have|consider ${yourself()}) (?:been )?warned|watch ${possessive} back|` +
    `watch ${yourself()}|lock ${possessive} doors?|for now(?![a-z0-9])|while (?:it lasts|${you()} (?:still )?can)|` +
    `(?:sleep|rest) (?:well|tight)|(?:accidents|things) happen)`,
);

/** Every menacing close: the strong ones and the weak ones ("see you soon", "be careful"). */
export const menace = lazily(
  () =>
    `(?:${strongMenace()}|see ${you()} (?:soon|around|real soon|very soon|there|then)|be seeing ${you()}|careful now|be careful|` +
    `just saying|just sayin|any day now|wont be long|(?:be|stay) safe out there|${you()} never know)`,
);

/** A remark that the speaker knows or has seen the reader's life: harmless alone, a threat beside a menacing close. */
export const knowsLife = lazily(
  () =>
    `(?:(?:i|we|ive|weve) (?:know|found) ${possessive} ${watched}|(?:(?:i|we|ive|weve|i have|we have) )?(?:saw|seen|clocked|noticed|spotted) ${possessive} ${watched}|` +
    `(?:i|we) saw ${you()} (?:at|in|leaving|outside|with|walking|on)(?![a-z0-9])|` +
    `(?:il|i wil|wel|we wil|im|were) (?:be |coming )?(?:outside|at|by|near|round|to) ${possessive} (?:house|home|door|front door|office|work|school|flat|place|car)(?![a-z0-9])|` +
    `${possessive} (?:kids|daughter|son|wife) ${words(1)}(?:look|looks|seem|seems) (?:cute|sweet|lovely|pretty|adorable|happy))`,
);

/** A compliment on the reader's things: only a strong close makes it a threat. */
export const admired = `nice (?:house|car|family|kids|wife|daughter|son|shop|dog|garden|front door|place|street|neighbourhood|neighborhood|motor|flat)(?![a-z0-9])`;

/** Parts of the body a remark aimed at the reader sexualises ("your legs look amazing"). */
export const bodyParts = `(?:legs|thighs|curves|cleavage|bum|butt|booty|arse|ass|rack|chest|boobs|tits|hips|bust|backside|body|feet|lips|figure|bod)`;
