/**
 * The fingerprint of what a trained model was trained behind, so the shipped weights
 * refuse to load beside other rules, word lists or features (`model.ts`) instead of
 * quietly answering for a classifier they were not fitted to.
 *
 * Why the rules and word lists count, not only the features: the model is asked only where
 * no rule but swearing fired (`classifier.ts`, `modelAsked`) and its cut is chosen so that
 * "rules OR model" keeps its precision (`scripts/train-moderation.ts`). A rule added, or a
 * word list changed, moves which replies the model answers for and what its cut should be,
 * even where the model's own features are the same.
 *
 * Each part is a digest of data, not of source text, so comments and formatting change
 * nothing: the phrase rules' ids, compiled patterns and the weights of their kinds; every
 * word list the rules, the insult detectors and the features read (lexicon.ts,
 * insult-lexicon.ts, the profanity matcher's dataset); and the features' definition with
 * the features of a few probe texts, which also moves when the normalisation, the quote
 * reading or the hashing changes. The word clusters have their own id (`word-clusters.ts`).
 * What it cannot see is a change in the code of the detectors (`aimed.ts`,
 * `third-person.ts`) that leaves every list alone: after one, retrain too.
 */
import { createHash } from "node:crypto";
import { features, featuresDefinition } from "./features.ts";
import * as insultLexicon from "./insult-lexicon.ts";
import * as lexicon from "./lexicon.ts";
import { modelParts, modelText } from "./model-text.ts";
import { profanityVocabulary } from "./profanity.ts";
import { compiledRules } from "./rules/index.ts";
import { WEIGHTS } from "./score.ts";

/** The parts of a model's fingerprint, each a 16-hex-digit digest. */
export interface TrainingFingerprint {
  /** The phrase rules: each id with its compiled pattern, and the weight of each kind of rule. */
  readonly rules: string;
  /** The word lists: lexicon.ts, insult-lexicon.ts and the profanity matcher's dataset. */
  readonly vocabulary: string;
  /** The features: their definition (`features.ts`) and the features of probe texts. */
  readonly features: string;
}

/**
 * JSON with Maps and Sets as their entries and every object's keys sorted, so a word list's
 * contents are what is digested, whatever order a module loader lists a module's exports in
 * (Node sorts them, vitest keeps the source's order).
 */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v.values()];
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const object = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, object[key]]),
    );
  });

const digest = (value: unknown): string => createHash("sha256").update(canonical(value)).digest("hex").slice(0, 16);

/**
 * Texts whose features the fingerprint includes: masks, leetspeak, look-alikes, a reported
 * quote, sentences, words of the classes and of the clusters, so a change in how any of
 * them is read shows.
 */
const PROBES = [
  "Y0u f1lthy r@t!!! I know where your k1ds go to school. see you soon",
  "he replied 'kys' and got banned; lovely family you have, shame if they found out where you live",
  "you're a fuuucking ｉｄｉｏｔ, thanks for nothing",
  "great thread, the canal and the old mills. your daughter walks home alone doesn't she?",
];

/** Each probe's parts as the model reads them, with their features (bucket and value). */
const probeFeatures = () =>
  PROBES.flatMap((text) =>
    modelParts(modelText(text)).map((part) => {
      const { indices, values } = features(part);
      return [part, indices, values];
    }),
  );

/** What a fingerprint digests, part by part (see {@link trainingFingerprint} for this tree's). */
export interface FingerprintedData {
  /** Each phrase rule's id and compiled pattern source, and the weight of each kind of rule. */
  readonly rules: { readonly phrase: ReadonlyArray<readonly [string, string]>; readonly weights: unknown };
  readonly vocabulary: unknown;
  readonly features: unknown;
}

/** The fingerprint of the given data: a digest of each part. */
export function fingerprintOf(data: FingerprintedData): TrainingFingerprint {
  return { rules: digest(data.rules), vocabulary: digest(data.vocabulary), features: digest(data.features) };
}

/** This tree's rules, word lists and features, as {@link fingerprintOf} digests them. */
export function fingerprintedData(): FingerprintedData {
  return {
    rules: { phrase: compiledRules().map((r) => [r.id, r.regex.source] as const), weights: WEIGHTS },
    vocabulary: { lexicon, insultLexicon, profanity: profanityVocabulary() },
    features: { definition: featuresDefinition(), probes: probeFeatures() },
  };
}

let current: TrainingFingerprint | undefined;

/** The fingerprint of this tree's rules, word lists and features; computed once (about 30 ms). */
export function trainingFingerprint(): TrainingFingerprint {
  current ??= fingerprintOf(fingerprintedData());
  return current;
}

/** The parts in which two fingerprints differ ("rules", "vocabulary", "features"); empty when they agree. */
export function fingerprintDifferences(
  a: TrainingFingerprint,
  b: TrainingFingerprint,
): Array<keyof TrainingFingerprint> {
  return (["rules", "vocabulary", "features"] as const).filter((part) => a[part] !== b[part]);
}
