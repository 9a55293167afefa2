/**
 * Builds the context a handler gets for an event: the event's data, and the actions bound
 * to its post and author, all going through the bot's action layer.
 *
 * One context is made per event and shared by its handlers; each plugin sees it through a
 * view with its own logger. Every action a handler awaits, through `ctx.reply` or
 * `ctx.actions.like`, is counted while it runs, so a handler waiting for the budget is not
 * taken for a hanging one and the test bed's `settle()` knows what it waits for.
 */
import type { ActionLayer, ActionOptions, Actions, Outcome, PostRef } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { BotEvent } from "../triggers/events.ts";
import type { BotIdentity } from "../runtime/types.ts";
import type { BotStore, BudgetView, EventContexts, EventName, EventPost } from "./plugin.ts";

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
}

/** What the runtime watches of a context while its handlers run. */
export interface ContextState {
  /** Actions a handler is awaiting (the dispatcher does not time a handler out meanwhile). */
  waiting: number;
}

/** The per-bot key-value store plugins get as `ctx.store` and `bot.store`. */
export function botStore(store: Store, bot: string): BotStore {
  const ns = `kv:${bot}`;
  return {
    get: <T>(key: string) => store.get<T>(ns, key),
    set: (key, value) => store.set(ns, key, value),
    delete: (key) => store.delete(ns, key),
  };
}

const refOf = (post: EventPost): PostRef => ({
  id: post.id,
  author_id: post.author_id,
  conversation_id: post.conversation_id,
  created_at: post.created_at,
});

/** Counts an action as awaited while it runs. */
async function awaited(state: ContextState, action: Promise<Outcome>): Promise<Outcome> {
  state.waiting++;
  try {
    return await action;
  } finally {
    state.waiting--;
  }
}

/** `ctx.actions`: every verb through the layer, each counted while awaited. */
function actionsOf(layer: ActionLayer, state: ContextState): Actions {
  // Methods, not arrow properties: tsx names every arrow it compiles with a
  // defineProperty, which thousands of events a second each paid for.
  return {
    reply(to, text, o) {
      return awaited(state, layer.reply(to, text, o));
    },
    like(post, o) {
      return awaited(state, layer.like(post, o));
    },
    repost(post, o) {
      return awaited(state, layer.repost(post, o));
    },
    follow(userId, o) {
      return awaited(state, layer.follow(userId, o));
    },
    dm(userId, text, o) {
      return awaited(state, layer.dm(userId, text, o));
    },
    hide(post, o) {
      return awaited(state, layer.hide(post, o));
    },
    post(text, o) {
      return awaited(state, layer.post(text, o));
    },
    remaining(kind) {
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

/**
 * What every event's context has. `log` and `actions` are getters on the prototype, made
 * when first read (destructuring `({ log })` reads them too); the verbs each context adds
 * are methods that need no `this`, so `({ reply }) => reply("hi")` works.
 */
class ContextBase<E extends EventName> {
  readonly bot: BotIdentity;
  readonly api: ApiClient;
  readonly store: BotStore;
  readonly budget: BudgetView;
  // Symbol keys, not #private fields: a plugin's view (Object.create of the context) reads
  // these getters with itself as `this`, and private fields are not inherited.
  readonly [DEPS]: ContextDeps;
  readonly [STATE]: ContextState;
  [LOG]: Logger | undefined;
  [ACTIONS]: Actions | undefined;

  constructor(
    readonly event: E,
    deps: ContextDeps,
    state: ContextState,
  ) {
    this.bot = deps.identity;
    this.api = deps.api;
    this.store = deps.kv;
    this.budget = deps.budget;
    this[DEPS] = deps;
    this[STATE] = state;
  }

  get log(): Logger {
    return (this[LOG] ??= this[DEPS].log());
  }

  get actions(): Actions {
    return (this[ACTIONS] ??= actionsOf(this[DEPS].layer, this[STATE]));
  }
}

/** The context of an event that delivers a post: whether a handler hid it. */
class PostContextBase<E extends EventName> extends ContextBase<E> {
  readonly [POST_ID]: string;

  constructor(event: E, deps: ContextDeps, state: ContextState, postId: string) {
    super(event, deps, state);
    this[POST_ID] = postId;
  }

  get hidden(): boolean {
    return this[DEPS].layer.hidden(this[POST_ID]);
  }
}

/** Builds the context of an event, and the state the runtime watches. */
export function createContext(
  deps: ContextDeps,
  event: BotEvent,
): { ctx: EventContexts[EventName]; state: ContextState } {
  const state: ContextState = { waiting: 0 };
  const { layer } = deps;

  switch (event.kind) {
    case "mention":
    case "reply":
    case "post": {
      const ref = refOf(event.post);
      const ctx = Object.assign(new PostContextBase(event.kind, deps, state, event.post.id), {
        post: event.post,
        author: event.author,
        ...(event.kind === "reply" ? { inReplyTo: event.inReplyTo } : {}),
        ...(event.kind === "post" ? { rule: event.rule } : {}),
        reply(text: string, o?: ActionOptions) {
          return awaited(state, layer.reply(ref, text, o));
        },
        like(o?: ActionOptions) {
          return awaited(state, layer.like(ref, o));
        },
        repost(o?: ActionOptions) {
          return awaited(state, layer.repost(ref, o));
        },
        follow(o?: ActionOptions) {
          return awaited(state, layer.follow(event.author.id, o));
        },
        dm(text: string, o?: ActionOptions) {
          return awaited(state, layer.dm(event.author.id, text, o));
        },
        hide(o?: ActionOptions) {
          return awaited(state, layer.hide(ref, o));
        },
      });
      return { ctx: ctx as unknown as EventContexts[EventName], state };
    }
    case "schedule": {
      let n = 0;
      const run = `${event.schedule.name}:${new Date(event.schedule.at).toISOString()}`;
      const ctx = Object.assign(new ContextBase("schedule" as const, deps, state), {
        schedule: { name: event.schedule.name, cron: event.schedule.cron, at: new Date(event.schedule.at) },
        // A schedule that posts the same text every day must post it every day: the
        // idempotency key is the run (and the post's place in it), not the text.
        post(text: string, o?: ActionOptions) {
          return awaited(state, layer.post(text, { key: `${run}:${n++}`, ...o }));
        },
      });
      return { ctx, state };
    }
    case "follow": {
      const ctx = Object.assign(new ContextBase("follow" as const, deps, state), {
        user: event.user,
        follow(o?: ActionOptions) {
          return awaited(state, layer.follow(event.user.id, o));
        },
        dm(text: string, o?: ActionOptions) {
          return awaited(state, layer.dm(event.user.id, text, o));
        },
        post(text: string, o?: ActionOptions) {
          return awaited(state, layer.post(text, o));
        },
      });
      return { ctx, state };
    }
  }
}

/**
 * The context as one plugin sees it: the same context, with a logger naming the plugin,
 * made only when the handler logs (`log` builds it from the plugin's own logger).
 */
export function viewFor<C extends object>(ctx: C, log: () => Logger): C {
  let made: Logger | undefined;
  return Object.create(ctx, {
    log: {
      get() {
        return (made ??= log());
      },
      enumerable: true,
    },
  }) as C;
}
