/**
 * Abuse classifier throughput: verdicts per second, single-threaded, on the labelled
 * fixture's short replies and on replies at the service's 280-character limit. Aim: at
 * least 1,000 a second, so the `moderate` plugin is never what a busy bot waits for.
 * The fixture's precision and recall ride along, so a faster classifier that got worse shows.
 */
import { readFileSync } from "node:fs";
import { createClassifier } from "../../src/moderation/index.ts";
import type { Bench, BenchRow } from "./harness.ts";

const FIXTURE = new URL("../fixtures/moderation/labelled.jsonl", import.meta.url);
const AIM = 1_000;
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
    const rows = readFileSync(FIXTURE, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { text: string; abusive: boolean });
    const classifier = createClassifier({ block: ["buy followers", "crypto giveaway"], allow: ["Cockburn"] });
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const r of rows) {
      const abusive = classifier.classify(r.text).abusive;
      if (abusive && r.abusive) tp++;
      else if (abusive) fp++;
      else if (r.abusive) fn++;
    }
    const short = rows.map((r) => r.text);
    // Full-length replies: fixture texts run together and cut at 280 characters.
    const long: string[] = [];
    for (let i = 0; i < short.length; i += 8) long.push(short.slice(i, i + 40).join(" ").slice(0, 280));
    const result: BenchRow[] = [];
    for (const [label, texts] of [["fixture replies", short], ["280-char replies", long]] as const) {
      const { perSecond, usPerText } = throughput((t) => classifier.classify(t), texts);
      result.push({
        bench: `moderation: classify ${label}`,
        "texts/s": perSecond,
        "µs/text": usPerText,
        precision: tp / (tp + fp),
        recall: tp / (tp + fn),
        aim: `≥ ${AIM.toLocaleString("en-US")}/s`,
        verdict: perSecond >= AIM ? "ok" : "slow",
      });
    }
    return result;
  },
};

export default bench;
