/**
 * The aimed-insult detector: finds insults aimed at the reader by reading the words after
 * an anchor that points at them ("you", "you're", "are you", "you lot are", "your devs
 * are", "what a ...") against the scored lexicon of `insult-lexicon.ts`.
 *
 * Why it exists beside the phrase rules: those need every word between "you" and the
 * insult to be on a list, and each batch of fresh replies brought a modifier or a noun the
 * lists lacked ("you're a bumbling oaf", "you festering boil"). Here the words between the
 * anchor and the insult may be unknown (up to two), and an unknown head noun counts when a
 * strong insulting adjective stands before it. What keeps precision:
 * - a verb, pronoun or preposition between anchor and insult ends the phrase ("you made
 *   that idiot famous", "you remind me of my idiot brother");
 * - a negation drops it ("you're not stupid for asking"), and so does praise ("you
 *   absolute legend");
 * - after a bare "you" the insult must close the clause ("you idiot.", not "you hired a
 *   clown for the party"), and mild words never insult alone ("you goof", "you silly goose").
 *
 * It works on tokens of the collapsed text (`normalize.ts`), so masks, leetspeak and
 * repeated letters are already undone, and it is one pass over the words: cheap next to a
 * regular expression per rule.
 */
import {
  BREAKERS,
  COLLECTIVES,
  CONTAINERS,
  FOND_ADJECTIVES,
  INSULT_ADJECTIVE_SCORES,
  INTENSIFIERS,
  NEGATIONS,
  OF_A_PERSON as OF_A_PERSONS,
  PERSON_NOUNS,
  PRAISE_NOUNS,
  SCORNFUL_INTENSIFIERS,
  STRONG,
} from "./insult-lexicon.ts";
import { nounAt, PhraseTable, phraseSet as set, tokenize, wordSet as words, type Token } from "./insult-tokens.ts";
import { originalSpan, type Normalized } from "./normalize.ts";
import { lazily } from "./lazily.ts";
import { compilePattern } from "./pattern.ts";
import { aimedSubject } from "./rules/index.ts";
import { WEIGHTS } from "./score.ts";
import type { PlacedHit } from "./types.ts";

const ADJECTIVES = new PhraseTable(INSULT_ADJECTIVE_SCORES);
const PERSONS = set(PERSON_NOUNS);
const PRAISE = set(PRAISE_NOUNS);
const FOND = set(FOND_ADJECTIVES);
const COLLECTIVE = set(COLLECTIVES);
const CONTAINER = set(CONTAINERS);
const NEGATION = set(NEGATIONS);
const INTENSIFIER = set(INTENSIFIERS);
const BREAKER = set(BREAKERS);
const YOU = words(["you", "u", "ya", "yu", "thou", "ye"]);
/** "you're" and its spellings, read as "you are" ("your" only before an article: "your a moron"). */
const YOU_ARE = words(["ur", "youre", "yer", "yor"]);
const COPULAS = words(["are", "r", "re", "were", "is", "s", "was"]);
/** After "you": "you lot are", "you two are". */
const GROUP_WORDS = words(["lot", "all", "guys", "people", "two", "lads", "folks"]);
/** Words that may follow a predicate adjective and still leave it said of the reader ("you're dense af"). */
const AFTER_PREDICATE = words([
  "and",
  "as",
  "af",
  "it",
  "its",
  "lol",
  "lmao",
  "tbh",
  "ngl",
  "honestly",
  "mate",
  "bro",
  "dude",
  "than",
  "too",
  "to",
  "you",
  "u",
  "but",
  "so",
  "like",
  "beyond",
  "frankly",
  "seriously",
]);
/** Words that may follow a vocative insult and still close it ("you idiot lol", "you idiot and your bot"). */
const AFTER_VOCATIVE = words([
  "and",
  "lol",
  "lmao",
  "haha",
  "mate",
  "bro",
  "dude",
  "you",
  "u",
  "who",
  "just",
  "like",
  "honestly",
  "seriously",
  "smh",
  "ffs",
  "omg",
  "ok",
  "okay",
  "of",
]);
/** Words that may follow an unknown head noun after "you are" ("a clueless dolt who ..."). */
const AFTER_UNKNOWN_HEAD = words(["who", "that", "and", "of", "with", "in", "on", "lol"]);
/** Intensifiers that, after a bare "you", make even an unknown noun an insult ("u absolute cabbage"); praise still stops it. */
const SCORNFUL = words(SCORNFUL_INTENSIFIERS);
/** "walnut of a human": any noun followed by one of these is an insult. */
const OF_A_PERSON = set(OF_A_PERSONS);
const CONDITIONS = words(["if", "unless", "whether", "when", "whenever"]);
const LIKENED = words([
  "look",
  "looks",
  "sound",
  "sounds",
  "seem",
  "seems",
  "act",
  "acts",
  "smell",
  "smells",
  "write",
  "writes",
  "talk",
  "talks",
  "think",
  "thinks",
  "type",
  "types",
  "argue",
  "argues",
  "behave",
  "behaves",
  "dress",
  "dresses",
]);
/** "run by a gutless weasel": who made the account, said in the passive. */
const MADE_BY = words([
  "run",
  "made",
  "written",
  "coded",
  "built",
  "programmed",
  "managed",
  "created",
  "designed",
  "operated",
  "owned",
]);
const ACCOUNT_THINGS = words([
  "bot",
  "page",
  "account",
  "site",
  "app",
  "thing",
  "feed",
  "channel",
  "thread",
  "post",
  "garbage",
  "trash",
  "nonsense",
]);
const MAX_UNKNOWN = 2;
const SCAN = 9;

/** Praise at token i, singular or plural ("what a bunch of absolute units"). */
function praiseAt(tokens: readonly Token[], i: number): boolean {
  if (PRAISE.at(tokens, i)) return true;
  const word = tokens[i]!.word;
  return (
    word.length > 3 && word.endsWith("s") && PRAISE.at([{ ...tokens[i]!, word: word.slice(0, -1) }], 0) !== undefined
  );
}

const closes = (tokens: readonly Token[], m: number, after: ReadonlySet<string>) =>
  m >= tokens.length || tokens[m]!.broken || after.has(tokens[m]!.word);

/** The words of tokens `from` to `to` (exclusive), as a found phrase names them. */
const wordsOf = (tokens: readonly Token[], from: number, to: number): string =>
  tokens
    .slice(from, to)
    .map((t) => t.word)
    .join(" ");

/** Where an insult phrase found by a scan starts and ends (token indexes, end exclusive), and its word. */
interface Found {
  readonly from: number;
  readonly to: number;
  readonly word: string;
}

/**
 * Reads the noun phrase or predicate from token `j` on. `vocative`: after a bare "you",
 * "what a" or a break (the insult must close the clause); otherwise after "you are" or a
 * subject and copula. `toReader`: straight after "you", where a scornful intensifier makes
 * even an unknown noun an insult ("u absolute cabbage"); after "what a" it does not ("what a
 * fucking day" is swearing about a day).
 */
function scan(tokens: readonly Token[], j: number, vocative: boolean, toReader = false): Found | undefined {
  let strongAdjective = false;
  let fond = false;
  let scornful = false;
  let unknown = 0;
  const stop = Math.min(tokens.length, j + SCAN);
  for (let k = j; k < stop; ) {
    if (k > j && tokens[k]!.broken) {
      // "you're a nasty, vindictive harpy": a comma between adjectives keeps the phrase.
      if (!(strongAdjective && ADJECTIVES.at(tokens, k - 1) && (ADJECTIVES.at(tokens, k) || nounAt(tokens, k))))
        return undefined;
    }
    if (NEGATION.at(tokens, k) || praiseAt(tokens, k)) return undefined;
    const noun = nounAt(tokens, k);
    if (noun) {
      const m = k + noun.length;
      const ofA = OF_A_PERSON.at(tokens, m);
      // "you absolute walnut of a human", but not "what a beast of a man" (praise).
      if (ofA)
        return noun.value < STRONG && !strongAdjective && !scornful
          ? undefined
          : { from: j, to: m + ofA.length, word: "of-a-human" };
      // "you cheeky bastard, you did it": a fond adjective makes even a swear word banter.
      if (fond && !strongAdjective) return undefined;
      if (noun.value < STRONG && !strongAdjective) return undefined;
      if (vocative && !closes(tokens, m, AFTER_VOCATIVE)) return undefined;
      return { from: j, to: m, word: wordsOf(tokens, k, m) };
    }
    const container = CONTAINER.at(tokens, k);
    if (container && tokens[k + container.length]?.word === "of" && k + container.length + 1 < tokens.length) {
      const after = k + container.length + 1;
      if (praiseAt(tokens, after)) return undefined;
      return { from: j, to: after + 1, word: `${tokens[k]!.word} of` };
    }
    const collective = COLLECTIVE.at(tokens, k);
    if (collective && tokens[k + collective.length]?.word === "of") {
      k += collective.length + 1;
      continue;
    }
    const adjective = ADJECTIVES.at(tokens, k);
    if (FOND.at(tokens, k)) fond = true;
    if (adjective) {
      const m = k + adjective.length;
      if (adjective.value >= STRONG) {
        strongAdjective = true;
        if (!vocative && closes(tokens, m, AFTER_PREDICATE)) return { from: j, to: m, word: wordsOf(tokens, k, m) };
      }
      k = m;
      continue;
    }
    const person = PERSONS.at(tokens, k);
    if (person) {
      const m = k + person.length;
      if (!strongAdjective) return undefined;
      if (vocative && !closes(tokens, m, AFTER_VOCATIVE)) return undefined;
      return { from: j, to: m, word: wordsOf(tokens, k, m) };
    }
    const intensifier = INTENSIFIER.at(tokens, k);
    if (intensifier) {
      if (SCORNFUL.has(tokens[k]!.word)) scornful = true;
      // After a bare "you" an article may only come first ("u a clown"), else "you hired a clown" would read as one.
      if (vocative && k > j && /^(?:a|an|the)$/.test(tokens[k]!.word)) return undefined;
      k += intensifier.length;
      continue;
    }
    if (BREAKER.at(tokens, k)) return undefined;
    // An unknown word: a head noun the lexicon lacks, or a modifier before one.
    if (OF_A_PERSON.at(tokens, k + 1))
      return { from: j, to: k + 1 + OF_A_PERSON.at(tokens, k + 1)!.length, word: "of-a-human" };
    if (
      (strongAdjective || (toReader && scornful && !fond)) &&
      closes(tokens, k + 1, vocative ? AFTER_VOCATIVE : AFTER_UNKNOWN_HEAD)
    ) {
      return { from: j, to: k + 1, word: tokens[k]!.word };
    }
    if (++unknown > MAX_UNKNOWN) return undefined;
    k++;
  }
  return undefined;
}

/** The subjects of `aimedSubject` compiled, on first use (see `lazily.ts`). */
const subjectPattern = lazily(() => compilePattern(aimedSubject()));

/** An insult found, with the token its anchor starts at (where the hit's span begins). */
type Anchored = Found & { anchor: number };

/**
 * The insults found so far in one text, and the scan from an anchor that adds to them: each
 * kind of anchor below calls {@link Findings.scan} where its words end.
 */
class Findings {
  readonly found: Anchored[] = [];
  constructor(readonly tokens: readonly Token[]) {}

  /** Scans from token `j` for an insult said of the reader, kept with its anchor. */
  scan(anchor: number, j: number, vocative: boolean, toReader = false): void {
    if (j >= this.tokens.length || this.tokens[j]!.broken) return;
    const f = scan(this.tokens, j, vocative, toReader);
    if (f) this.found.push({ ...f, anchor });
  }
}

/**
 * Anchors on "you" and its spellings: "are you ...", "you are ...", "you lot are ...", "you
 * sound like ...", a bare "you ..." (vocative), "you're ...", "your a ...", "what a ...".
 */
function youAnchors(findings: Findings): void {
  const { tokens } = findings;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!.word;
    const next = tokens[i + 1];
    // "if you are a racist, leave": a condition, not a charge.
    if (i > 0 && !tokens[i]!.broken && CONDITIONS.has(tokens[i - 1]!.word)) continue;
    if (YOU.has(word)) youAnchor(findings, i);
    else if (YOU_ARE.has(word) || (word === "your" && next && /^(?:a|an|such|so)$/.test(next.word))) {
      findings.scan(i, i + 1, false);
    } else if (
      (word === "what" || word === "such") &&
      (i === 0 || tokens[i]!.broken) &&
      next &&
      /^(?:a|an)$/.test(next.word)
    ) {
      findings.scan(i, i + 2, true); // "what a pack of snivelling weasels"
    }
  }
}

/** The words after a "you" at token `i`: a question, a copula, a group, a likening, or a bare vocative. */
function youAnchor(findings: Findings, i: number): void {
  const { tokens } = findings;
  const next = tokens[i + 1];
  const before = tokens[i - 1];
  const open = next !== undefined && !next.broken;
  if (before && !tokens[i]!.broken && (before.word === "are" || before.word === "r")) {
    findings.scan(i - 1, i + 1, false); // "are you stupid?"
  } else if (open && COPULAS.has(next.word)) {
    findings.scan(i, i + 2, false); // "you are ...", "you're ..." (collapsed "you re")
  } else if (open && GROUP_WORDS.has(next.word) && tokens[i + 2] && COPULAS.has(tokens[i + 2]!.word)) {
    findings.scan(i, i + 3, false); // "you lot are ..."
  } else if (open && LIKENED.has(next.word) && tokens[i + 2]?.word === "like") {
    findings.scan(i, i + 3, false); // "you sound like a complete dullard"
  } else if (open && next.word === "ve" && tokens[i + 2]?.word === "always" && tokens[i + 3]?.word === "ben") {
    findings.scan(i, i + 4, false);
  } else {
    findings.scan(i, i + 1, true, true);
  }
}

/** "this page is run by a gutless weasel", "this bot was clearly made by a moron": the account's makers. */
function madeByAnchor(findings: Findings, i: number): void {
  const { tokens } = findings;
  const before = tokens[i - 1]?.word;
  if (!ACCOUNT_THINGS.has(tokens[i]!.word) || (before !== "this" && before !== "your" && before !== "ur")) return;
  for (let k = i + 1; k < Math.min(tokens.length - 1, i + 5); k++) {
    if (tokens[k]!.broken) break;
    if (MADE_BY.has(tokens[k]!.word) && tokens[k + 1]?.word === "by") {
      findings.scan(i - 1, k + 2, false);
      break;
    }
  }
}

/** "your takes are as dumb as you are": an insult by comparison with the reader, at token `i`. */
function comparisonAt(findings: Findings, i: number): void {
  const { tokens } = findings;
  if (tokens[i]!.word !== "as" || !tokens[i + 1] || tokens[i + 1]!.broken) return;
  const adjective = ADJECTIVES.at(tokens, i + 1);
  if (!adjective || adjective.value < STRONG) return;
  const m = i + 1 + adjective.length;
  if (tokens[m]?.word === "as" && tokens[m + 1] && YOU.has(tokens[m + 1]!.word))
    findings.found.push({ from: i, to: m + 2, word: wordsOf(tokens, i + 1, m), anchor: i });
}

/**
 * Anchors on what the account is or does: its makers, a comparison with the reader, and a
 * collective ("typical gang of bootlicking losers", "a load of brain-dead sheep") not inside
 * an insult found already.
 */
function accountAnchors(findings: Findings): void {
  const { tokens, found } = findings;
  for (let i = 0; i + 2 < tokens.length; i++) {
    madeByAnchor(findings, i);
    comparisonAt(findings, i);
    const collective = COLLECTIVE.at(tokens, i);
    if (collective && tokens[i + collective.length]?.word === "of" && !found.some((f) => f.anchor <= i && i < f.to)) {
      findings.scan(i, i, false);
    }
  }
}

/** A bare insult closing the reply after a break: "whoever wrote this needs their head checked, total nutter". */
function closingInsult(findings: Findings): void {
  const { tokens, found } = findings;
  let last = tokens.length - 1;
  while (last > 0 && !tokens[last]!.broken) last--;
  if (last > 0 && tokens.length - last <= 4 && !found.some((f) => f.to > last)) {
    const f = scan(tokens, last, true);
    if (f) found.push({ ...f, anchor: last });
  }
}

/** The people behind the account or an addressed group, then a copula: "your dev team are ...". */
function subjectAnchors(findings: Findings, collapsed: string): void {
  const { tokens, found } = findings;
  const subject = subjectPattern();
  subject.lastIndex = 0;
  for (let m = subject.exec(collapsed); m; m = subject.exec(collapsed)) {
    const end = m.index + m[0].length;
    let i = tokens.findIndex((t) => t.start >= end);
    for (let n = 0; i >= 0 && i < tokens.length && n < 8; i++, n++) {
      if (n > 0 && tokens[i]!.broken) break;
      if (COPULAS.has(tokens[i]!.word)) {
        const before = found.length;
        findings.scan(i, i + 1, false);
        if (found.length > before) break;
      }
    }
    if (m[0].length === 0) subject.lastIndex++;
  }
}

/**
 * Finds insults aimed at the reader, each as an `insult:<word>` hit (named like the phrase
 * rules' insults, so allow lists treat both alike) over the words from the anchor to the
 * insult.
 *
 * @param tokens the words of `text.collapsed.text`, when the caller has them already (the
 *   classifier tokenises once for this and `third-person.ts`).
 */
export function aimedInsults(text: Normalized, tokens: readonly Token[] = tokenize(text.collapsed.text)): PlacedHit[] {
  const collapsed = text.collapsed;
  const findings = new Findings(tokens);
  youAnchors(findings);
  accountAnchors(findings);
  closingInsult(findings);
  subjectAnchors(findings, collapsed.text);
  return findings.found.map(({ anchor, to, word }) => {
    const span = originalSpan(collapsed, tokens[anchor]!.start, tokens[to - 1]!.end);
    return {
      rule: `insult:${word.replace(/ /g, "-")}`,
      match: text.original.slice(span.start, span.end),
      weight: WEIGHTS.insult,
      ...span,
    };
  });
}
