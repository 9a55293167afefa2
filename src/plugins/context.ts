/**
 * Builds the context a handler gets for an event: the event's data, and the verbs acting on
 * its post and user by default (or on the target their options name), all going through the
 * bot's action layer, whose outcomes are typed by kind.
 *
 * One context is made per event and shared by its handlers; each plugin sees it through a
 * view with its own logger (and its name, for its session). Every action a handler awaits,
 * through `ctx.reply` or `ctx.like`, is counted while it runs, so a handler waiting for the
 * budget is not taken for a hanging one and the test bed's `settle()` knows what it waits for.
 *
 * An event from a user has a durable scope (./dialogs/durable-scope.ts): `ctx.session`
 * reads the user's session of the plugin from it, and every action a handler asks for carries
 * the scope along, so what the handler changed is written with the action's first ledger record.
 */
import type {
  ActionLayer,
  ActionOptions,
  DmRef,
  LayerActionOptions,
  PostRef,
  UserRef,
  WriteText,
} from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { User } from "../api/types.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import type { BotEvent } from "../triggers/events.ts";
import type { DurableScope } from "./dialogs/durable-scope.ts";
import type {
  BotStore,
  BudgetedReadOptions,
  BudgetView,
  DmOutcome,
  EventContexts,
  EventName,
  EventPost,
  FollowOutcome,
  HideOptions,
  HideOutcome,
  LikeOutcome,
  MuteOutcome,
  PostActionOptions,
  PostTarget,
  PublishOutcome,
  ReplyOutcome,
  RepostOutcome,
  SessionData,
  UserActionOptions,
  UserTarget,
} from "./plugin.ts";

export interface ContextDeps {
  identity: BotIdentity;
  api: ApiClient;
  layer: ActionLayer;
  /** The bot's budget view (made once per bot, see {@link budgetView}). */
  budget: BudgetView;
  /**
   * The event's logger, made on first use: most events log nothing, and a pino child per
   * event (and per plugin) was most of the cost of dispatching one.
   */
  log: () => Logger;
  /** The plugin that sees the context itself (it is alone on the event); others see views. */
  plugin?: string;
  /** A plugin's session of the event's user (`ctx.session`), as its schema reads it (the stage's). */
  session?: (plugin: string | undefined, state: ContextState) => SessionData;
}

/** What the runtime watches of a context while its handlers run. */
export interface ContextState {
  /** Actions a handler is awaiting (the stage does not time a handler out meanwhile). */
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
  /** The event (a dialog started from the context reads where it happened). */
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
  const rider = scope.rider();
  return o ? { ...o, rider } : { rider };
}

/**
 * The per-bot key-value store plugins get as `bot.store`. (Methods, not named
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
export async function awaited<T>(state: ContextState, action: Promise<T>): Promise<T> {
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
const PUBLISH = Symbol("publish");
/** The plugin a view is of. */
const PLUGIN = Symbol("plugin");

type Publish = (text: string, options?: ActionOptions) => Promise<PublishOutcome>;

/**
 * What every event's context has. `log` and `publish` are getters on the prototype, made when
 * first read (destructuring `({ log })` reads them too); the verbs each context adds are
 * methods that need no `this`, so `({ reply }) => reply("hi")` works.
 */
class ContextBase<E extends EventName> {
  readonly bot: BotIdentity;
  readonly unbudgetedApi: ApiClient;
  readonly budget: BudgetView;
  // Symbol keys, not #private fields: a plugin's view (Object.create of the context) reads
  // these getters with itself as `this`, and private fields are not inherited.
  readonly [DEPS]: ContextDeps;
  readonly [STATE]: ContextState;
  [LOG]: Logger | undefined;
  /** Set when first read (declared only: no field on each context). */
  declare [PUBLISH]: Publish | undefined;
  /** Set on views only (no field on each context: it would cost every event a property). */
  declare [PLUGIN]: string | undefined;

  constructor(
    readonly event: E,
    deps: ContextDeps,
    state: ContextState,
  ) {
    this.bot = deps.identity;
    this.unbudgetedApi = deps.api;
    this.budget = deps.budget;
    this[DEPS] = deps;
    this[STATE] = state;
  }

  get log(): Logger {
    return (this[LOG] ??= this[DEPS].log());
  }

  /**
   * Publishes a post of the bot's own; made when first read (most handlers answer rather than
   * publish). A schedule's run keys its posts by the run, so the same text goes out every day.
   */
  get publish(): Publish {
    const { layer } = this[DEPS];
    const state = this[STATE];
    const event = state.event;
    if (event.kind !== "schedule")
      return (this[PUBLISH] ??= (text, o) => awaited(state, layer.post(text, riding(state, o))));
    // The idempotency key is the run (and the post's place in it), not the text.
    let n = 0;
    const run = `${event.schedule.name}:${new Date(event.schedule.at).toISOString()}`;
    return (this[PUBLISH] ??= (text, o) =>
      awaited(state, layer.post(text, riding(state, { key: `${run}:${n++}`, ...o }))));
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
    const { layer } = this[DEPS];
    return awaited(
      this[STATE],
      layer.fetch(endpoint, args, {
        label: `${endpoint} for plugin ${this[PLUGIN] ?? this[DEPS].plugin ?? "?"}`,
        ...options,
      }),
    );
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
}

/** The context of an event that delivers a post: whether a handler hid it. */
class PostContextBase<E extends EventName> extends ContextBase<E> {
  get hidden(): boolean {
    const event = this[STATE].event;
    return "post" in event && this[DEPS].layer.hidden(event.post.id);
  }
}

/** What an event's verbs act on when their options name no target: its post, its user, the message it answers. */
interface Defaults {
  post?: PostRef;
  user?: UserRef;
  /** A `dm` event's message: `reply` answers it, and `dm` needs a `{ user }`. */
  message?: DmRef;
}

/** A post target as the action layer takes it. */
const postRef = (post: PostTarget): PostRef => (typeof post === "string" ? { id: post } : post);
/** A user target as the action layer takes it (with how a person reads them, when known). */
const userTarget = (user: UserTarget): UserRef => (typeof user === "string" ? { id: user } : userRef(user));

/** The target a verb acts on: the one its options name, else the event's; a `TypeError` naming what to give when neither is. */
function targetOf<T>(given: T | undefined, fallback: T | undefined, verb: string, event: EventName, named: string): T {
  const target = given ?? fallback;
  if (target === undefined)
    throw new TypeError(`ctx.${verb} on a ${event} event needs { ${named} }: the event has no ${named} of its own`);
  return target;
}

/**
 * The verbs of an event's context, each a closure over the event's state (so they work
 * destructured), acting on the target their options name or the event's ({@link Defaults}).
 * Their outcomes are typed by the action layer, kind by kind.
 */
function verbsOf(layer: ActionLayer, state: ContextState, on: Defaults) {
  const kind = state.event.kind;
  const post = (o: PostActionOptions | undefined, verb: string) =>
    targetOf(o?.post === undefined ? undefined : postRef(o.post), on.post, verb, kind, "post");
  const user = (o: UserActionOptions | undefined, verb: string) =>
    targetOf(o?.user === undefined ? undefined : userTarget(o.user), on.user, verb, kind, "user");
  return {
    reply(text: string | WriteText, o?: PostActionOptions): Promise<ReplyOutcome> {
      return awaited(state, layer.reply(post(o, "reply"), text, riding(state, o)));
    },
    dm(text: string | WriteText, o?: UserActionOptions): Promise<DmOutcome> {
      const to = targetOf(
        o?.user === undefined ? undefined : userTarget(o.user),
        on.message ? undefined : on.user,
        "dm",
        kind,
        "user",
      );
      // A written text has none to key the message by: one message per user and event.
      const keyed = typeof text !== "string" && o?.key === undefined ? { ...o, key: `${to.id}:${state.event.id}` } : o;
      return awaited(state, layer.dm(to, text, riding(state, keyed)));
    },
    like(o?: PostActionOptions): Promise<LikeOutcome> {
      return awaited(state, layer.like(post(o, "like"), riding(state, o)));
    },
    repost(o?: PostActionOptions): Promise<RepostOutcome> {
      return awaited(state, layer.repost(post(o, "repost"), riding(state, o)));
    },
    hide(o?: HideOptions): Promise<HideOutcome> {
      return awaited(state, layer.hide(post(o, "hide"), riding(state, o)));
    },
    follow(o?: UserActionOptions): Promise<FollowOutcome> {
      return awaited(state, layer.follow(user(o, "follow"), riding(state, o)));
    },
    mute(o?: UserActionOptions): Promise<MuteOutcome> {
      return awaited(state, layer.mute(user(o, "mute"), riding(state, o)));
    },
  };
}

/** Builds the context of an event, and the state the runtime watches. */
export function createContext(
  deps: ContextDeps,
  event: BotEvent,
  onWaiting?: (waiting: boolean) => void,
  scope?: DurableScope,
): { ctx: EventContexts[EventName]; state: ContextState } {
  const state: ContextState = { waiting: 0, onWaiting, scope, event };
  const { layer } = deps;
  switch (event.kind) {
    case "schedule": {
      const at = new Date(event.schedule.at);
      const ctx = Object.assign(new ContextBase(event.kind, deps, state), verbsOf(layer, state, {}), {
        schedule: { name: event.schedule.name, cron: event.schedule.cron, at },
      });
      return { ctx, state };
    }
    case "follow": {
      const ctx = Object.assign(
        new ContextBase(event.kind, deps, state),
        verbsOf(layer, state, { user: userRef(event.user) }),
        {
          user: event.user,
        },
      );
      return { ctx, state };
    }
    case "dm": {
      const { message, sender } = event;
      const ctx = Object.assign(
        new ContextBase(event.kind, deps, state),
        verbsOf(layer, state, { user: userRef(sender), message }),
        {
          message,
          sender,
          conversation: { id: message.dm_conversation_id },
          // Answers in the message's conversation (one answer per message: ../actions/keys.ts).
          reply(text: string | WriteText, o?: ActionOptions): Promise<DmOutcome> {
            return awaited(state, layer.dm(message, text, riding(state, o)));
          },
        },
      );
      return { ctx, state };
    }
    case "reply":
      return { ctx: Object.assign(postContext(deps, state, event), { inReplyTo: event.inReplyTo }), state };
    case "post":
      return { ctx: Object.assign(postContext(deps, state, event), { rule: event.rule }), state };
    default:
      return { ctx: postContext(deps, state, event), state };
  }
}

/** The context of an event with a post (mention, reply, a stream's post): its verbs act on that post and its author. */
function postContext<E extends "mention" | "reply" | "post">(
  deps: ContextDeps,
  state: ContextState,
  event: { kind: E; post: EventPost; author: User },
) {
  const verbs = verbsOf(deps.layer, state, { post: refOf(event.post, event.author), user: userRef(event.author) });
  return Object.assign(new PostContextBase(event.kind, deps, state), verbs, {
    post: event.post,
    author: event.author,
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
