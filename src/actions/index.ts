/**
 * The action layer: every action a bot takes goes through one pipeline (./pipeline.ts),
 *
 *     hidden guard ▸ ledger ▸ reply safety ▸ text writer ▸ duplicate guard ▸ budget gate ▸ retry ▸ queue ▸ executor
 */
export * from "./action.ts";
export type { Job, JobChannels, LedgerRider, PendingMark, Perform, RiderWrite, Step, StepOutcome } from "./pipeline.ts";
export { ACTION_KINDS, READ_PRIORITY, isActionKind, type KindFacts } from "./kinds.ts";
export {
  Ledger,
  summarize,
  type LedgerEntry,
  type LedgerOptions,
  type LedgerState,
} from "./mechanics/idempotency-ledger.ts";
export { ActionQueue, QueueError, type SlotRequest, type WaitingInfo } from "./mechanics/budget-queue.ts";
export {
  backoffMs,
  classifyFailure,
  DEFAULT_RETRY,
  isRevoked,
  type Failure,
  type RetryPolicy,
} from "./mechanics/retry-policy.ts";
export { dryRunExecutor } from "./dry-run.ts";
export type { ActionEvent, ActionObserver } from "./observe.ts";
export {
  ReadError,
  createActionSystem,
  type ActionLayer,
  type ActionOptions,
  type LayerActionOptions,
  type ActionSystem,
  type ActionSystemOptions,
  type BotActionsOptions,
  type BudgetStatus,
  type ReadOptions,
  type DmRef,
  type PostRef,
  type UserRef,
  DM_GROUP_ENDPOINT,
} from "./layer.ts";
export { dialogTarget, dmAnswerTarget, formerKeys } from "./keys.ts";
