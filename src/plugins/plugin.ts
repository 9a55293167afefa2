/**
 * The plugin API: what a plugin author writes against.
 *
 * A plugin is `definePlugin({ name, options, setup })`. `setup` runs once for each bot that
 * lists the plugin, with that bot's options parsed by the plugin's zod schema, and registers
 * handlers with `bot.on(event, handler)`. The context a handler gets is typed by its event:
 * `ctx.post` is the event's post, on the events that deliver one (a `mention` handler's is
 * always there); a `schedule` handler has no post but `ctx.schedule.name`. Every event can
 * publish a new post with `ctx.publish(text)`.
 *
 * Every action goes through the budgeted action layer: it never exceeds the plan, is never
 * sent twice (not even across a crash), and resolves with an {@link Outcome} rather than
 * throwing when the plan or a rule says no; the outcome is typed by the action, so a sent
 * reply's `result.data.id` is the new post's id. Only `ctx.unbudgetedApi` goes around all
 * of that.
 *
 * Old spellings that still work for one release, each with a one-time warning in the log
 * naming the plugin: `ctx.post(text)` on `schedule` and `follow` events (now
 * `ctx.publish(text)`), `ctx.actions.remaining(kind)` (now `ctx.budget.remaining(kind)`),
 * `ctx.api` (now `ctx.unbudgetedApi`), and the type `PluginDefinition` (now `Plugin`).
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
 *     bot.on("mention", async (ctx) => {
 *       await ctx.reply(options.text.replace("{author.username}", ctx.author.username));
 *     });
 *   },
 * });
 * ```
 */
import type { z } from "zod";
import type { ActionOptions, Actions, BudgetStatus, Outcome } from "../actions/index.ts";
import type { ActionKind, WriteText } from "../actions/action.ts";
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Clock } from "../clock.ts";
import type { Created, DmSent, Following, Hidden, Liked, Muting, Reposted } from "../api/schema.ts";
import type { User } from "../api/types.ts";
import type { ModelAccess } from "../llm/access.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { DmMessage, EventName, EventPost } from "../triggers/events.ts";
import type { Conversation, ConversationDefinition } from "./conversations/types.ts";

export type {
  ChannelKind,
  Conversation,
  ConversationDefinition,
  ConversationMessage,
  ConversationState,
  StartResult,
  Turn,
  TurnHandler,
  TurnReason,
} from "./conversations/types.ts";

export type { BotIdentity, DmMessage, EventName, EventPost, WriteText };

/**
 * The bot's own key-value state, kept in the state store across restarts. Values must be
 * JSON-serializable.
 */
export interface BotStore {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
  delete(key: string): void;
}

/** How long a budgeted read ({@link BaseContext.read}) may wait, and how urgent it is. */
export interface BudgetedReadOptions {
  /** Give up (a `ReadError`) when no slot was free within this many ms (default: wait as long as it takes). */
  ttlMs?: number;
  /** Lower runs sooner when work competes for one window (default: as urgent as replies). */
  priority?: number;
}

/** What is left of the bot's budget. */
export interface BudgetView {
  /** Actions of a kind the bot could still send now without exceeding any window. */
  remaining(kind: ActionKind): number;
  /** Per action kind: what is left and when windows reset (what `bot status` shows). */
  status(): BudgetStatus;
}

/**
 * What the service answered each action that it accepted: a `sent` (or `--dry-run`) outcome
 * carries it as `result`. A reply or a post gives the new post (`result.data.id`).
 */
export interface ActionResults {
  reply: { data: Created };
  post: { data: Created };
  like: { data: Liked };
  repost: { data: Reposted };
  follow: { data: Following };
  dm: { data: DmSent };
  hide: { data: Hidden };
  mute: { data: Muting };
}

/** How an action of `kind` ended, its `sent` result typed by the kind. */
export type ActionOutcome<K extends ActionKind> = Outcome<ActionResults[K]>;
/** How a reply ended: when `sent`, `result.data.id` is the new post's id. */
export type ReplyOutcome = ActionOutcome<"reply">;
/** How publishing a post ended: when `sent`, `result.data.id` is the new post's id. */
export type PublishOutcome = ActionOutcome<"post">;
/** How a like (repost, follow, DM, hide) ended, its `sent` result the service's answer. */
export type LikeOutcome = ActionOutcome<"like">;
export type RepostOutcome = ActionOutcome<"repost">;
export type FollowOutcome = ActionOutcome<"follow">;
export type DmOutcome = ActionOutcome<"dm">;
export type HideOutcome = ActionOutcome<"hide">;
export type MuteOutcome = ActionOutcome<"mute">;

/** The layer's verbs (src/actions/layer.ts), each of which a plugin may call with explicit targets. */
type Verbs = Omit<Actions, "remaining">;

/**
 * Every action, with explicit targets (`ctx.actions.like(postId)`): the action layer's verbs,
 * each resolving with its typed outcome and never throwing for what the plan or a rule
 * refuses; awaiting one counts as waiting for the budget, as `ctx.reply` does.
 */
export type ContextActions = {
  [K in keyof Verbs]: (...args: Parameters<Verbs[K]>) => Promise<ActionOutcome<K>>;
} & {
  /** @deprecated What is left of the budget is `ctx.budget.remaining(kind)`; this old spelling goes in the next release. */
  remaining(kind: ActionKind): number;
};

/** What every handler gets, whatever its event. */
export interface BaseContext<E extends EventName> {
  event: E;
  bot: BotIdentity;
  /** A logger that names the bot, the plugin and the event. */
  log: Logger;
  store: BotStore;
  /** What is left of the budget (`ctx.budget.remaining("reply")`), and when windows reset. */
  budget: BudgetView;
  /** Every action, with explicit targets (`ctx.actions.like(postId)`). */
  actions: ContextActions;
  /**
   * Publishes a new post as the bot (not a reply), through the action layer like every verb:
   * budgeted, recorded, never sent twice. On a `schedule` event each run publishes its posts
   * anew, even with yesterday's text.
   */
  publish(text: string, options?: ActionOptions): Promise<PublishOutcome>;
  /**
   * Awaits work done outside the bot, such as a moderation judge's or a model's answer:
   * meanwhile the event holds none of the bot's handler slots (as while it awaits an action),
   * so the bot's other events go on. The work must bound its own wait (a timeout): the
   * handler's time limit still runs. Resolves or rejects as `work` does.
   *
   * @example
   * ```ts
   * const opinion = await ctx.waitFor(judge.opinion(ctx.post.text));
   * ```
   */
  waitFor<T>(work: Promise<T>): Promise<T>;
  /**
   * Lets the plugins after this one handle the event while `work` goes on, instead of
   * waiting for it as they wait for an awaited handler: for an answer that takes long to write
   * (a model's reply) when a later plugin's action (a like) need not wait for it. The event
   * still ends with `work`: it stays in the bot's inbox until `work` has settled (so after a
   * crash it is handled again, as if the handler had awaited `work`), and the next event of
   * its user or thread waits for it as before. Awaiting an action in `work` counts as waiting
   * for the budget, as in a handler; the work must bound its own wait (the handler's time
   * limit does not run on it). A rejection is logged with the plugin, as a handler's throw is.
   *
   * @example
   * ```ts
   * bot.on("mention", (ctx) => ctx.meanwhile(ctx.replyWith(write)));
   * ```
   */
  meanwhile(work: Promise<unknown>): void;
  /**
   * A read through the bot's budget, as the bot's account (where `unbudgetedApi` goes
   * around it): it waits for a slot of the endpoint's windows, shared with the bot's actions
   * and polls, so it never exceeds the plan; retries a 429 once its window resets; and
   * corrects the budget by the answer's headers. Awaiting it counts as waiting for the
   * budget, as an action does. Throws `ReadError` when no answer can be had (the plan lacks
   * the endpoint, no slot within `ttlMs`, the service kept failing). Call it as `ctx.read(...)`.
   *
   * @example
   * ```ts
   * const { data } = await ctx.read("GET /2/posts/:id", { params: { id }, query: { "post.fields": ["author_id"] } });
   * ```
   */
  read<K extends EndpointKey>(endpoint: K, args: RequestArgs<K>, options?: BudgetedReadOptions): Promise<ResponseOf<K>>;
  /**
   * The typed API client, as the bot's account, **around** the action layer: a call made here
   * is not budgeted (it can exceed the plan, and a 429 it gets is not waited out), not
   * recorded in the ledger (a crash or a retry can send it twice), and not checked by reply
   * safety (cooldowns, replies to bots, hidden posts). Read with it; act with the context's
   * verbs or `ctx.actions`.
   */
  unbudgetedApi: ApiClient;
  /**
   * @deprecated The same client as `ctx.unbudgetedApi`, renamed to say what it bypasses (the
   * budget, the ledger and reply safety); this old spelling goes in the next release.
   */
  api: ApiClient;
}

/**
 * @deprecated Every context publishes with `ctx.publish(text)`; this is the context of the
 * events without a post of their own, with the old spelling `ctx.post(text)`.
 */
export interface PublishContext<E extends EventName> extends BaseContext<E> {
  /** @deprecated Publish with `ctx.publish(text)`; `ctx.post(text)` goes in the next release. */
  post(text: string, options?: ActionOptions): Promise<PublishOutcome>;
}

/** The actions on the post an event delivered, and on its author. */
export interface PostContext<E extends EventName> extends BaseContext<E> {
  /** The event's post. */
  post: EventPost;
  /** The post's author (expanded). */
  author: User;
  /** Replies to the post; when `sent`, `result.data.id` is the reply's id. */
  reply(text: string, options?: ActionOptions): Promise<ReplyOutcome>;
  /**
   * Replies to the post with a text written when the reply goes (a language model's answer):
   * `write` is called once, only if reply safety lets the reply through, and its text is
   * recorded with the reply's ledger entry before it is sent, so a retry or a restart sends
   * that text and never calls `write` again. Throw `TextRefused` from it for a text that must
   * not go out (the outcome is `refused`).
   */
  replyWith(write: WriteText, options?: ActionOptions): Promise<ReplyOutcome>;
  like(options?: ActionOptions): Promise<LikeOutcome>;
  repost(options?: ActionOptions): Promise<RepostOutcome>;
  /**
   * Hides the post, a reply in a conversation the bot started. Once hidden, the event goes
   * to no further plugin, and no plugin of the bot can answer it.
   */
  hide(options?: ActionOptions): Promise<HideOutcome>;
  /** Follows the post's author. */
  follow(options?: ActionOptions): Promise<FollowOutcome>;
  /** Sends the post's author a direct message. */
  dm(text: string, options?: ActionOptions): Promise<DmOutcome>;
  /** Whether the post has been hidden by this bot. */
  readonly hidden: boolean;
}

/** `mention`: a post mentioning the bot (not a reply to the bot's own posts: see `reply`). */
export type MentionContext = PostContext<"mention">;

/** `reply`: a reply to one of the bot's own posts. */
export interface ReplyContext extends PostContext<"reply"> {
  /** The id of the bot's post that was replied to. */
  inReplyTo: string;
}

/** `post`: a post that matched one of the bot's stream rules. */
export interface StreamPostContext extends PostContext<"post"> {
  /** The bot's rule that matched (its tag as written in the bot file). */
  rule: { tag?: string; value: string };
}

/** `schedule`: one of the bot's cron schedules fired. */
export interface ScheduleContext extends BaseContext<"schedule"> {
  schedule: { name: string; cron: string; at: Date };
  /** @deprecated Publish with `ctx.publish(text)`; `ctx.post(text)` goes in the next release. */
  post(text: string, options?: ActionOptions): Promise<PublishOutcome>;
}

/** `follow`: a user started following the bot. */
export interface FollowContext extends BaseContext<"follow"> {
  /** The new follower. */
  user: User;
  /** Follows the new follower back. */
  follow(options?: ActionOptions): Promise<FollowOutcome>;
  /** Sends the new follower a direct message. */
  dm(text: string, options?: ActionOptions): Promise<DmOutcome>;
  /** @deprecated Publish with `ctx.publish(text)`; `ctx.post(text)` goes in the next release. */
  post(text: string, options?: ActionOptions): Promise<PublishOutcome>;
}

/** `dm`: a direct message someone sent the bot (the `dms` trigger). */
export interface DmContext extends BaseContext<"dm"> {
  /** The message, in the wire's names: `text`, `id`, `created_at`, `dm_conversation_id`, `sender_id`. */
  message: DmMessage;
  /** Who sent it (expanded). */
  sender: User;
  /** The conversation it came in: one-to-one (`<lower user id>-<higher user id>`) or a group. */
  conversation: { id: string };
  /**
   * Answers in that conversation, through the action layer like every verb: budgeted (the
   * bot file's `dm` cap applies), recorded, and sent once per message, so a second answer to
   * the same message is a `duplicate` unless it gives its own `key`. When `sent`,
   * `result.data.dm_event_id` is the new message's id. Refused when the sender is another bot
   * of the process (unless `reply_to_bots`); `reply_cooldown` does not apply in DMs.
   */
  reply(text: string, options?: ActionOptions): Promise<DmOutcome>;
  /** Answers with a text written when the answer goes, once, as a post's `replyWith` does. */
  replyWith(write: WriteText, options?: ActionOptions): Promise<DmOutcome>;
  /** The same as {@link reply}: answers in the message's conversation. */
  dm(text: string, options?: ActionOptions): Promise<DmOutcome>;
  /** Follows the sender. */
  follow(options?: ActionOptions): Promise<FollowOutcome>;
}

/** The context of each event. */
export interface EventContexts {
  mention: MentionContext;
  reply: ReplyContext;
  post: StreamPostContext;
  schedule: ScheduleContext;
  follow: FollowContext;
  dm: DmContext;
}

/**
 * A user's session of one plugin (`ctx.session`): a small JSON object kept per bot and user,
 * typed by the plugin's `session` schema. It is read before the handler runs and saved in the
 * same durable write as the handler's first action (or when the handler ends, if it sent
 * nothing): a crash loses neither the change without the action nor the action without the
 * change (src/plugins/conversations/durable-scope.ts).
 */
export type SessionData = Record<string, unknown>;

/**
 * The context a plugin's handler gets: its event's, and on every event that comes from a user
 * (all but `schedule`), that user's session of the plugin.
 */
export type HandlerContext<E extends EventName, Sess = SessionData> = EventContexts[E] &
  (E extends "schedule" ? unknown : { session: Sess });

/** A handler of one event. */
export type Handler<E extends EventName, Sess = SessionData> = (ctx: HandlerContext<E, Sess>) => unknown;

/** A filter of one event: `false` stops the event before any handler sees it. */
export type Filter<E extends EventName, Sess = SessionData> = (
  ctx: HandlerContext<E, Sess>,
) => boolean | Promise<boolean>;

/** What `setup` gets: the bot, to register handlers on. */
export interface PluginBot<Sess = SessionData> {
  readonly name: string;
  readonly identity: BotIdentity;
  /** A logger that names the bot and the plugin. */
  readonly log: Logger;
  readonly store: BotStore;
  /**
   * The runtime's clock: what a plugin waits on or measures time with (timeouts, ages), so a
   * test moves it instead of sleeping.
   */
  readonly clock: Clock;
  /**
   * What asking a language model takes for this bot: its file's `budget.llm` (counted), the
   * clock, and where the model's figures go. The `llm-reply` plugin writes replies with it.
   * Absent where no runtime hosts the bot (a stand-in bot of a test or a tool).
   */
  readonly models?: ModelAccess;
  /** Registers a handler; handlers of one event run in the order the bot file lists plugins. */
  on<E extends EventName>(event: E, handler: Handler<E, Sess>): void;
  /**
   * Registers a filter. Every filter of an event runs before any of its handlers, whatever
   * the order of plugins in the bot file; one answering `false` stops the event for every
   * plugin. This is how the `moderate` plugin makes sure no plugin ever answers a reply it
   * hides. A filter that stops an event logs why itself: the stage only notes it at debug level.
   */
  filter<E extends EventName>(event: E, check: Filter<E, Sess>): void;
  /**
   * Defines a conversation: a dialog with one user at a time that waits for their next message
   * in the thread it started in (or in DMs), written as named steps (see
   * {@link ConversationDefinition}). Start it from a handler with `start(ctx)`; the user's
   * answers then go to it, not to the bot's handlers. Its state is durable: after a crash it
   * neither asks a question twice nor skips one.
   */
  conversation<D = Record<string, unknown>>(name: string, definition: ConversationDefinition<D, Sess>): Conversation;
}

/**
 * A plugin: its name (for logs), the zod schema of its options in bot files, and `setup`,
 * which runs once per bot that lists the plugin, with that bot's options as the schema
 * outputs them. `definePlugin` makes one with every type filled in; the loader checks that
 * a module's default export is one (./definition.ts), and `postbot/testing` takes them.
 * Any `Plugin<S>` is a `Plugin` (so a map of plugins of different options is typed).
 */
export interface Plugin<S extends z.ZodType = z.ZodType, T extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Validates and defaults the options a bot file gives; absent: the plugin takes none. */
  readonly options?: S;
  /**
   * The schema of the plugin's per-user session (`ctx.session`): a stored session is parsed
   * with it when a handler first reads it (one that no longer fits, after the plugin changed,
   * starts anew, with a warning), so it must accept `{}`, a new user's session (give its fields
   * defaults or make them optional). Absent: any JSON object.
   */
  readonly session?: T;
  /** Registers the plugin's handlers and filters on `bot`. */
  setup(bot: PluginBot<z.output<T>>, options: z.output<S>): void | Promise<void>;
}

/** @deprecated The one plugin type is {@link Plugin}; `PluginDefinition` is its old name. */
export type PluginDefinition = Plugin;

/**
 * Defines a plugin. It only gives the object its types: the options a handler sees are
 * exactly what the schema outputs, and each event's context is narrowed.
 */
export function definePlugin<
  S extends z.ZodType = z.ZodObject<Record<string, never>>,
  T extends z.ZodType = z.ZodType<SessionData, SessionData>,
>(plugin: {
  name: string;
  options?: S;
  session?: T;
  setup: (bot: PluginBot<z.output<T>>, options: z.output<S>) => void | Promise<void>;
}): Plugin<S, T> {
  return plugin;
}
