/**
 * The abuse model a process's classifiers use: the one taught in the state on the operator's
 * labels (`bot moderation train`), when the state has one, else the shipped one. Read once,
 * when the process starts (a model trained later is used from the next start), and said in
 * the log either way it goes, so an operator sees which model hides their replies.
 */
import type { Logger } from "../log.ts";
import type { AbuseModel } from "../moderation/model.ts";
import { taughtModel } from "../moderation/training/taught.ts";
import type { Store } from "../store/store.ts";

/**
 * The state's taught model, loaded, or `undefined` for the shipped one: when there is none,
 * and when it was trained behind other rules than this postbot's (after an upgrade: a
 * warning says to train it again).
 */
export function taughtAbuseModel(store: Store, logger: Logger): AbuseModel | undefined {
  const use = taughtModel(store);
  if (!use) return undefined;
  const { labels, abusive, fine, at } = use.taught;
  const fields = { labels, abusive, fine, trainedAt: new Date(at).toISOString() };
  if ("refused" in use) {
    logger.warn(fields, `moderation: ${use.refused}`);
    return undefined;
  }
  logger.info(
    fields,
    `moderation: the abuse model trained in the state on ${labels} of the operator's labels (${abusive} abusive, ${fine} fine) at ${fields.trainedAt} replaces the shipped one; bot moderation train --reset goes back to it`,
  );
  return use.model;
}
