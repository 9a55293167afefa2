/**
 * Name-calling about a third person: "this twat thinks the bus is late", "that bitch
 * thinks she can dance", "the absolute bellend at table 4", "cunt behaviour", "absolute
 * tosser of a man". The aimed-insult detector (`aimed.ts`) and the phrase rules read an
 * insult only where it is aimed at the reader; these replies aim it at someone else, and
 * scored as swearing alone they passed.
 *
 * Why only these forms: an insult said *about* someone ("the referee is an idiot", "did you
 * see that muppet on the roundabout") is an opinion the classifier leaves alone. Here the
 * insult is the name the reply calls a person by: the subject of a verb only a person does
 * ("thinks", "says", "reckons"), a scornful "the absolute ...", "... behaviour", "... of a
 * man". What keeps precision:
 * - only {@link NAME_CALLING_NOUNS}, nouns with no other sense ("the rat got in the bin",
 *   "the clown says hi to the kids" are not insults), and of those, the ones also sworn at
 *   things ("the bastard won't start") only with a verb of the mind or of speech;
 * - a noun followed by "of" names a thing unless a person follows ("a bitch of a commute",
 *   "the bastard of a bug took me hours");
 * - fond or sympathetic words stop it ("that lucky bastard thinks he's won", "the poor sod"),
 *   and so does "this idiot" beside "I" or "my" (self-mockery: "this idiot thought it was
 *   Tuesday and missed my train"), "big dick energy" and "bad bitch energy" (praise).
 */
import {
  ALSO_SWORN_AT_THINGS,
  FOND_ADJECTIVES,
  INSULT_ADJECTIVE_SCORES,
  INSULT_NOUN_SCORES,
  INTENSIFIERS,
  NAME_CALLING_NOUNS,
  OF_A_PERSON,
  SCORNFUL_INTENSIFIERS,
  STRONG,
} from "./insult-lexicon.ts";
import { INSULT_MODIFIERS } from "./lexicon.ts";
import { nounAt, phraseSet, tokenize, wordSet, type Token } from "./insult-tokens.ts";
import { normalizePattern, originalSpan, type Normalized } from "./normalize.ts";
import { WEIGHTS } from "./score.ts";
import type { PlacedHit } from "./types.ts";

/** Collapsed spelling → the lexicon's spelling, for the rule id ("belend" → "bellend"). */
const NAME_CALLING = new Map(NAME_CALLING_NOUNS.map((w) => [normalizePattern(w), w]));
const SPELLINGS = new Map([...INSULT_NOUN_SCORES.keys()].map((w) => [normalizePattern(w), w]));
const SWORN_AT_THINGS = new Set(ALSO_SWORN_AT_THINGS);
const OF_PERSON = phraseSet(OF_A_PERSON);
const FOND = wordSet(FOND_ADJECTIVES);
/** Words that may stand between a determiner and the noun: intensifiers and insulting adjectives ("that fat lazy twat"). */
const MODIFIERS = wordSet(
  [...INTENSIFIERS, ...INSULT_MODIFIERS, ...INSULT_ADJECTIVE_SCORES.keys()].filter(
    (w) => !w.includes(" ") && !/^(?:a|an|the|and|or|as|being|all|both)$/.test(w),
  ),
);
/**
 * Modifiers that make "the ... <noun>" name-calling with no verb: "the absolute bellend at
 * table 4". Also "proper" and "colossal", which before a name-calling noun can only scorn
 * (`aimed.ts` leaves them out: before any noun, "I'd give you a proper hug" is fond).
 */
const SCORNFUL = wordSet([...SCORNFUL_INTENSIFIERS, "proper", "colossal"]);
const STRONG_ADJECTIVES = wordSet(
  [...INSULT_ADJECTIVE_SCORES].filter(([w, s]) => s >= STRONG && !w.includes(" ")).map(([w]) => w),
);
const DETERMINERS = wordSet(["this", "that", "the", "these", "those", "dat", "tha"]);
/** Verbs of the mind and of speech: their subject is a person, whatever noun names them. */
const PERSON_VERBS = wordSet([
  "thinks",
  "think",
  "thought",
  "reckons",
  "reckon",
  "reckoned",
  "says",
  "said",
  "believes",
  "believe",
  "believed",
  "claims",
  "claim",
  "claimed",
  "knows",
  "knew",
  "pretends",
  "pretended",
  "tells",
  "told",
  "insists",
  "insisted",
  "moans",
  "moaned",
  "whinges",
  "whinged",
  "complains",
  "complained",
  "laughs",
  "laughed",
  "smirks",
  "smirked",
  "argues",
  "argued",
  "blames",
  "blamed",
  "lied",
  "lies",
  "voted",
  "votes",
  "tweets",
  "tweeted",
  "replied",
  "assumes",
  "assumed",
  "decided",
  "decides",
  "pretend",
  "imagines",
  "imagined",
  "reckoning",
  "acts",
  "acted",
  "behaves",
  "behaved",
  "called",
  "yelled",
  "shouted",
  "screamed",
  "swore",
  "sneered",
  "expects",
  "expected",
  "demands",
  "demanded",
  "deserves",
  "deserved",
  "refuses",
  "refused",
]);
/** Verbs a person does but a thing may too ("this fucker keeps crashing"): only after nouns never sworn at things. */
const ACTION_VERBS = wordSet([
  "wants",
  "wanted",
  "keeps",
  "kept",
  "needs",
  "needed",
  "has",
  "had",
  "can",
  "cant",
  "cannot",
  "couldnt",
  "should",
  "shouldnt",
  "wont",
  "wouldnt",
  "will",
  "would",
  "tried",
  "tries",
  "parked",
  "parks",
  "drives",
  "drove",
  "walked",
  "walks",
  "cut",
  "nearly",
  "almost",
  "stole",
  "posted",
  "posts",
  "started",
  "starts",
  "gets",
  "got",
  "went",
  "goes",
]);
/** Adverbs between the noun and its verb: "that twat genuinely thinks". */
const ADVERBS = wordSet([
  "just",
  "really",
  "actually",
  "honestly",
  "genuinely",
  "literally",
  "clearly",
  "obviously",
  "seriously",
  "still",
  "always",
  "never",
  "even",
  "now",
  "also",
  "apparently",
  "probably",
  "only",
  "then",
  "somehow",
  "proper",
]);
/** Where a person is, between the noun and its verb: "the twats next door reckon the fence is theirs". */
const PLACES = wordSet(["next", "upstairs", "downstairs", "opposite"]);
const DOOR = normalizePattern("door");
/** "idiot behaviour", "tw@t move": what someone did, called by the name of who did it. */
const CONDUCT = wordSet([
  "behaviour",
  "behavior",
  "behaviours",
  "move",
  "moves",
  "energy",
  "vibes",
  "antics",
  "mentality",
  "tactics",
  "attitude",
]);
/** "big dick energy", "bad bitch energy": praise. */
const PRAISING_CONDUCT = wordSet(["big", "bad", "boss", "main"]);
const FIRST_PERSON = wordSet(["i", "im", "me", "my", "myself", "mine", "ive", "id", "ill"]);
/** "I'm the idiot who forgot", "I was that idiot": self-mockery. */
const SELF_COPULAS = wordSet(["im", "m", "am", "was", "be", "been"]);
/** Names a bare noun may be ("Dick thinks it'll rain"): only after a determiner do they insult. */
const NAMES = new Set(["dick"]);
const MAX_MODIFIERS = 3;

/** The name-calling noun at token i, singular or plural, in the lexicon's spelling. */
function nameCallingAt(tokens: readonly Token[], i: number): string | undefined {
  const word = tokens[i]!.word;
  const direct = NAME_CALLING.get(word);
  if (direct) return direct;
  if (word.endsWith("es") && NAME_CALLING.has(word.slice(0, -2))) return NAME_CALLING.get(word.slice(0, -2));
  if (word.endsWith("s")) return NAME_CALLING.get(word.slice(0, -1));
  return undefined;
}

/** Whether the words near token i (eight either side) say "I", "me" or "my". */
function firstPersonNear(tokens: readonly Token[], i: number): boolean {
  for (let k = Math.max(0, i - 8); k < Math.min(tokens.length, i + 9); k++)
    if (FIRST_PERSON.has(tokens[k]!.word)) return true;
  return false;
}

/** The lexicon's spelling of the noun in these tokens, for the rule id ("toser" → "tosser"). */
function spelling(noun: readonly Token[]): string {
  const collapsed = noun.map((t) => t.word).join(" ");
  return (SPELLINGS.get(collapsed) ?? SPELLINGS.get(collapsed.replace(/e?s$/, "")) ?? collapsed).replace(/ /g, "-");
}

/** One hit for the words from token `from` to token `to` (inclusive), named after the noun. */
function hit(text: Normalized, tokens: readonly Token[], from: number, to: number, noun: string): PlacedHit {
  const span = originalSpan(text.collapsed, tokens[from]!.start, tokens[to]!.end);
  return { rule: `insult:${noun}`, match: text.original.slice(span.start, span.end), weight: WEIGHTS.insult, ...span };
}

/**
 * Finds name-calling about a third person, each as an `insult:<noun>` hit (named like the
 * other insults, so an allow list treats them alike) over the words from the determiner or
 * first modifier to the verb, conduct word or "of a man" that shows a person is meant.
 *
 * @param tokens the words of `text.collapsed.text`, when the caller has them already.
 */
export function thirdPersonInsults(
  text: Normalized,
  tokens: readonly Token[] = tokenize(text.collapsed.text),
): PlacedHit[] {
  const hits: PlacedHit[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const next = tokens[k + 1];
    // "absolute tosser of a man", "a pig of a man": any strong insult noun naming a person.
    const strongNoun = nounAt(tokens, k);
    if (strongNoun && strongNoun.value >= STRONG && next?.word === "of") {
      const person = OF_PERSON.at(tokens, k + strongNoun.length);
      if (person)
        hits.push(
          hit(
            text,
            tokens,
            k,
            k + strongNoun.length + person.length - 1,
            spelling(tokens.slice(k, k + strongNoun.length)),
          ),
        );
      continue;
    }
    const noun = nameCallingAt(tokens, k);
    if (!noun) continue;
    // The words before the noun: modifiers, then a determiner or the start of a clause.
    let j = k;
    let scornful = false;
    let fond = false;
    while (j > 0 && k - j < MAX_MODIFIERS && !tokens[j]!.broken && MODIFIERS.has(tokens[j - 1]!.word)) {
      const word = tokens[j - 1]!.word;
      if (SCORNFUL.has(word) || STRONG_ADJECTIVES.has(word)) scornful = true;
      if (FOND.has(word)) fond = true;
      j--;
    }
    if (fond) continue;
    if (j > 0 && !tokens[j]!.broken && FOND.has(tokens[j - 1]!.word)) continue;
    const determiner =
      j > 0 && !tokens[j]!.broken && DETERMINERS.has(tokens[j - 1]!.word) ? tokens[j - 1]!.word : undefined;
    const from = determiner ? j - 1 : j;
    const bare = !determiner && (j === 0 || tokens[j]!.broken);
    const selfMocking = () =>
      ((bare || determiner === "this") && firstPersonNear(tokens, k)) ||
      (from > 0 && SELF_COPULAS.has(tokens[from - 1]!.word));
    // "idiot behaviour", "c.u.n.t behaviour", "bitch move".
    if (next && !next.broken && CONDUCT.has(next.word) && !(k > 0 && PRAISING_CONDUCT.has(tokens[k - 1]!.word))) {
      if (!firstPersonNear(tokens, k)) hits.push(hit(text, tokens, from, k + 1, noun));
      continue;
    }
    if (!determiner && !bare) continue;
    // "a bitch of a commute" (the "of a man" form is read above), "the complete idiot's guide".
    if (next?.word === "of" || next?.word === "guide") continue;
    // "that twat genuinely thinks ...", "b!tch thinks she can dance".
    let m = k + 1;
    if (determiner && m < tokens.length && !tokens[m]!.broken && PLACES.has(tokens[m]!.word))
      m += tokens[m]!.word === "next" && tokens[m + 1]?.word === DOOR ? 2 : 1;
    while (m < tokens.length && m - k <= 2 && !tokens[m]!.broken && ADVERBS.has(tokens[m]!.word)) m++;
    const verb = m < tokens.length && !tokens[m]!.broken ? tokens[m]!.word : undefined;
    const thingToo = SWORN_AT_THINGS.has(noun);
    const personVerb =
      verb !== undefined &&
      (PERSON_VERBS.has(verb) ||
        (!thingToo && ACTION_VERBS.has(verb)) ||
        (!!determiner && (verb === "who" || verb === "whos")));
    if (personVerb && !(bare && NAMES.has(noun)) && !selfMocking()) {
      hits.push(hit(text, tokens, from, m, noun));
      continue;
    }
    // "the absolute bellend at table 4", "that fat lazy twat".
    if (determiner && scornful && !thingToo && !selfMocking()) hits.push(hit(text, tokens, from, k, noun));
  }
  return hits;
}
