/**
 * How sure the built-in classifier is of a reply, and its *unsure band*: the replies a second
 * opinion (a judge) is asked about with `when: unsure`.
 *
 * The built-in's **evidence** for a reply is one number in 0..1: its score (`score.ts`), or,
 * where no rule but swearing fired and the trained model was asked, the larger of its score
 * and the model's probability scaled to the model's hit (`WEIGHTS.model × p / cut`, so a
 * probability at the model's cut counts as its hit, 0.7, and one half-way to it half as
 * much). The model reads every reply no rule caught, so its probability is what the built-in
 * knows of the plain-word abuse it misses.
 *
 * A reply is **unsure** when its evidence lies in [{@link UNSURE_BAND}.low,
 * {@link UNSURE_BAND}.high) = [0.3, 0.75): swearing alone (0.3), an insult beside laughter
 * (0.35), one insult, harassment rule or the model alone (0.7), and the replies the model
 * leans towards without reaching its cut (p ≥ 0.39 at the shipped cut 0.91). Below it the
 * built-in found nothing to speak of; from 0.75 up it found what it is nearly never wrong
 * about: an insult with swearing (0.79), a slur (0.9), a threat (0.95), a blocked term (1).
 * The cuts are fixed here, not tuned to any batch of replies.
 */
import { WEIGHTS } from "./score.ts";
import type { Assessment, Verdict } from "./types.ts";

/** The unsure band: evidence in [low, high). See the module comment. */
export const UNSURE_BAND = { low: 0.3, high: 0.75 } as const;

/** The built-in's evidence for a reply: its score, or the model's scaled probability where that is more. */
export function evidenceOf(verdict: Verdict, probability: number | undefined, cut: number | undefined): number {
  if (probability === undefined || cut === undefined) return verdict.score;
  const scaled = Math.min(1, (WEIGHTS.model * probability) / cut);
  return Math.round(Math.max(verdict.score, scaled) * 1000) / 1000;
}

/** Whether evidence lies in the unsure band. */
export const isUnsure = (evidence: number): boolean => evidence >= UNSURE_BAND.low && evidence < UNSURE_BAND.high;

/** A verdict with its evidence, the model's probability and whether it is in the unsure band. */
export function assessment(verdict: Verdict, probability: number | undefined, cut: number | undefined): Assessment {
  const evidence = evidenceOf(verdict, probability, cut);
  return {
    verdict,
    evidence,
    unsure: isUnsure(evidence),
    ...(probability === undefined ? {} : { model: Math.round(probability * 1000) / 1000 }),
  };
}
