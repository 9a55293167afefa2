/**
 * Moderation's counts as counters: the plugin and its judges count as they go
 * (src/moderation/tallies.ts), and these read the tallies when scraped, so moderation needs
 * no handle on the registry.
 */
import { Counter } from "prom-client";
import { moderationTallies, type Tally } from "../../moderation/index.ts";
import type { Registers } from "./reading.ts";

/** One counter that copies `tally` at scrape time. */
function talliedCounter<L extends string>(registers: Registers, name: string, help: string, tally: Tally<L>) {
  return new Counter({
    name,
    help,
    labelNames: tally.labelNames,
    registers,
    collect() {
      this.reset();
      for (const { labels, n } of tally.entries()) this.inc(labels as never, n);
    },
  });
}

/** Registers the counters of moderation's verdicts, reviews and judges' failures. */
export function moderationCounters(registers: Registers): void {
  talliedCounter(
    registers,
    "postbot_moderation_verdicts_total",
    "Replies moderated, by bot, verdict (hidden; not-hidden: abusive where the bot cannot hide it; would-hide, with hide: never; kept) and source (built-in, judge, review: what decided).",
    moderationTallies.verdicts,
  );
  talliedCounter(
    registers,
    "postbot_moderation_reviews_total",
    "Decisions a person made in a review (bot review, /review), by bot and decision (hide, unhide, keep).",
    moderationTallies.reviews,
  );
  talliedCounter(
    registers,
    "postbot_moderation_judge_failures_total",
    "Replies a moderation judge gave no opinion on (the built-in classifier's verdict stood), by judge and reason (timeout, rate-limited, server-error, refused, unreachable, busy, bad-answer).",
    moderationTallies.judgeFailures,
  );
}
