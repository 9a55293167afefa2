/**
 * The apps' streams of a process that shares its state in Redis with others (`bot start
 * --state redis://`, the runtime in `hosting: "claimed"` mode): what ./runtime.ts's
 * `startApps` does for one process, spread over many (see ../redis/shared-streams.ts).
 *
 * - The process holding an app's stream lease runs its hub, with the rules and mention
 *   rules of every bot of the app, budgeted through a bot of the app it runs.
 * - Each post reaches the process running its bot through the handoff and is acknowledged
 *   once the bot has handled it (`deliverHandled`, `acceptMentionsHandled`).
 * - When the hub connects, every process polls the mentions of its streamed bots once to
 *   close the gap (a few at a time, through the shared budget), as a single process does
 *   after each reconnect; a bot taken over is polled once when it starts here.
 * - Each app's status is published as this process's part (its bots, its catch-up polls, and
 *   the stream when it holds it) for `bot status` to merge (../redis/app-status.ts).
 */
import type { ActionLayer } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import { forgetStoredBearer, storedBearer } from "../credentials/bearer.ts";
import type { Logger } from "../log.ts";
import { STREAM_RULE_CAPS } from "../limits/stream-rules.ts";
import { publishAppParts, withdrawAppParts } from "../redis/app-status.ts";
import type { SharedRedis } from "../redis/shared-state.ts";
import { CatchUpQueue } from "../triggers/catch-up.ts";
import { SharedStreams } from "../redis/shared-streams.ts";
import { startStreamHub, type Budgeted } from "../triggers/stream-hub.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus } from "../runtime/types.ts";
import type { HostedBot, RuntimeOptions } from "./types.ts";

export interface SharedApps {
  /** A bot started running here (after `bot.start()`). */
  host(hosted: HostedBot, bot: BotRuntime): Promise<void>;
  /** A bot stopped running here. */
  unhost(name: string): void;
  /** Whether the app's hub (when held here) delivered this post. */
  streamed(appId: string, postId: string): boolean;
  /** What moves without the clock (hubs syncing or recovering, handoff reads and entries being handled). */
  busy(): string[];
  /** This process's part of the status of each app it runs bots of (the stream only where it holds it). */
  apps(): AppStatus[];
  /** Publishes {@link apps} for `bot status`, each part kept `ttlMs` unless published again. */
  saveStatus(ttlMs: number): Promise<void>;
  /** Stops the streams and withdraws the published parts. */
  close(): Promise<void>;
}

export function startSharedApps(p: {
  options: RuntimeOptions;
  shared: SharedRedis;
  bots: ReadonlyMap<string, BotRuntime>;
  layers: ReadonlyMap<string, ActionLayer>;
  base: ApiClient;
  logger: Logger;
  mentionsVia(hosted: HostedBot): "poll" | "stream";
  /** The capacity lines of an app, for all its bots (the same bot files in every process). */
  capacity(appId: string): string[];
}): SharedApps {
  const { options, shared, bots, layers, base, logger } = p;
  const { store, clock } = options;
  const byName = new Map(options.bots.map((h) => [h.config.name, h]));
  const appOf = new Map(options.bots.map((h) => [h.config.name, h.app.id]));
  const streamedMentions = (name: string) => {
    const hosted = byName.get(name);
    return !!hosted?.config.triggers.mentions && p.mentionsVia(hosted) === "stream";
  };
  const queues = new Map<string, CatchUpQueue>();
  const queueOf = (appId: string) => {
    let queue = queues.get(appId);
    if (!queue) {
      queue = new CatchUpQueue({
        poll: (bot, signal) => bots.get(bot)?.catchUpMentions(signal) ?? Promise.resolve(),
        onError: (bot, err) =>
          logger
            .child({ bot })
            .warn(
              { err, trigger: "mentions" },
              `mentions catch-up poll failed: ${(err as Error)?.message ?? String(err)}; the next reconnect tries again`,
            ),
      });
      queues.set(appId, queue);
    }
    return queue;
  };
  const streamedHere = (appId: string) =>
    [...bots.keys()].filter((name) => appOf.get(name) === appId && streamedMentions(name));

  const streams = new SharedStreams({
    redis: shared.redis,
    leases: shared.leases,
    owner: shared.owner,
    clock: shared.clock ?? clock,
    ...(shared.ttlMs ? { ttlMs: shared.ttlMs } : {}),
    ...(shared.everyMs ? { everyMs: shared.everyMs } : {}),
    ...(shared.leaseOf ? { leaseOf: shared.leaseOf } : {}),
    log: logger.child({ trigger: "stream" }),
    appOf,
    prefix: shared.leases.prefix,
    startHub: (request) => {
      const app = options.bots.find((h) => h.app.id === request.appId)!.app;
      const consumer = { key: app.key, secret: app.secret };
      const log = logger.child({ app: request.appId, trigger: "stream" });
      // Rules and gap searches count against the app's windows, through any bot of the app running here.
      const budgeted: Budgeted = async (endpoint, run) => {
        const layer = [...layers].find(([name]) => appOf.get(name) === request.appId)?.[1];
        if (!layer) return (await run(new AbortController().signal)).result;
        return await layer.read(endpoint, run, { label: "stream" });
      };
      return startStreamHub({
        appId: request.appId,
        clock,
        log,
        client: async () =>
          base.withAuth({
            consumer,
            bearer: await storedBearer(store, options.baseUrl, consumer, clock),
            appLabel: request.appId,
          }),
        forgetBearer: () => forgetStoredBearer(store, options.baseUrl, app.key),
        caps: STREAM_RULE_CAPS[app.plan] ?? { maxRules: 0, maxRuleLength: 0 },
        wants: request.wants,
        mentionBots: request.mentionBots,
        budgeted,
        deliver: request.deliver,
        deliverMentions: request.deliverMentions,
        onConnected: request.onConnected,
        onInterrupted: request.onInterrupted,
        onOverflow: (overflow) =>
          log.error(
            { bots: overflow.length },
            `the app's rule cap leaves ${overflow.length} bots without a mention rule; with the state in Redis they are not polled instead: give them an app of their own`,
          ),
        onStatus: (s) => {
          if (s.state !== "connected" && s.state !== "reconnecting") return;
          const error = s.state === "reconnecting" ? s.lastError : undefined;
          options.observer?.stream({
            app: request.appId,
            type: s.state,
            ...(error ? { cause: error.cause, error: error.message } : {}),
            at: clock.now(),
          });
        },
      });
    },
    handle: (name, entry) => {
      const bot = bots.get(name);
      // Not running here (any more): left unacknowledged for the process that runs it.
      if (!bot) return new Promise<void>(() => {});
      return entry.kind === "post" ? bot.deliverHandled(entry.events) : bot.acceptMentionsHandled(entry.events);
    },
    onControl: (appId, what) => {
      const names = streamedHere(appId);
      for (const name of names) {
        bots.get(name)?.mentionsStream(what === "connected");
        bots.get(name)?.touch("mentions");
      }
      if (what === "connected") queueOf(appId).request(names);
    },
  });
  streams.start();

  const capacity = new Map<string, string[]>();
  const published = new Set<string>();
  let closed = false;
  const apps = (): AppStatus[] => {
    const here = new Map<string, { plan: HostedBot["app"]["plan"]; bots: number }>();
    for (const name of bots.keys()) {
      const app = byName.get(name)?.app;
      if (!app) continue;
      const seen = here.get(app.id);
      if (seen) seen.bots++;
      else here.set(app.id, { plan: app.plan, bots: 1 });
    }
    return [...here].map(([appId, { plan, bots: count }]) => {
      if (!capacity.has(appId)) capacity.set(appId, p.capacity(appId));
      const stream = streams.status(appId);
      const queue = queues.get(appId);
      return {
        appId,
        plan,
        bots: count,
        capacity: capacity.get(appId)!,
        ...(stream ? { stream } : {}),
        ...(queue ? { catchUp: { ...queue.pending(), done: queue.done } } : {}),
        updatedAt: clock.now(),
      };
    });
  };

  return {
    async host(hosted, bot) {
      const name = hosted.config.name;
      const state = await streams.host(name, {
        userId: bot.identity.userId,
        username: bot.identity.username,
        rules: hosted.config.triggers.stream,
        mentions: streamedMentions(name),
      });
      if (!streamedMentions(name)) return;
      bot.mentionsStream(state === "connected");
      queueOf(hosted.app.id).request([name]);
    },
    unhost: (name) => streams.unhost(name),
    streamed: (appId, postId) => streams.has(appId, postId),
    // Catch-up polls are the bots' own (BotRuntime.quiet counts them).
    busy: () => streams.busy(),
    apps,
    async saveStatus(ttlMs) {
      if (closed) return;
      const parts = apps();
      for (const part of parts) published.add(part.appId);
      await publishAppParts(shared.redis, shared.leases.prefix, shared.owner, parts, ttlMs);
    },
    async close() {
      closed = true;
      for (const queue of queues.values()) queue.close();
      await streams.close();
      // Not while Redis is away (the command would wait for it): the parts then expire by themselves.
      if (shared.redis.status === "ready")
        await withdrawAppParts(shared.redis, shared.leases.prefix, shared.owner, [...published]).catch(() => undefined);
    },
  };
}
