/**
 * The service check, a mechanism behind the ledger and retry steps: asking the service
 * whether an action that may have been sent arrived. The ledger step asks after a restart
 * (an action left `pending`), the retry step after a failure that may have reached the
 * service; both ask here. The check is a read, made through the read pipeline (budgeted like
 * any other request), by the kind's {@link Verifier}. Without one, a kind whose repetition is
 * harmless on the service (a like leaves a liked post liked) is simply sent again; any other
 * is never sent again, since nothing can tell.
 */
import type { Logger } from "../../log.ts";
import type { Action, ActionKind, Verification, Verifier } from "../action.ts";
import { ACTION_KINDS, isActionKind } from "../kinds.ts";
import { describeError } from "./retry-policy.ts";

/** Whether an action reached the service: found (`done`), not found, or `unknown` (not sent again). */
export type CheckWithService = (action: Action, signal: AbortSignal) => Promise<Verification | { unknown: string }>;

/** Runs a verifier's lookup as a budgeted read. */
export type BudgetedRead = (verifier: Verifier, action: Action, signal: AbortSignal) => Promise<Verification>;

export function checkWithService(
  verifiers: Partial<Record<ActionKind, Verifier>>,
  read: BudgetedRead,
  log: Logger,
): CheckWithService {
  return async (action, signal) => {
    const verifier = isActionKind(action.kind) ? verifiers[action.kind] : undefined;
    if (!verifier) {
      if (isActionKind(action.kind) && ACTION_KINDS[action.kind].repeatable) return { done: false };
      return { unknown: `no verifier for ${action.kind} can tell whether it was sent, so it is not sent again` };
    }
    try {
      const found = await read(verifier, action, signal);
      if (found.done)
        log.info(
          { action: action.kind, target: action.target, key: action.key },
          `${action.kind} ${action.target} had reached the service; not sending it again`,
        );
      return found;
    } catch (error) {
      // A repeatable action that cannot be checked is sent again: at worst the service sees it twice, harmlessly.
      if (isActionKind(action.kind) && ACTION_KINDS[action.kind].repeatable) return { done: false };
      return { unknown: `could not check whether it was sent (${describeError(error)})` };
    }
  };
}
