/**
 * The trained abuse model: logistic regression over the hashed features of `features.ts`,
 * trained by `npm run train:moderation` (scripts/train-moderation.ts) on the labelled
 * replies of test/fixtures/moderation (never the held-out batches) and stored as data in
 * `model-weights.json`. It catches what phrase rules cannot list: threats with no violent
 * verb, innuendo, harassment, doxxing lists and insults in words no rule has.
 *
 * The classifier asks it once per text and, when the probability reaches the cut chosen
 * by cross-validation at training time, adds a hit `model:abuse` (weight
 * {@link WEIGHTS}.model), so at the default threshold a text is hidden when a rule or the
 * model says so, and `allow: ["model:abuse"]` turns the model off for a bot.
 */
import { readFileSync } from "node:fs";
import { FEATURE_BITS, FEATURE_BUCKETS, featureClustersId, visitFeatures } from "./features.ts";
import { normalize, type Normalized } from "./normalize.ts";
import { reportedQuotes } from "./quotes.ts";

/** The shape of `model-weights.json`, as written by the training script. */
export interface ModelFile {
  /** Says the file is generated, by what command and from what. */
  readonly generated: string;
  /** {@link FEATURE_BITS} of the features it was trained on. */
  readonly bits: number;
  /** The id of the word clusters (`word-clusters.json`) its features used. */
  readonly wordClusters: string;
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

/**
 * What the model reads of a reply: its normalised form (`normalize(text).collapsed.text`)
 * with each quote the reply reports or rejects (`quotes.ts`: "someone called me a 'useless
 * cow' for posting this") replaced by the word "quote". The rules drop their hits inside
 * such quotes; without this the model would still read the quoted insult and hide the
 * reply of the person it was aimed at. The training script reads texts the same way.
 *
 * @param normalized and `quoted`: the text's normal form and reported quotes when the
 *   caller has them already (the classifier), so the usual reply, with no quote, is not
 *   normalised twice.
 */
export function modelText(
  text: string,
  normalized: Normalized = normalize(text),
  quoted: ReadonlyArray<{ start: number; end: number }> = reportedQuotes(text),
): string {
  if (quoted.length === 0) return normalized.collapsed.text;
  let kept = "";
  let at = 0;
  for (const q of quoted) {
    kept += `${text.slice(at, q.start)} quote `;
    at = q.end;
  }
  return normalize(kept + text.slice(at)).collapsed.text;
}

/** Where a normalised text is cut into sentences ("." "!" "?" ";" and the like). */
const SENTENCE_END = /[.!?;:]+(?:\s|$)/;

/**
 * The parts of a normalised text the model reads: the whole text and, when it has more than
 * one, each sentence of at least three words. A long reply of harmless sentences around one
 * abusive one ("great thread, learned a lot about the canal. anyway, lovely family you have,
 * shame if they found out where you live") would otherwise dilute the abuse below the cut:
 * the model's features are scaled by the text's length. The training script scores
 * cross-validation the same way, so the cut is chosen for this reading.
 */
export function modelParts(normalised: string): string[] {
  const sentences = normalised
    .split(SENTENCE_END)
    .filter((s) => s.split(" ").filter((w) => /[a-z0-9]/.test(w)).length >= 3);
  return sentences.length > 1 ? [normalised, ...sentences] : [normalised];
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

/** Builds a model from its file's contents; a file for other features is refused with a clear message. */
export function loadModel(file: ModelFile, source = "model-weights.json"): AbuseModel {
  if (file.bits !== FEATURE_BITS || file.buckets.length !== file.weights.length) {
    throw new Error(
      `${source}: written for ${file.bits}-bit features with ${file.buckets.length} buckets and ${file.weights.length} weights; ` +
        `this code reads ${FEATURE_BITS}-bit features. Run \`npm run train:moderation\` to write it again`,
    );
  }
  if (file.wordClusters !== featureClustersId()) {
    throw new Error(
      `${source}: trained with word clusters ${JSON.stringify(file.wordClusters)}, but word-clusters.json holds ${JSON.stringify(featureClustersId())}. ` +
        "Run `npm run train:moderation` to write it again",
    );
  }
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

const WEIGHTS_FILE = new URL("./model-weights.json", import.meta.url);
let shipped: AbuseModel | undefined;

/** The model shipped in `model-weights.json`, read once, on first use. */
export function shippedModel(): AbuseModel {
  shipped ??= loadModel(JSON.parse(readFileSync(WEIGHTS_FILE, "utf8")) as ModelFile, WEIGHTS_FILE.pathname);
  return shipped;
}
