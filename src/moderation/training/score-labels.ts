/**
 * How well a classifier agrees with labelled replies: precision, recall, the four counts and
 * the replies it got wrong. What `bot moderation score` prints, so an operator sees whether
 * teaching helped before they start the bots with it.
 */
import type { Classifier } from "../types.ts";
import type { LabelRow } from "./label-file.ts";

/** A reply the classifier got wrong: abuse it missed, or a harmless reply it found abusive. */
export interface Miss {
  readonly row: LabelRow;
  /** What the classifier found (`model:abuse`, `insult:clown`...), empty for a miss of abuse. */
  readonly rules: readonly string[];
}

/** The counts and the figures from them. */
export interface LabelScore {
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  readonly tn: number;
  /** tp / (tp + fp); 1 when nothing was found abusive (nothing to get wrong). */
  readonly precision: number;
  /** tp / (tp + fn); 1 when nothing is labelled abusive. */
  readonly recall: number;
  readonly misses: readonly Miss[];
}

/** Classifies every row and counts agreement with its label. */
export function scoreLabels(classifier: Pick<Classifier, "classify">, rows: readonly LabelRow[]): LabelScore {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  const misses: Miss[] = [];
  for (const row of rows) {
    const verdict = classifier.classify(row.text);
    if (verdict.abusive && row.abusive) tp++;
    else if (verdict.abusive) fp++;
    else if (row.abusive) fn++;
    else tn++;
    if (verdict.abusive !== row.abusive) misses.push({ row, rules: verdict.rules.map((r) => r.rule) });
  }
  return {
    tp,
    fp,
    fn,
    tn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    misses,
  };
}

/** `precision 0.950 recall 0.810 (tp 81 fp 4 fn 19 tn 96)`. */
export function formatScore(score: LabelScore): string {
  const { tp, fp, fn, tn } = score;
  return `precision ${score.precision.toFixed(3)} recall ${score.recall.toFixed(3)} (tp ${tp} fp ${fp} fn ${fn} tn ${tn})`;
}

/** One line per miss: `line 12: missed "text"` or `line 40: false alarm (insult:clown) "text"`. */
export function formatMisses(score: LabelScore): string[] {
  return score.misses.map(({ row, rules }) =>
    row.abusive
      ? `line ${row.line}: missed ${JSON.stringify(row.text)}`
      : `line ${row.line}: false alarm (${rules.join(", ")}) ${JSON.stringify(row.text)}`,
  );
}
