/**
 * What moderation counts as it happens, for `/metrics`: verdicts by bot, verdict and source,
 * operators' review decisions, and the judges' failures. The `moderate` plugin and the judges
 * count here (this folder imports nothing above the base), and the metrics of `bot start
 * --http` (src/observe/metrics/moderation.ts) read the counts when scraped. One set per process: the
 * counts only grow, as Prometheus counters do.
 */

/** A counter by labels: each distinct set of label values counted apart. */
export class Tally<L extends string> {
  private readonly counts = new Map<string, { labels: Record<L, string>; n: number }>();

  constructor(readonly labelNames: readonly L[]) {}

  /** Adds `n` (default 1) to the count of these labels. */
  inc(labels: Record<L, string>, n = 1): void {
    const key = this.labelNames.map((l) => labels[l]).join("\u0000");
    const entry = this.counts.get(key);
    if (entry) entry.n += n;
    else this.counts.set(key, { labels: { ...labels }, n });
  }

  /** Every count, with its labels. */
  entries(): Array<{ labels: Record<L, string>; n: number }> {
    return [...this.counts.values()].map((e) => ({ labels: { ...e.labels }, n: e.n }));
  }

  /** The count of these labels (0 when never counted). */
  get(labels: Record<L, string>): number {
    return this.counts.get(this.labelNames.map((l) => labels[l]).join("\u0000"))?.n ?? 0;
  }
}

/**
 * The process's moderation counts:
 * - `verdicts` (`postbot_moderation_verdicts_total`): each reply moderated, by bot,
 *   `verdict` (`hidden`, `not-hidden`: abusive where the bot cannot hide, `would-hide` with
 *   `hide: never`, `kept`) and `source` (`built-in`, `judge`, `review`: what decided);
 * - `reviews` (`postbot_moderation_reviews_total`): operators' decisions, by bot and
 *   `decision` (`hide`, `unhide`, `keep`);
 * - `judgeFailures` (`postbot_moderation_judge_failures_total`): replies a judge gave no
 *   opinion on (the built-in's verdict stood), by judge and reason (`timeout`,
 *   `rate-limited`, `server-error`...).
 */
export const moderationTallies = {
  verdicts: new Tally(["bot", "verdict", "source"] as const),
  reviews: new Tally(["bot", "decision"] as const),
  judgeFailures: new Tally(["judge", "reason"] as const),
};
