/**
 * The action pipeline: every action a bot takes passes these steps, in this order, each a
 * file of ./steps that states the one thing it guarantees:
 *
 *     hidden guard ▸ ledger ▸ reply safety ▸ duplicate guard ▸ budget gate ▸ retry ▸ queue ▸ executor
 *
 * - hidden guard: nothing answers a post the bot has hidden;
 * - ledger: an idempotency key is sent at most once, and nothing asked for is lost;
 * - reply safety: no reply that would start a loop;
 * - duplicate guard: no request spent on a text the service refuses as a duplicate;
 * - budget gate: what the plan or the bot file never allows is refused at once;
 * - retry: a failure is tried again only when that can help, checking first whether it arrived;
 * - queue: no request without a slot in every window, and every answer corrects its slot;
 * - executor: one request, and what came back (body and headers, or the error).
 *
 * Reads the runtime makes (polls, checks with the service) take the short way through the
 * same budget:
 *
 *     budget gate ▸ retry ▸ queue ▸ executor
 */
import type { Clock } from "../clock.ts";
import type { AccountBudget } from "../limits/budget.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { Executor, Perform, Step } from "./action.ts";
import type { Ledger } from "./mechanics/idempotency-ledger.ts";
import type { ActionObserver } from "./observe.ts";
import type { ActionQueue } from "./mechanics/budget-queue.ts";
import type { RetryPolicy } from "./mechanics/retry-policy.ts";
import { budgetGate } from "./steps/budget-gate.ts";
import { duplicateGuard } from "./steps/duplicate.ts";
import { executorStep } from "./steps/executor.ts";
import { hiddenGuard } from "./steps/hidden.ts";
import { ledgerStep } from "./steps/ledger.ts";
import { replySafety, type ReplySafetyOptions } from "./steps/reply-safety.ts";
import { retryStep } from "./steps/retry.ts";
import { queueStep } from "./steps/queue.ts";
import type { CheckWithService } from "./mechanics/service-check.ts";

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
  dryRun: boolean;
  replySafety: Omit<ReplySafetyOptions, "store" | "clock">;
  check: CheckWithService;
  observe: ActionObserver;
  onRevoked?: (error: unknown) => void;
}

const compose = (steps: Step[], last: Perform): Perform => steps.reduceRight<Perform>((next, step) => step(next), last);

/** The pipeline of a bot's actions. */
export function actionPipeline(p: PipelineParts): Perform {
  return compose(
    [
      hiddenGuard(p.store, p.bot),
      ledgerStep({
        ledger: p.ledger,
        clock: p.clock,
        check: p.check,
        giveBack: (slot) => p.budget.giveBack(slot),
        enabled: p.useLedger,
      }),
      replySafety({ store: p.store, clock: p.clock, ...p.replySafety }),
      duplicateGuard({ store: p.store, clock: p.clock, log: p.log, bot: p.bot }),
      budgetGate(p.budget),
      retryStep({
        policy: p.retry,
        clock: p.clock,
        log: p.log,
        check: p.check,
        ...(p.onRevoked ? { onRevoked: p.onRevoked } : {}),
      }),
      queueStep({ queue: p.queue, budget: p.budget, clock: p.clock, bot: p.bot, observe: p.observe }),
    ],
    executorStep(p.executor, p.dryRun),
  );
}

/** The pipeline of a bot's budgeted reads (each job brings its own request as `send`). */
export function readPipeline(p: PipelineParts): Perform {
  return compose(
    [
      budgetGate(p.budget),
      retryStep({ policy: p.retry, clock: p.clock, log: p.log, ...(p.onRevoked ? { onRevoked: p.onRevoked } : {}) }),
      queueStep({ queue: p.queue, budget: p.budget, clock: p.clock, bot: p.bot, observe: p.observe }),
    ],
    executorStep(p.executor, false),
  );
}
