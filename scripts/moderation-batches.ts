/**
 * The labelled moderation batches: the shipped ones (src/moderation/training/data: the own
 * fixture, tuning and training batches, which an installed postbot trains on) and the
 * held-out ones, which stay with the tests (test/fixtures/moderation), shared by the
 * training script, the fixture test and the moderation bench so all three read and score
 * them the same way. The format and the roles are described in
 * src/moderation/training/shipped.ts.
 *
 * A held-out file is never edited once scored; a new batch is a new file.
 * `first-scores.json` records each one's figures when it was first scored.
 * `heldout-model-*.jsonl` are held-out batches written after the trained model, to measure it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Classifier } from "../src/moderation/index.ts";
import { parseBatch, readBatches, roleOf, shippedDataDir, type Batch } from "../src/moderation/training/shipped.ts";

export { KINDS, type Batch, type Kind, type Labelled, type Role } from "../src/moderation/training/shipped.ts";

/** The aim for held-out batches (issue 12): what the classifier must reach on text it has never seen. */
export const AIM = { precision: 0.95, recall: 0.9 } as const;

/** The held-out batches' directory (and their first scores and seals). */
const HELD_OUT = fileURLToPath(new URL("../test/fixtures/moderation/", import.meta.url));

/** Parses one batch file, shipped or held out, by its name; a malformed line throws naming the file and line. */
export function loadBatch(file: string): Batch {
  const dir = roleOf(file) === "held-out" ? HELD_OUT : `${shippedDataDir()}/`;
  return parseBatch(file, readFileSync(dir + file, "utf8"));
}

/** Every batch: the own fixture first, then tuning, training and held-out batches, each in name order. */
export function loadBatches(): Batch[] {
  return [...readBatches(shippedDataDir()), ...readBatches(HELD_OUT)];
}

/** Figures of one held-out batch as first scored, before any tuning could see it. */
export interface FirstScore {
  readonly precision: number;
  readonly recall: number;
  /** The commit of the classifier that was scored. */
  readonly classifier: string;
}

/** `first-scores.json`: file name → its figures when first scored. */
export function firstScores(): Readonly<Record<string, FirstScore>> {
  return JSON.parse(readFileSync(HELD_OUT + "first-scores.json", "utf8")) as Record<string, FirstScore>;
}

export interface Score {
  readonly precision: number;
  readonly recall: number;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  /** One line per misclassified text, saying what fired. */
  readonly wrong: readonly string[];
}

/** Scores a classifier's verdicts against a batch's labels. */
export function scoreBatch(classifier: Classifier, batch: Batch): Score {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const wrong: string[] = [];
  for (const row of batch.rows) {
    const verdict = classifier.classify(row.text);
    if (verdict.abusive && row.abusive) tp++;
    else if (verdict.abusive) fp++;
    else if (row.abusive) fn++;
    if (verdict.abusive !== row.abusive) {
      const fired = verdict.rules.map((r) => `${r.rule} "${r.match}"`).join(", ") || "no rule";
      wrong.push(
        `${row.abusive ? "missed     " : "false alarm"} ${batch.file}:${row.line} [${row.kind}] ${JSON.stringify(row.text)} (score ${verdict.score}: ${fired})`,
      );
    }
  }
  return { ...precisionRecall(tp, fp, fn), tp, fp, fn, wrong };
}

/** Precision and recall from the counts of a batch, or of several scored apart and summed. */
export function precisionRecall(tp: number, fp: number, fn: number): { precision: number; recall: number } {
  // A batch with no abusive text (or no verdict of abuse) has nothing to get wrong on that side.
  return { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn) };
}

/**
 * Texts run together and cut at 280 characters, as full-length replies: the moderation
 * bench times the classifier on them and the tests of its fast paths check them.
 */
export function fullLength(texts: readonly string[]): string[] {
  const long: string[] = [];
  for (let i = 0; i < texts.length; i += 8)
    long.push(
      texts
        .slice(i, i + 40)
        .join(" ")
        .slice(0, 280),
    );
  return long;
}
