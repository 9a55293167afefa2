/**
 * The features the abuse model reads from a text: hashed word unigrams and bigrams and
 * character 3- to 5-grams of its normalised form (`normalize(text).collapsed.text`: masks
 * filled in, leetspeak and look-alikes read, lower case, letter repeats collapsed), so
 * "y0u're a w0rthle$$ m0r0n" and "you're a worthless moron" look the same to the model.
 *
 * Words say what is said ("know where you live", "your kids"); word classes carry it to
 * words of the same kind ("your daughter"); word clusters (`word-clusters.ts`: 100,000
 * English words grouped by pre-trained word vectors) carry it to words the training text
 * never had but that mean much the same ("you filthy weasel" learns from "you filthy
 * rat"); character n-grams carry it to spellings and words the training text did not have
 * ("worthles" in "worthlessly", "brainles" in "brainless"). All are hashed into {@link FEATURE_BUCKETS} buckets, so the
 * model is one array of weights with no vocabulary to ship, and the training script and the
 * classifier cannot disagree about which feature is which: both call {@link features}.
 */

import {
  INSULT_ADJECTIVE_SCORES,
  INSULT_NOUN_SCORES,
  PRAISE_NOUNS,
  FOND_ADJECTIVES,
  STRONG,
} from "./insult-lexicon.ts";
import { INSULT_NOUNS, YOU } from "./lexicon.ts";
import { lazily } from "./lazily.ts";
import { normalizePattern } from "./normalize.ts";
import { shippedWordClusters } from "./word-clusters.ts";

/**
 * Word classes: a word of a class also counts as its class, alone and beside its
 * neighbours, so what the model learns of "your kids" carries to "your daughter", and of
 * "you gormless oaf" to insults the training text never used but the insult lexicon has.
 */
const WORD_CLASSES: Readonly<Record<string, readonly string[]>> = {
  insult: [
    ...INSULT_NOUNS,
    ...[...INSULT_NOUN_SCORES].filter(([, v]) => v >= STRONG).map(([w]) => w),
    ...[...INSULT_ADJECTIVE_SCORES].filter(([, v]) => v >= STRONG).map(([w]) => w),
  ],
  praise: [...PRAISE_NOUNS, ...FOND_ADJECTIVES],
  you: [...YOU, "your", "ur", "yours", "youre", "yourself"],
  family:
    "mum mom mother mam dad father wife husband kids kid children child son daughter sister brother family gran nan grandma grandad baby girlfriend boyfriend parents partner missus".split(
      " ",
    ),
  place:
    "house home address street road work office school gym car door window flat workplace shift job postcode town bus train station park".split(
      " ",
    ),
  harm: "kill hurt beat stab shoot punch break smash burn bleed knife gun bullet blade hospital teeth jaw skull neck grave funeral die dead death rope bleach choke drown suffer pain broken bones ambulance wheelchair".split(
    " ",
  ),
  sexual:
    "naked nude nudes pics bed knees lap tits boobs ass body dress skirt underwear lick taste moan scream sexy hot bend spank daddy".split(
      " ",
    ),
};
/** log2 of the number of hash buckets (2^18 = 262,144: few collisions for ~100k distinct n-grams). */
export const FEATURE_BITS = 18;
export const FEATURE_BUCKETS = 1 << FEATURE_BITS;
const MASK = FEATURE_BUCKETS - 1;

/** Namespaces, so the word "you" and the character 3-gram "you" are different features. */
const WORD = 0x9e3779b1;
const BIGRAM = 0x85ebca77;
const CHARS = 0xc2b2ae3d;

/** FNV-1a step over one UTF-16 code unit. */
const step = (h: number, code: number): number => Math.imul(h ^ code, 0x01000193);

/** Final avalanche (murmur3 fmix32), so nearby FNV values spread over the buckets. */
function bucket(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & MASK;
}

const wordHash = (word: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = step(h, word.charCodeAt(i));
  return h;
};

/**
 * Word hash → its class's id (a hash too); single words only, spelt as normalised text is
 * (repeats collapsed). Built on first use, not when postbot is imported (see `lazily.ts`).
 */
const classOf = lazily(() => {
  const map = new Map<number, number>();
  for (const [name, words] of Object.entries(WORD_CLASSES)) {
    const id = wordHash(`\u0001${name}`);
    for (const w of words) if (!w.includes(" ")) map.set(wordHash(normalizePattern(w)), id);
  }
  return map;
});

/**
 * What a word's clusters weigh beside its own features: twice a word feature. Measured with
 * training batches 23-27 left out and scored by a model trained on the rest (the notes of
 * the moderation-embed session): at the same weight the model leans on the words it has
 * seen, and the left-out text gained less from the clusters (recall at precision 0.95: 0.50,
 * against 0.59 at twice and 0.38 with no clusters); three times was no better.
 */
const CLUSTER_WEIGHT = 2;

/** Word hash → fine cluster id, and each fine cluster's feature hashes (its own and its coarse cluster's); built on first use. */
interface Clusters {
  readonly of: Map<number, number>;
  readonly fine: readonly number[];
  readonly coarse: readonly number[];
}
let clusters: Clusters | undefined;
function loadClusters(): Clusters {
  const of = new Map<number, number>();
  const fine: number[] = [];
  const coarse: number[] = [];
  for (const [word, [f, c]] of shippedWordClusters().of) {
    of.set(wordHash(word), f);
    fine[f] ??= wordHash(`\u0002${f}`);
    coarse[f] ??= wordHash(`\u0003${c}`);
  }
  return { of, fine, coarse };
}

/**
 * What defines the features, as data, for the trained model's fingerprint (`fingerprint.ts`):
 * weights are fitted to one hashing size, one set of word classes and one weight of clusters.
 */
export function featuresDefinition(): unknown {
  return { bits: FEATURE_BITS, classes: WORD_CLASSES, clusterWeight: CLUSTER_WEIGHT };
}

/** The id of the word clusters the features use (`word-clusters.json`): weights are trained for one clustering. */
export const featureClustersId = (): string => shippedWordClusters().id;

const isWordChar = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

/** A text's features: parallel lists of bucket and value (a bucket may repeat: values add up). */
export interface FeatureVector {
  readonly indices: number[];
  readonly values: number[];
}

/**
 * Hands each feature of one normalised text (`normalize(text).collapsed.text`) to `visit`,
 * as its bucket and value, without building lists (the classifier only sums weights). Word
 * features (unigrams, bigrams, with the start and end of the text as words, for a word
 * of a class its class alone, after the previous word and before the next, and for a word
 * of a cluster its clusters, see above) and character
 * n-grams (over the words joined by single spaces, padded with a space) are each scaled by
 * 1/√(their count), so a long reply and a short one weigh their evidence alike.
 */
export function visitFeatures(normalised: string, visit: (bucket: number, value: number) => void): void {
  // Words as hashes of their characters; everything but a-z and 0-9 separates words.
  const words: number[] = [];
  const joined: number[] = [32];
  let h = 0;
  let inWord = false;
  for (let i = 0; i < normalised.length; i++) {
    const code = normalised.charCodeAt(i);
    if (isWordChar(code)) {
      if (!inWord) {
        h = 0x811c9dc5;
        inWord = true;
        if (joined.length > 1) joined.push(32);
      }
      h = step(h, code);
      joined.push(code);
    } else if (inWord) {
      words.push(h);
      inWord = false;
    }
  }
  if (inWord) words.push(h);
  joined.push(32);

  // Word unigrams and bigrams; 1 and 2 stand for the start and end of the text. A word of a
  // cluster also counts as its fine cluster (alone, after the previous word, before the next
  // one) and its coarse cluster (alone).
  const { of: clusterOf, fine: fineHash, coarse: coarseHash } = (clusters ??= loadClusters());
  const classes = classOf();
  const cluster: number[] = [];
  let count = words.length * 2 + 1;
  for (const w of words) {
    if (classes.has(w)) count += 3;
    const f = clusterOf.get(w) ?? -1;
    cluster.push(f);
    if (f >= 0) count += 4;
  }
  const wordValue = 1 / Math.sqrt(count);
  const clusterValue = wordValue * CLUSTER_WEIGHT;
  let previous = 1;
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    const next = words[k + 1] ?? 2;
    const c = classes.get(w);
    if (c !== undefined) {
      // The class alone, after the previous word and before the next one.
      visit(bucket(c ^ WORD), wordValue);
      visit(bucket(step(step(BIGRAM, previous), c)), wordValue);
      visit(bucket(step(step(BIGRAM, c), next)), wordValue);
    }
    const f = cluster[k]!;
    if (f >= 0) {
      const fh = fineHash[f]!;
      visit(bucket(fh ^ WORD), clusterValue);
      visit(bucket(coarseHash[f]! ^ WORD), clusterValue);
      visit(bucket(step(step(BIGRAM, previous), fh)), clusterValue);
      visit(bucket(step(step(BIGRAM, fh), next)), clusterValue);
    }
    visit(bucket(w ^ WORD), wordValue);
    visit(bucket(step(step(BIGRAM, previous), w)), wordValue);
    previous = w;
  }
  visit(bucket(step(step(BIGRAM, previous), 2)), wordValue);

  // Character 3- to 5-grams of " word word ... ".
  const n = joined.length;
  const charValue = 1 / Math.sqrt(Math.max(1, n - 2 + (n - 3) + (n - 4)));
  for (let start = 0; start + 3 <= n; start++) {
    let g = CHARS;
    for (let k = 0; k < 5 && start + k < n; k++) {
      g = step(g, joined[start + k]!);
      if (k >= 2) visit(bucket(g), charValue);
    }
  }
}

/** The features of one normalised text as lists (for training), from {@link visitFeatures}. */
export function features(normalised: string): FeatureVector {
  const indices: number[] = [];
  const values: number[] = [];
  visitFeatures(normalised, (index, value) => {
    indices.push(index);
    values.push(value);
  });
  return { indices, values };
}
