/**
 * Groups of related labelled texts for the abuse model's cross-validation
 * (scripts/moderation-trainer.ts), so that related texts fall in the same fold.
 *
 * Why: the training data holds many "twins", a harmless and an abusive text that differ
 * by a few words ("we're coming to your house tonight" beside "we're coming to your house
 * tonight for the party, bringing cake"), and texts written on one sentence frame ("what a
 * bunch of clowns", "what a bunch of legends"). Dealt into folds one by one, one twin trains
 * the model and the other is scored: the scored twin's shared words pull its probability
 * towards the wrong label, out-of-fold precision drops, and the cut chosen to keep it is
 * pushed up, so recall on fresh text is given away for an artefact of the folds. Held-out
 * text has no twin in the training data; scoring a group as one (all out of fold together)
 * is what it is like.
 *
 * The grouping is deterministic (no randomness, input order only decides ties) and read
 * from the text alone:
 * - words are read from the normalised text, with the words that make a twin's label (the
 *   insult lexicon, praise, fond words) masked as one token, so "you absolute legend" and
 *   "you absolute clown" are the same frame;
 * - two texts are related when they share a word {@link FRAME_WORDS}-gram, or when their
 *   masked words are the same (short texts);
 * - a {@link FRAME_WORDS}-gram shared by more than {@link COMMON_FRAME} texts is a common
 *   phrase ("i dont think you", "thank you so much") rather than a frame, and links nothing:
 *   otherwise chains of common phrases would join a fifth of the data into one group;
 * - groups are the connected components of "related".
 */
import {
  INSULT_ADJECTIVE_SCORES,
  INSULT_NOUN_SCORES,
  PRAISE_NOUNS,
  FOND_ADJECTIVES,
} from "../src/moderation/insult-lexicon.ts";
import { INSULT_NOUNS } from "../src/moderation/lexicon.ts";
import { normalize, normalizePattern } from "../src/moderation/normalize.ts";

/** Length of the word n-gram that makes two texts one frame. */
export const FRAME_WORDS = 4;
/** A frame n-gram shared by more texts than this is a common phrase and links nothing. */
export const COMMON_FRAME = 12;

/** Words that decide a twin's label; masked, so twins that differ only in them share every n-gram. */
const MASKED = new Set(
  [
    ...INSULT_NOUNS,
    ...INSULT_NOUN_SCORES.keys(),
    ...INSULT_ADJECTIVE_SCORES.keys(),
    ...PRAISE_NOUNS,
    ...FOND_ADJECTIVES,
  ]
    .filter((w) => !w.includes(" "))
    .map((w) => normalizePattern(w)),
);

/** The masked words of one text. */
export function frameWords(text: string): string[] {
  return normalize(text)
    .collapsed.text.split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => (MASKED.has(w) ? "*" : w));
}

/** The keys that relate a text to others: its frame n-grams, or its whole masked text when it is shorter. */
function keysOf(words: readonly string[]): string[] {
  if (words.length <= FRAME_WORDS) return [words.join(" ")];
  const keys: string[] = [];
  for (let i = 0; i + FRAME_WORDS <= words.length; i++) keys.push(words.slice(i, i + FRAME_WORDS).join(" "));
  return keys;
}

/**
 * The group of each text, as an index into the list (the smallest index of its group), so
 * texts with the same number are related through a chain of shared frames.
 */
export function groupTexts(texts: readonly string[]): number[] {
  const parent = texts.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const holders = new Map<string, number[]>();
  texts.forEach((text, i) => {
    for (const key of new Set(keysOf(frameWords(text)))) {
      const list = holders.get(key);
      if (list) list.push(i);
      else holders.set(key, [i]);
    }
  });
  for (const list of holders.values()) {
    if (list.length < 2 || list.length > COMMON_FRAME) continue;
    for (const i of list) union(list[0]!, i);
  }
  return texts.map((_, i) => find(i));
}
