/**
 * Queue step. Invariant: no request leaves without a slot in every window that applies to it
 * (the plan's U and A windows, the bot's caps, the monthly read cap), and every answer
 * corrects the slot it was counted in. The step waits in the process's {@link ActionQueue}
 * (by priority, until the time-to-live, not before the job's `notBefore`), writes the job's
 * `pendingMark` (the ledger's durable mark) before the request, sends through the rest of the
 * pipeline, and hands the answer's status and headers back to the budget: the corrections
 * travel with the call's own result. The channels it reads are in ../pipeline.ts.
 */
import { MarkRefused, type AccountBudget } from "../../limits/budget.ts";
import type { Clock } from "../../clock.ts";
import { RateLimitError, UsageCappedError } from "../../api/errors.ts";
import { StateNotSavedError } from "../../store/write-error.ts";
import type { Outcome } from "../action.ts";
import { unsentFailure, type Step } from "../pipeline.ts";
import type { ActionObserver } from "../observe.ts";
import { ActionQueue, QueueError } from "../mechanics/budget-queue.ts";
import { describeError, headersOf } from "../mechanics/retry-policy.ts";

/**
 * Not sent: the ledger's mark could not be written first. When the process stops while its
 * state cannot be written (a full disk: the store kept trying until then), deferred rather
 * than failed: the next start fetches again what this run could not record, and sends it.
 */
const notMarked = (error: unknown): Outcome =>
  error instanceof StateNotSavedError
    ? {
        status: "deferred",
        reason: `postbot stopped before it could record it in the ledger (${describeError(error)}); the next start sends it`,
      }
    : unsentFailure(`not sent: could not record it in the ledger first (${describeError(error)})`);

export function queueStep(options: {
  queue: ActionQueue;
  budget: AccountBudget;
  clock: Clock;
  bot: string;
  observe: ActionObserver;
}): Step {
  const { queue, budget, clock, bot, observe } = options;
  return (next) => async (job) => {
    const { action, signal, pendingMark } = job;
    const cap = action.kind === "read" ? undefined : action.kind;
    const label = action.kind === "read" ? action.target : `${action.kind} ${action.target}`;
    const asked = clock.now();
    let slot;
    try {
      slot = await queue.acquire({
        budget,
        bot,
        endpoint: action.endpoint,
        ...(cap ? { action: cap } : {}),
        priority: action.priority,
        ...(action.expiresAt !== undefined ? { expiresAt: action.expiresAt } : {}),
        ...(job.notBefore !== undefined ? { notBefore: job.notBefore } : {}),
        signal,
        label,
        ...(pendingMark ? { stage: pendingMark.stage } : {}),
      });
    } catch (error) {
      if (error instanceof MarkRefused) return notMarked(error.cause);
      if (error instanceof QueueError) {
        if (error.kind === "refused") return { status: "refused", reason: error.message };
        if (error.kind === "expired") return { status: "dropped", reason: error.message };
        return {
          status: "deferred",
          reason: "postbot stopped before the action's turn came; it is sent after the next start",
        };
      }
      if (signal.aborted) return { status: "deferred", reason: "aborted before its turn came" };
      throw error;
    }
    const waitedMs = clock.now() - asked;
    if (pendingMark && !slot.marked) {
      try {
        await pendingMark.write(slot);
      } catch (error) {
        budget.giveBack(slot);
        return notMarked(error);
      }
    }
    const outcome = await next({ ...job, pendingMark: undefined });
    const error = outcome.status === "failed" ? outcome.error : undefined;
    const status =
      outcome.status === "sent" || outcome.status === "dry-run"
        ? 200
        : ((error as { status?: number } | undefined)?.status ?? 0);
    const headers = outcome.headers ?? headersOf(error);
    budget.settle(slot, {
      status,
      ...(headers ? { headers } : {}),
      ...(error instanceof UsageCappedError ? { usageCapped: true } : {}),
      ...(error instanceof RateLimitError && error.resetAt !== undefined
        ? { limitedUntil: error.resetAt, ...(error.limit !== undefined ? { limit: error.limit } : {}) }
        : {}),
      ...(outcome.status === "sent" && job.postsDelivered ? { postsRead: job.postsDelivered(outcome.result) } : {}),
    });
    observe({ type: "response", bot, endpoint: action.endpoint, kind: action.kind, status, waitedMs });
    return outcome;
  };
}
