/**
 * What an app's stream hub and its catch-up polls are made with, whether the process runs the
 * app alone (./apps.ts) or shares it with others through Redis (./shared-apps.ts): the app's
 * bearer token kept in the state store, the plan's rule caps, the observer told of every
 * (re)connection, and the queue of the bots' catch-up mention polls.
 */
import type { ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import { forgetStoredBearer, storedBearer } from "../credentials/bearer.ts";
import { limitsFor } from "../limits/plan-limits.ts";
import { STREAM_RULE_CAPS } from "../limits/stream-rules.ts";
import { WINDOW_MS } from "../limits/types.ts";
import type { Logger } from "../log.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { Store } from "../store/store.ts";
import { CatchUpQueue } from "../triggers/catch-up.ts";
import type { StreamHubOptions } from "../triggers/stream/options.ts";
import type { StreamStatus } from "../triggers/stream/status.ts";
import type { RuntimeObserver } from "./observer.ts";
import type { AppCredentials } from "./types.ts";

/**
 * The app-only connection of a hub: a client with the app's stored bearer token, the plan's
 * rule caps, and its window of rule writes (the hub paces its updates within it).
 */
export function appConnection(
  app: AppCredentials,
  deps: { store: Store; baseUrl: string; clock: Clock; base: ApiClient },
): Pick<StreamHubOptions, "client" | "forgetBearer" | "caps" | "ruleWrites"> {
  const { store, baseUrl, clock, base } = deps;
  const consumer = { key: app.key, secret: app.secret };
  return {
    client: async () =>
      base.withAuth({ consumer, bearer: await storedBearer(store, baseUrl, consumer, clock), appLabel: app.id }),
    forgetBearer: () => forgetStoredBearer(store, baseUrl, app.key),
    caps: STREAM_RULE_CAPS[app.plan] ?? { maxRules: 0, maxRuleLength: 0 },
    ...ruleWritesOf(app.plan),
  };
}

/** The plan's window of rule writes (the app's, the tightest), if it has one. */
function ruleWritesOf(plan: AppCredentials["plan"]): Pick<StreamHubOptions, "ruleWrites"> {
  const limits = limitsFor("POST /2/posts/search/stream/rules", plan);
  if (limits === "unavailable") return {};
  const windows = limits.filter((l) => l.scope === "app").map((l) => ({ max: l.max, windowMs: WINDOW_MS[l.per] }));
  const tightest = windows.sort((a, b) => a.max / a.windowMs - b.max / b.windowMs)[0];
  return tightest ? { ruleWrites: tightest } : {};
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
