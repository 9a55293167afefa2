/**
 * Builds the context a handler gets for an event: the event's data, and the actions bound
 * to its post and author, all going through the bot's action layer.
 *
 * One context is made per event and shared by its handlers; each plugin sees it through a
 * view with its own logger (and its name, for the deprecation warnings of ./deprecation.ts).
 * Every action a handler awaits, through `ctx.reply` or `ctx.actions.like`, is counted while
 * it runs, so a handler waiting for the budget is not taken for a hanging one and the test
 * bed's `settle()` knows what it waits for.
 *
 * An event from a user has a durable scope (./conversations/durable-scope.ts): `ctx.session`
 * reads the user's session of the plugin from it, and every action a handler asks for carries
 * the scope along, so what the handler changed is written with the action's first ledger record.
 */
import type {
  ActionLayer,
  ActionOptions,
  LayerActionOptions,
  Outcome,
  PostRef,
  UserRef,
  WriteText,
} from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import type { BotEvent } from "../triggers/events.ts";
import type { DurableScope } from "./conversations/durable-scope.ts";
import type { DeprecationWarnings, DEPRECATED } from "./deprecation.ts";
import type {
  BotStore,
  BudgetedReadOptions,
  BudgetView,
  ContextActions,
  DmOutcome,
  EventContexts,
  EventName,
  EventPost,
  PublishOutcome,
  SessionData,
} from "./plugin.ts";

export interface ContextDeps {
  identity: BotIdentity;
  api: ApiClient;
  layer: ActionLayer;
  /** The bot's key-value store and budget view (made once per bot, see {@link botStore}). */
  kv: BotStore;
  budget: BudgetView;
  /**
   * The event's logger, made on first use: most events log nothing, and a pino child per
   * event (and per plugin) was most of the cost of dispatching one.
   */
  log: () => Logger;
  /** The plugin that sees the context itself (it is alone on the event); others see views. */
  plugin?: string;
  /** The old spellings the runtime's plugins were told about (each once per runtime and plugin). */
  deprecations: DeprecationWarnings;
  /** A plugin's session of the event's user (`ctx.session`), as its schema reads it (the stage's). */
  session?: (plugin: string | undefined, state: ContextState) => SessionData;
}

/** What the runtime watches of a context while its handlers run. */
export interface ContextState {
  /** Actions a handler is awaiting (the dispatcher does not time a handler out meanwhile). */
  waiting: number;
  /**
   * Work outside the bot a handler is awaiting (`ctx.waitFor`: a moderation judge's answer):
   * it frees the handler's slot as an action does, but the bot is not idle meanwhile (a
   * test bed's settle waits for it) and the handler's timeout still runs.
   */
  outside?: number;
  /** Told when the handling starts awaiting an action or outside work (`true`, none awaited before) and when it awaits none any more. */
  onWaiting?: ((waiting: boolean) => void) | undefined;
  /** The event's durable scope, when it comes from a user: its session, and what rides with its actions. */
  scope?: DurableScope | undefined;
  /** The event (a conversation started from the context reads where it happened). */
  event: BotEvent;
  /**
   * Work a handler left to go on while the later plugins run (`ctx.meanwhile`), each settled
   * quietly (a rejection is logged): the event ends once it has settled.
   */
  meanwhile?: Array<Promise<void>>;
}

/**
 * The layer's options of an action a handler asks for: its own, with the event's scope riding
 * along (what the handler changed is written with the action's first record). A session over
 * its cap refuses the action here, before anything is recorded.
 */
function riding(state: ContextState, o: ActionOptions | undefined): LayerActionOptions | undefined {
  const scope = state.scope;
  if (!scope) return o;
  scope.check();
  return o ? { ...o, rider: scope } : { rider: scope };
}

/**
 * The per-bot key-value store plugins get as `ctx.store` and `bot.store`. (Methods, not named
 * arrows: each bot has one, and tsx gives every named arrow a name property of its own.)
 */
export function botStore(store: Store, bot: string): BotStore {
  const ns = `kv:${bot}`;
  return {
    get<T>(key: string) {
      return store.get<T>(ns, key);
    },
    set(key, value) {
      store.set(ns, key, value);
    },
    delete(key) {
      store.delete(ns, key);
    },
  };
}

/** `@ana`: a user as a person reads them in a log line. */
const userAbout = (user: { username?: string }) => (user.username ? `@${user.username}` : undefined);

/** `@ana: "any tips for Lisbon? I land on…"`: a post as a person reads it in a log line. */
function postAbout(post: EventPost, author: { username?: string }): string {
  const text = post.text.length > 40 ? `${post.text.slice(0, 39)}…` : post.text;
  return `${userAbout(author) ?? "a post"}: ${JSON.stringify(text)}`;
}

/** A post as the action layer refers to it (with how a person reads it, when its author is known). */
export const refOf = (post: EventPost, author?: { username?: string }): PostRef => ({
  id: post.id,
  author_id: post.author_id,
  conversation_id: post.conversation_id,
  created_at: post.created_at,
  ...(author ? { about: postAbout(post, author) } : {}),
});

/** The user an event is from, for `follow` and `dm`, with how a person reads them. */
const userRef = (user: { id: string; username?: string }): UserRef => {
  const about = userAbout(user);
  return about ? { id: user.id, about } : { id: user.id };
};

/** Counts an action (or a budgeted read) as awaited while it runs. */
export async function awaited<T = Outcome>(state: ContextState, action: Promise<T>): Promise<T> {
  if (state.waiting++ + (state.outside ?? 0) === 0) state.onWaiting?.(true);
  try {
    return await action;
  } finally {
    if (--state.waiting + (state.outside ?? 0) === 0) state.onWaiting?.(false);
  }
}

/** Counts outside work (`ctx.waitFor`) as awaited while it runs; see {@link ContextState.outside}. */
async function awaitedOutside<T>(state: ContextState, work: Promise<T>): Promise<T> {
  const outside = state.outside ?? 0;
  state.outside = outside + 1;
  if (outside + state.waiting === 0) state.onWaiting?.(true);
  try {
    return await work;
  } finally {
    state.outside = (state.outside ?? 1) - 1;
    if (state.outside + state.waiting === 0) state.onWaiting?.(false);
  }
}

/** `ctx.actions`: every verb through the layer, each counted while awaited. */
function actionsOf(layer: ActionLayer, state: ContextState, oldRemaining: () => void): ContextActions {
  // Methods, not arrow properties: tsx names every arrow it compiles with a
  // defineProperty, which thousands of events a second each paid for. The layer's outcomes
  // are the service's answers to each action, so they have the result types the API names.
  return {
    reply(to, text, o) {
      return awaited(state, layer.reply(to, text, riding(state, o))) as never;
    },
    like(post, o) {
      return awaited(state, layer.like(post, riding(state, o))) as never;
    },
    repost(post, o) {
      return awaited(state, layer.repost(post, riding(state, o))) as never;
    },
    follow(userId, o) {
      return awaited(state, layer.follow(userId, riding(state, o))) as never;
    },
    dm(userId, text, o) {
      return awaited(state, layer.dm(userId, text, riding(state, o))) as never;
    },
    hide(post, o) {
      return awaited(state, layer.hide(post, riding(state, o))) as never;
    },
    post(text, o) {
      return awaited(state, layer.post(text, riding(state, o))) as never;
    },
    mute(userId, o) {
      return awaited(state, layer.mute(userId, riding(state, o))) as never;
    },
    remaining(kind) {
      oldRemaining();
      return layer.remaining(kind);
    },
  };
}

/** The budget view plugins get as `ctx.budget` (one per bot). */
export function budgetView(layer: ActionLayer): BudgetView {
  return {
    remaining(kind) {
      return layer.remaining(kind);
    },
    status() {
      return layer.status();
    },
  };
}

const DEPS = Symbol("deps");
const STATE = Symbol("state");
const LOG = Symbol("log");
const ACTIONS = Symbol("actions");
const POST_ID = Symbol("postId");
const PUBLISH = Symbol("publish");
/** The plugin a view is of. */
const PLUGIN = Symbol("plugin");
const DEPRECATED_USE = Symbol("deprecated");

type Publish = (text: string, options?: ActionOptions) => Promise<PublishOutcome>;

/**
 * What every event's context has. `log`, `actions` (and the old spelling `api`) are getters
 * on the prototype, made when first read (destructuring `({ log })` reads them too); the
 * verbs each context adds are methods that need no `this`, so `({ reply }) => reply("hi")`
 * works.
 */
class ContextBase<E extends EventName> {
  readonly bot: BotIdentity;
  readonly unbudgetedApi: ApiClient;
  readonly store: BotStore;
  readonly budget: BudgetView;
  // Symbol keys, not #private fields: a plugin's view (Object.create of the context) reads
  // these getters with itself as `this`, and private fields are not inherited.
  readonly [DEPS]: ContextDeps;
  readonly [STATE]: ContextState;
  [LOG]: Logger | undefined;
  [ACTIONS]: ContextActions | undefined;
  /** Set on views only (no field on each context: it would cost every event a property). */
  declare [PLUGIN]: string | undefined;

  constructor(
    readonly event: E,
    deps: ContextDeps,
    state: ContextState,
  ) {
    this.bot = deps.identity;
    this.unbudgetedApi = deps.api;
    this.store = deps.kv;
    this.budget = deps.budget;
    this[DEPS] = deps;
    this[STATE] = state;
  }

  get log(): Logger {
    return (this[LOG] ??= this[DEPS].log());
  }

  get actions(): ContextActions {
    return (this[ACTIONS] ??= actionsOf(this[DEPS].layer, this[STATE], () => this[DEPRECATED_USE]("remaining")));
  }

  /** Work outside the bot (see `BaseContext.waitFor`): the event holds no handler slot meanwhile. */
  waitFor<T>(work: Promise<T>): Promise<T> {
    return awaitedOutside(this[STATE], work);
  }

  /** Work the event ends with, its later plugins not waiting for it (see `BaseContext.meanwhile`). */
  meanwhile(work: Promise<unknown>): void {
    const plugin = this[PLUGIN] ?? this[DEPS].plugin ?? "?";
    (this[STATE].meanwhile ??= []).push(
      work.then(
        () => undefined,
        (err: unknown) =>
          this.log.error({ plugin, err }, `plugin ${plugin} threw: ${(err as Error)?.message ?? String(err)}`),
      ),
    );
  }

  /** A read through the bot's budget (see `BaseContext.read`), counted as waiting for it. */
  read<K extends EndpointKey>(
    endpoint: K,
    args: RequestArgs<K>,
    options?: BudgetedReadOptions,
  ): Promise<ResponseOf<K>> {
    const { layer, api } = this[DEPS];
    const exchange = api.exchange.bind(api) as (
      key: K,
      args: unknown,
      options: { signal: AbortSignal },
    ) => Promise<{ body: ResponseOf<K>; headers: Record<string, string | string[] | undefined> }>;
    return awaited(
      this[STATE],
      layer.read(
        endpoint,
        (signal) => exchange(endpoint, args, { signal }).then((r) => ({ result: r.body, headers: r.headers })),
        { label: `${endpoint} for plugin ${this[PLUGIN] ?? this[DEPS].plugin ?? "?"}`, ...options },
      ),
    );
  }

  /** The old spelling of {@link unbudgetedApi}. */
  get api(): ApiClient {
    this[DEPRECATED_USE]("api");
    return this.unbudgetedApi;
  }

  /**
   * The user's session of the plugin this context is seen by: read (and checked by the plugin's
   * schema) on first use, kept with the handler's first action or when it ends.
   *
   * @throws {Error} on an event from nobody (a schedule).
   */
  get session(): SessionData {
    const read = this[DEPS].session;
    if (!read) throw new Error("ctx.session: this bot keeps no sessions");
    return read(this[PLUGIN] ?? this[DEPS].plugin, this[STATE]);
  }

  /** Replaces the session with another object (kept like a change of it). */
  set session(value: SessionData) {
    const scope = this[STATE].scope;
    if (!scope) throw new Error(`ctx.session: a ${this.event} event comes from no user, so it has no session`);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new TypeError("ctx.session must be a plain object");
    scope.replaceSession(this[PLUGIN] ?? this[DEPS].plugin ?? "", value);
  }

  /** Warns (once per plugin) that the plugin this context is seen by uses an old spelling. */
  [DEPRECATED_USE](which: keyof typeof DEPRECATED): void {
    this[DEPS].deprecations.warn(this.log, this[PLUGIN] ?? this[DEPS].plugin, which);
  }
}

/** The context of an event that delivers a post: whether a handler hid it, and publishing. */
class PostContextBase<E extends EventName> extends ContextBase<E> {
  readonly [POST_ID]: string;
  /** Set when first read (declared only: no field on each context). */
  declare [PUBLISH]: Publish | undefined;

  constructor(event: E, deps: ContextDeps, state: ContextState, postId: string) {
    super(event, deps, state);
    this[POST_ID] = postId;
  }

  get hidden(): boolean {
    return this[DEPS].layer.hidden(this[POST_ID]);
  }

  /** Made when first read: most handlers of a post answer it rather than publish. */
  get publish(): Publish {
    const { layer } = this[DEPS];
    const state = this[STATE];
    return (this[PUBLISH] ??= (text, o) =>
      awaited(state, layer.post(text, riding(state, o))) as Promise<PublishOutcome>);
  }
}

/**
 * The context of an event without a post (schedule, follow): it publishes with its own
 * `publish`, and still answers to the old spelling `ctx.post(text)`.
 */
class PublishingContextBase<E extends EventName> extends ContextBase<E> {
  declare readonly publish: Publish;

  /** The old spelling of `publish`. */
  get post(): Publish {
    return (text, o) => {
      this[DEPRECATED_USE]("publish");
      return this.publish(text, o);
    };
  }
}

/** Builds the context of an event, and the state the runtime watches. */
export function createContext(
  deps: ContextDeps,
  event: BotEvent,
  onWaiting?: (waiting: boolean) => void,
  scope?: DurableScope,
): { ctx: EventContexts[EventName]; state: ContextState } {
  const state: ContextState = { waiting: 0, onWaiting, scope, event };
  const ctx =
    event.kind === "schedule"
      ? scheduleContext(deps, state, event)
      : event.kind === "follow"
        ? followContext(deps, state, event)
        : event.kind === "dm"
          ? dmContext(deps, state, event)
          : postContext(deps, state, event);
  return { ctx: ctx as unknown as EventContexts[EventName], state };
}

/** The context of an event with a post (mention, reply, a stream's post): its verbs act on that post. */
function postContext(
  deps: ContextDeps,
  state: ContextState,
  event: Extract<BotEvent, { kind: "mention" | "reply" | "post" }>,
) {
  const { layer } = deps;
  const ref = refOf(event.post, event.author);
  return Object.assign(new PostContextBase(event.kind, deps, state, event.post.id), {
    post: event.post,
    author: event.author,
    ...(event.kind === "reply" ? { inReplyTo: event.inReplyTo } : {}),
    ...(event.kind === "post" ? { rule: event.rule } : {}),
    reply(text: string, o?: ActionOptions) {
      return awaited(state, layer.reply(ref, text, riding(state, o)));
    },
    replyWith(write: WriteText, o?: ActionOptions) {
      return awaited(state, layer.reply(ref, write, riding(state, o)));
    },
    like(o?: ActionOptions) {
      return awaited(state, layer.like(ref, riding(state, o)));
    },
    repost(o?: ActionOptions) {
      return awaited(state, layer.repost(ref, riding(state, o)));
    },
    follow(o?: ActionOptions) {
      return awaited(state, layer.follow(userRef(event.author), riding(state, o)));
    },
    dm(text: string, o?: ActionOptions) {
      return awaited(state, layer.dm(userRef(event.author), text, riding(state, o)));
    },
    hide(o?: ActionOptions) {
      return awaited(state, layer.hide(ref, riding(state, o)));
    },
  });
}

/** The context of a schedule's run: it publishes, keyed by the run. */
function scheduleContext(deps: ContextDeps, state: ContextState, event: Extract<BotEvent, { kind: "schedule" }>) {
  const { layer } = deps;
  let n = 0;
  const run = `${event.schedule.name}:${new Date(event.schedule.at).toISOString()}`;
  return Object.assign(new PublishingContextBase("schedule" as const, deps, state), {
    schedule: { name: event.schedule.name, cron: event.schedule.cron, at: new Date(event.schedule.at) },
    // A schedule that posts the same text every day must post it every day: the
    // idempotency key is the run (and the post's place in it), not the text.
    publish(text: string, o?: ActionOptions) {
      return awaited(state, layer.post(text, riding(state, { key: `${run}:${n++}`, ...o }))) as Promise<PublishOutcome>;
    },
  });
}

/** The context of a new follower: follow back, DM them, publish. */
function followContext(deps: ContextDeps, state: ContextState, event: Extract<BotEvent, { kind: "follow" }>) {
  const { layer } = deps;
  return Object.assign(new PublishingContextBase("follow" as const, deps, state), {
    user: event.user,
    follow(o?: ActionOptions) {
      return awaited(state, layer.follow(userRef(event.user), riding(state, o)));
    },
    dm(text: string, o?: ActionOptions) {
      return awaited(state, layer.dm(userRef(event.user), text, riding(state, o)));
    },
    publish(text: string, o?: ActionOptions) {
      return awaited(state, layer.post(text, riding(state, o))) as Promise<PublishOutcome>;
    },
  });
}

/** The context of a direct message: `reply` and `dm` are one verb, both answer in the message's conversation. */
function dmContext(deps: ContextDeps, state: ContextState, event: Extract<BotEvent, { kind: "dm" }>) {
  const { layer } = deps;
  const { message, sender } = event;
  const answer = (text: string | WriteText, o?: ActionOptions) =>
    awaited(state, layer.answerDm(message, text, riding(state, o))) as Promise<DmOutcome>;
  return Object.assign(new ContextBase("dm" as const, deps, state), {
    message,
    sender,
    conversation: { id: message.dm_conversation_id },
    reply: answer,
    replyWith: answer,
    dm: answer,
    follow(o?: ActionOptions) {
      return awaited(state, layer.follow(sender.id, riding(state, o)));
    },
    publish(text: string, o?: ActionOptions) {
      return awaited(state, layer.post(text, riding(state, o))) as Promise<PublishOutcome>;
    },
  });
}

/** The state of a context (or a plugin's view of it); undefined for anything else. */
export function contextState(ctx: object): ContextState | undefined {
  return (ctx as Partial<Record<typeof STATE, ContextState>>)[STATE];
}

/**
 * The context as one plugin sees it: the same context, with a logger naming the plugin,
 * made only when the handler logs (`log` builds it from the plugin's own logger).
 */
export function viewFor<C extends object>(ctx: C, log: () => Logger, plugin: string): C {
  let made: Logger | undefined;
  return Object.create(ctx, {
    log: {
      get() {
        return (made ??= log());
      },
      enumerable: true,
    },
    [PLUGIN]: { value: plugin },
  }) as C;
}
