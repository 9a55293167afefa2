/**
 * The word lists behind the abuse classifier, as data, so that widening a rule means
 * adding a word here rather than editing a regular expression. Words are written in plain
 * English; the rule compiler normalises them the way input is normalised (repeated letters
 * collapsed, apostrophes dropped), so "kill" and "ki111" meet.
 */

/**
 * Swear words people write with masked letters. A masked token ("f**k", "a**hole") of the
 * same length that agrees on every visible letter is read as the first word here that fits;
 * order therefore puts the likelier reading first ("s***" is "shit").
 */
export const MASKED_WORDS: readonly string[] = [
  "fuck", "fucks", "fucked", "fucker", "fuckers", "fucking", "fuckin", "motherfucker",
  "shit", "shits", "shitty", "bullshit", "shithead",
  "bitch", "bitches", "cunt", "cunts", "dick", "dickhead", "cock", "prick",
  "asshole", "arsehole", "ass", "arse", "bastard", "whore", "slut", "twat", "wanker", "pussy",
  "nigger", "nigga", "faggot", "fag", "retard", "retarded", "tranny", "trannies", "kike", "spic", "spics", "paki", "chink",
  "coon", "kill", "die",
  "niggers", "niggas", "faggots", "fags", "retards", "dyke", "dykes", "wetback", "beaner", "raghead", "towelhead",
  "spastic", "poofter", "darkie", "kaffir", "jigaboo", "pikey", "gyppo",
  "idiot", "idiots", "moron", "morons", "loser", "losers", "stupid", "dumb", "dumbass", "twats", "wankers",
];

/** Ways of writing "fuck" (and its milder stand-ins) in a curse aimed at someone. */
export const FUCK_FORMS: readonly string[] = [
  "fuck", "fuk", "fuc", "fck", "fk", "fvck", "fcuk", "phuck", "phuk", "fook", "fuq", "feck", "f", "eff", "frick", "frig",
  "screw", "sod",
];

/** The person addressed. Patterns join these with the optional separator, so "youre" and "you r" both read. */
export const YOU: readonly string[] = ["you", "u", "ya", "yu", "thou"];

/** "You are", in the forms people type ("you're", "ur", "u r", "youre"); "you_r" needs a real gap, since "your" is not "you r". */
export const YOU_ARE: readonly string[] = [
  "you are", "you re", "you_r", "you were", "u are", "u r", "u re", "ur", "ya are", "yer", "are you", "are u", "r u",
  // "your" for "you're", the commonest misspelling, only where no noun can follow it.
  "your a", "your an", "your such", "your so", "your really", "your literally", "your actually", "your just",
];

/**
 * Words allowed between "you" and an insult: articles, intensifiers and insulting
 * adjectives ("you're such a fucking stupid little ..."). Kept to words that do not
 * change who is being talked about.
 */
export const INSULT_MODIFIERS: readonly string[] = [
  "a", "an", "the", "such", "such a", "so", "too", "one", "really", "truly", "just", "honestly", "literally", "actually",
  "absolute", "absolutely", "total", "totally", "complete", "completely", "utter", "utterly", "real", "massive", "huge",
  "big", "biggest", "most", "fucking", "fuckin", "fkn", "freaking", "frigging", "bloody", "damn", "goddamn", "stupid",
  "dumb", "little", "fat", "ugly", "pathetic", "worthless", "useless", "lying", "sad", "sorry", "brainless", "braindead",
  "clueless", "dirty", "filthy", "disgusting", "miserable", "insufferable", "spineless", "smug", "entitled", "ignorant",
  "arrogant", "retarded", "dense", "thick", "sick", "twisted", "creepy", "old", "lazy", "annoying", "bitch ass",
  "stoopid", "nothing but", "nothing more than", "special kind of", "a special kind of", "grade a", "certified",
  "first class", "world class", "prize", "power tripping", "power-tripping",
  "properly", "proper", "seriously", "genuinely", "truly", "incredibly", "unbelievably", "clearly", "obviously", "no better than", "nothing but a", "brain-dead", "spineless", "gutless",
  "rotten", "vile", "smelly", "inbred", "deranged", "unhinged", "jobless",
];

/**
 * Nouns that insult the person they are aimed at (not "ass": collapsed text reads it as
 * "as"; compounds such as "asshole" are listed instead). Aimed at someone ("you idiot",
 * "what a loser", "..., moron") they make a reply abusive; about a third person or a
 * thing ("the referee is an idiot") they do not.
 */
export const INSULT_NOUNS: readonly string[] = [
  "idiot", "moron", "imbecile", "cretin", "dumbass", "dumbfuck", "jackass", "asshole", "arsehole", "bitch",
  "bastard", "cunt", "twat", "prick", "dick", "dickhead", "knobhead", "bellend", "tosser", "wanker", "whore", "slut",
  "skank", "douche", "douchebag", "motherfucker", "fucker", "fuckface", "fuckwit", "shithead", "dipshit", "scumbag",
  "scum", "loser", "clown", "freak", "creep", "pig", "troll", "parasite", "degenerate", "incel", "muppet", "numpty",
  "nonce", "cuck", "coward", "retard", "piece of shit", "piece of crap", "piece of garbage", "piece of trash",
  "shit for brains", "waste of space", "waste of oxygen", "waste of air", "waste of skin", "lowlife", "simpleton",
  "halfwit", "nitwit", "bozo", "buffoon", "dimwit", "turd", "maggot", "cockroach", "subhuman", "vermin",
  "cocksucker", "cock sucker", "shitbag", "dirtbag", "shitstain", "dickwad", "fucknut", "slag", "waste of a human", "waste of a life",
  "waste of life", "fraud", "liar", "chimp", "monkey", "weasel", "rat", "sheep", "npc", "virgin", "neckbeard", "simp",
  "dunce", "dumbo", "pos", "ass clown", "assclown", "cow", "sack of shit", "sack of crap", "sack of garbage",
  "sack of trash", "sack of meat", "sack of lard", "sack of wasted oxygen", "sad sack", "bag of dicks",
  "bag of shit", "bag of crap", "pile of garbage", "pile of trash", "pile of shit", "waste of bandwidth",
  "waste of flesh", "waste of sperm", "waste of a person", "snowflake", "filth", "pest", "leech", "hypocrite",
  "grifter", "charlatan", "sellout", "garbage human", "trash human", "garbage person", "trash person", "human garbage",
  "human trash", "pile of garbage human", "piece of garbage human", "subhuman filth", "subhuman scum", "asshat",
  "ass hat", "dumb fuck", "stupid fuck", "fat fuck", "ugly fuck", "basement dweller", "keyboard warrior", "bootlicker",
  "shill", "manchild", "crybaby", "cvnt", "worm", "weirdo", "bottom feeder", "a-hole", "ahole", "scum of the earth",
];

/**
 * Insult nouns in the plural, for insults aimed at a group ("what a bunch of idiots",
 * "you're all morons"): each single-word noun of {@link INSULT_NOUNS} with its plural, and
 * nouns that insult a group only ("sheep" is its own plural).
 */
export const INSULT_PLURALS: readonly string[] = [
  ...INSULT_NOUNS.filter((w) => !w.includes(" ")).map((w) => (/(?:s|sh|ch|x)$/.test(w) ? `${w}es` : `${w}s`)),
  "sheep", "lemmings", "bots", "npcs", "apes", "animals", "clowns", "brainless sheep", "snowflakes", "frauds", "drones",
  "mindless drones", "zombies",
];

/**
 * Words that insult only in "you are ..." form: "you're a joke" attacks a person, "what a
 * joke" is said of a post, "this update is trash" of a thing.
 */
export const INSULT_NOUNS_AFTER_YOU_ARE: readonly string[] = [
  "joke", "failure", "disgrace", "embarrassment", "trash", "garbage", "nobody", "hack", "joke of a human",
  "disgrace to humanity", "nothing", "tool", "laughing stock", "plague", "cancer", "disease", "stain", "blight", "virus", "tumour", "tumor",
];

/** Adjectives that insult a person when said to them ("you're pathetic", "are you stupid?"). */
export const INSULT_ADJECTIVES: readonly string[] = [
  "stupid", "dumb", "pathetic", "worthless", "useless", "ugly", "disgusting", "retarded", "braindead", "brain dead",
  "brainless", "vile", "repulsive", "revolting", "full of shit", "a joke", "trash", "garbage", "subhuman", "mentally ill",
  "dumbest", "stupidest", "ugliest", "most pathetic", "most useless", "stoopid", "dumb as rocks", "dumb as a rock",
  "dumb as bricks", "thick as a brick", "thick as two short planks", "spineless", "a disgrace", "scum", "brain-dead",
  "not even human", "less than human", "barely human", "subhuman filth", "a waste of space", "a fraud", "dim", "dimwitted",
  "dim-witted", "gormless", "deluded", "gullible", "incompetent", "talentless", "brainwashed",
];

/** Openers after which a bare insult addresses someone ("shut up, moron", "hey dickhead"). */
export const VOCATIVE_OPENERS: readonly string[] = [
  "hey", "oi", "ok", "okay", "listen", "yo", "lol", "lmao", "bye", "shut up", "shut it", "stfu", "get lost", "go away",
  "sit down", "piss off", "fuck off", "thanks", "thank you", "sure", "cope", "nobody asked", "who asked", "gtfo",
];

/** People a threat names besides "you": threats against family are the worst kind. */
export const TARGETS: readonly string[] = [
  "you", "u", "ya", "yourself", "urself", "your family", "your kids", "your children", "your wife", "your husband",
  "your mom", "your mum", "your mother", "your dad", "your parents", "your dog", "your cat", "your house", "your home",
  "your car", "your face", "your legs", "your neck", "your head", "your teeth", "your throat", "ur family", "ur kids",
  "ur face", "ur house", "ur mom", "your jaw", "your nose", "your arms", "your arm", "your ribs", "your skull",
  "your fingers", "your knees", "your kneecaps", "your back", "your legs", "your leg", "your ass", "ur ass", "your arse",
  "yo ass",
];

/** Who means to do harm: first person future and conditional, or "someone should". */
export const THREAT_AGENTS: readonly string[] = [
  "i will", "i wil", "i'll", "ill", "i'd", "i would", "i could", "i shall", "i'm going to", "im going to", "i am going to",
  "i'm gonna", "im gonna", "i am gonna", "i gonna", "ima", "imma", "i'm about to", "im about to", "i want to", "i wanna",
  "i'm coming to", "we will", "we'll", "we're going to", "we are going to", "we're gonna", "we are gonna", "we'd",
  "someone should", "someone needs to", "someone ought to", "someone will", "someone is going to", "someone's gonna",
  "somebody should", "somebody needs to", "somebody will", "gonna", "going to", "1 will", "1'll", "i'll just",
  "i will literally", "i'm literally going to", "i'd love to", "i would love to", "i'd like to", "i would like to",
  "i'll happily", "i'd happily", "i swear i'll", "i swear i will",
];

/** Violent verbs of a threat; the object must be a person ({@link TARGETS}). */
export const THREAT_VERBS: readonly string[] = [
  "kill", "murder", "shoot", "stab", "hurt", "beat", "beat up", "strangle", "choke", "slit", "rape", "behead", "bomb",
  "burn", "punch", "smash", "end", "hunt down", "hunt", "gut", "skin", "torture", "slap", "bury", "hang", "drown",
  "lynch", "run over", "snap", "wring", "batter", "rearrange", "thump", "deck", "clobber", "wallop", "pummel", "maim",
  "cripple", "put a bullet in", "put a bullet through", "break", "cut", "curb stomp", "stomp", "knife",
  "poison", "execute", "assassinate", "mutilate", "shank", "pop", "merk", "glass",
];

/**
 * What a doxxing threat exposes that is not public: finding it ("found your address") is
 * itself the threat.
 */
export const PRIVATE_DETAILS: readonly string[] = [
  "address", "home address", "house address", "real address", "phone number", "ip", "ip address", "location",
  "real name", "workplace", "work address", "employer", "school", "kids", "personal info", "license plate",
  "mobile number", "postcode", "zip code",
];

/**
 * What a doxxing threat exposes, the public profiles too: finding someone's LinkedIn is
 * ordinary, threatening to post it with the rest ("I'll post your socials") is not.
 */
export const PERSONAL_DETAILS: readonly string[] = [
  ...PRIVATE_DETAILS, "number", "phone", "family", "info", "details", "socials", "instagram", "facebook", "linkedin", "tiktok", "snapchat",
  "email", "email address",
];

/**
 * Slurs outside obscenity's English dataset (which already has the commonest), each a whole
 * word. Reviewed against LDNOOBW's English list (the `naughty-words` package), used as a
 * reference only, plus slurs it lacks; a slur makes a reply abusive however it is used.
 * Left out because their ordinary sense is commoner than the slur: "poof" ("and poof, it's
 * gone"), "nip", "slope", "spook", "sambo" (a martial art), "kraut" (krautrock),
 * "golliwog" (mostly said of the doll), "redskins" (the team's old name), "gypsy", "queer"
 * (reclaimed). Doubled letters need not be written as obscenity's matcher sees them: the
 * profanity matcher folds them (`profanity.ts`).
 */
export const EXTRA_SLURS: readonly string[] = [
  "spic", "spics", "spick", "spicks", "paki", "pakis", "wetback", "wetbacks", "gook", "gooks", "raghead", "ragheads",
  "towelhead", "towelheads", "beaner", "beaners", "coon", "coons", "kyke", "shemale", "shemales", "sandnigger",
  // Against Black people.
  "darkie", "darkies", "darky", "jigaboo", "jigaboos", "jiggaboo", "jiggaboos", "jiggerboo", "nignog", "nig nog",
  "nignogs", "porch monkey", "porch monkeys", "jungle bunny", "jungle bunnies", "spearchucker", "spear chucker",
  "pickaninny", "pickaninnies", "wigger", "wiggers", "wog", "wogs", "kaffir", "kaffirs", "kaffer",
  // Against Asian, Arab, South Asian and Muslim people.
  "slanteye", "slanteyes", "slant eye", "slant eyes", "slant eyed", "zipperhead", "zipperheads", "jap", "japs",
  "ching chong", "dothead", "dotheads", "curry muncher", "curry munchers", "sand monkey", "sand monkeys", "sandmonkey",
  "camel jockey", "camel jockeys", "muzzie", "muzzies", "muzrat", "muzrats",
  // Against Jewish, Romani, Italian, Native, white people.
  "yid", "yids", "heeb", "heebs", "christ killer", "christ killers", "gypo", "gypos", "gyppo", "gyppos", "gippo",
  "gippos", "pikey", "pikeys", "dago", "dagos", "dagoes", "wop", "wops", "injun", "injuns", "honkey", "honky", "honkies",
  // Against gay, lesbian and trans people.
  "poofter", "poofters", "poofta", "pooftah", "batty boy", "battyboy", "batty man", "shirtlifter", "shirt lifter",
  "fudgepacker", "fudge packer", "fudgepackers", "carpet muncher", "carpetmuncher", "lesbo", "lezza", "lezzer", "lezzie",
  "lezbo", "trannie", "troon", "troons",
  // Against disabled people.
  "spaz", "spazz", "spazzes", "spazzy", "mong", "mongs", "mongoloid", "mongoloids", "tard", "tards",
];

/**
 * Words of obscenity's dataset that are slurs rather than swearing or sex: aimed at a
 * group, they demean it in any sentence.
 */
export const SLUR_WORDS: ReadonlySet<string> = new Set([
  "abeed", "abo", "africoon", "arabush", "boonga", "chingchong", "chink", "dyke", "fag", "kike", "negro", "nigger",
  "retard", "spastic", "tranny",
]);

/**
 * Look-alikes obscenity matches but should not: places, food, birds, Latin and idioms.
 * Each is matched on the folded text (lower case, apostrophes dropped), as obscenity
 * matches its own whitelist.
 */
export const HARMLESS_LOOKALIKES: readonly string[] = [
  "shiitake", "penistone", "cockpit", "cockpits", "rio negro", "negro league", "negro leagues", "montenegro",
  "fagioli", "retardant", "retardants", "tit for tat", "blue tit", "great tit", "coal tit", "tomtit", "pussy willow",
  "pussycat", "pussycats", "cum laude", "moby dick", "van dyke", "offas dyke", "philip k dick", "chink in",
  "chinks in", "chink of light", "chinks of light", "scunthorpe", "hancock", "cockburn", "cocktail", "peacock",
  "hitchcock", "dickens", "sussex", "essex", "middlesex", "analysis", "analyst", "therapist", "shitake",
  "cockney", "cocked", "spastic colon", "spastic paraplegia", "scattered",
  // Names and things that start or end like a slur.
  "fagan", "fagen", "fagin", "kaffir lime", "kaffir limes", "kaffir lily", "honky tonk", "honky-tonk", "honkytonk",
  "mong kok", "spick and span", "spick-and-span", "spic and span", "spic-and-span",
  // Reclaimed by the people it names, said of oneself or one's own: a slur only when aimed.
  "proud dyke", "as a dyke", "im a dyke", "i am a dyke", "dyke march", "fellow dykes", "us dykes", "we dykes",
];

/**
 * The people behind the bot's account, as a reply names them: present and reading, unlike
 * the absent third parties ("the referee") whose insults the classifier leaves alone.
 */
export const ACCOUNT_PEOPLE: readonly string[] = [
  "owner", "owners", "admin", "admins", "mod", "mods", "moderator", "moderators", "dev", "devs", "developer", "developers",
  "creator", "creators", "maker", "makers", "programmer", "programmers", "coder", "coders", "team", "intern", "interns",
  "person", "people", "guy", "guys", "man", "woman", "girl", "staff", "operator", "operators", "boss", "author", "writer",
  "writers", "manager", "management", "social media manager", "engineer", "engineers", "editor", "editors",
];

/** What someone does to make the account (subject of "whoever ... this"). */
export const ACCOUNT_VERBS: readonly string[] = [
  "runs", "ran", "run", "made", "makes", "make", "codes", "coded", "code", "wrote", "writes", "write", "programmed",
  "built", "builds", "manages", "owns", "designed", "operates", "created", "creates", "is behind", "s behind", "is running",
  "maintains", "posts", "tweets", "posting", "tweeting", "running", "posts here", "posting here", "is in charge of",
  "is responsible for", "in charge of", "responsible for",
];

/** Groups named in hate speech ("dirty immigrants", "muslims are vermin"). */
export const IDENTITY_GROUPS: readonly string[] = [
  "jews", "jew", "muslims", "muslim", "immigrants", "immigrant", "migrants", "refugees", "gays", "gay people", "blacks",
  "black people", "whites", "white people", "mexicans", "arabs", "asians", "chinese", "indians", "africans", "christians",
  "trans people", "trannies", "women", "woman", "females", "lesbians", "foreigners", "gypsies", "romanians", "poles",
  "pakistanis", "hindus", "catholics", "atheists", "feminists", "queers",
];

/** What hate speech calls a group: vermin and disease rather than people. */
export const DEHUMANISING_NOUNS: readonly string[] = [
  "vermin", "animals", "a disease", "a plague", "a cancer", "a sickness", "a virus", "parasites", "rats", "filth",
  "subhuman", "scum", "cockroaches", "trash", "garbage", "not human", "evil", "inferior", "a disgrace", "dogs", "pigs",
  "savages", "a stain", "a blight", "an infestation", "a mental illness", "mentally ill", "disgusting", "degenerates",
  "criminals", "rapists", "terrorists", "thieves", "pedophiles", "paedophiles", "groomers", "freaks", "invaders",
];
