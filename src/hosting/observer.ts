/**
 * What the runtime tells the observability side (`bot start --http`) as things happen, in
 * one small typed interface, so metrics, the status page and its live updates never reach
 * into the action layer or the triggers. Everything that is a *state* (budgets, queue depth,
 * paused bots, triggers' last checks) is read from status snapshots when asked instead; only
 * what would otherwise be lost between two looks (each action's outcome, each error answer of
 * the service, each stream reconnect, each event handled) comes through here.
 *
 * Every method must return quickly and never throw: the runtime calls them on its hot paths.
 */
import type { Outcome } from "../actions/action.ts";
import type { ModelObserver } from "../llm/writer.ts";

/** How an action ended, as the status page lists it and the metrics count it. */
export interface ActionSeen {
  bot: string;
  /** `reply`, `like`, `repost`, `follow`, `dm`, `hide`, `post`. */
  kind: string;
  /** What it acted on: the post replied to, liked, hidden, the user followed... */
  target: string;
  status: Outcome["status"];
  /** Why, for refused, dropped, failed and deferred actions. */
  reason?: string;
  /** The text it sent or would have sent (replies, posts, DMs): user content, shown escaped. */
  text?: string;
  /** How a person reads the target (`@ana: "any tips for…"`, `@ana`), when the plugin's event said: user content. */
  about?: string;
  /** When it ended (ms, on the runtime's clock). */
  at: number;
  /** From the moment a plugin asked for it to its outcome (ms): mostly waiting for budget. */
  tookMs: number;
}

/** An error answer of the service (status 400 and up), as the client saw it. */
export interface ServiceErrorSeen {
  /** The bot whose account made the call; absent for app-only calls (the stream, its rules). */
  bot?: string;
  app: string;
  /** The endpoint template (`POST /2/posts`). */
  endpoint: string;
  status: number;
  at: number;
}

/** A change of an app's stream connection (its whole state is read from `runtime.apps()`). */
export interface StreamSeen {
  app: string;
  type: "connected" | "reconnecting" | "gave-up" | "stream-error";
  /** Why it reconnects or gave up (`stall`, `http-429`...). */
  cause?: string;
  /** The last error's message, when there was one. */
  error?: string;
  at: number;
}

/** Work of a bot that started waiting for budget (once per wait, not every wake). */
export interface WaitSeen {
  bot: string;
  /** The endpoint template whose window or cap is spent (`POST /2/posts`). */
  endpoint: string;
  /** Why, as the log says it (`the bot's cap of 50 reply per 24h is spent until …`). */
  reason: string;
  /** When the budget allows it again (ms). */
  readyAt: number;
  at: number;
}

/** A request that left the queue and got an answer (`status` 0: none came). */
export interface ResponseSeen {
  bot: string;
  endpoint: string;
  status: number;
  /** How long it waited in the budget queue before it was sent (ms). */
  waitedMs: number;
}

/** A bot paused while the process runs (its account refused): the page shows it at once. */
export interface PauseSeen {
  bot: string;
  reason: string;
  at: number;
}

/**
 * A change of the fleet while the process runs (the live fleet): a bot added, restarted with
 * a new configuration, removed, paused or resumed, and who made it (an admin token's name,
 * a bot file, a connected account); the status page shows it at once.
 */
export interface FleetChange {
  bot: string;
  change: "added" | "replaced" | "removed" | "paused" | "resumed";
  by: string;
  at: number;
}

/** An event a bot finished handling (its plugins ran, or none handles its kind). */
export interface EventSeen {
  bot: string;
  /** `mention`, `reply`, `post`, `schedule`, `follow`. */
  kind: string;
  at: number;
}

/**
 * Receives what happens in the runtime. Pass one as `RuntimeOptions.observer`; combine
 * several with {@link fanOut}.
 */
export interface RuntimeObserver {
  action(seen: ActionSeen): void;
  event(seen: EventSeen): void;
  serviceError(seen: ServiceErrorSeen): void;
  stream(seen: StreamSeen): void;
  waiting(seen: WaitSeen): void;
  response(seen: ResponseSeen): void;
  paused(seen: PauseSeen): void;
  fleet(seen: FleetChange): void;
  /** What the bots' language models did (requests, tokens, texts refused); optional. */
  model?: ModelObserver;
}

/** One observer that hands everything to each of `observers`, in order. */
export function fanOut(...observers: RuntimeObserver[]): RuntimeObserver {
  return {
    action: (s) => observers.forEach((o) => o.action(s)),
    event: (s) => observers.forEach((o) => o.event(s)),
    serviceError: (s) => observers.forEach((o) => o.serviceError(s)),
    stream: (s) => observers.forEach((o) => o.stream(s)),
    waiting: (s) => observers.forEach((o) => o.waiting(s)),
    response: (s) => observers.forEach((o) => o.response(s)),
    paused: (s) => observers.forEach((o) => o.paused(s)),
    fleet: (s) => observers.forEach((o) => o.fleet(s)),
    model: {
      request: (s) => observers.forEach((o) => o.model?.request(s)),
      tokens: (s) => observers.forEach((o) => o.model?.tokens(s)),
      refused: (s) => observers.forEach((o) => o.model?.refused(s)),
    },
  };
}
