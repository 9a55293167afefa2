/**
 * The labelled moderation batches in `test/fixtures/moderation`, shared by the training
 * script, the fixture test and the moderation bench so all three read and score them the
 * same way. It lives in `scripts/` because the trainer needs it and imports nothing from
 * `test/`; the batches stay in `test/fixtures/moderation`, read by path.
 *
 * Each batch is a JSONL file, one `{ text, abusive, kind }` a line; `abusive` says what a
 * bot owner would want hidden (the definition is in src/moderation/classifier.ts). Files
 * have one of three roles, told by their name, because the figures mean different things:
 * - `labelled.jsonl`, the project's own fixture: the rules were written against it, so its
 *   figures flatter the classifier;
 * - `tuning-*.jsonl`: material written to improve the rules on; as flattering;
 * - `training-*.jsonl`: material written to train the model on (`npm run train:moderation`,
 *   which also trains on the two above); as flattering, the model has seen every line;
 * - `heldout-*.jsonl`: written before the rules were tuned and never tuned on after being
 *   scored: the honest figures. A held-out file is never edited once scored; a new batch
 *   is a new file. `first-scores.json` records each one's figures when it was first scored.
 *   `heldout-model-*.jsonl` are held-out batches written after the trained model, to measure it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Classifier } from "../src/moderation/index.ts";

/** What each text tests. The own fixture uses the first eight; newer batches use all. */
export const KINDS = [
  "profanity",
  "slur",
  "obfuscated",
  "threat",
  "harassment",
  "lookalike",
  "emphasis",
  "benign",
  "insult",
  "group",
  "masked",
  "death-wish",
  "sack-of",
  "dehumanising",
  "sexual",
  "dox",
  "criticism",
  "sarcasm",
  "quoting",
  "figurative",
] as const;
export type Kind = (typeof KINDS)[number];

export interface Labelled {
  readonly text: string;
  readonly abusive: boolean;
  readonly kind: Kind;
  /** 1-based line in the batch file, for reports. */
  readonly line: number;
}

export type Role = "own" | "tuning" | "training" | "held-out";

export interface Batch {
  /** File name, e.g. `heldout-1.jsonl`. */
  readonly file: string;
  readonly role: Role;
  readonly rows: readonly Labelled[];
}

/** The aim for held-out batches (issue 12): what the classifier must reach on text it has never seen. */
export const AIM = { precision: 0.95, recall: 0.9 } as const;

const DIR = fileURLToPath(new URL("../test/fixtures/moderation/", import.meta.url));

function roleOf(file: string): Role {
  if (file.startsWith("heldout-")) return "held-out";
  if (file.startsWith("tuning-")) return "tuning";
  if (file.startsWith("training-")) return "training";
  return "own";
}

/** Parses one batch file; a malformed line throws naming the file and line. */
export function loadBatch(file: string): Batch {
  const rows = readFileSync(DIR + file, "utf8")
    .split("\n")
    .map((raw, i) => ({ raw, line: i + 1 }))
    .filter(({ raw }) => raw.trim() !== "")
    .map(({ raw, line }) => {
      const row = JSON.parse(raw) as Partial<Labelled>;
      if (typeof row.text !== "string" || typeof row.abusive !== "boolean" || !KINDS.includes(row.kind as Kind)) {
        throw new Error(`${file}:${line}: needs text (string), abusive (boolean) and kind (${KINDS.join("|")})`);
      }
      return { text: row.text, abusive: row.abusive, kind: row.kind as Kind, line };
    });
  return { file, role: roleOf(file), rows };
}

/** Every batch: the own fixture first, then tuning, training and held-out batches, each in name order. */
export function loadBatches(): Batch[] {
  const order: Role[] = ["own", "tuning", "training", "held-out"];
  return readdirSync(DIR)
    .filter((f) => f.endsWith(".jsonl"))
    .sort((a, b) => order.indexOf(roleOf(a)) - order.indexOf(roleOf(b)) || a.localeCompare(b, "en", { numeric: true }))
    .map(loadBatch);
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
  return JSON.parse(readFileSync(DIR + "first-scores.json", "utf8")) as Record<string, FirstScore>;
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
