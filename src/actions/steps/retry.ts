/**
 * Retry step. Invariant: a failure is retried only when trying again can help, never sooner
 * than the service allows, and a write that may have arrived is checked with the service
 * before it is sent again. A 429 waits until the window's reset and at least the back-off
 * (spec part 7 rule 1); a spent monthly cap waits in the queue until the enrolment day; a
 * network failure or a 5xx backs off, checking first when the request may have arrived; a
 * refused token pauses the bot (the one place revocation is detected) and the action waits
 * in the ledger for the new token (`deferred`); anything else the service refused is final. It tells the queue step when to try again (the job's `notBefore`)
 * and sends later attempts without the ledger's mark (../pipeline.ts, "Job channels").
 */
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { isUnsentFailure, type Step } from "../pipeline.ts";
import { backoffMs, classifyFailure, describeError, type RetryPolicy } from "../mechanics/retry-policy.ts";
import type { CheckWithService } from "../mechanics/service-check.ts";

export interface RetryStepOptions {
  policy: RetryPolicy;
  clock: Clock;
  log: Logger;
  /** Asks the service whether an action that may have arrived did (absent for reads: they are simply repeated). */
  check?: CheckWithService;
  /** The service refused the account's token (401, code 89): nothing helps until it is authorized again. */
  onRevoked?: (error: unknown) => void;
}

export function retryStep(options: RetryStepOptions): Step {
  const { policy, clock, log } = options;
  return (next) => async (job) => {
    const { action, signal } = job;
    const label = action.kind === "read" ? action.target : `${action.kind} ${action.target}`;
    let notBefore = job.notBefore;
    for (let attempt = 1; ; attempt++) {
      const outcome = await next({
        ...job,
        ...(notBefore !== undefined ? { notBefore } : {}),
        // Later attempts go out under the ledger's mark the first one wrote.
        ...(attempt > 1 ? { pendingMark: undefined } : {}),
      });
      // A failure decided before anything was sent (the ledger could not write) is final.
      if (outcome.status !== "failed" || isUnsentFailure(outcome)) return outcome;
      const { error } = outcome;
      const failure = classifyFailure(error, signal);
      const reason = describeError(error);
      const giveUp = attempt >= policy.maxAttempts;
      switch (failure.kind) {
        case "aborted":
          return {
            status: "deferred",
            reason: "postbot stopped while the request was on its way; it is checked after the next start",
          };
        case "elsewhere":
          return {
            status: "deferred",
            reason: "the bot runs in another process now, which resumes this action from the ledger",
          };
        case "invalid-token":
          options.onRevoked?.(error);
          // Refused, so not sent: an action waits in the ledger for the account's new token
          // (the bot restarted with it resumes it); a read has nothing to keep.
          if (action.kind === "read") return { ...outcome, reason, maybeSent: false };
          return {
            status: "deferred",
            reason: `${reason}; it waits for the account's new token and is sent with it`,
          };
        case "permanent":
          return { ...outcome, reason, maybeSent: false };
        case "rate-limited":
          if (giveUp) return { ...outcome, reason: `${reason} (gave up after ${attempt} attempts)`, maybeSent: false };
          notBefore = Math.max(failure.resetAt ?? 0, clock.now() + backoffMs(attempt, policy));
          log.warn(
            { endpoint: action.endpoint, action: label, retry_at: new Date(notBefore).toISOString(), attempt },
            `429 from the service; ${label} waits and tries again`,
          );
          continue;
        case "usage-capped":
          if (giveUp) return { ...outcome, reason, maybeSent: false };
          notBefore = undefined; // the budget now holds capped reads until the enrolment day
          continue;
        case "transient": {
          if (giveUp)
            return {
              ...outcome,
              reason: `${reason} (gave up after ${attempt} attempts)`,
              maybeSent: failure.maybeSent,
            };
          if (failure.maybeSent && options.check) {
            const found = await options.check(action, signal);
            if ("unknown" in found) return { ...outcome, reason: `${reason}; ${found.unknown}`, maybeSent: true };
            if (found.done) return { status: "sent", result: found.result };
          }
          notBefore = clock.now() + backoffMs(attempt, policy);
          log.warn(
            { endpoint: action.endpoint, action: label, retry_at: new Date(notBefore).toISOString(), attempt },
            `${reason}; trying again`,
          );
          continue;
        }
      }
    }
  };
}
