import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createClassifier } from "../../src/moderation/index.ts";

/**
 * The labelled replies in test/fixtures/moderation/labelled.jsonl, one JSON object a line:
 * `{ text, abusive, kind }`. The kinds say what each text tests; `abusive` says what a bot
 * owner would want hidden, by the definition in src/moderation/classifier.ts.
 */
const KINDS = ["profanity", "slur", "obfuscated", "threat", "harassment", "lookalike", "emphasis", "benign"] as const;
type Kind = (typeof KINDS)[number];
interface Labelled {
  text: string;
  abusive: boolean;
  kind: Kind;
  line: number;
}

const FIXTURE = fileURLToPath(new URL("../fixtures/moderation/labelled.jsonl", import.meta.url));

function load(): Labelled[] {
  return readFileSync(FIXTURE, "utf8")
    .split("\n")
    .map((raw, i) => ({ raw, line: i + 1 }))
    .filter(({ raw }) => raw.trim() !== "")
    .map(({ raw, line }) => {
      const row = JSON.parse(raw) as Partial<Labelled>;
      if (typeof row.text !== "string" || typeof row.abusive !== "boolean" || !KINDS.includes(row.kind as Kind)) {
        throw new Error(`labelled.jsonl:${line}: needs text (string), abusive (boolean) and kind (${KINDS.join("|")})`);
      }
      return { text: row.text, abusive: row.abusive, kind: row.kind as Kind, line };
    });
}

describe("the labelled moderation fixture", () => {
  const rows = load();

  it("has at least 200 distinct texts covering every kind, both abusive and harmless", () => {
    expect(rows.length).toBeGreaterThanOrEqual(200);
    expect(new Set(rows.map((r) => r.text)).size).toBe(rows.length);
    for (const kind of KINDS) expect(rows.filter((r) => r.kind === kind).length, kind).toBeGreaterThanOrEqual(5);
    expect(rows.filter((r) => r.abusive).length).toBeGreaterThanOrEqual(80);
    expect(rows.filter((r) => !r.abusive).length).toBeGreaterThanOrEqual(80);
  });

  it("is classified with precision and recall of at least 0.9", () => {
    const classifier = createClassifier();
    const wrong: string[] = [];
    const perKind = new Map<Kind, { right: number; total: number }>();
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const row of rows) {
      const verdict = classifier.classify(row.text);
      const stats = perKind.get(row.kind) ?? { right: 0, total: 0 };
      stats.total++;
      if (verdict.abusive === row.abusive) stats.right++;
      perKind.set(row.kind, stats);
      if (verdict.abusive && row.abusive) tp++;
      else if (verdict.abusive) fp++;
      else if (row.abusive) fn++;
      if (verdict.abusive !== row.abusive) {
        const fired = verdict.rules.map((r) => `${r.rule} "${r.match}"`).join(", ") || "no rule";
        wrong.push(`  ${row.abusive ? "missed      " : "false alarm "} line ${row.line} [${row.kind}] ${JSON.stringify(row.text)} (score ${verdict.score}: ${fired})`);
      }
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    const report = [
      `moderation fixture: ${rows.length} texts, precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (tp ${tp}, fp ${fp}, fn ${fn})`,
      `  by kind: ${[...perKind].map(([kind, s]) => `${kind} ${s.right}/${s.total}`).join(", ")}`,
      wrong.length ? `  misclassified:\n${wrong.join("\n")}` : "  misclassified: none",
    ].join("\n");
    console.log(report);
    expect(precision, report).toBeGreaterThanOrEqual(0.9);
    expect(recall, report).toBeGreaterThanOrEqual(0.9);
  });
});
