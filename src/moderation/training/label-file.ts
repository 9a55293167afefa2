/**
 * Files of labelled replies, as an operator brings them from another tool: for
 * `bot moderation teach` (labels to keep) and `bot moderation score` (labels to measure
 * against). Two formats, told apart by the first line:
 *
 * - TSV with a header line naming the columns; `label` and `text` are needed, any other
 *   column is ignored (`label<TAB>text`, `id<TAB>label<TAB>author<TAB>text`...). A field a
 *   spreadsheet quoted (`"he said ""go"""`) is read unquoted.
 * - JSONL: one JSON object a line, with `label` and `text`; other fields are ignored.
 *
 * `label` is `abusive` or `fine` (any case). A bad line (a label that is neither, no text,
 * too few columns, not JSON, the same text labelled both ways) is reported with its line
 * number and skipped; a file that is bad as a whole (empty, no header naming `label` and
 * `text`, not a format above, or no good line at all) throws a `UserError` naming the file,
 * so that nothing of it is used.
 */
import { UserError } from "../../errors.ts";

/** One good line: the text, its label and where it was. */
export interface LabelRow {
  readonly text: string;
  readonly abusive: boolean;
  /** 1-based line of the file. */
  readonly line: number;
}

/** A line skipped, and why. */
export interface SkippedLine {
  readonly line: number;
  readonly problem: string;
}

/** What a label file holds. */
export interface LabelFile {
  readonly format: "tsv" | "jsonl";
  readonly rows: readonly LabelRow[];
  readonly skipped: readonly SkippedLine[];
}

const LABELS: Readonly<Record<string, boolean>> = { abusive: true, fine: false };
const HOW = "a TSV file with a header line label<TAB>text (other columns are ignored), or JSONL with label and text";

/** A label's value, or the problem with it. */
function labelOf(value: unknown): boolean | string {
  if (typeof value !== "string") return `label ${JSON.stringify(value) ?? "missing"}: expected abusive or fine`;
  const found = LABELS[value.trim().toLowerCase()];
  return found ?? `label ${JSON.stringify(value)}: expected abusive or fine`;
}

/** A TSV field as a spreadsheet may have quoted it. */
function unquote(field: string): string {
  const f = field.trim();
  return f.length >= 2 && f.startsWith('"') && f.endsWith('"') ? f.slice(1, -1).replaceAll('""', '"') : f;
}

/** A row from its label and text, or the problem with them. */
function row(label: unknown, text: unknown, line: number): LabelRow | string {
  const abusive = labelOf(label);
  if (typeof abusive === "string") return abusive;
  if (typeof text !== "string" || text.trim() === "") return "no text";
  return { text: text.trim(), abusive, line };
}

type Line = { text: string; line: number };

function readTsv(file: string, header: Line, lines: readonly Line[]): Array<LabelRow | SkippedLine> {
  const columns = header.text.split("\t").map((c) => unquote(c).toLowerCase());
  const at = { label: columns.indexOf("label"), text: columns.indexOf("text") };
  if (at.label < 0 || at.text < 0)
    throw new UserError(
      `${file}:${header.line}: the header line names the columns ${columns.map((c) => JSON.stringify(c)).join(", ")}; ` +
        `it needs label and text (${HOW})`,
    );
  const needed = Math.max(at.label, at.text) + 1;
  return lines.map(({ text, line }) => {
    const fields = text.split("\t");
    if (fields.length < needed)
      return {
        line,
        problem: `${fields.length} column${fields.length === 1 ? "" : "s"}, the header has ${columns.length}`,
      };
    const found = row(unquote(fields[at.label]!), unquote(fields[at.text]!), line);
    return typeof found === "string" ? { line, problem: found } : found;
  });
}

function readJsonl(lines: readonly Line[]): Array<LabelRow | SkippedLine> {
  return lines.map(({ text, line }) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { line, problem: "not JSON" };
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { line, problem: "not a JSON object with label and text" };
    const { label, text: said } = value as { label?: unknown; text?: unknown };
    const found = row(label, said, line);
    return typeof found === "string" ? { line, problem: found } : found;
  });
}

/**
 * Reads a label file's contents; see the module comment. `file` names it in messages.
 *
 * @example
 * ```ts
 * const { rows, skipped } = parseLabelFile("decisions.tsv", "label\ttext\nabusive\tuninstall, you're useless\n");
 * // rows: [{ text: "uninstall, you're useless", abusive: true, line: 2 }], skipped: []
 * ```
 */
export function parseLabelFile(file: string, contents: string): LabelFile {
  const lines: Line[] = contents
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .map((text, i) => ({ text, line: i + 1 }))
    .filter((l) => l.text.trim() !== "");
  const first = lines[0];
  if (!first) throw new UserError(`${file}: the file is empty; give ${HOW}`);
  const format = first.text.trimStart().startsWith("{") ? "jsonl" : "tsv";
  if (format === "tsv" && !first.text.includes("\t"))
    throw new UserError(
      `${file}:${first.line}: neither a TSV header line (label<TAB>text) nor a JSON object; give ${HOW}`,
    );
  const read = format === "tsv" ? readTsv(file, first, lines.slice(1)) : readJsonl(lines);
  const rows: LabelRow[] = [];
  const skipped: SkippedLine[] = [];
  const seen = new Map<string, LabelRow>();
  for (const r of read) {
    if (!("text" in r)) skipped.push(r);
    else {
      const before = seen.get(r.text);
      if (before && before.abusive !== r.abusive)
        skipped.push({ line: r.line, problem: `the same text as line ${before.line}, labelled the other way` });
      else if (!before) {
        seen.set(r.text, r);
        rows.push(r);
      }
    }
  }
  if (rows.length === 0) {
    const first = skipped[0];
    const why = first
      ? `${skipped.length} bad line${skipped.length === 1 ? "" : "s"}, the first: line ${first.line}: ${first.problem}`
      : "it has only its header line";
    throw new UserError(`${file}: no line has a label and a text (${why}); give ${HOW}`);
  }
  return { format, rows, skipped };
}
