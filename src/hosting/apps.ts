/**
 * The apps of a process that runs its bots alone: per app, the capacity lines (logged once
 * at start), the one stream connection (when a bot has rules, or takes its mentions through
 * it) and the catch-up polls of streamed mentions. With the state in Redis, the same is
 * spread over the processes by ./shared-apps.ts.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Logger } from "../log.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus } from "../runtime/types.ts";
import type { CatchUpQueue } from "../triggers/catch-up.ts";
import {
  startStreamHub,
  type BotRules,
  type Budgeted,
  type StreamHub,
  type StreamHubOptions,
} from "../triggers/stream-hub.ts";
import { appConnection, catchUpQueue, reportStream } from "./app-hub.ts";
import { appLoad, capacityLines } from "./capacity.ts";
import { mentionsVia } from "./trigger-plan.ts";
import type { HostedBot, RuntimeOptions } from "./types.ts";

/** The apps of a process: their hubs (tests and `idle` look at them), catch-up queues and status. */
export interface Apps {
  hubs: Map<string, StreamHub>;
  queues: Map<string, CatchUpQueue>;
  apps(): AppStatus[];
}

/** What the apps are started with. */
interface AppDeps {
  options: RuntimeOptions;
  bots: ReadonlyMap<string, BotRuntime>;
  layers: ReadonlyMap<string, ActionLayer>;
  base: ApiClient;
  logger: Logger;
}

/** Starts every app of the bots running here; see the module comment. */
export function startApps(deps: AppDeps): Apps {
  const byApp = new Map<string, HostedBot[]>();
  for (const hosted of deps.options.bots) {
    if (!deps.bots.has(hosted.config.name)) continue;
    const list = byApp.get(hosted.app.id);
    if (list) list.push(hosted);
    else byApp.set(hosted.app.id, [hosted]);
  }
  const hubs = new Map<string, StreamHub>();
  const queues = new Map<string, CatchUpQueue>();
  const capacity = new Map<string, string[]>();
  for (const [appId, hosted] of byApp) {
    const app = hosted[0]!.app;
    const log = deps.logger.child({ app: appId });
    const lines = capacityLines(appLoad(hosted));
    capacity.set(appId, lines);
    for (const line of lines) log.info({ capacity: true, plan: app.plan }, line);
    const started = startAppStream(appId, hosted, deps, log);
    if (!started) continue;
    queues.set(appId, started.queue);
    hubs.set(appId, started.hub);
  }
  const apps = (): AppStatus[] =>
    [...byApp].map(([appId, hosted]) => {
      const hub = hubs.get(appId);
      const queue = queues.get(appId);
      return {
        appId,
        plan: hosted[0]!.app.plan,
        bots: hosted.length,
        capacity: capacity.get(appId) ?? [],
        ...(hub ? { stream: hub.status() } : {}),
        ...(queue ? { catchUp: { ...queue.pending(), done: queue.done } } : {}),
        updatedAt: deps.options.clock.now(),
      };
    });
  return { hubs, queues, apps };
}

/**
 * An app's stream connection, when a bot of it has rules or takes its mentions through it:
 * its requests budgeted through a bot of the app, its posts delivered to the bots, and one
 * catch-up poll per streamed bot once connected (or at once, if the first attempt fails) and
 * after every reconnect.
 */
function startAppStream(
  appId: string,
  hosted: readonly HostedBot[],
  deps: AppDeps,
  log: Logger,
): { hub: StreamHub; queue: CatchUpQueue } | undefined {
  const { options, bots } = deps;
  const streamed = hosted.filter((h) => mentionsVia(h) === "stream");
  const ruled = hosted.filter((h) => h.config.triggers.stream.length > 0);
  if (streamed.length === 0 && ruled.length === 0) return undefined;

  const layer = deps.layers.get(hosted[0]!.config.name)!;
  // While a request of the hub is with the action layer, the layer's own accounting says
  // whether it waits for the clock; the hub counts as busy only outside them.
  let inLayer = 0;
  const budgeted: Budgeted = async (endpoint, run) => {
    inLayer++;
    try {
      return await layer.read(endpoint, run, { label: "stream" });
    } finally {
      inLayer--;
    }
  };
  const queue = catchUpQueue(bots, deps.logger);
  const streamedNames = streamed.map((h) => h.config.name);
  // One poll each closes what came while the process was down: once connected (so that
  // streamed posts and the poll's meet), or at once if the first attempt fails.
  let polledOnce = false;
  const touchAll = () => {
    for (const h of [...ruled, ...streamed]) {
      const bot = bots.get(h.config.name);
      if (h.config.triggers.stream.length > 0) bot?.touch("stream");
      if (mentionsVia(h) === "stream") bot?.touch("mentions");
    }
  };
  const report = reportStream(options.observer, appId, options.clock);
  const hub = startStreamHub({
    appId,
    clock: options.clock,
    log: log.child({ trigger: "stream" }),
    ...appConnection(hosted[0]!.app, {
      store: options.store,
      baseUrl: options.baseUrl,
      clock: options.clock,
      base: deps.base,
    }),
    ...hubWants(ruled, streamed, bots),
    budgeted,
    deliver: (bot, event) => bots.get(bot)?.deliver([event]),
    deliverMentions: (bot, events) => bots.get(bot)?.acceptMentions(events),
    onConnected: () => {
      for (const name of streamedNames) bots.get(name)?.mentionsStream(true);
      polledOnce = true;
      queue.request(streamedNames);
      touchAll();
    },
    onInterrupted: () => {
      for (const name of streamedNames) bots.get(name)?.mentionsStream(false);
    },
    onOverflow: (overflow) => {
      for (const name of overflow) bots.get(name)?.pollMentionsInstead();
    },
    onStatus: (s) => {
      if (s.state === "connected" || s.state === "reconnecting") touchAll();
      report(s);
      if (s.state === "reconnecting" && !polledOnce) {
        polledOnce = true;
        queue.request(streamedNames);
      }
    },
  });
  return { hub: { ...hub, busy: () => inLayer === 0 && hub.busy() }, queue };
}

/** What the bots want of their app's stream: their own rules, and their mentions. */
function hubWants(
  ruled: readonly HostedBot[],
  streamed: readonly HostedBot[],
  bots: ReadonlyMap<string, BotRuntime>,
): Pick<StreamHubOptions, "wants" | "mentionBots"> {
  return {
    wants: ruled.map(
      (h): BotRules => ({
        bot: h.config.name,
        userId: bots.get(h.config.name)!.identity.userId,
        rules: h.config.triggers.stream,
      }),
    ),
    mentionBots: streamed.map((h) => {
      const identity = bots.get(h.config.name)!.identity;
      return { bot: h.config.name, userId: identity.userId, username: identity.username };
    }),
  };
}
