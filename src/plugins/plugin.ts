/**
 * The plugin API: what a plugin author writes against.
 *
 * A plugin is `definePlugin({ name, options, setup })`. `setup` runs once for each bot that
 * lists the plugin, with that bot's options parsed by the plugin's zod schema, and registers
 * handlers with `bot.on(event, handler)`. The context a handler gets is typed by its event:
 * a `mention` handler's `ctx.post` is always there; a `schedule` handler has no post but
 * `ctx.schedule.name`.
 *
 * Every action goes through the budgeted action layer: it never exceeds the plan, is never
 * sent twice (not even across a crash), and resolves with an {@link Outcome} rather than
 * throwing when the plan or a rule says no.
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
import type { ActionKind } from "../actions/action.ts";
import type { ApiClient } from "../api/client.ts";
import type { User } from "../api/types.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { EventName, EventPost } from "../triggers/events.ts";

export type { BotIdentity, EventName, EventPost };

/**
 * The bot's own key-value state, kept in the state store across restarts. Values must be
 * JSON-serializable.
 */
export interface BotStore {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T): void;
  delete(key: string): void;
}

/** What is left of the bot's budget. */
export interface BudgetView {
  /** Actions of a kind the bot could still send now without exceeding any window. */
  remaining(kind: ActionKind): number;
  /** Per action kind: what is left and when windows reset (what `bot status` shows). */
  status(): BudgetStatus;
}

/** What every handler gets, whatever its event. */
export interface BaseContext<E extends EventName> {
  event: E;
  bot: BotIdentity;
  /** The typed API client, as the bot's account. Calls made here are not budgeted. */
  api: ApiClient;
  /** A logger that names the bot, the plugin and the event. */
  log: Logger;
  store: BotStore;
  budget: BudgetView;
  /**
   * Every action, with explicit targets (`ctx.actions.like(postId)`, `ctx.actions.post(text)`),
   * and `remaining(kind)`. Awaiting one counts as waiting for the budget, as `ctx.reply` does.
   */
  actions: Actions;
}

/**
 * Events without a post of their own offer `ctx.post(text)` to publish one. (On events that
 * deliver a post, `ctx.post` is that post; publish with `ctx.actions.post(text)` there.)
 */
export interface PublishContext<E extends EventName> extends BaseContext<E> {
  /** Publishes a new post as the bot. */
  post(text: string, options?: ActionOptions): Promise<Outcome>;
}

/** The actions on the post an event delivered, and on its author. */
export interface PostContext<E extends EventName> extends BaseContext<E> {
  post: EventPost;
  /** The post's author (expanded). */
  author: User;
  /** Replies to the post. */
  reply(text: string, options?: ActionOptions): Promise<Outcome>;
  like(options?: ActionOptions): Promise<Outcome>;
  repost(options?: ActionOptions): Promise<Outcome>;
  /**
   * Hides the post, a reply in a conversation the bot started. Once hidden, the event goes
   * to no further plugin, and no plugin of the bot can answer it.
   */
  hide(options?: ActionOptions): Promise<Outcome>;
  /** Follows the post's author. */
  follow(options?: ActionOptions): Promise<Outcome>;
  /** Sends the post's author a direct message. */
  dm(text: string, options?: ActionOptions): Promise<Outcome>;
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
export interface ScheduleContext extends PublishContext<"schedule"> {
  schedule: { name: string; cron: string; at: Date };
}

/** `follow`: a user started following the bot. */
export interface FollowContext extends PublishContext<"follow"> {
  /** The new follower. */
  user: User;
  /** Follows the new follower back. */
  follow(options?: ActionOptions): Promise<Outcome>;
  /** Sends the new follower a direct message. */
  dm(text: string, options?: ActionOptions): Promise<Outcome>;
}

/** The context of each event. */
export interface EventContexts {
  mention: MentionContext;
  reply: ReplyContext;
  post: StreamPostContext;
  schedule: ScheduleContext;
  follow: FollowContext;
}

/** A handler of one event. */
export type Handler<E extends EventName> = (ctx: EventContexts[E]) => unknown;

/** A filter of one event: `false` stops the event before any handler sees it. */
export type Filter<E extends EventName> = (ctx: EventContexts[E]) => boolean | Promise<boolean>;

/** What `setup` gets: the bot, to register handlers on. */
export interface PluginBot {
  readonly name: string;
  readonly identity: BotIdentity;
  /** A logger that names the bot and the plugin. */
  readonly log: Logger;
  readonly store: BotStore;
  /** Registers a handler; handlers of one event run in the order the bot file lists plugins. */
  on<E extends EventName>(event: E, handler: Handler<E>): void;
  /**
   * Registers a filter. Every filter of an event runs before any of its handlers, whatever
   * the order of plugins in the bot file; one answering `false` stops the event for every
   * plugin. This is how the `moderate` plugin makes sure no plugin ever answers a reply it
   * hides.
   */
  filter<E extends EventName>(event: E, check: Filter<E>): void;
}

/**
 * A plugin: its name (for logs), the zod schema of its options in bot files, and `setup`,
 * which runs once per bot that lists the plugin, with that bot's options as the schema
 * outputs them. `definePlugin` makes one with every type filled in; the loader checks that
 * a module's default export is one (./definition.ts), and `postbot/testing` takes them.
 * Any `Plugin<S>` is a `Plugin` (so a map of plugins of different options is typed).
 */
export interface Plugin<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  /** Validates and defaults the options a bot file gives; absent: the plugin takes none. */
  readonly options?: S;
  /** Registers the plugin's handlers and filters on `bot`. */
  setup(bot: PluginBot, options: z.output<S>): void | Promise<void>;
}

/** @deprecated The one plugin type is {@link Plugin}; `PluginDefinition` is its old name. */
export type PluginDefinition = Plugin;

/**
 * Defines a plugin. It only gives the object its types: the options a handler sees are
 * exactly what the schema outputs, and each event's context is narrowed.
 */
export function definePlugin<S extends z.ZodType = z.ZodObject<Record<string, never>>>(plugin: {
  name: string;
  options?: S;
  setup: (bot: PluginBot, options: z.output<S>) => void | Promise<void>;
}): Plugin<S> {
  return plugin;
}
