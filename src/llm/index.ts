/**
 * Language models for bots: replies written by a model (`llm-reply`), budgeted by the bot
 * file's `budget.llm`, shaped for the service and checked before they go out.
 */
export { ModelBudget, MODEL_BUDGET_NAMESPACE, savedModelBudget } from "./budget.ts";
export type { ModelBudgetPolicy, ModelBudgetStatus, ModelWindowState } from "./budget.ts";
export { chatCompletion, CHAT_TIMEOUT_MS, ModelError } from "./chat.ts";
export type { ChatAnswer, ChatMessage, ChatTarget, ModelFailure } from "./chat.ts";
export { chatMessages, type ChatTurn } from "./prompt.ts";
export { fitToLength, shapeReply, withoutOtherMentions, type ShapeOptions } from "./shape.ts";
export { judgeCheck, replyWriter, WRITER_RETRY } from "./writer.ts";
export {
  keptModelServers,
  MODEL_PARALLEL,
  modelSlots,
  modelSlotUse,
  RequestSlots,
  type ModelSlotUse,
  type ReleaseSlot,
} from "./request-slots.ts";
export type { ModelObserver, ReplyRequest, ReplyWriterOptions } from "./writer.ts";
export type { ModelAccess } from "./access.ts";
export { JudgeSlot, type TextJudge } from "./judge-slot.ts";
