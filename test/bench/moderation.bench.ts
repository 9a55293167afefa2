/**
 * The abuse classifier, measured two ways:
 * - quality: precision and recall on each labelled batch separately (see
 *   test/moderation/batches.ts). Only held-out batches, written before the rules were
 *   tuned, carry the aim (precision ≥ 0.95, recall ≥ 0.9) and their figures when first
 *   scored ("first scored", with the classifier's commit: before any tuning could see
 *   them); the own fixture and tuning batches were tuned on, so their figures
 *   flatter and are shown without an aim;
 * - speed: verdicts per second, single-threaded, on short replies and on replies at the
 *   service's 280-character limit. Aim: at least 1,000 a second, so the `moderate` plugin
 *   is never what a busy bot waits for.
 */
import { createClassifier } from "../../src/moderation/index.ts";
import { AIM, firstScores, loadBatches, scoreBatch } from "../moderation/batches.ts";
import type { Bench, BenchRow } from "./harness.ts";

const SPEED_AIM = 1_000;
const MEASURE_MS = 2_000;

function throughput(classify: (text: string) => unknown, texts: readonly string[]): { perSecond: number; usPerText: number } {
  for (const t of texts) classify(t); // warm-up: compile and JIT before measuring
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < MEASURE_MS) {
    for (const t of texts) classify(t);
    n += texts.length;
  }
  const ms = performance.now() - start;
  return { perSecond: Math.round((n / ms) * 1000), usPerText: (ms * 1000) / n };
}

const bench: Bench = {
  name: "moderation",
  async run() {
    const batches = loadBatches();
    const before = firstScores();
    const result: BenchRow[] = [];
    // Quality with default options, as a bot that only says `moderate:` gets.
    const defaults = createClassifier();
    for (const batch of batches) {
      const s = scoreBatch(defaults, batch);
      const heldOut = batch.role === "held-out";
      const first = before[batch.file];
      const met = s.precision >= AIM.precision && s.recall >= AIM.recall;
      result.push({
        bench: `moderation: ${batch.file} (${batch.role}, ${batch.rows.length} texts)`,
        precision: s.precision.toFixed(3),
        recall: s.recall.toFixed(3),
        "fp / fn": `${s.fp} / ${s.fn}`,
        "first scored": first ? `${first.precision.toFixed(3)} / ${first.recall.toFixed(3)} (${first.classifier})` : "",
        aim: heldOut ? `≥ ${AIM.precision} / ≥ ${AIM.recall}` : "(tuned on)",
        verdict: heldOut ? (met ? "ok" : "missed") : "",
      });
    }
    // Speed, with a block and an allow list as a configured bot has.
    const classifier = createClassifier({ block: ["buy followers", "crypto giveaway"], allow: ["Cockburn"] });
    const short = batches.flatMap((b) => b.rows.map((r) => r.text));
    // Full-length replies: texts run together and cut at 280 characters.
    const long: string[] = [];
    for (let i = 0; i < short.length; i += 8) long.push(short.slice(i, i + 40).join(" ").slice(0, 280));
    for (const [label, texts] of [["short replies", short], ["280-char replies", long]] as const) {
      const { perSecond, usPerText } = throughput((t) => classifier.classify(t), texts);
      result.push({
        bench: `moderation: classify ${label}`,
        "texts/s": perSecond,
        "µs/text": usPerText,
        aim: `≥ ${SPEED_AIM.toLocaleString("en-US")}/s`,
        verdict: perSecond >= SPEED_AIM ? "ok" : "missed",
      });
    }
    return result;
  },
};

export default bench;
