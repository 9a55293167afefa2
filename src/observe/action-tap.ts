/**
 * The action layer's outcomes, handed to a {@link RuntimeObserver}: a step in front of the
 * chain (the layer's own extension point, `layer.use`), so every action a bot performs,
 * including those resumed after a restart, is seen once with how it ended and how long it
 * took from the plugin's request to that end (on the runtime's clock, so mostly the wait for
 * budget).
 */
import type { Outcome, Transformer } from "../actions/action.ts";
import type { Clock } from "../clock.ts";
import type { RuntimeObserver } from "./observer.ts";

const textOf = (body: unknown) => {
  const text = (body as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text : undefined;
};

/** A chain step that reports each action's outcome to `observer` and changes nothing. */
export function tapActions(observer: RuntimeObserver, clock: Clock): Transformer {
  return (next) => async (job) => {
    const { action } = job;
    const outcome: Outcome = await next(job);
    try {
      const text = textOf(action.body);
      const now = clock.now();
      observer.action({
        bot: action.bot,
        kind: action.kind,
        target: action.target,
        status: outcome.status,
        ...("reason" in outcome ? { reason: outcome.reason } : {}),
        ...(text !== undefined ? { text } : {}),
        at: now,
        tookMs: Math.max(0, now - action.createdAt),
      });
    } catch {
      // An observer must never change what happens to an action.
    }
    return outcome;
  };
}
