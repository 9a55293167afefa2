/** The budgeted action layer: ledger ▸ reply safety ▸ budget ▸ queue ▸ retry ▸ executor. */
export * from "./action.ts";
export { ACTION_KINDS, READ_PRIORITY, isActionKind, type KindFacts } from "./kinds.ts";
export { Ledger, summarize, type LedgerEntry, type LedgerOptions, type LedgerState } from "./ledger.ts";
export { ActionQueue, QueueError, type SlotRequest, type WaitingInfo } from "./queue.ts";
export { backoffMs, classifyFailure, DEFAULT_RETRY, type Failure, type RetryPolicy } from "./retry.ts";
export { replyPolicy, type ReplyPolicyOptions } from "./policy.ts";
export { dryRunExecutor } from "./dry-run.ts";
export {
  CallError,
  createActionSystem,
  type ActionInput,
  type ActionLayer,
  type ActionOptions,
  type ActionSystem,
  type ActionSystemOptions,
  type BotActionsOptions,
  type BudgetStatus,
  type CallOptions,
  type PostRef,
} from "./layer.ts";
