/**
 * `--dry-run`: an executor that sends nothing and answers as the service would, so plugins
 * that read the answer (the new post's id) keep working while every action is only logged
 * and counted against a simulated budget.
 */
import type { Action, Executor } from "./action.ts";

/** A made-up answer in the wire shape of each action's endpoint (wire-facts part 2). */
function answer(action: Action, id: string): unknown {
  const body = (action.body ?? {}) as { text?: string; hidden?: boolean };
  switch (action.kind) {
    case "reply":
    case "post":
      return { data: { id, text: body.text ?? "", edit_history_post_ids: [id] } };
    case "like":
      return { data: { liked: true } };
    case "repost":
      return { data: { reposted: true } };
    case "follow":
      return { data: { following: true, pending_follow: false } };
    case "dm":
      return {
        data: {
          dm_conversation_id:
            action.path.dm_conversation_id ?? `${action.userId}-${action.path.participant_id ?? action.target}`,
          dm_event_id: id,
        },
      };
    case "hide":
      return { data: { hidden: body.hidden ?? true } };
    case "mute":
      return { data: { muting: true } };
    default:
      return { data: [], meta: { result_count: 0 } };
  }
}

/** An executor for dry runs; its ids say `dry-run` so they are never mistaken for real ones. */
export function dryRunExecutor(): Executor {
  let n = 0;
  return async (action) => ({ result: answer(action, `dry-run-${++n}`) });
}
