/**
 * Training for the abuse model (`../model.ts`): logistic regression over the hashed features
 * of `../features.ts`, fitted by stochastic gradient descent with AdaGrad step sizes and L2
 * regularisation, written by hand (a few dozen lines; no library needed, nothing native).
 * Everything random is seeded, so the same data and options give the same weights, bit for
 * bit. Used by `npm run train:moderation` (the shipped weights) and by
 * `bot moderation train` (a model taught by an operator's labels: ./taught.ts); it lives in
 * `src/` so an installed postbot can train.
 */
import { seededRandom, type Random } from "../../seeded-random.ts";
import { FEATURE_BITS, FEATURE_BUCKETS, featureClustersId, features, type FeatureVector } from "../features.ts";
import { trainingFingerprint } from "../fingerprint.ts";
import { modelParts, modelText, type ModelFile } from "../model.ts";

/** One labelled text. */
export interface Example {
  readonly text: string;
  readonly abusive: boolean;
  /**
   * How many examples this one counts as, a whole number (default 1): an operator's label
   * weighs more than one of the thousands shipped (./taught.ts). Each pass over the data
   * takes it that many times, at shuffled places, so a weight of 20 is 20 updates of an
   * ordinary step rather than one step 20 times the size, which AdaGrad's per-feature step
   * sizes would mostly undo.
   */
  readonly weight?: number;
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

const ONSETS = ["", ..."b d f g h k l m n p r s t v w z br st tr ch sh".split(" ")];
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
  const all = [...examples, ...fillers];
  const data: Vectorised[] = all.map((e) => ({ x: vectorise(e.text), y: e.abusive ? 1 : 0 }));
  // Each example as many times as its weight; shuffled in place every pass, so the order
  // compounds from pass to pass (with every weight 1, the order the shipped weights were trained in).
  const order = all.flatMap((e, i) => Array.from({ length: Math.max(1, Math.round(e.weight ?? 1)) }, () => i));
  const model: Trained = { weights: new Float64Array(FEATURE_BUCKETS), bias: 0 };
  const squares = new Float64Array(FEATURE_BUCKETS);
  let biasSquares = 0;
  const { learningRate: rate, l2 } = options;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
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
