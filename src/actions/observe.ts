/**
 * The one place the action pipeline reports what happens to actions, for whoever measures it
 * (the metrics of `bot start --http`, tests): each outcome, each wait for budget (once, when
 * it starts, with when the budget refills) and each answer of the service (its status, 429s
 * included). Give an {@link ActionObserver} as `observe` in the action system's options.
 * Queue depth and budget left are read, not reported: `system.queue.size`, `layer.status()`.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { Action, ActionKind, Outcome, READ_KIND } from "./action.ts";

export type ActionEvent =
  /** An action ended (reads are not outcomes: their failures throw); `action.createdAt` is when it was asked for. */
  | { type: "outcome"; bot: string; kind: ActionKind; endpoint: EndpointKey; action: Action; outcome: Outcome }
  /** Work of `bot` started waiting for budget: the first of a wait, not every wake. */
  | { type: "waiting"; bot: string; endpoint: EndpointKey; label: string; readyAt: number; reason: string }
  /** The service answered a request (`status` 0: no answer), after `waitedMs` in the queue. */
  | {
      type: "response";
      bot: string;
      endpoint: EndpointKey;
      kind: ActionKind | typeof READ_KIND;
      status: number;
      waitedMs: number;
    };

/** Receives {@link ActionEvent}s. It must not throw (an error is logged and ignored). */
export type ActionObserver = (event: ActionEvent) => void;

/** An observer that calls `observer` and logs, rather than throws, what it throws. */
export function safeObserver(
  observer: ActionObserver | undefined,
  log: { error(o: object, m: string): void },
): ActionObserver {
  if (!observer) return () => {};
  return (event) => {
    try {
      observer(event);
    } catch (err) {
      log.error({ err, event: event.type }, "the action observer threw; ignored");
    }
  };
}
