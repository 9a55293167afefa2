/**
 * The state could not be written, and the process stops without it: the error a flush of the
 * file store rejects with once `bot start` stops while its disk refuses writes (full), and the
 * one its `close()` throws, saying what was not saved and why nothing sent is lost.
 *
 * A caller tells it from other failures: the ledger's "durable before sending" was not met,
 * so the action is not sent, and it is not lost either: it is deferred to the next start
 * (src/actions/steps/queue.ts), which fetches again what this run could not record.
 */
import { UserError } from "../errors.ts";

export class StateNotSavedError extends UserError {
  override name = "StateNotSavedError";
  constructor(
    message: string,
    /** The changes made since the last write that reached the disk. */
    readonly unsaved: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
