/**
 * How the author's history and the thread move the score from which a reply is hidden (the
 * bot's `threshold`, 0.5 by default):
 *
 * | evidence | cut moves by | so, at the default threshold |
 * |---|---|---|
 * | the bot hid one of the author's replies in the last 30 days | −0.15 | 0.35: an insult beside laughter hides |
 * | the reply is part of a pile-on (3+ accounts, near-identical, 10 minutes) | −0.15 | 0.35 (0.31 with a history too) |
 * | the author and the bot follow each other | +0.25 | 0.75: one insult alone stays; with swearing it hides |
 *
 * The cut never falls below {@link CUT_LIMITS}.floor (0.31: swearing alone, 0.3, is never
 * hidden for who wrote it) nor rises above 1. Each move is a reason the hide's log line
 * gives.
 */
import type { AuthorHistoryFact } from "./history.ts";
import type { PileOnFact } from "./pile-on.ts";

export const CUT_STEPS = { history: -0.15, pileOn: -0.15, mutual: 0.25 } as const;
export const CUT_LIMITS = { floor: 0.31, ceiling: 1 } as const;

/** What is known of the author and the thread (each absent when it does not apply or is unknown). */
export interface Facts {
  history?: AuthorHistoryFact;
  pileOn?: PileOnFact;
  /** The author and the bot follow each other. */
  mutual?: boolean;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The cut for a reply, and the reasons it moved. */
export function cutFor(threshold: number, facts: Facts): { cut: number; reasons: string[] } {
  let cut = threshold;
  const reasons: string[] = [];
  if (facts.history) {
    cut += CUT_STEPS.history;
    reasons.push(
      `the bot hid ${facts.history.hides === 1 ? "a reply" : `${facts.history.hides} replies`} of this author in the last 30 days`,
    );
  }
  if (facts.pileOn) {
    cut += CUT_STEPS.pileOn;
    reasons.push(`pile-on: ${facts.pileOn.accounts} accounts sent near-identical replies to this post within minutes`);
  }
  if (facts.mutual) {
    cut += CUT_STEPS.mutual;
    reasons.push("the author and the bot follow each other");
  }
  cut = round(Math.min(CUT_LIMITS.ceiling, Math.max(Math.min(threshold, CUT_LIMITS.floor), cut)));
  return { cut, reasons };
}

/**
 * Whether knowing of a mutual follow could change the verdict: the score reaches the cut
 * without it but not the cut with it. Only then is the (budgeted) lookup worth its request.
 */
export function mutualMatters(score: number, threshold: number, facts: Omit<Facts, "mutual">): boolean {
  const without = cutFor(threshold, facts).cut;
  const withIt = cutFor(threshold, { ...facts, mutual: true }).cut;
  return score >= without && score < withIt;
}
