/**
 * Executor step, the last. Invariant: it sends exactly one request (the bot's executor for
 * an action, its reader for a described read; a read of another client brings its own) and reports what came back, the answer's body and headers, or the error (whose headers the client attached);
 * it decides nothing. In a dry run the executor answers as the service would, and the
 * outcome says `dry-run`.
 */
import type { Executor } from "../action.ts";
import type { Perform } from "../pipeline.ts";

export function executorStep(executor: Executor, dryRun: boolean): Perform {
  return async (job) => {
    try {
      const { result, headers } = await (job.send ? job.send(job.signal) : executor(job.action, job.signal));
      return { status: dryRun ? "dry-run" : "sent", result, ...(headers ? { headers } : {}) };
    } catch (error) {
      return {
        status: "failed",
        reason: error instanceof Error ? error.message : String(error),
        maybeSent: true,
        error,
      };
    }
  };
}
