/**
 * Builds the context a handler gets for an event: the event's data, and the actions bound
 * to its post and author, all going through the bot's action layer.
 *
 * One context is made per event and shared by its handlers (so `ctx.hidden` set by one is
 * seen by the next); each plugin sees it through a view with its own logger.
 */
import type { ActionLayer, ActionOptions, Outcome, PostRef } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import type { BotEvent } from "./events.ts";
import { markHidden } from "./hidden.ts";
import type { BaseContext, BotIdentity, BotStore, EventContexts, EventName, EventPost } from "./plugin.ts";

export interface ContextDeps {
  identity: BotIdentity;
  api: ApiClient;
  layer: ActionLayer;
  store: Store;
  log: Logger;
}

/** What the runtime tracks about a context while its handlers run. */
export interface ContextState {
  /** Actions a handler is awaiting (the dispatcher does not time a handler out meanwhile). */
  waiting: number;
  hidden: boolean;
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
  const state: ContextState = { waiting: 0, hidden: false };
  const { layer } = deps;
  const track = async (action: Promise<Outcome>): Promise<Outcome> => {
    state.waiting++;
    try {
      return await action;
    } finally {
      state.waiting--;
    }
  };
  const base: BaseContext<EventName> = {
    event: event.kind,
    bot: deps.identity,
    api: deps.api,
    log: deps.log,
    store: botStore(deps.store, deps.identity.name),
    budget: { remaining: (kind) => layer.remaining(kind), status: () => layer.status() },
    actions: layer,
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
        reply: (text: string, o?: ActionOptions) => track(layer.reply(ref, text, o)),
        like: (o?: ActionOptions) => track(layer.like(ref, o)),
        repost: (o?: ActionOptions) => track(layer.repost(ref, o)),
        follow: (o?: ActionOptions) => track(layer.follow(event.author.id, o)),
        dm: (text: string, o?: ActionOptions) => track(layer.dm(event.author.id, text, o)),
        hide: async (o?: ActionOptions) => {
          const outcome = await track(layer.hide(ref, o));
          if (outcome.status === "sent" || outcome.status === "duplicate" || outcome.status === "dry-run") {
            state.hidden = true;
            markHidden(deps.store, deps.identity.name, event.post.id);
          }
          return outcome;
        },
        get hidden() {
          return state.hidden;
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
        post: (text: string, o?: ActionOptions) => track(layer.post(text, { key: `${run}:${n++}`, ...o })),
      };
      return { ctx, state };
    }
    case "follow": {
      const ctx = {
        ...base,
        event: "follow" as const,
        user: event.user,
        follow: (o?: ActionOptions) => track(layer.follow(event.user.id, o)),
        dm: (text: string, o?: ActionOptions) => track(layer.dm(event.user.id, text, o)),
        post: (text: string, o?: ActionOptions) => track(layer.post(text, o)),
      };
      return { ctx, state };
    }
  }
}

/** The context as one plugin sees it: the same context, with a logger naming the plugin. */
export function viewFor<C extends object>(ctx: C & { log: Logger }, plugin: string): C {
  return Object.create(ctx, { log: { value: ctx.log.child({ plugin }), enumerable: true } }) as C;
}
