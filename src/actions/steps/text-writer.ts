/**
 * Text writer step. Invariant: a text written when its action goes (a language model's
 * reply, see `WriteText`) is written at most once per idempotency key, and it is recorded
 * with the key's ledger entry, durably, before the action goes on: whatever happens after
 * (a retry, a refusal by the duplicate guard, a crash and a restart), the recorded text is
 * the one sent, and the writer is never asked again. It sits after reply safety, so no text is
 * written for a reply the bot may not send (to another bot, in a conversation it answered a
 * moment ago, to a hidden post). The argument is in ../pipeline.ts ("A written text, once").
 */
import { awaitsText, TextRefused, type Action } from "../action.ts";
import type { Step } from "../pipeline.ts";

/** The action with `text` as its body's text. */
const withText = (action: Action, text: string): Action => ({
  ...action,
  body: { ...(action.body as Record<string, unknown> | undefined), text },
});

/** The text writer step (the same for every bot: it keeps nothing of its own). */
export function textWriter(): Step {
  return (next) => async (job) => {
    const { action, write, record, ...rest } = job;
    if (!awaitsText(action)) return next({ ...rest, action });
    const key = action.key;
    const keyed = key !== undefined ? { key } : {};
    if (!write)
      return {
        status: "refused",
        ...keyed,
        reason: "its text was to be written when it went, and nothing here writes it",
      };
    let text: string;
    try {
      text = await write(job.signal);
    } catch (error) {
      if (job.signal.aborted) return { status: "deferred", ...keyed, reason: "stopped while its text was written" };
      if (error instanceof TextRefused) return { status: "refused", ...keyed, reason: error.message };
      const why = error instanceof Error ? error.message : String(error);
      // No `error`: decided before any request left (see `unsentFailure`); the ledger ends it `failed`.
      return { status: "failed", ...keyed, reason: `its text could not be written: ${why}`, maybeSent: false };
    }
    const written = withText(action, text);
    if (record) {
      try {
        await record(written);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return {
          status: "failed",
          ...keyed,
          reason: `its written text could not be recorded: ${why}`,
          maybeSent: false,
        };
      }
    }
    return next({ ...rest, action: written });
  };
}
