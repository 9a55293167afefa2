/**
 * Text writer step. Invariant: a text written when its action goes (a language model's
 * reply, see `WriteText`) is written at most once per idempotency key, and it is recorded
 * with the key's ledger entry, durably, before the action goes on: whatever happens after
 * (its check, a retry, a refusal by the duplicate guard, a crash and a restart), the recorded
 * text is the one sent, and the writer is never asked again. A writer's slow check (a
 * moderation judge) runs on the recorded text, and again after a restart until it has passed,
 * so no unchecked text is sent. It sits after reply safety, so no text is written for a reply
 * the bot may not send (to another bot, in a conversation it answered a moment ago, to a
 * hidden post). The argument is in ../pipeline.ts ("A written text, once").
 */
import {
  awaitsCheck,
  awaitsText,
  TextDeferred,
  TextExpired,
  TextRefused,
  type Action,
  type CheckText,
} from "../action.ts";
import type { Job, Step, StepOutcome } from "../pipeline.ts";

/** The action with `text` as its body's text, marked unchecked while `check` is to run. */
const withText = (action: Action, text: string, unchecked: boolean): Action => {
  const written: Action = { ...action, body: { ...(action.body as Record<string, unknown> | undefined), text } };
  if (unchecked) written.context = { ...action.context, unchecked: true };
  return written;
};

/** The action without its unchecked mark (its check passed). */
const checked = (action: Action): Action => {
  const { unchecked: _passed, ...context } = action.context ?? {};
  const done: Action = { ...action };
  if (Object.keys(context).length > 0) done.context = context;
  else delete done.context;
  return done;
};

const why = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The text writer step (the same for every bot: it keeps nothing of its own). */
export function textWriter(): Step {
  return (next) => async (job) => {
    const { action, write, check, record, ...rest } = job;
    const key = action.key;
    const keyed = key !== undefined ? { key } : {};
    if (!awaitsText(action)) {
      if (!awaitsCheck(action)) return next({ ...rest, action });
      // Recorded by an earlier run, its check not passed yet: check it now, never write it again.
      return checkThen(next, { ...rest, action }, check, record);
    }
    if (!write)
      return {
        status: "refused",
        ...keyed,
        reason: "its text was to be written when it went, and nothing here writes it",
      };
    // Told to the writer once its text is durable, or never will be (see `WriteText`).
    let settle!: () => void;
    const recorded = new Promise<void>((resolve) => (settle = resolve));
    let written: Action;
    try {
      let text: string;
      try {
        text = await write(job.signal, recorded, action.expiresAt, job.stopping);
      } catch (error) {
        if (job.signal.aborted) return { status: "deferred", ...keyed, reason: "stopped while its text was written" };
        if (error instanceof TextRefused) return { status: "refused", ...keyed, reason: error.message };
        // The process stops while the writer waited, before anything was asked: the next start writes it.
        if (error instanceof TextDeferred) return { status: "deferred", ...keyed, reason: error.message };
        // Its time-to-live passed while the writer waited, before it asked for anything.
        if (error instanceof TextExpired) return { status: "dropped", ...keyed, reason: error.message };
        // No `error`: decided before any request left (see `unsentFailure`); the ledger ends it `failed`.
        return { status: "failed", ...keyed, reason: `its text could not be written: ${why(error)}`, maybeSent: false };
      }
      written = withText(action, text, check !== undefined);
      const unrecorded = await recordOrFail(record, written, "written");
      if (unrecorded) return { ...unrecorded, ...keyed };
    } finally {
      settle();
    }
    if (!check) return next({ ...rest, action: written });
    return checkThen(next, { ...rest, action: written }, check, record);
  };
}

/**
 * Runs the writer's check on the recorded text; once it passes, records the action checked
 * (flushed: a restart then sends it without checking again, even once its event has left the
 * inbox) and goes on. With no check here (a restart whose writer has none now), the text goes
 * as it is.
 */
async function checkThen(
  next: (job: Job) => Promise<StepOutcome>,
  job: Job,
  check: CheckText | undefined,
  record: ((action: Action) => Promise<void>) | undefined,
): Promise<StepOutcome> {
  const key = job.action.key;
  const keyed = key !== undefined ? { key } : {};
  const text = (job.action.body as { text: string }).text;
  if (check) {
    try {
      await check(text, job.signal);
    } catch (error) {
      if (job.signal.aborted) return { status: "deferred", ...keyed, reason: "stopped while its text was checked" };
      if (error instanceof TextRefused) return { status: "refused", ...keyed, reason: error.message };
      return { status: "failed", ...keyed, reason: `its text could not be checked: ${why(error)}`, maybeSent: false };
    }
  }
  const passed = checked(job.action);
  const unrecorded = await recordOrFail(record, passed, "checked");
  if (unrecorded) return { ...unrecorded, ...keyed };
  return next({ ...job, action: passed });
}

/** Records `action` (when the job records at all); the failed outcome if that failed, else nothing. */
async function recordOrFail(
  record: ((action: Action) => Promise<void>) | undefined,
  action: Action,
  what: "written" | "checked",
): Promise<StepOutcome | undefined> {
  if (!record) return undefined;
  try {
    await record(action);
    return undefined;
  } catch (error) {
    return { status: "failed", reason: `its ${what} text could not be recorded: ${why(error)}`, maybeSent: false };
  }
}
