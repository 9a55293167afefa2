/**
 * A bot's two pipelines, its actions' and its budgeted reads': each step of ./pipeline.ts
 * made from the bot's parts (its store, budget, the process's queue and ledger...), then put
 * in the order ./pipeline.ts gives.
 */
import type { Clock } from "../clock.ts";
import type { AccountBudget } from "../limits/budget.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { Executor } from "./action.ts";
import type { ActionQueue } from "./mechanics/budget-queue.ts";
import type { Ledger } from "./mechanics/idempotency-ledger.ts";
import type { RetryPolicy } from "./mechanics/retry-policy.ts";
import type { CheckWithService } from "./mechanics/service-check.ts";
import type { ActionObserver } from "./observe.ts";
import { actionPipeline, readPipeline, type Perform } from "./pipeline.ts";
import { budgetGate } from "./steps/budget-gate.ts";
import { duplicateGuard } from "./steps/duplicate.ts";
import { executorStep } from "./steps/executor.ts";
import { hiddenGuard } from "./steps/hidden.ts";
import { ledgerStep } from "./steps/ledger.ts";
import { queueStep } from "./steps/queue.ts";
import { replySafety, type ReplySafetyOptions } from "./steps/reply-safety.ts";
import { retryStep } from "./steps/retry.ts";
import { textWriter } from "./steps/text-writer.ts";

/** What one bot's pipelines are built from. */
export interface PipelineParts {
  bot: string;
  store: Store;
  clock: Clock;
  log: Logger;
  budget: AccountBudget;
  queue: ActionQueue;
  ledger: Ledger;
  /** Off only to measure what the ledger costs. */
  useLedger: boolean;
  retry: RetryPolicy;
  executor: Executor;
  /** Sends described reads (../layer.ts `fetch`), dry run or not. */
  reader: Executor;
  dryRun: boolean;
  replySafety: Omit<ReplySafetyOptions, "store" | "clock">;
  check: CheckWithService;
  observe: ActionObserver;
  onRevoked?: (error: unknown) => void;
  /** When actions left pending may be checked with the service (../holding.ts). */
  settledAt?: () => number | undefined;
}

/** The pipelines of one bot: `actions` for what its plugins do, `reads` for the runtime's budgeted reads. */
export function botPipelines(p: PipelineParts): { actions: Perform; reads: Perform } {
  const revoked = p.onRevoked ? { onRevoked: p.onRevoked } : {};
  // Both pipelines go through the same budget gate and queue step (neither keeps state of its own).
  const gate = budgetGate(p.budget);
  const queue = queueStep({ queue: p.queue, budget: p.budget, clock: p.clock, bot: p.bot, observe: p.observe });
  const actions = actionPipeline({
    hiddenGuard: hiddenGuard(p.store, p.bot),
    ledger: ledgerStep({
      ledger: p.ledger,
      clock: p.clock,
      check: p.check,
      giveBack(slot) {
        p.budget.giveBack(slot);
      },
      enabled: p.useLedger,
      ...(p.settledAt ? { settledAt: p.settledAt } : {}),
    }),
    replySafety: replySafety({ store: p.store, clock: p.clock, ...p.replySafety }),
    textWriter: textWriter(),
    duplicateGuard: duplicateGuard({ store: p.store, clock: p.clock, log: p.log, bot: p.bot }),
    budgetGate: gate,
    retry: retryStep({ policy: p.retry, clock: p.clock, log: p.log, check: p.check, ...revoked }),
    queue,
    executor: executorStep(p.executor, p.dryRun),
  });
  const reads = readPipeline({
    budgetGate: gate,
    // Reads are not checked with the service after an ambiguous failure: they are simply repeated.
    retry: retryStep({ policy: p.retry, clock: p.clock, log: p.log, ...revoked }),
    queue,
    // A read is sent as described by the reader (or brings its own request, `send`); its
    // outcome says `sent`, dry run or not.
    executor: executorStep(p.reader, false),
  });
  return { actions, reads };
}
