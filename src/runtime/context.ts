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
import type { BotEvent } from "./events.ts";
import type { BaseContext, BotIdentity, BotStore, EventContexts, EventName, EventPost } from "./plugin.ts";

export interface ContextDeps {
  identity: BotIdentity;
  api: ApiClient;
  layer: ActionLayer;
  store: Store;
  log: Logger;
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

/** Builds the context of an event, and the state the runtime watches. */
export function createContext(deps: ContextDeps, event: BotEvent): { ctx: EventContexts[EventName]; state: ContextState } {
  const state: ContextState = { waiting: 0 };
  const { layer } = deps;
  /** Counts an action as awaited while it runs. */
  const awaited = async (action: Promise<Outcome>): Promise<Outcome> => {
    state.waiting++;
    try {
      return await action;
    } finally {
      state.waiting--;
    }
  };
  const actions: Actions = {
    reply: (to, text, o) => awaited(layer.reply(to, text, o)),
    like: (post, o) => awaited(layer.like(post, o)),
    repost: (post, o) => awaited(layer.repost(post, o)),
    follow: (userId, o) => awaited(layer.follow(userId, o)),
    dm: (userId, text, o) => awaited(layer.dm(userId, text, o)),
    hide: (post, o) => awaited(layer.hide(post, o)),
    post: (text, o) => awaited(layer.post(text, o)),
    remaining: (kind) => layer.remaining(kind),
  };
  const base: BaseContext<EventName> = {
    event: event.kind,
    bot: deps.identity,
    api: deps.api,
    log: deps.log,
    store: botStore(deps.store, deps.identity.name),
    budget: { remaining: (kind) => layer.remaining(kind), status: () => layer.status() },
    actions,
  };

  switch (event.kind) {
    case "mention":
    case "reply":
    case "post": {
      const ref = refOf(event.post);
      const ctx = {
        ...base,
        event: event.kind,
        post: event.post,
        author: event.author,
        ...(event.kind === "reply" ? { inReplyTo: event.inReplyTo } : {}),
        ...(event.kind === "post" ? { rule: event.rule } : {}),
        reply: (text: string, o?: ActionOptions) => actions.reply(ref, text, o),
        like: (o?: ActionOptions) => actions.like(ref, o),
        repost: (o?: ActionOptions) => actions.repost(ref, o),
        follow: (o?: ActionOptions) => actions.follow(event.author.id, o),
        dm: (text: string, o?: ActionOptions) => actions.dm(event.author.id, text, o),
        hide: (o?: ActionOptions) => actions.hide(ref, o),
        get hidden() {
          return layer.hidden(event.post.id);
        },
      };
      return { ctx: ctx as EventContexts[EventName], state };
    }
    case "schedule": {
      let n = 0;
      const run = `${event.schedule.name}:${new Date(event.schedule.at).toISOString()}`;
      const ctx = {
        ...base,
        event: "schedule" as const,
        schedule: { name: event.schedule.name, cron: event.schedule.cron, at: new Date(event.schedule.at) },
        // A schedule that posts the same text every day must post it every day: the
        // idempotency key is the run (and the post's place in it), not the text.
        post: (text: string, o?: ActionOptions) => actions.post(text, { key: `${run}:${n++}`, ...o }),
      };
      return { ctx, state };
    }
    case "follow": {
      const ctx = {
        ...base,
        event: "follow" as const,
        user: event.user,
        follow: (o?: ActionOptions) => actions.follow(event.user.id, o),
        dm: (text: string, o?: ActionOptions) => actions.dm(event.user.id, text, o),
        post: (text: string, o?: ActionOptions) => actions.post(text, o),
      };
      return { ctx, state };
    }
  }
}

/** The context as one plugin sees it: the same context, with a logger naming the plugin. */
export function viewFor<C extends object>(ctx: C & { log: Logger }, plugin: string): C {
  return Object.create(ctx, { log: { value: ctx.log.child({ plugin }), enumerable: true } }) as C;
}
