/**
 * Moderation that learns from its operator, measured: replies written apart from postbot's
 * training data (test/fixtures/moderation-teach, sealed before anything was scored) are
 * taught to a fresh state (`keepLabels`, as `bot moderation teach` does), the model is
 * trained on the shipped replies and those labels (`trainTaught`, as `bot moderation train`
 * does), and precision and recall are measured before and after on other replies of the
 * same kinds, never the taught ones:
 * - `apart.tsv`: 240 replies to a town's community pages (eight kinds of abuse, five kinds
 *   of harmless reply); one half taught (every other reply of each kind), the other half
 *   measured. Aim: recall ≥ 0.85 at precision ≥ 0.95 after teaching;
 * - `gaming-*.tsv`: put-downs in a gaming community's words, a kind the shipped model
 *   mostly misses, with harmless gaming talk in the same words (what the test teaches);
 * - `dev-*.tsv`: the same for a cooking community: the set the trainer's options (how much
 *   a label weighs, the cut) were chosen on, so its figure flatters them.
 * And the time `bot moderation train` takes for 10,000 labels (aim: within a minute).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createClassifier } from "../../src/moderation/index.ts";
import { loadModel } from "../../src/moderation/model.ts";
import { parseLabelFile, type LabelRow } from "../../src/moderation/training/label-file.ts";
import { keepLabels, operatorLabels } from "../../src/moderation/training/labels.ts";
import { formatScore, scoreLabels } from "../../src/moderation/training/score-labels.ts";
import { trainTaught } from "../../src/moderation/training/taught.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { loadBatches } from "../../scripts/moderation-batches.ts";
import type { Bench, BenchRow } from "./harness.ts";

const AIM = { precision: 0.95, recall: 0.85 } as const;
const TRAIN_AIM_S = 60;
const DIR = new URL("../fixtures/moderation-teach/", import.meta.url);
const read = (file: string) => parseLabelFile(file, readFileSync(new URL(file, DIR), "utf8")).rows;
const figures = (s: ReturnType<typeof scoreLabels>) => `${s.precision.toFixed(3)} / ${s.recall.toFixed(3)}`;

/** Teaches `taught` to a fresh state, trains, and scores `measured` before and after. */
function teachAndMeasure(
  name: string,
  taught: readonly LabelRow[],
  measured: readonly LabelRow[],
  aim: boolean,
): BenchRow {
  const state = createMemoryStore();
  keepLabels(
    state,
    taught.map((r) => ({ text: r.text, abusive: r.abusive, by: "bench", at: 0, from: { file: name, line: r.line } })),
  );
  const model = trainTaught(operatorLabels(state), () => 0);
  const before = scoreLabels(createClassifier(), measured);
  const after = scoreLabels(createClassifier({}, loadModel(model)), measured);
  const abusive = taught.filter((r) => r.abusive).length;
  return {
    bench: `moderation-teach: ${name}`,
    taught: `${taught.length} (${abusive} abusive, ${taught.length - abusive} fine; each ×${model.taught.weight})`,
    measured: measured.length,
    "before P / R": figures(before),
    "after P / R": figures(after),
    after: formatScore(after),
    "train s (load)": `${(model.taught.ms / 1000).toFixed(1)} (${loadavg()[0]!.toFixed(1)})`,
    aim: aim ? `≥ ${AIM.precision} / ≥ ${AIM.recall}` : "",
    verdict: aim ? (after.precision >= AIM.precision && after.recall >= AIM.recall ? "ok" : "missed") : "",
  };
}

/** 10,000 distinct labelled texts, from every labelled reply the tests hold, numbered apart. */
function tenThousandLabels(): LabelRow[] {
  const rows = loadBatches()
    .filter((b) => b.role === "held-out")
    .flatMap((b) => b.rows);
  return Array.from({ length: 10_000 }, (_, i) => {
    const r = rows[i % rows.length]!;
    return {
      text: i < rows.length ? r.text : `${r.text} (${Math.floor(i / rows.length)})`,
      abusive: r.abusive,
      line: i + 1,
    };
  });
}

const bench: Bench = {
  name: "moderation-teach",
  async run() {
    const apart = read("apart.tsv");
    const rows = [
      teachAndMeasure(
        "apart.tsv, one half taught, the other measured",
        apart.filter((_, i) => i % 2 === 0),
        apart.filter((_, i) => i % 2 === 1),
        true,
      ),
      teachAndMeasure(
        "gaming-taught.tsv, gaming-measured.tsv",
        read("gaming-taught.tsv"),
        read("gaming-measured.tsv"),
        false,
      ),
      teachAndMeasure(
        "dev-taught.tsv, dev-measured.tsv (options chosen on it)",
        read("dev-taught.tsv"),
        read("dev-measured.tsv"),
        false,
      ),
    ];
    const many = trainTaught(tenThousandLabels(), () => 0);
    const s = many.taught.ms / 1000;
    rows.push({
      bench: "moderation-teach: train on 10,000 labels",
      taught: `10,000 (each ×${many.taught.weight})`,
      "train s (load)": `${s.toFixed(1)} (${loadavg()[0]!.toFixed(1)})`,
      aim: `≤ ${TRAIN_AIM_S} s`,
      verdict: s <= TRAIN_AIM_S ? "ok" : "missed",
    });
    return rows;
  },
};

export default bench;
