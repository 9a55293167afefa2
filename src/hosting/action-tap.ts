/**
 * The action layer's reports, handed to a {@link RuntimeObserver}: an observer of the
 * action system (its one reporting place, `observe` in its options), so every action a bot
 * performs, including those resumed after a restart, is seen once with how it ended and how
 * long it took from the plugin's request to that end (on the runtime's clock, so mostly the
 * wait for budget); each wait for budget once, when it starts; and each answer of the
 * service with how long its request waited in the queue.
 */
import type { ActionObserver } from "../actions/observe.ts";
import type { Clock } from "../clock.ts";
import type { RuntimeObserver } from "./observer.ts";

const textOf = (body: unknown) => {
  const text = (body as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text : undefined;
};

/** An action observer that reports outcomes, waits and answers to `observer`. */
export function tapActions(observer: RuntimeObserver, clock: Clock): ActionObserver {
  return (event) => {
    if (event.type === "waiting") {
      observer.waiting({
        bot: event.bot,
        endpoint: event.endpoint,
        reason: event.reason,
        readyAt: event.readyAt,
        at: clock.now(),
      });
      return;
    }
    if (event.type === "response") {
      observer.response({ bot: event.bot, endpoint: event.endpoint, status: event.status, waitedMs: event.waitedMs });
      return;
    }
    const { action, outcome } = event;
    const text = textOf(action.body);
    const now = clock.now();
    observer.action({
      bot: action.bot,
      kind: action.kind,
      target: action.target,
      status: outcome.status,
      ...("reason" in outcome ? { reason: outcome.reason } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(action.context?.about ? { about: action.context.about } : {}),
      at: now,
      tookMs: Math.max(0, now - action.createdAt),
    });
  };
}
