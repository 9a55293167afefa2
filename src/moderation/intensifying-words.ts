/**
 * The words that both insult-lexicon.ts's `INTENSIFIERS` (between "you" and an insult, for
 * the detectors) and lexicon.ts's `INSULT_MODIFIERS` (the same place, for the phrase rules)
 * start with, kept once. A module of its own, not an export of either: the model's
 * fingerprint digests every export of those two (fingerprint.ts), and the lists it reads
 * are the same with these spliced in, word for word and in order.
 */

/** Articles, and "such": "you're such a ...", "you the ...". */
export const LEADING_WORDS: readonly string[] = ["a", "an", "the", "such"];

/** Intensifiers, and swearing used as one: "you're so fucking ...", "you absolute ...". */
export const INTENSIFYING_WORDS: readonly string[] = [
  "so",
  "too",
  "one",
  "really",
  "truly",
  "just",
  "honestly",
  "literally",
  "actually",
  "absolute",
  "absolutely",
  "total",
  "totally",
  "complete",
  "completely",
  "utter",
  "utterly",
  "real",
  "massive",
  "huge",
  "big",
  "biggest",
  "most",
  "fucking",
  "fuckin",
  "fkn",
  "freaking",
  "frigging",
  "bloody",
  "damn",
  "goddamn",
];
