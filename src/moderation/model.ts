/**
 * The trained abuse model: logistic regression over the hashed features of `features.ts`,
 * trained by `npm run train:moderation` (scripts/train-moderation.ts) on the labelled
 * replies postbot ships (`training/data/`; never the held-out batches) and stored as data in
 * `model-weights.json`. It catches what phrase rules cannot list: threats with no violent
 * verb, innuendo, harassment, doxxing lists and insults in words no rule has.
 *
 * The classifier asks it once per text and, when the probability reaches the cut chosen
 * by cross-validation at training time, adds a hit `model:abuse` (weight
 * {@link WEIGHTS}.model), so at the default threshold a text is hidden when a rule or the
 * model says so, and `allow: ["model:abuse"]` turns the model off for a bot.
 *
 * The weights record what they were trained behind (the word clusters' id and the
 * fingerprint of the rules, word lists and features: `fingerprint.ts`) and refuse to load
 * beside anything else, with the command that trains them again.
 */
import { readFileSync } from "node:fs";
import { packageFile } from "../package-files.ts";
import { FEATURE_BITS, FEATURE_BUCKETS, featureClustersId, visitFeatures } from "./features.ts";
import { fingerprintDifferences, trainingFingerprint, type TrainingFingerprint } from "./fingerprint.ts";
import { modelParts } from "./model-text.ts";

export { modelParts, modelText } from "./model-text.ts";

/** The shape of `model-weights.json`, as written by the training script. */
export interface ModelFile {
  /** Says the file is generated, by what command and from what. */
  readonly generated: string;
  /** {@link FEATURE_BITS} of the features it was trained on. */
  readonly bits: number;
  /** The id of the word clusters (`word-clusters.json`) its features used. */
  readonly wordClusters: string;
  /**
   * The rules, word lists and features it was trained behind (`fingerprint.ts`): the file is
   * refused beside others. Absent only in a file written before fingerprints, which is refused
   * too.
   */
  readonly fingerprint?: TrainingFingerprint;
  readonly bias: number;
  /** The probability from which the model calls a text abusive (chosen by cross-validation). */
  readonly cut: number;
  /** The buckets with a weight, each as its distance from the previous one (the first from 0). */
  readonly buckets: readonly number[];
  /** The weight of each bucket in `buckets`. */
  readonly weights: readonly number[];
  /** What training measured, for the record (cross-validated precision and recall, sizes). */
  readonly measured?: unknown;
}

/** A loaded model: its probability for a normalised text, and its cut. */
export interface AbuseModel {
  /**
   * The probability that a text is abusive, from what the model reads of it
   * ({@link modelText}): the highest of its {@link modelParts}.
   */
  probability(normalised: string): number;
  readonly cut: number;
}

/**
 * Refuses weights trained behind other rules, word lists or features than this tree's: the
 * model answers only where the rules found nothing but swearing, with a cut chosen beside
 * them, so weights fitted to other rules would answer for replies they were not fitted to.
 */
function checkFingerprint(file: ModelFile, source: string, retrain: string): void {
  const here = trainingFingerprint();
  if (file.fingerprint === undefined) {
    throw new Error(
      `${source}: has no fingerprint of the rules, word lists and features it was trained behind (it was written before ` +
        `models recorded one), so it cannot be trusted with these. ${retrain}`,
    );
  }
  const differ = fingerprintDifferences(file.fingerprint, here);
  if (differ.length > 0) {
    const parts = differ.map((part) => `${part} ${file.fingerprint![part]} (here ${here[part]})`).join(", ");
    throw new Error(
      `${source}: trained behind other ${differ.join(" and ")} than this tree's: ${parts}. ` +
        `After a change to the moderation rules, word lists or features, the model must be trained again. ${retrain}`,
    );
  }
}

/** How the shipped weights are trained again, for the messages of {@link loadModel}. */
const RETRAIN_SHIPPED =
  "Run `npm run train:moderation` to train it again (about half a minute), and commit the new file";

/**
 * Builds a model from its file's contents; a file for other features, rules or word lists is
 * refused with a clear message, naming `source` and ending with `retrain`: what trains it
 * again (the shipped weights' command by default; `bot moderation train` for a model taught
 * in the state).
 */
export function loadModel(file: ModelFile, source = "model-weights.json", retrain = RETRAIN_SHIPPED): AbuseModel {
  if (file.bits !== FEATURE_BITS || file.buckets.length !== file.weights.length) {
    throw new Error(
      `${source}: written for ${file.bits}-bit features with ${file.buckets.length} buckets and ${file.weights.length} weights; ` +
        `this code reads ${FEATURE_BITS}-bit features. ${retrain}`,
    );
  }
  if (file.wordClusters !== featureClustersId()) {
    throw new Error(
      `${source}: trained with word clusters ${JSON.stringify(file.wordClusters)}, but word-clusters.json holds ${JSON.stringify(featureClustersId())}. ` +
        retrain,
    );
  }
  checkFingerprint(file, source, retrain);
  const weights = new Float32Array(FEATURE_BUCKETS);
  let at = 0;
  for (let i = 0; i < file.buckets.length; i++) {
    at += file.buckets[i]!;
    weights[at] = file.weights[i]!;
  }
  const { bias, cut } = file;
  return {
    cut,
    probability(normalised) {
      let best = 0;
      let z = 0;
      const add = (bucket: number, value: number) => {
        z += weights[bucket]! * value;
      };
      for (const part of modelParts(normalised)) {
        z = bias;
        visitFeatures(part, add);
        best = Math.max(best, 1 / (1 + Math.exp(-z)));
      }
      return best;
    },
  };
}

const WEIGHTS_FILE = packageFile("src/moderation/model-weights.json");
let shipped: AbuseModel | undefined;

/** The model shipped in `model-weights.json`, read once, on first use. */
export function shippedModel(): AbuseModel {
  shipped ??= loadModel(JSON.parse(readFileSync(WEIGHTS_FILE, "utf8")) as ModelFile, WEIGHTS_FILE.pathname);
  return shipped;
}
