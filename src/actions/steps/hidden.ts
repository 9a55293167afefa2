/**
 * Hidden guard. Invariant: once the bot has hidden a reply, no reply, like or repost of the
 * bot reaches it (not from a plugin that ran before the one that hid it, not after a
 * restart). This step is the one place "hidden" is decided: it records a hide when the
 * service confirms it (and forgets it on an unhide), and the context's `ctx.hidden` and the
 * stage's "stop after a hide" read the same record through {@link isHidden}.
 */
import type { Store } from "../../store/store.ts";
import type { Step } from "../pipeline.ts";

/** Hidden post ids remembered per bot (the oldest are forgotten past it). */
export const HIDDEN_LIMIT = 5_000;

const ns = (bot: string) => `hidden:${bot}`;

/** Whether the bot has hidden the post. */
export const isHidden = (store: Store, bot: string, postId: string): boolean =>
  store.get<boolean>(ns(bot), postId) === true;

function markHidden(store: Store, bot: string, postId: string): void {
  store.set(ns(bot), postId, true);
  const all = store.entries(ns(bot));
  for (const [id] of all.slice(0, Math.max(0, all.length - HIDDEN_LIMIT))) store.delete(ns(bot), id);
}

/** The kinds that answer a post, and so must never reach a hidden one. */
const ANSWERS = new Set(["reply", "like", "repost"]);

/** The hidden guard of one bot. */
export function hiddenGuard(store: Store, bot: string): Step {
  return (next) => async (job) => {
    const { kind, target, key, path, body } = job.action;
    if (ANSWERS.has(kind) && isHidden(store, bot, target)) {
      return {
        status: "refused",
        ...(key !== undefined ? { key } : {}),
        reason: `post ${target} was hidden by this bot; it is not answered`,
      };
    }
    const outcome = await next(job);
    if (
      kind === "hide" &&
      (outcome.status === "sent" || outcome.status === "duplicate" || outcome.status === "dry-run")
    ) {
      const postId = path.id ?? target;
      if ((body as { hidden?: boolean } | undefined)?.hidden === false) store.delete(ns(bot), postId);
      else markHidden(store, bot, postId);
    }
    return outcome;
  };
}
