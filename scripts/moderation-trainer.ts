/**
 * Training for the abuse model (src/moderation/model.ts): logistic regression over the
 * hashed features of src/moderation/features.ts, fitted by stochastic gradient descent with
 * AdaGrad step sizes and L2 regularisation, written by hand (a few dozen lines; no library
 * needed, nothing native). Everything random is seeded, so the same data and options give
 * the same weights, bit for bit. Used by `npm run train:moderation` (train-moderation.ts).
 */
import {
  FEATURE_BITS,
  FEATURE_BUCKETS,
  featureClustersId,
  features,
  type FeatureVector,
} from "../src/moderation/features.ts";
import { trainingFingerprint } from "../src/moderation/fingerprint.ts";
import { modelParts, modelText, type ModelFile } from "../src/moderation/model.ts";
import { seededRandom, type Random } from "../src/sandbox/crowd/random.ts";
import { groupTexts } from "./moderation-groups.ts";

/** One labelled text. */
export interface Example {
  readonly text: string;
  readonly abusive: boolean;
}

interface Vectorised {
  readonly x: FeatureVector;
  readonly y: number;
}

export interface TrainOptions {
  /** Passes over the data. */
  readonly epochs: number;
  /** AdaGrad's base step. */
  readonly learningRate: number;
  /** L2 penalty per update on the weights an example touches. */
  readonly l2: number;
  readonly seed: number;
  /**
   * Made-up harmless texts added to the training data (not to what cross-validation scores):
   * one to six pronounceable nonsense words ("velo taruni"). Labelled texts are half abuse,
   * so without them a word the model has never seen ("Lima", "Austin") is read as the
   * average labelled text, half abusive; with them, what the model does not know counts as
   * harmless and only words and spellings seen in abuse raise the score.
   */
  readonly fillers: number;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = { epochs: 12, learningRate: 0.3, l2: 1e-4, seed: 12, fillers: 1000 };

/** The weights of a trained model, before pruning and rounding. */
export interface Trained {
  readonly weights: Float64Array;
  bias: number;
}

/** The features of a raw text, read as the classifier has the model read it ({@link modelText}). */
export function vectorise(text: string): FeatureVector {
  return features(modelText(text));
}

const ONSETS = [
  "",
  "b",
  "d",
  "f",
  "g",
  "h",
  "k",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "w",
  "z",
  "br",
  "st",
  "tr",
  "ch",
  "sh",
];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou", "ee"];

/** One made-up harmless text of {@link TrainOptions}.fillers. */
function filler(rng: Random): Example {
  const words = Array.from(
    { length: 1 + rng.int(6) },
    () =>
      Array.from({ length: 1 + rng.int(3) }, () => rng.pick(ONSETS) + rng.pick(VOWELS)).join("") +
      (rng.chance(0.4) ? rng.pick(["n", "r", "s", "l", "t"]) : ""),
  );
  return { text: words.join(" "), abusive: false };
}

/** The trained model's probability for a raw text, read as the classifier reads it (the highest of its parts). */
export function textProbability(model: Trained, text: string): number {
  return Math.max(...modelParts(modelText(text)).map((part) => probability(model, features(part))));
}

/** The model's probability for one vector. */
export function probability(model: Trained, x: FeatureVector): number {
  let z = model.bias;
  for (let i = 0; i < x.indices.length; i++) z += model.weights[x.indices[i]!]! * x.values[i]!;
  return 1 / (1 + Math.exp(-z));
}

/** Fits a model to the examples; deterministic for given examples and options. */
export function train(examples: readonly Example[], options: TrainOptions = DEFAULT_TRAIN_OPTIONS): Trained {
  const rng = seededRandom(options.seed);
  const fillers = Array.from({ length: options.fillers }, () => filler(rng));
  const data: Vectorised[] = [...examples, ...fillers].map((e) => ({ x: vectorise(e.text), y: e.abusive ? 1 : 0 }));
  const model: Trained = { weights: new Float64Array(FEATURE_BUCKETS), bias: 0 };
  const squares = new Float64Array(FEATURE_BUCKETS);
  let biasSquares = 0;
  const order = data.map((_, i) => i);
  const { learningRate: rate, l2 } = options;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    // Fisher-Yates with the seeded generator: the same order every run.
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const k of order) {
      const { x, y } = data[k]!;
      const error = probability(model, x) - y;
      for (let i = 0; i < x.indices.length; i++) {
        const f = x.indices[i]!;
        const g = error * x.values[i]! + l2 * model.weights[f]!;
        squares[f]! += g * g;
        model.weights[f]! -= (rate * g) / Math.sqrt(squares[f]! + 1e-8);
      }
      biasSquares += error * error;
      model.bias -= (rate * error) / Math.sqrt(biasSquares + 1e-8);
    }
  }
  return model;
}

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

/**
 * The model as stored: weights below `prune` in size dropped, the rest rounded to four
 * decimals, buckets delta-encoded, with the fingerprint of the rules, word lists and
 * features it was trained behind.
 */
export function toModelFile(
  model: Trained,
  cut: number,
  prune: number,
  generated: string,
  measured: unknown,
): ModelFile {
  const buckets: number[] = [];
  const weights: number[] = [];
  let last = 0;
  for (let f = 0; f < FEATURE_BUCKETS; f++) {
    const w = Math.round(model.weights[f]! * 10_000) / 10_000;
    if (Math.abs(w) < prune || w === 0) continue;
    buckets.push(f - last);
    weights.push(w);
    last = f;
  }
  return {
    generated,
    bits: FEATURE_BITS,
    wordClusters: featureClustersId(),
    fingerprint: trainingFingerprint(),
    bias: Math.round(model.bias * 10_000) / 10_000,
    cut,
    buckets,
    weights,
    measured,
  };
}
