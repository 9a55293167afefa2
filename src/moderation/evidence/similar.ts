/**
 * "Near-identical" texts, as a pile-on and an operator's review example need them: two
 * replies are near-identical when, normalised as the classifier normalises them (the opening
 * @handles blanked, leetspeak and spacing undone, repeated letters collapsed), their words and
 * pairs of neighbouring words overlap by at least {@link NEAR_IDENTICAL} (Jaccard), text-speak
 * ("u r") spelled out. "@bot you
 * are a clown 🤡" and "@bot u r a cl0wn!!" are; two different insults are not.
 */
import { normalize } from "../normalize.ts";

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

/** A text's signature: its normalised words and neighbouring pairs, without repeats. */
export function signatureOf(text: string): Signature {
  const words = (normalize(text).collapsed.text.match(/[a-z0-9]+/g) ?? []).flatMap((w) => (SPELLED[w] ?? w).split(" "));
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
