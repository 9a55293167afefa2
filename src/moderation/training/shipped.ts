/**
 * The labelled replies postbot ships to train its abuse model on, in `data/` beside this
 * file, so that an installed postbot can train (`bot moderation train`) as well as a checkout
 * (`npm run train:moderation`). The held-out batches that measure the model are not shipped:
 * they stay with the tests (test/fixtures/moderation).
 *
 * Each batch is a JSONL file, one `{ text, abusive, kind }` a line; `abusive` says what a bot
 * owner would want hidden (the definition is in ../classifier.ts). A file's role is told by
 * its name, because the figures mean different things:
 * - `labelled.jsonl`, the project's own fixture: the rules were written against it, so its
 *   figures flatter the classifier;
 * - `tuning-*.jsonl`: material written to improve the rules on; as flattering;
 * - `training-*.jsonl`: material written to train the model on; as flattering, the model has
 *   seen every line;
 * - `heldout-*.jsonl` (not shipped): written before the rules were tuned and never tuned on
 *   after being scored: the honest figures.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { UserError } from "../../errors.ts";
import { packageFile } from "../../package-files.ts";
import type { Example } from "./trainer.ts";

/** Where the shipped training data lives, from the package's root (what the package must ship). */
export const SHIPPED_DATA = "src/moderation/training/data/";

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

/** A batch's role, from its file name. */
export function roleOf(file: string): Role {
  if (file.startsWith("heldout-")) return "held-out";
  if (file.startsWith("tuning-")) return "tuning";
  if (file.startsWith("training-")) return "training";
  return "own";
}

/** Parses one batch file's text; a malformed line throws naming the file and line. */
export function parseBatch(file: string, text: string): Batch {
  const rows = text
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

const ORDER: readonly Role[] = ["own", "tuning", "training", "held-out"];

/** The `.jsonl` batches of a directory, the own fixture first, then by role, each role in name order. */
export function readBatches(dir: string): Batch[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort((a, b) => ORDER.indexOf(roleOf(a)) - ORDER.indexOf(roleOf(b)) || a.localeCompare(b, "en", { numeric: true }))
    .map((file) => parseBatch(file, readFileSync(`${dir}/${file}`, "utf8")));
}

/** The directory of the shipped batches, on this machine. */
export const shippedDataDir = (): string => fileURLToPath(packageFile(SHIPPED_DATA)).replace(/\/$/, "");

/**
 * The shipped batches: the own fixture, the tuning and the training batches. An installation
 * without them (a package whose `files` left them out) is told so, not given a stack trace.
 */
export function shippedBatches(dir = shippedDataDir()): Batch[] {
  if (!existsSync(dir))
    throw new UserError(
      `postbot's training data is not in this installation (${dir} is missing), so the model cannot be trained here; ` +
        "install postbot again, or train where it is (a checkout of postbot has it)",
    );
  return readBatches(dir);
}

/** Every shipped labelled reply, as examples to train on. */
export function shippedExamples(): Example[] {
  return shippedBatches().flatMap((b) => b.rows.map((r) => ({ text: r.text, abusive: r.abusive })));
}
