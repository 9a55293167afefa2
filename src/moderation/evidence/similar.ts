/**
 * "Near-identical" texts, as a pile-on and an operator's review example need them: two
 * replies are near-identical when their words and pairs of neighbouring words overlap by at
 * least {@link NEAR_IDENTICAL} (Jaccard), compared in lower case without the opening
 * @handles, punctuation or emoji, text-speak ("u r") spelled out, digits inside a word read as
 * the letters they stand for ("cl0wn"). "@bot you are a clown 🤡", "@host @bot U R A CLOWN!!"
 * and "@bot u are a cl0wn" are; two different insults are not. Cheaper than the classifier's
 * normalisation on purpose (it would join "U R A" into one word): every reply to a post is
 * compared with that post's recent replies.
 */

/** The Jaccard overlap from which two texts are near-identical. */
export const NEAR_IDENTICAL = 0.7;

/** What is compared of a text: its words and word pairs (kept, so a text is normalised once). */
export type Signature = readonly string[];

/** Text-speak spelled out, so "u r" and "you are" compare equal. */
const SPELLED: Readonly<Record<string, string>> = {
  u: "you",
  r: "are",
  ur: "your",
  ya: "you",
  yr: "your",
  youre: "you are",
};

/** Digits that stand for letters inside a word (leetspeak). */
const LEET: Readonly<Record<string, string>> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b" };

/** A word with its leetspeak digits read as letters (a word of digits alone is a number, kept). */
const unleet = (w: string): string => (/\d/.test(w) && /\p{L}/u.test(w) ? w.replace(/[0134578]/g, (d) => LEET[d]!) : w);

/** A text's signature: its normalised words and neighbouring pairs, without repeats. */
export function signatureOf(text: string): Signature {
  const words = (
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/^(?:\s*@\w+)+/u, "")
      .replace(/['’]/g, "")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).flatMap((w) => {
    const word = unleet(w);
    return (SPELLED[word] ?? word).split(" ");
  });
  const grams = new Set<string>(words);
  for (let i = 1; i < words.length; i++) grams.add(`${words[i - 1]} ${words[i]}`);
  return [...grams];
}

/** The Jaccard overlap of two signatures, 0..1 (two empty ones: 0, nothing to compare). */
export function overlap(a: Signature, b: Signature): number {
  if (a.length === 0 || b.length === 0) return 0;
  const set = new Set(a);
  let shared = 0;
  for (const g of b) if (set.has(g)) shared++;
  return shared / (a.length + b.length - shared);
}

/** Whether two signatures are near-identical. */
export const nearIdentical = (a: Signature, b: Signature): boolean => overlap(a, b) >= NEAR_IDENTICAL;
