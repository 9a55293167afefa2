/**
 * The plugin API: what a plugin author writes against.
 *
 * A plugin is `definePlugin({ name, options, setup })`. `setup` runs once for each bot that
 * lists the plugin, with that bot's options parsed by the plugin's zod schema, and registers
 * handlers with `bot.on(event, handler)`. The context a handler gets is typed by its event:
 * `ctx.post` is the event's post, on the events that deliver one (a `mention` handler's is
 * always there); a `schedule` handler has no post but `ctx.schedule.name`.
 *
 * One verb per intent: `ctx.reply` answers the event where it happened, `ctx.dm` sends a user
 * a direct message, `ctx.like`, `ctx.repost` and `ctx.hide` act on a post, `ctx.follow` and
 * `ctx.mute` on a user, and `ctx.publish` posts anew. A verb's target is named in its options
 * (`{ post }`, `{ user }`): it defaults to the event's, and where the event has none (a
 * schedule has no post), the types make it required.
 *
 * Every action goes through the budgeted action layer: it never exceeds the plan, is never
 * sent twice (not even across a crash), and resolves with an outcome rather than throwing
 * when the plan or a rule says no; the outcome is typed by the action, so a sent reply's
 * `result.data.id` is the new post's id. Only `ctx.unbudgetedApi` goes around all of that.
 *
 * State: `ctx.session` per user (on every event from a user), `bot.store` per bot (in
 * `setup`; handlers close over it).
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
import type {
  ActionKind,
  ActionOptions,
  ActionOutcome,
  ActionResults,
  BudgetStatus,
  PostRef,
  UserRef,
  WriteText,
} from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Clock } from "../clock.ts";
import type { User } from "../api/types.ts";
import type { ModelAccess } from "../llm/access.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { DmMessage, EventName, EventPost } from "../triggers/events.ts";
import type { ChannelKind, DialogDefinition, DialogState, StartResult } from "./dialogs/types.ts";
import type { ReviewList } from "./review-queue.ts";

export type {
  ChannelKind,
  DialogDefinition,
  DialogMessage,
  DialogVersioned,
  DialogState,
  StartResult,
  Turn,
  TurnHandler,
  TurnReason,
} from "./dialogs/types.ts";

export type { ActionOptions, ActionOutcome, ActionResults, BotIdentity, DmMessage, EventName, EventPost, WriteText };
export type {
  DecisionRecord,
  ReplyState,
  ReviewDecision,
  ReviewedReply,
  ReviewItem,
  ReviewList,
} from "./review-queue.ts";

/**
 * The bot's own key-value state (`bot.store`), kept in the state store across restarts and
 * shared by the bot's plugins: what a plugin keeps per bot (per user is `ctx.session`). A
 * handler uses the `bot.store` its `setup` got. Values must be JSON-serializable.
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

/** How a reply ended: when `sent`, `result.data.id` is the new post's id. */
export type ReplyOutcome = ActionOutcome<"reply">;
/** How publishing a post ended: when `sent`, `result.data.id` is the new post's id. */
export type PublishOutcome = ActionOutcome<"post">;
/** How a like (repost, follow, DM, hide, mute) ended, its `sent` result the service's answer. */
export type LikeOutcome = ActionOutcome<"like">;
export type RepostOutcome = ActionOutcome<"repost">;
export type FollowOutcome = ActionOutcome<"follow">;
/** How a direct message ended: when `sent`, `result.data.dm_event_id` is the new message's id. */
export type DmOutcome = ActionOutcome<"dm">;
export type HideOutcome = ActionOutcome<"hide">;
export type MuteOutcome = ActionOutcome<"mute">;

/**
 * A post a verb acts on: its id, or the post itself as the action layer refers to it (an
 * event's `ctx.post` is one), which also tells reply safety its author and thread.
 */
export type PostTarget = string | PostRef;
/** A user a verb acts on: their id, or the user (an event's `ctx.author` is one). */
export type UserTarget = string | UserRef;

/** The options of a verb on a post: `post` names it (default: the event's post, where it has one). */
export interface PostActionOptions extends ActionOptions {
  post?: PostTarget;
}
/** The options of a verb on a user: `user` names them (default: the event's user, where it has one). */
export interface UserActionOptions extends ActionOptions {
  user?: UserTarget;
}
/** The options of `hide`: `hidden: false` unhides the post. */
export interface HideOptions extends PostActionOptions {
  hidden?: boolean;
}
/** Options that must name the post: the verb's event has none to default to. */
export type NamedPost<O extends PostActionOptions = PostActionOptions> = O & { post: PostTarget };
/** Options that must name the user: the verb's event has none to default to. */
export type NamedUser = UserActionOptions & { user: UserTarget };

/** What every handler gets, whatever its event. */
export interface BaseContext<E extends EventName> {
  event: E;
  bot: BotIdentity;
  /** A logger that names the bot, the plugin and the event. */
  log: Logger;
  /** What is left of the budget (`ctx.budget.remaining("reply")`), and when windows reset. */
  budget: BudgetView;
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
   * bot.on("mention", (ctx) => ctx.meanwhile(ctx.reply(write)));
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
   * safety (cooldowns, replies to bots, hidden posts). Read with it (or with `ctx.read`); act
   * with the context's verbs.
   */
  unbudgetedApi: ApiClient;
}

/**
 * The verbs on a post, acting on the event's post unless `{ post }` names another. Each
 * resolves with its typed outcome and never throws for what the plan or a rule refuses;
 * awaiting one counts as waiting for the budget, not as a hanging handler.
 */
export interface PostVerbs {
  /**
   * Replies to the post; when `sent`, `result.data.id` is the reply's id. `text` may be a
   * {@link WriteText}, a function that writes it when the reply goes (a language model's
   * answer): called once, only if reply safety lets the reply through, and its text is
   * recorded with the reply's ledger entry before it is sent, so a retry or a restart sends
   * that text and never calls it again. Throw `TextRefused` from it for a text that must not
   * go out (the outcome is `refused`).
   */
  reply(text: string | WriteText, options?: PostActionOptions): Promise<ReplyOutcome>;
  like(options?: PostActionOptions): Promise<LikeOutcome>;
  repost(options?: PostActionOptions): Promise<RepostOutcome>;
  /**
   * Hides the post, a reply in a conversation the bot started (`{ hidden: false }` unhides
   * it). Once hidden, the event goes to no further plugin, and no plugin of the bot can answer it.
   */
  hide(options?: HideOptions): Promise<HideOutcome>;
}

/** The verbs on a post, on an event without one: each names its post (`{ post }`). */
export interface NamedPostVerbs {
  /** Replies to the post `{ post }` names (see {@link PostVerbs.reply}). */
  reply(text: string | WriteText, options: NamedPost): Promise<ReplyOutcome>;
  like(options: NamedPost): Promise<LikeOutcome>;
  repost(options: NamedPost): Promise<RepostOutcome>;
  hide(options: NamedPost<HideOptions>): Promise<HideOutcome>;
}

/** The verbs on a user, acting on the event's user unless `{ user }` names another. */
export interface UserVerbs {
  follow(options?: UserActionOptions): Promise<FollowOutcome>;
  /** Mutes the user: the bot's account no longer sees their posts in its timelines. */
  mute(options?: UserActionOptions): Promise<MuteOutcome>;
  /**
   * Sends the user a direct message. The same text to the same user is sent once (a welcome
   * DM), unless the options give a `key` of their own. `text` may be a {@link WriteText}, as
   * for a reply: one message per event then.
   */
  dm(text: string | WriteText, options?: UserActionOptions): Promise<DmOutcome>;
}

/** The verbs on a user, on an event without one: each names its user (`{ user }`). */
export interface NamedUserVerbs {
  follow(options: NamedUser): Promise<FollowOutcome>;
  mute(options: NamedUser): Promise<MuteOutcome>;
  /** Sends the user `{ user }` names a direct message (see {@link UserVerbs.dm}). */
  dm(text: string | WriteText, options: NamedUser): Promise<DmOutcome>;
}

/** The context of an event that delivered a post: its verbs act on the post and on its author. */
export interface PostContext<E extends EventName> extends BaseContext<E>, PostVerbs, UserVerbs {
  /** The event's post. */
  post: EventPost;
  /** The post's author (expanded): `follow`, `mute` and `dm` act on them. */
  author: User;
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

/** `schedule`: one of the bot's cron schedules fired. It has no post nor user: every verb names its target. */
export interface ScheduleContext extends BaseContext<"schedule">, NamedPostVerbs, NamedUserVerbs {
  schedule: { name: string; cron: string; at: Date };
}

/** `follow`: a user started following the bot. `follow`, `mute` and `dm` act on them. */
export interface FollowContext extends BaseContext<"follow">, NamedPostVerbs, UserVerbs {
  /** The new follower. */
  user: User;
}

/** `dm`: a direct message someone sent the bot (the `dms` trigger). */
export interface DmContext extends BaseContext<"dm">, Omit<NamedPostVerbs, "reply">, Omit<UserVerbs, "dm"> {
  /** The message, in the wire's names: `text`, `id`, `created_at`, `dm_conversation_id`, `sender_id`. */
  message: DmMessage;
  /** Who sent it (expanded): `follow` and `mute` act on them. */
  sender: User;
  /** The conversation it came in: one-to-one (`<lower user id>-<higher user id>`) or a group. */
  conversation: { id: string };
  /**
   * Answers in that conversation, through the action layer like every verb: budgeted (the
   * bot file's `dm` cap applies), recorded, and sent once per message, so a second answer to
   * the same message is a `duplicate` unless it gives its own `key`. When `sent`,
   * `result.data.dm_event_id` is the new message's id. Refused when the sender is another bot
   * of the process (unless `reply_to_bots`); `reply_cooldown` does not apply in DMs. `text`
   * may be a {@link WriteText}, as for a post's reply.
   */
  reply(text: string | WriteText, options?: ActionOptions): Promise<DmOutcome>;
  /** Sends a direct message to another user, `{ user }` (answering the sender is {@link reply}). */
  dm(text: string | WriteText, options: NamedUser): Promise<DmOutcome>;
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
 * change (src/plugins/dialogs/durable-scope.ts).
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
  /** The bot's own key-value state, kept across restarts (see {@link BotStore}). */
  readonly store: BotStore;
  /**
   * The bot's review queue: the replies a person should look at (`bot review`, the status
   * page's `/review`), and what people decided about them. The `moderate` plugin lists the
   * replies it hid or was unsure of here, and follows the decisions for later ones.
   */
  readonly review: ReviewList;
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
   * Defines a dialog: a multi-step exchange with one user at a time that waits for their next
   * message in the thread it started in (or in DMs), written as named steps (see
   * {@link DialogDefinition}). Start it from a handler with `start(ctx)`; the user's answers
   * then go to it, not to the bot's handlers, and it keeps them in the user's session (its
   * turns' `session` is the plugin's `ctx.session`). Its state is durable: after a crash it
   * neither asks a question twice nor skips one.
   */
  dialog(name: string, definition: DialogDefinition<Sess>): Dialog;
}

/** The context of an event that comes from a user (all but `schedule`): where a dialog can start. */
export type UserEventContext = EventContexts[Exclude<EventName, "schedule">];

/** What `bot.dialog()` gives a plugin. */
export interface Dialog {
  readonly name: string;
  /**
   * Opens the dialog with the event's user, where the event happened: a mention starts it in
   * that thread (questions are replies there), a DM in that DM conversation. Runs the first
   * turn and resolves once its message was handled. Not started when the user has a dialog
   * open in that channel already (one per bot, user and channel), nor on an event that is no
   * message (`not a message`: a new follower, a stream's post).
   */
  start(ctx: UserEventContext): Promise<StartResult>;
  /** The user's open dialog of this plugin in a channel, if any. */
  state(userId: string, channel: ChannelKind): DialogState | undefined;
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
