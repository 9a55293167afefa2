/**
 * Ledger step. Invariant: an idempotency key is sent at most once, and nothing asked for is
 * lost. A key already done answers `duplicate`; the same key asked for twice at once waits
 * for the first. An action an earlier run left `pending` (its request may have arrived) is
 * checked with the service first (once the requests of a process that ran the bot before can no
 * longer arrive: ../holding.ts): found, it is done; not found, the slot the lost request held
 * is given back to the budget and the action is sent. The durable `pending` mark is
 * handed down to the queue step as the job's `pendingMark`, which writes it right before the
 * request leaves: the whole argument is in ../pipeline.ts ("At most once"). The job's rider (a
 * handler's session, a dialog's step, as data) is written with the action's first record, so
 * the two are durable together or not at all (../pipeline.ts, "What rides with the ledger's record").
 *
 * A key renamed since an action was recorded (../keys.ts: a ledger written before postbot 0.2)
 * is looked up under its former key too: the action is then filed under the key it was
 * recorded with, so it is a `duplicate` once done, and resumed, not sent again, while unfinished.
 */
import type { Clock } from "../../clock.ts";
import type { Action, Outcome } from "../action.ts";
import { formerKeys } from "../keys.ts";
import type { Job, PendingMark, Perform, Step } from "../pipeline.ts";
import type { Ledger, LedgerEntry } from "../mechanics/idempotency-ledger.ts";
import type { CheckWithService } from "../mechanics/service-check.ts";

export interface LedgerStepOptions {
  ledger: Ledger;
  clock: Clock;
  check: CheckWithService;
  /** Gives a slot back to the budget (a request that never reached the service). */
  giveBack(slot: { at: number; keys: readonly string[] }): void;
  /** Off only to measure what the ledger costs. */
  enabled?: boolean;
  /**
   * When an action left `pending` may be checked with the service: not before the requests
   * of a process that ran the bot before and stopped answering can no longer arrive
   * (../holding.ts). Undefined: at once.
   */
  settledAt?: () => number | undefined;
}

/** The action as the ledger files it: under a former key when it was recorded with one (see the module comment). */
function asRecorded(ledger: Ledger, action: Action): Action {
  const key = action.key;
  if (!key || ledger.get(key)) return action;
  const former = formerKeys(key).find((k) => ledger.get(k) !== undefined);
  return former === undefined ? action : { ...action, key: former };
}

export function ledgerStep(options: LedgerStepOptions): Step {
  const running = new Map<string, Promise<Outcome>>();
  return (next) => async (asked) => {
    if (options.enabled === false || !asked.action.key) return next(asked);
    const action = asRecorded(options.ledger, asked.action);
    const job = action === asked.action ? asked : { ...asked, action };
    const key = action.key!;
    const first = running.get(key);
    if (first)
      return first.then(
        (o): Outcome =>
          o.status === "sent" || o.status === "dry-run" ? { status: "duplicate", key, result: o.result } : o,
      );
    const run = performOnce(options, next, job, key);
    running.set(key, run);
    try {
      return await run;
    } finally {
      running.delete(key);
    }
  };
}

/**
 * The one job of a key let through: answered from the ledger when its entry is final; an
 * action left `pending` checked first ({@link resumePending}); otherwise recorded `queued`
 * with its rider, sent on with its `pending` mark, and its entry ended by the outcome.
 */
async function performOnce(options: LedgerStepOptions, next: Perform, job: Job, key: string): Promise<Outcome> {
  const { ledger } = options;
  const entry = ledger.get(key);
  if (entry && ledger.isFinal(key))
    return { status: "duplicate", key, ...(entry.result !== undefined ? { result: entry.result } : {}) };
  let current = job.action;
  if (entry?.state === "pending") {
    const resumed = await resumePending(options, job, key, entry);
    if ("status" in resumed) return resumed;
    current = resumed.action;
  } else if (entry?.state === "queued" && entry.action) {
    current = entry.action; // keep the first request's time-to-live
  }
  // What the handler changed alongside (its session, a dialog's step) joins the record, in
  // this same synchronous run: see ../pipeline.ts ("What rides with the ledger's record").
  const rider = job.rider && !job.rider.superseded ? job.rider : undefined;
  ledger.queue(current, rider?.writes);
  if (rider) rider.taken = true;
  const pendingMark: PendingMark = {
    write: (slot) => ledger.begin(key, slot),
    stage: (slot) => ledger.stageBegin(key, slot),
  };
  const outcome = await next({ ...job, action: current, pendingMark, record: (written) => ledger.record(written) });
  endEntry(ledger, key, outcome);
  return outcome;
}

/**
 * An action a run that stopped while sending left `pending`: the service may have it
 * already. Past its time-to-live it is dropped; otherwise, once it may be checked, the
 * service is asked: found, it is done (`duplicate`); not found, the slot its lost request held
 * is given back and the action as recorded goes on.
 */
async function resumePending(
  options: LedgerStepOptions,
  job: Job,
  key: string,
  entry: LedgerEntry,
): Promise<Outcome | { action: Action }> {
  const { ledger, clock } = options;
  const current = entry.action ?? job.action;
  if (current.expiresAt !== undefined && current.expiresAt <= clock.now()) {
    ledger.finish(key, "unknown", { reason: "its time-to-live passed before it could be checked" });
    return {
      status: "dropped",
      key,
      reason: "left unfinished by the last run and past its time-to-live; not sent again",
    };
  }
  if (!(await settled(options, job))) return { status: "deferred", key, reason: "stopped while checking" };
  const found = await options.check(current, job.signal);
  if ("unknown" in found) {
    if (job.signal.aborted) return { status: "deferred", key, reason: "stopped while checking" };
    ledger.finish(key, "unknown", { reason: found.unknown });
    return { status: "failed", key, reason: found.unknown, maybeSent: true };
  }
  if (found.done) {
    ledger.finish(key, "done", { result: found.result });
    return { status: "duplicate", key, ...(found.result !== undefined ? { result: found.result } : {}) };
  }
  // Not on the service: the slot its lost request held is free again.
  if (entry.slot) options.giveBack(entry.slot);
  return { action: current };
}

/** Ends the key's entry as the outcome says (a refused action is forgotten; a deferred one stays for the next start). */
function endEntry(ledger: Ledger, key: string, outcome: Outcome): void {
  switch (outcome.status) {
    case "sent":
    case "dry-run":
    case "duplicate":
      ledger.finish(key, "done", { result: outcome.result });
      break;
    case "refused":
      ledger.forget(key);
      break;
    case "dropped":
      ledger.finish(key, "dropped", { reason: outcome.reason });
      break;
    case "failed":
      ledger.finish(key, outcome.maybeSent ? "unknown" : "failed", { reason: outcome.reason });
      break;
    case "deferred":
      break; // stays queued or pending for the next start
  }
}

/**
 * Waits until an action left `pending` may be checked ({@link LedgerStepOptions.settledAt});
 * false when the job or the layer stopped meanwhile.
 */
async function settled(options: LedgerStepOptions, job: Job): Promise<boolean> {
  const wait = (options.settledAt?.() ?? 0) - options.clock.now();
  if (wait <= 0) return true;
  const signal = job.stopping ? AbortSignal.any([job.signal, job.stopping]) : job.signal;
  return await options.clock.sleep(wait, signal).then(
    () => true,
    () => false,
  );
}
