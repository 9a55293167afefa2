/**
 * Cross-validation for the abuse model: the folds (related texts together), out-of-fold
 * scores and the choice of the model's cut, used by `npm run train:moderation`
 * (train-moderation.ts) for the shipped weights. The training itself is
 * src/moderation/training/trainer.ts, which `bot moderation train` uses too.
 */
import { seededRandom } from "../src/seeded-random.ts";
import {
  DEFAULT_TRAIN_OPTIONS,
  textProbability,
  train,
  type Example,
  type TrainOptions,
} from "../src/moderation/training/trainer.ts";
import { groupTexts } from "./moderation-groups.ts";

/**
 * The fold of each example for `folds`-fold cross-validation: related texts (one
 * {@link groupTexts} group: twins and texts on one sentence frame) always share a fold, so a
 * text is never scored by a model trained on its twin. Groups are dealt largest first, in a
 * seeded order among equals, each to the fold with fewest texts of the group's majority
 * label, so every fold has its share of abusive and harmless text.
 */
export function assignFolds(examples: readonly Example[], folds: number, seed: number): number[] {
  const rng = seededRandom(seed);
  const group = groupTexts(examples.map((e) => e.text));
  const members = new Map<number, number[]>();
  group.forEach((g, i) => {
    const list = members.get(g);
    if (list) list.push(i);
    else members.set(g, [i]);
  });
  const groups = [...members.values()];
  for (let i = groups.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [groups[i], groups[j]] = [groups[j]!, groups[i]!];
  }
  groups.sort((a, b) => b.length - a.length); // stable: the seeded order stays among equals
  const counts = Array.from({ length: folds }, () => ({ abusive: 0, harmless: 0 }));
  const fold = new Array<number>(examples.length);
  for (const list of groups) {
    const abusive = list.filter((i) => examples[i]!.abusive).length;
    const label = abusive * 2 >= list.length ? "abusive" : "harmless";
    let best = 0;
    for (let f = 1; f < folds; f++) {
      const [a, b] = [counts[f]!, counts[best]!];
      if (a[label] < b[label] || (a[label] === b[label] && a.abusive + a.harmless < b.abusive + b.harmless)) best = f;
    }
    for (const i of list) fold[i] = best;
    counts[best]!.abusive += abusive;
    counts[best]!.harmless += list.length - abusive;
  }
  return fold;
}

/**
 * Out-of-fold probabilities: each example scored by a model trained on the other folds
 * (folds from {@link assignFolds}: related texts together).
 */
export function crossValidate(
  examples: readonly Example[],
  folds: number,
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): { scores: number[]; fold: number[] } {
  const fold = assignFolds(examples, folds, options.seed + 1);
  const scores = new Array<number>(examples.length);
  for (let f = 0; f < folds; f++) {
    const model = train(
      examples.filter((_, i) => fold[i] !== f),
      options,
    );
    examples.forEach((e, i) => {
      if (fold[i] === f) scores[i] = textProbability(model, e.text);
    });
  }
  return { scores, fold };
}

/**
 * Out-of-fold probabilities from several repeats of {@link crossValidate}, each with its own
 * seed (its own folds and training order), laid end to end: example `i` of repeat `r` is at
 * `r * examples.length + i`, in fold `r * folds + f`. One repeat's cut is a lottery: with
 * the same data, seeds 12, 20, 30, 40 and 50 chose 0.91, 0.93, 0.93, 0.93 and 0.93, so any
 * small change of data or rules moved the shipped cut by 0.02 and the recall with it.
 * Pooled over repeats, the cut moves with the data, not with the seed.
 */
export function repeatedCrossValidate(
  examples: readonly Example[],
  folds: number,
  seeds: readonly number[],
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
): { scores: number[]; fold: number[] } {
  const scores: number[] = [];
  const fold: number[] = [];
  seeds.forEach((seed, r) => {
    const run = crossValidate(examples, folds, { ...options, seed });
    scores.push(...run.scores);
    fold.push(...run.fold.map((f) => r * folds + f));
  });
  return { scores, fold };
}

export interface Figures {
  readonly precision: number;
  readonly recall: number;
}

/** Precision and recall of verdicts against labels. */
export function figures(verdicts: readonly boolean[], examples: readonly Example[]): Figures {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  verdicts.forEach((v, i) => {
    const y = examples[i]!.abusive;
    if (v && y) tp++;
    else if (v) fp++;
    else if (y) fn++;
  });
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn) };
}

/** Figures of a cut out of fold: pooled, and the spread of precision between the folds. */
export interface CutFigures extends Figures {
  readonly cut: number;
  /** Precision of each fold at this cut. */
  readonly foldPrecision: readonly number[];
  /** Standard deviation of {@link foldPrecision}: how far one fold's precision strays from the pooled figure. */
  readonly spread: number;
}

/** The pooled and per-fold figures of `rules OR score >= cut`. */
export function cutFigures(
  cut: number,
  scores: readonly number[],
  rules: readonly boolean[],
  examples: readonly Example[],
  fold: readonly number[],
): CutFigures {
  const verdicts = scores.map((s, i) => rules[i]! || s >= cut);
  const folds = Math.max(...fold) + 1;
  const foldPrecision = Array.from({ length: folds }, (_, f) => {
    const members = fold.map((g, i) => (g === f ? i : -1)).filter((i) => i >= 0);
    return figures(
      members.map((i) => verdicts[i]!),
      members.map((i) => examples[i]!),
    ).precision;
  });
  const mean = foldPrecision.reduce((a, b) => a + b, 0) / folds;
  const spread = Math.sqrt(foldPrecision.reduce((a, p) => a + (p - mean) ** 2, 0) / (folds - 1));
  return { cut, ...figures(verdicts, examples), foldPrecision, spread };
}

/**
 * The lowest cut (so the highest recall), searched in steps of 0.01, at which
 * `rules OR probability >= cut` keeps pooled out-of-fold precision at or above
 * `minPrecision` (the training script asks for issue 12's aim plus a margin). The folds'
 * spread is reported beside it, not used: it is as noisy as the margin it would measure.
 */
export function chooseCut(
  scores: readonly number[],
  rules: readonly boolean[],
  examples: readonly Example[],
  fold: readonly number[],
  minPrecision: number,
): CutFigures {
  for (let c = 1; c <= 99; c++) {
    const f = cutFigures(c / 100, scores, rules, examples, fold);
    if (f.precision >= minPrecision) return f;
  }
  return cutFigures(0.99, scores, rules, examples, fold);
}
