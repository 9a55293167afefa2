/**
 * What an app's stream hub and its catch-up polls are made with, whether the process runs the
 * app alone (./apps.ts) or shares it with others through Redis (./shared-apps.ts): the app's
 * bearer token kept in the state store, the plan's rule caps, the observer told of every
 * (re)connection, and the queue of the bots' catch-up mention polls.
 */
import type { ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import { forgetStoredBearer, storedBearer } from "../credentials/bearer.ts";
import { STREAM_RULE_CAPS } from "../limits/stream-rules.ts";
import type { Logger } from "../log.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { Store } from "../store/store.ts";
import { CatchUpQueue } from "../triggers/catch-up.ts";
import type { StreamHubOptions } from "../triggers/stream/options.ts";
import type { StreamStatus } from "../triggers/stream/status.ts";
import type { RuntimeObserver } from "./observer.ts";
import type { AppCredentials } from "./types.ts";

/** The app-only connection of a hub: a client with the app's stored bearer token, and the plan's rule caps. */
export function appConnection(
  app: AppCredentials,
  deps: { store: Store; baseUrl: string; clock: Clock; base: ApiClient },
): Pick<StreamHubOptions, "client" | "forgetBearer" | "caps"> {
  const { store, baseUrl, clock, base } = deps;
  const consumer = { key: app.key, secret: app.secret };
  return {
    client: async () =>
      base.withAuth({ consumer, bearer: await storedBearer(store, baseUrl, consumer, clock), appLabel: app.id }),
    forgetBearer: () => forgetStoredBearer(store, baseUrl, app.key),
    caps: STREAM_RULE_CAPS[app.plan] ?? { maxRules: 0, maxRuleLength: 0 },
  };
}

/** Tells the observer (`bot start --http`) of each connection and reconnection of an app's stream. */
export function reportStream(
  observer: RuntimeObserver | undefined,
  appId: string,
  clock: Clock,
): (status: StreamStatus) => void {
  return (s) => {
    if (s.state !== "connected" && s.state !== "reconnecting") return;
    const error = s.state === "reconnecting" ? s.lastError : undefined;
    observer?.stream({
      app: appId,
      type: s.state,
      ...(error ? { cause: error.cause, error: error.message } : {}),
      at: clock.now(),
    });
  };
}

/** The catch-up mention polls of an app's bots (those running here), a failure logged with its bot. */
export function catchUpQueue(bots: ReadonlyMap<string, BotRuntime>, logger: Logger): CatchUpQueue {
  return new CatchUpQueue({
    poll: (bot, signal) => bots.get(bot)?.mentions.catchUp(signal) ?? Promise.resolve(),
    onError: (bot, err) =>
      logger
        .child({ bot })
        .warn(
          { err, trigger: "mentions" },
          `mentions catch-up poll failed: ${(err as Error)?.message ?? String(err)}; the next reconnect tries again`,
        ),
  });
}
