/**
 * The `moderate` plugin's decision about one reply, from everything it knows: the built-in's
 * assessment (`band.ts`), the author's history and the thread (`evidence/cut.ts`), a judge's
 * opinion, and an operator's earlier decision (`review/examples.ts`). In order:
 *
 * 1. **An operator's example**: a reply near-identical to one a person decided about follows
 *    that decision; an unsure reply of an author a person decided about in the last 30 days
 *    follows it too (a sure verdict of the built-in is not overturned by the author alone).
 * 2. **The judge**, when it answered about a reply in the unsure band: its opinion decides
 *    (flagged: hide; safe: keep). With `when: always`, a reply below the band that the judge
 *    flags is hidden too; above the band the built-in stands (it is nearly never wrong there).
 * 3. **The built-in**, with the cut moved by the evidence: hidden when its score reaches the
 *    cut (`hide: abusive`), or when any rule fired (`hide: flagged`). This is also what
 *    happens when the judge failed or was too slow: the built-in's verdict stands.
 *
 * The decision says what decided (`source`, for the metric) and every reason, for the one
 * log line of a hide.
 */
import { UNSURE_BAND } from "./band.ts";
import { cutFor, type Facts } from "./evidence/cut.ts";
import { describeCategory } from "./judge/categories.ts";
import type { JudgeResult } from "./judge/judge.ts";
import type { ExampleMatch } from "./review/examples.ts";
import type { Assessment, RuleHit } from "./types.ts";

export interface DecisionInput {
  assessment: Assessment;
  /** The bot's `hide`: `abusive` uses the cut; `flagged` any rule (and `never` decides like `abusive`). */
  hide: "abusive" | "flagged" | "never";
  threshold: number;
  facts: Facts;
  /** The judge's name and, when it was asked, what it came to. */
  judge?: { name: string; result: JudgeResult };
  example?: ExampleMatch;
}

export type DecisionSource = "built-in" | "judge" | "review";

export interface ModerationDecision {
  abusive: boolean;
  source: DecisionSource;
  /** The cut the score was held to. */
  cut: number;
  /** The rule that weighed most, when one fired. */
  top?: RuleHit;
  /** What the judge named (`S1`, `harassment/threatening`), when it was asked and answered. */
  categories?: string[];
  /** Every reason, in words, for the log line. */
  reasons: string[];
}

/** The rule that decided: the heaviest that fired (the first of those, on a tie). */
export function topRule(rules: readonly RuleHit[]): RuleHit | undefined {
  return rules.length === 0 ? undefined : rules.reduce((best, hit) => (hit.weight > best.weight ? hit : best));
}

/** Decides about one reply; see the module comment. */
export function decide(input: DecisionInput): ModerationDecision {
  const { assessment, facts } = input;
  const { verdict, evidence, unsure } = assessment;
  const top = topRule(verdict.rules);
  const { cut, reasons } = cutFor(input.threshold, facts);
  const base = { cut, ...(top ? { top } : {}) };
  if (unsure) reasons.unshift(`unsure: evidence ${evidence} in [${UNSURE_BAND.low}, ${UNSURE_BAND.high})`);

  const example = input.example;
  if (example && (example.by === "text" || unsure)) {
    const e = example.example;
    reasons.push(
      `follows a person's decision (${e.decision}) about ${example.by === "text" ? "a near-identical reply" : "this author"}, post ${e.post}`,
    );
    return { ...base, abusive: e.state === "hidden", source: "review", reasons };
  }

  const judged = input.judge;
  if (judged) {
    const r = judged.result;
    if (r.ok) {
      const named = r.opinion.categories.map(describeCategory).join(", ");
      reasons.push(
        `judge ${judged.name}: ${r.opinion.categories.length === 0 ? "safe" : `unsafe ${named}`}${r.opinion.flagged || r.opinion.categories.length === 0 ? "" : " (not abuse here)"}${r.cached ? " (cached)" : ""}`,
      );
      const categories = r.opinion.categories;
      if (unsure) return { ...base, abusive: r.opinion.flagged, source: "judge", categories, reasons };
      if (evidence < UNSURE_BAND.low && r.opinion.flagged)
        return { ...base, abusive: true, source: "judge", categories, reasons };
    } else {
      reasons.push(`judge ${judged.name} gave no opinion (${r.error.reason}); the built-in's verdict stands`);
    }
  }

  const abusive = input.hide === "flagged" ? verdict.rules.length > 0 : verdict.score >= cut;
  return { ...base, abusive, source: "built-in", reasons };
}
