import { describe, expect, it } from "vitest";
import { createClassifier } from "../../src/moderation/index.ts";
import {
  AIM,
  firstScores,
  loadBatches,
  precisionRecall,
  scoreBatch,
  type Batch,
  type Score,
} from "../../scripts/moderation-batches.ts";

/**
 * The labelled batches (the shipped ones in src/moderation/training/data, the held-out ones in
 * test/fixtures/moderation; format and roles in src/moderation/training/shipped.ts), scored
 * with default options. The own fixture was tuned on, so it only guards against regressions;
 * held-out batches carry the aim of issue 12.
 */
const batches = loadBatches();
const classifier = createClassifier();
const own = batches.find((b) => b.file === "labelled.jsonl")!;
/**
 * Held-out batches below the aim, and the figures they are held to instead: what they
 * score now, so they still guard against regressions. Each is an aim not met, said so in
 * the README's "Moderation" section; a batch leaves this list only by meeting the aim. (The
 * first scores, before anything could be tuned to them, are in first-scores.json.)
 * heldout-3 to 6 left it with the trained model (recall 0.93, 0.95, 0.96, 0.98, precision
 * 1.00), and heldout-7's floor rose from 0.63 to the model's 0.86: seen figures, not honest
 * ones, since the rules had been tuned after reading these batches' misses.
 */
const BELOW_AIM: Readonly<Record<string, { precision: number; recall: number }>> = {
  "heldout-7.jsonl": { precision: 0.97, recall: 0.88 },
  // Written after the model, aimed at what the rules miss (threats with no violent verb and
  // doxxing; innuendo, harassment and insults), many with a harmless twin. First scored at
  // 0.925 / 0.405 and 0.942 / 0.537; word classes in the model's features (chosen by
  // cross-validation: recall 0.766 -> 0.787 at precision 0.97) raised both recalls (0.479,
  // 0.562) and cost heldout-model-2 one false alarm, so its precision floor is 0.93.
  "heldout-model-1.jsonl": { precision: 0.93, recall: 0.47 },
  "heldout-model-2.jsonl": { precision: 0.93, recall: 0.56 },
  // Written by someone who never saw the classifier or its data, sealed by sha256 before any
  // scoring (sealed-8-10.sha256, commit e2e4b77), scored once against the model of 9269591:
  // these are the honest figures (rules alone: recall 0.40, 0.27, 0.30). What gets past is
  // threats and doxxing with no violent word, dehumanising and group insults, innuendo.
  "heldout-8.jsonl": { precision: 1.0, recall: 0.56 },
  "heldout-9.jsonl": { precision: 0.92, recall: 0.44 },
  // heldout-10's recall floor is 0.45, one reply under its first score (25 of 53 -> 24): the
  // retrain on training-13..26 (chosen by grouped cross-validation, not by these batches)
  // found 5 more of the three sealed batches' abuse together (78 -> 83, false alarms 4 -> 4),
  // one fewer in this one.
  "heldout-10.jsonl": { precision: 0.92, recall: 0.45 },
  // Written the same way (a helper who never saw the classifier, its data or any batch),
  // sealed by sha256 before scoring (sealed-11-13.sha256), scored once against the model of
  // 1c801df (grouped CV, 6,708 training replies). heldout-11 met the aim (1.00 / 0.96) and is
  // held to it; rules alone: recall 0.74, 0.57, 0.53. What gets past: doxxing and threats with
  // no violent word, calls to pile on, sexual remarks without sexual words, dotted masks.
  "heldout-12.jsonl": { precision: 1.0, recall: 0.77 },
  "heldout-13.jsonl": { precision: 0.95, recall: 0.71 },
  // Written the same way at the start of session 7 (sealed-14-16.sha256: sports, fitness
  // and esports; weather, news, council and library; gardening, parenting, languages, books
  // and art), scored once against the model of that session's end (word clusters, rules for
  // doxxing, veiled threats, pile-ons and sexual remarks, 7,621 training replies, cut from
  // three pooled CV seeds): precision 1.00 on all three, recall 0.70, 0.64, 0.49; rules
  // alone 0.43, 0.40, 0.23. Most misses: doxxing, threats, harassment and sexual remarks in
  // plain words.
  "heldout-14.jsonl": { precision: 1.0, recall: 0.69 },
  "heldout-15.jsonl": { precision: 1.0, recall: 0.64 },
  "heldout-16.jsonl": { precision: 1.0, recall: 0.49 },
  // Written the same way at the start of session 8 (sealed-17-19.sha256: cooking,
  // restaurants and travel; music, film and celebrity; work, commuting, DIY, cars and pets),
  // scored once against the same model as heldout-14..16 (no moderation change between):
  // precision 0.94, 1.00, 0.97 (three quotes of abuse taken for abuse), recall 0.62, 0.64,
  // 0.68; rules alone 0.36, 0.28, 0.36. Of the 56 misses, 36 are doxxing, threats,
  // harassment, sexual remarks and death wishes in plain words. The lead read the misses,
  // then asked for the rules of third-person.ts (name-calling about a third person): held
  // to what they score with those rules (recall 0.68, 0.68, 0.72), seen figures since.
  "heldout-17.jsonl": { precision: 0.94, recall: 0.67 },
  "heldout-18.jsonl": { precision: 1.0, recall: 0.67 },
  "heldout-19.jsonl": { precision: 0.97, recall: 0.71 },
};
/**
 * Tuning batches left below 0.95 recall on purpose: tuning-10's "you write like a drunk
 * toddler" and "you think like a damp sponge" are insults only no rule can tell from "you
 * write like a poet", and its list of what a doxxer found ("his workplace, his car, his
 * kids' names") has no words of a threat.
 */
const TUNING_RECALL_EXCEPTIONS: Readonly<Record<string, number>> = { "tuning-10.jsonl": 0.92 };
const OWN_KINDS = [
  "profanity",
  "slur",
  "obfuscated",
  "threat",
  "harassment",
  "lookalike",
  "emphasis",
  "benign",
] as const;

/**
 * Training batches, consecutive ones joined into parts of at least {@link PART_ROWS} replies
 * (`training-1..5.jsonl`): the unit of one test.
 */
const PART_ROWS = 1_000;
function trainingParts(training: readonly Batch[]): Batch[] {
  const parts: Batch[][] = [[]];
  for (const batch of training) {
    if (parts.at(-1)!.reduce((n, b) => n + b.rows.length, 0) >= PART_ROWS) parts.push([]);
    parts.at(-1)!.push(batch);
  }
  return parts
    .filter((p) => p.length > 0)
    .map((p) => ({
      file:
        p.length === 1
          ? p[0]!.file
          : `${p[0]!.file.replace(/\.jsonl$/, "")}..${p.at(-1)!.file.replace(/^training-/, "")}`,
      role: "training" as const,
      rows: p.flatMap((b) => b.rows),
    }));
}

function report(
  batch: Batch,
  s: Score = scoreBatch(classifier, batch),
): { precision: number; recall: number; text: string } {
  const text = [
    `${batch.file} (${batch.role}): ${batch.rows.length} texts, precision ${s.precision.toFixed(3)}, recall ${s.recall.toFixed(3)} (tp ${s.tp}, fp ${s.fp}, fn ${s.fn})`,
    s.wrong.length ? `  misclassified:\n    ${s.wrong.join("\n    ")}` : "  misclassified: none",
  ].join("\n");
  return { ...s, text };
}

describe("the labelled moderation batches", () => {
  it("are well formed: distinct texts, both labels, and held-out batches scored when first added", () => {
    const scored = firstScores();
    for (const batch of batches) {
      expect(new Set(batch.rows.map((r) => r.text)).size, batch.file).toBe(batch.rows.length);
      expect(batch.rows.filter((r) => r.abusive).length, batch.file).toBeGreaterThanOrEqual(20);
      expect(batch.rows.filter((r) => !r.abusive).length, batch.file).toBeGreaterThanOrEqual(20);
      if (batch.role === "held-out")
        expect(scored[batch.file], `${batch.file} needs its first score in first-scores.json`).toBeDefined();
    }
    expect(batches.filter((b) => b.role === "held-out").length).toBeGreaterThanOrEqual(2);
  });

  it("own fixture: at least 200 distinct texts covering every kind, both abusive and harmless", () => {
    expect(own.rows.length).toBeGreaterThanOrEqual(200);
    for (const kind of OWN_KINDS)
      expect(own.rows.filter((r) => r.kind === kind).length, kind).toBeGreaterThanOrEqual(5);
    expect(own.rows.filter((r) => r.abusive).length).toBeGreaterThanOrEqual(80);
    expect(own.rows.filter((r) => !r.abusive).length).toBeGreaterThanOrEqual(80);
  });

  for (const batch of batches.filter((b) => b.role === "held-out")) {
    const floor = BELOW_AIM[batch.file] ?? AIM;
    it(`held-out ${batch.file}: precision ≥ ${floor.precision}, recall ≥ ${floor.recall}${floor === AIM ? " (the aim)" : " (below the aim)"}`, () => {
      const { precision, recall, text } = report(batch);
      // Not printed when it passes: whoever runs the suite while tuning would read the misses
      // of every held-out batch. A failure shows them (the assertion's message).
      expect(precision, text).toBeGreaterThanOrEqual(floor.precision);
      expect(recall, text).toBeGreaterThanOrEqual(floor.recall);
    });
  }

  for (const batch of batches.filter((b) => b.role === "tuning")) {
    const recallFloor = TUNING_RECALL_EXCEPTIONS[batch.file] ?? 0.95;
    it(`tuning ${batch.file}: precision of at least 0.95 and recall of at least ${recallFloor} (it was tuned on)`, () => {
      const { precision, recall, text } = report(batch);
      expect(precision, text).toBeGreaterThanOrEqual(0.95);
      expect(recall, text).toBeGreaterThanOrEqual(recallFloor);
    });
  }

  // The training batches are scored in parts of about a thousand replies, each its own test, so
  // that no test classifies all 6,000 (12-14 s under load, against the 20 s test timeout); their
  // figures together are the parts' counts summed, the same as scoring them at once.
  const training = batches.filter((b) => b.role === "training");
  const parts = trainingParts(training);
  const scored = new Map<string, Score>();
  /** A part's score: computed once, by its own test, or by the test of all of them when it runs alone. */
  const scorePart = (part: Batch) => {
    let score = scored.get(part.file);
    if (!score) scored.set(part.file, (score = scoreBatch(classifier, part)));
    return score;
  };

  for (const part of parts) {
    it(`training ${part.file} (${part.rows.length} texts): precision of at least 0.95 and recall of at least 0.85`, () => {
      const { precision, recall, text } = report(part, scorePart(part));
      expect(precision, text).toBeGreaterThanOrEqual(0.95);
      expect(recall, text).toBeGreaterThanOrEqual(0.85);
    });
  }

  it("training batches, together: precision of at least 0.95 and recall of at least 0.85 (the model was trained on them)", () => {
    // Together, because a batch of a hundred harmless texts can be held back by one false
    // alarm of a rule; below 0.85 the weights file is out of step with the data (retrain).
    expect(training.length).toBeGreaterThan(0);
    const rows = training.flatMap((b) => b.rows);
    expect(parts.reduce((n, p) => n + p.rows.length, 0)).toBe(rows.length);
    const all = parts.map(scorePart);
    const count = (k: "tp" | "fp" | "fn") => all.reduce((n, s) => n + s[k], 0);
    const [tp, fp, fn] = [count("tp"), count("fp"), count("fn")];
    const { precision, recall, text } = report(
      { file: "training-*.jsonl", role: "training", rows },
      { ...precisionRecall(tp, fp, fn), tp, fp, fn, wrong: all.flatMap((s) => s.wrong) },
    );
    expect(precision, text).toBeGreaterThanOrEqual(0.95);
    expect(recall, text).toBeGreaterThanOrEqual(0.85);
  });

  it("own fixture: classified with precision and recall of at least 0.9", () => {
    const { precision, recall, text } = report(own);
    console.log(text);
    expect(precision, text).toBeGreaterThanOrEqual(0.9);
    expect(recall, text).toBeGreaterThanOrEqual(0.9);
  });
});
