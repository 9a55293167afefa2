/**
 * Posts a bot has hidden, and the action-layer step that keeps the bot from answering them:
 * once a reply is hidden, no reply, like or repost of the bot reaches it, even from a plugin
 * that ran before the one that hid it, or after a restart.
 */
import type { Transformer } from "../actions/index.ts";
import type { Store } from "../store/store.ts";

/** Hidden post ids remembered per bot (the oldest are forgotten past it). */
export const HIDDEN_LIMIT = 5_000;

const ns = (bot: string) => `hidden:${bot}`;

export function markHidden(store: Store, bot: string, postId: string): void {
  store.set(ns(bot), postId, true);
  const all = store.entries(ns(bot));
  for (const [id] of all.slice(0, Math.max(0, all.length - HIDDEN_LIMIT))) store.delete(ns(bot), id);
}

export const isHidden = (store: Store, bot: string, postId: string): boolean => store.get<boolean>(ns(bot), postId) === true;

const ANSWERS = new Set(["reply", "like", "repost"]);

/** Refuses answers to a post the bot has hidden. */
export function hiddenGuard(store: Store, bot: string): Transformer {
  return (next) => async (job) => {
    const { kind, target, key } = job.action;
    if (ANSWERS.has(kind) && isHidden(store, bot, target)) {
      return { status: "refused", ...(key !== undefined ? { key } : {}), reason: `post ${target} was hidden by this bot; it is not answered` };
    }
    return next(job);
  };
}
