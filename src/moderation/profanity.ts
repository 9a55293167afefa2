/**
 * Swear words and slurs, found by obscenity (its English dataset, its matcher, its
 * handling of repeated letters and look-alike characters) on the folded text, which has
 * already had spaced letters joined and masks filled in. What is added here: slurs the
 * dataset lacks, a few common spellings it misses, and look-alikes it wrongly matches
 * ("shiitake", "Penistone", "cockpit", "Rio Negro", "fire retardant", "blue tit").
 */
import type { DataSet, EnglishProfaneWord, StatefulTransformerContainer, TransformerContainer } from "obscenity";
import { EXTRA_SLURS, HARMLESS_LOOKALIKES, SLUR_WORDS } from "./lexicon.ts";
import { normalize, originalSpan, type TracedText } from "./normalize.ts";
import { obscenity } from "./obscenity.ts";
import { createTermMatcher } from "./term-matcher.ts";
import { WEIGHTS } from "./score.ts";
import type { PlacedHit } from "./types.ts";

interface Word {
  originalWord: string;
}

/** Spellings obscenity's dataset misses, as obscenity patterns (`|` is a word boundary). */
const EXTRA_PROFANITY: ReadonlyArray<[word: string, patterns: string[]]> = [
  ["fuck", ["|phuck", "|phuk", "|fuq|", "|fuk"]],
  ["ass", ["|dumbass", "|jackass", "|smartass"]],
  ["bitch", ["|biatch", "|biotch"]],
  ["cunt", ["|kunt|", "|kunts|", "|cvnt", "|kvnt"]],
  ["jizz", ["|jizz", "|jiz|"]],
];

/**
 * A word as obscenity's matcher sees it: its last transformer folds a run of one letter to
 * one ("zipperhead" reads "ziperhead"), or to two for b, e, o, l, s and g ("jigaboo"), before
 * patterns are matched, so a pattern spelt with other doubled letters would never match.
 */
export function asMatched(word: string): string {
  return word.replace(/([a-z])\1+/g, (run, letter: string) =>
    letter.repeat(Math.min(run.length, "beolsg".includes(letter) ? 2 : 1)),
  );
}

function buildDataSet(): DataSet<Word> {
  const { DataSet, englishDataset, parseRawPattern } = obscenity();
  const data = new DataSet<Word>().addAll(
    englishDataset as DataSet<{ originalWord: EnglishProfaneWord }> as DataSet<Word>,
  );
  for (const [word, patterns] of EXTRA_PROFANITY) {
    data.addPhrase((phrase) => {
      phrase.setMetadata({ originalWord: word });
      for (const p of patterns) phrase.addPattern(parseRawPattern(p));
      return phrase;
    });
  }
  for (const slur of EXTRA_SLURS) {
    data.addPhrase((phrase) =>
      phrase.setMetadata({ originalWord: slur }).addPattern(parseRawPattern(`|${asMatched(slur)}|`)),
    );
  }
  return data;
}

/**
 * What the matcher knows, as data (obscenity's dataset with the additions above: each
 * word's patterns, its harmless look-alikes and its name), for the trained model's
 * fingerprint (`fingerprint.ts`): a new word here, or a new obscenity, asks for a retrain.
 */
export function profanityVocabulary(): string {
  return JSON.stringify(buildDataSet());
}

/** obscenity's collapsing of repeated letters, the last of its recommended English transformers (see {@link asMatched}). */
export function collapseRepeats(): StatefulTransformerContainer {
  const last: TransformerContainer | undefined = obscenity().englishRecommendedBlacklistMatcherTransformers.at(-1);
  if (last === undefined || !("factory" in last)) {
    throw new Error("obscenity's last recommended English transformer is no longer its collapsing of repeated letters");
  }
  return last;
}

/** Finds profanity and slurs; build once, use for every text. */
export interface ProfanityMatcher {
  find(folded: TracedText, original: string): PlacedHit[];
}

/** Builds the matcher (a few milliseconds: obscenity compiles its patterns). */
export function createProfanityMatcher(): ProfanityMatcher {
  const data = buildDataSet();
  const built = data.build();
  const slurs = new Set([...SLUR_WORDS, ...EXTRA_SLURS]);
  // The folded text is already lower-case ASCII with look-alikes and leetspeak read (more
  // carefully than obscenity reads them: "|" stays a separator), so of obscenity's
  // recommended transformers only the last, its collapsing of repeated letters, is still
  // needed. Re-running the other three per character was a third of its time. The terms are
  // matched as obscenity's `RegExpMatcher` matches them, without its copy of every term's
  // regular expression per text (`term-matcher.ts`).
  const matcher = createTermMatcher(built.blacklistedTerms, collapseRepeats());
  // obscenity would search every harmless look-alike in every text, which cost as much as
  // the swear words' own search; here they are searched only in a text where a swear word
  // matched, with obscenity's rule: a look-alike that contains the whole match cancels it.
  // (The folded text is already what obscenity's whitelist transformers would make of it:
  // lower case, runs of spaces squeezed; our look-alikes are folded the same way, so
  // "Offa's Dyke" is "offas dyke".)
  const whitelist = [
    ...(built.whitelistedTerms ?? []),
    ...HARMLESS_LOOKALIKES.map((term) => normalize(term).folded.text),
  ];
  const harmless = (text: string, start: number, end: number) =>
    whitelist.some((term) => {
      for (let at = text.indexOf(term); at >= 0 && at <= start; at = text.indexOf(term, at + 1)) {
        if (end <= at + term.length - 1) return true;
      }
      return false;
    });
  return {
    find(folded, original) {
      const hits: PlacedHit[] = [];
      const matches = matcher.matches(folded.text);
      if (matches.length === 0) return hits;
      const seen = new Set<string>();
      for (const match of matches) {
        if (harmless(folded.text, match.startIndex, match.endIndex)) continue;
        const word = data.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord ?? "unknown";
        const kind = slurs.has(word) ? "slur" : "profanity";
        const span = originalSpan(folded, match.startIndex, match.endIndex + 1);
        const rule = `${kind}:${word}`;
        // Several patterns of one word can match the same letters ("|shit" and "shit|").
        const key = `${rule}@${span.start}`;
        if (seen.has(key)) continue;
        seen.add(key);
        hits.push({ rule, match: original.slice(span.start, span.end), weight: WEIGHTS[kind], ...span });
      }
      return hits;
    },
  };
}
