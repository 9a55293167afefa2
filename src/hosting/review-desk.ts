/**
 * A person's review, on the hosting side: the replies each bot listed in its review queue
 * (core's own, `src/plugins/review-queue.ts`, which plugins write to through `bot.review`),
 * and the decisions a person makes about them, **sent through the bot's action pipeline**
 * (`PUT /2/posts/:id/hidden`, with `hidden: false` to unhide: budgeted, in the ledger, never
 * sent twice) and recorded in the queue, where a plugin reads them (the `moderate` plugin
 * follows them for later near-identical replies and the author's later unsure ones).
 *
 * A decision is sent once: the same decision about the same reply again is answered with
 * what was done, and its action's idempotency key (`<bot>:hide:<post>:review-<decision>`)
 * keeps the ledger from sending it twice even across a crash. `keep` sends nothing.
 *
 * Every decision is also kept as a label of the reply's text (abusive when the person wants
 * it hidden: hide, or keep of a hidden reply; fine otherwise), with who decided, when and
 * for which bot, among the operator's labels that `bot moderation train` teaches the model
 * (src/moderation/training/labels.ts). The label is the person's judgement, kept whether or
 * not the action could be sent.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { moderationTallies } from "../moderation/index.ts";
import { keepLabels, type OperatorLabel } from "../moderation/training/labels.ts";
import { ReviewQueue, stateAfter, type ReviewDecision, type ReviewItem } from "../plugins/review-queue.ts";
import type { Store } from "../store/store.ts";

/** A listed reply and the bot that listed it. */
export type BotReviewItem = ReviewItem & { bot: string };

/** What deciding came to: the item as it is now, and whether an action was sent now. */
export interface ReviewOutcome {
  item: BotReviewItem;
  /** `sent`, `duplicate`, `dry-run`, `none` (keep), `done already` (decided before), or how it failed. */
  status: string;
  reason?: string;
}

/** The bots whose state may hold a review list: those with a saved status. */
export function reviewedBots(store: Store): string[] {
  return store.entries("status").map(([bot]) => bot);
}

/** The replies listed for review by these bots (all with a saved status by default), newest first. */
export function reviewList(store: Store, o: { bots?: readonly string[]; open?: boolean } = {}): BotReviewItem[] {
  const bots = o.bots ?? reviewedBots(store);
  return bots
    .flatMap((bot) => new ReviewQueue(store, bot).list(o.open ? { open: true } : {}).map((item) => ({ ...item, bot })))
    .sort((a, b) => b.at - a.at);
}

/** A decision as a label of the reply's text: abusive when the person wants it hidden. */
export function decisionLabel(
  bot: string,
  item: Pick<ReviewItem, "post" | "text" | "state">,
  decision: ReviewDecision,
  by: string,
  at: number,
): OperatorLabel {
  const abusive = stateAfter(decision, item.state) === "hidden";
  return { text: item.text, abusive, by, at, from: "review", bot, post: item.post };
}

export interface ReviewDeskOptions {
  store: Store;
  clock: Clock;
  log: Logger;
  /** The action layer of a bot running here (undefined: it does not run here). */
  layerOf(bot: string): ActionLayer | undefined;
}

/** Sends and records decisions; see the module comment. */
export class ReviewDesk {
  constructor(private readonly options: ReviewDeskOptions) {}

  /**
   * Decides about a listed reply. Throws a {@link UserError} naming what is wrong when the
   * bot does not run here or the reply is not on its list.
   */
  async decide(bot: string, post: string, decision: ReviewDecision, by: string): Promise<ReviewOutcome> {
    const { store, clock, log } = this.options;
    const layer = this.options.layerOf(bot);
    if (!layer) throw new UserError(`bot ${bot} does not run here; decide where it runs`);
    const review = new ReviewQueue(store, bot);
    const item = review.get(post);
    if (!item)
      throw new UserError(`post ${post} is not on bot ${bot}'s review list (bot review --bot ${bot} lists it)`);
    if (!review.pending(post, decision)) return { item: { ...item, bot }, status: "done already" };
    let status = "none";
    let reason: string | undefined;
    if (decision !== "keep") {
      const outcome = await layer.hide(post, { hidden: decision === "hide", key: `${post}:review-${decision}` });
      status = outcome.status;
      if ("reason" in outcome) reason = outcome.reason;
    }
    const updated = review.decide(post, { decision, by, at: clock.now(), status }) ?? item;
    keepLabels(store, [decisionLabel(bot, item, decision, by, clock.now())]);
    moderationTallies.reviews.inc({ bot, decision });
    const fields = { bot, post, decision, by, status, ...(reason ? { reason } : {}) };
    const what = `review of ${bot}'s reply ${post} by @${item.author.username}: ${decision}, decided by ${by}`;
    if (["sent", "duplicate", "dry-run", "none"].includes(status))
      log.info(fields, `${what}${status === "none" ? "" : ` (${status})`}; later near-identical replies follow it`);
    else log.warn(fields, `${what}: ${status}${reason ? ` (${reason})` : ""}; decide again to retry`);
    return { item: { ...updated, bot }, status, ...(reason ? { reason } : {}) };
  }
}
