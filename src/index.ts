/**
 * postbot: what plugin authors and embedders import.
 *
 * @example
 * ```ts
 * import { definePlugin } from "postbot";
 * import { z } from "zod";
 *
 * export default definePlugin({
 *   name: "reply",
 *   options: z.object({ text: z.string() }),
 *   setup(bot, options) {
 *     bot.on("mention", (ctx) => ctx.reply(options.text));
 *   },
 * });
 * ```
 */
export {
  definePlugin,
  type Plugin,
  type PluginBot,
  type EventName,
  type EventContexts,
  type EventPost,
  type BaseContext,
  type PostContext,
  type MentionContext,
  type ReplyContext,
  type StreamPostContext,
  type ScheduleContext,
  type FollowContext,
  type DmContext,
  type DmMessage,
  type PostVerbs,
  type NamedPostVerbs,
  type UserVerbs,
  type NamedUserVerbs,
  type PostTarget,
  type UserTarget,
  type PostActionOptions,
  type UserActionOptions,
  type HideOptions,
  type NamedPost,
  type NamedUser,
  type BotIdentity,
  type BotStore,
  type BudgetView,
  type Handler,
  type Filter,
  type ActionResults,
  type ActionOutcome,
  type ReplyOutcome,
  type PublishOutcome,
  type LikeOutcome,
  type RepostOutcome,
  type FollowOutcome,
  type DmOutcome,
  type HideOutcome,
  type MuteOutcome,
  type BudgetedReadOptions,
  type SessionData,
  type HandlerContext,
  type Dialog,
  type DialogDefinition,
  type DialogVersioned,
  type UserEventContext,
  type DialogMessage,
  type DialogState,
  type ChannelKind,
  type StartResult,
  type Turn,
  type TurnHandler,
  type TurnReason,
  type DecisionRecord,
  type ReplyState,
  type ReviewDecision,
  type ReviewedReply,
  type ReviewItem,
  type ReviewList,
} from "./plugins/plugin.ts";
/** Durations as bot files write them (`30s`, `10m`, `1d`), for plugins whose options take one. */
export { parseDuration, formatDuration, DURATION_HINT, DURATION_PATTERN } from "./config/duration.ts";
export type { Outcome, ActionOptions, PostRef, UserRef, BudgetStatus, ActionKind, WriteText } from "./actions/index.ts";
export { TextDeferred, TextExpired, TextRefused } from "./actions/index.ts";
export {
  chatMessages,
  judgeCheck,
  MODEL_PARALLEL,
  replyWriter,
  shapeReply,
  type ChatMessage,
  type ModelAccess,
  type ModelBudgetStatus,
  type ReplyWriterOptions,
  type ChatTurn,
} from "./llm/index.ts";
export type { ActionEvent, ActionObserver } from "./actions/index.ts";
export type { Post, User, Includes, Envelope, Problem } from "./api/types.ts";
export type {
  Runtime,
  RuntimeOptions,
  HostedBot,
  AppCredentials,
  FleetBot,
  BotOutline,
} from "./hosting/types.ts";
import type { Runtime, RuntimeOptions } from "./hosting/types.ts";

/**
 * Starts every bot of `options` in this process (what `bot start` runs): see
 * ./hosting/runtime.ts. The runtime is loaded when this is called, not when a plugin imports
 * `postbot` for `definePlugin`: `bot validate` and each plugin's import stay quick.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const runtime = await import("./hosting/runtime.ts");
  return runtime.startRuntime(options);
}
export {
  createClassifier,
  ModerationOptionError,
  warmClassifier,
  type Classifier,
  type Verdict,
} from "./moderation/index.ts";
/** What the `moderate` plugin builds on beyond the classifier: its judge, evidence, review examples and counts. */
export * as moderation from "./moderation/index.ts";
export { ReadError } from "./actions/index.ts";
export * as api from "./api/index.ts";
