/**
 * The features the abuse model reads from a text: hashed word unigrams and bigrams and
 * character 3- to 5-grams of its normalised form (`normalize(text).collapsed.text`: masks
 * filled in, leetspeak and look-alikes read, lower case, letter repeats collapsed), so
 * "y0u're a w0rthle$$ m0r0n" and "you're a worthless moron" look the same to the model.
 *
 * Words say what is said ("know where you live", "your kids"); character n-grams carry it
 * to spellings and words the training text did not have ("worthles" in "worthlessly",
 * "brainles" in "brainless"). Both are hashed into {@link FEATURE_BUCKETS} buckets, so the
 * model is one array of weights with no vocabulary to ship, and the training script and the
 * classifier cannot disagree about which feature is which: both call {@link features}.
 */

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

const isWordChar = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

/** A text's features: parallel lists of bucket and value (a bucket may repeat: values add up). */
export interface FeatureVector {
  readonly indices: number[];
  readonly values: number[];
}

/**
 * The features of one normalised text (`normalize(text).collapsed.text`). Word features
 * (unigrams, bigrams, with the start and end of the text as words) and character n-grams
 * (over the words joined by single spaces, padded with a space) are each scaled by
 * 1/√(their count), so a long reply and a short one weigh their evidence alike.
 */
export function features(normalised: string): FeatureVector {
  // Words as hashes of their characters; everything but a-z and 0-9 separates words.
  const words: number[] = [];
  let joined = " ";
  let h = 0;
  let inWord = false;
  for (let i = 0; i < normalised.length; i++) {
    const code = normalised.charCodeAt(i);
    if (isWordChar(code)) {
      if (!inWord) {
        h = 0x811c9dc5;
        inWord = true;
        if (joined.length > 1) joined += " ";
      }
      h = step(h, code);
      joined += normalised[i];
    } else if (inWord) {
      words.push(h);
      inWord = false;
    }
  }
  if (inWord) words.push(h);
  joined += " ";

  const indices: number[] = [];
  const values: number[] = [];
  // Word unigrams and bigrams; 1 and 2 stand for the start and end of the text.
  const wordCount = words.length * 2 + 1;
  const wordValue = 1 / Math.sqrt(wordCount);
  let previous = 1;
  for (const w of words) {
    indices.push(bucket(w ^ WORD));
    values.push(wordValue);
    indices.push(bucket(step(step(BIGRAM, previous), w)));
    values.push(wordValue);
    previous = w;
  }
  indices.push(bucket(step(step(BIGRAM, previous), 2)));
  values.push(wordValue);

  // Character 3- to 5-grams of " word word ... ".
  const n = joined.length;
  const charCount = Math.max(1, (n - 2) + (n - 3) + (n - 4));
  const charValue = 1 / Math.sqrt(charCount);
  for (let start = 0; start + 3 <= n; start++) {
    let g = CHARS;
    for (let k = 0; k < 5 && start + k < n; k++) {
      g = step(g, joined.charCodeAt(start + k));
      if (k >= 2) {
        indices.push(bucket(g));
        values.push(charValue);
      }
    }
  }
  return { indices, values };
}
