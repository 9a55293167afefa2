/**
 * The runtime: every bot of a process, sharing one action system (so the app-wide windows
 * are shared), one connection pool, one stream connection per app and one state store.
 *
 * One failing account (a revoked token: 401, code 89) is reported and paused; the other bots
 * go on. `stop()` stops the triggers, lets actions in flight finish within a bound, persists
 * everything, and resolves well within the 10 seconds a service manager waits.
 */
import { createActionSystem, type ActionLayer } from "../actions/index.ts";
import { clientExecutor, clientVerifiers } from "../actions/client.ts";
import { createClient, type ApiClient } from "../api/client.ts";
import { forgetStoredBearer, storedBearer } from "../credentials/bearer.ts";
import { fastestFollowersIntervalMs, fastestMentionIntervalMs, type BotConfig } from "../config/index.ts";
import { planHasStream } from "../config/plan-rules.ts";
import { RedisWindows } from "../redis/shared-windows.ts";
import type { Logger } from "../log.ts";
import { tapActions } from "./action-tap.ts";
import { CatchUpQueue } from "../triggers/catch-up.ts";
import { STREAM_RULE_CAPS } from "../limits/stream-rules.ts";
import { mergeRules, startStreamHub, type BotRules, type Budgeted, type StreamHub } from "../triggers/stream-hub.ts";
import { BotRuntime } from "../runtime/bot.ts";
import { APP_STATUS_NAMESPACE, type AppStatus, type BotStatus } from "../runtime/types.ts";
import { capacityLines, type AppLoad } from "./capacity.ts";
import { TRIGGER_OF, type TriggerName } from "../triggers/events.ts";
import { resolveIdentity } from "./identity.ts";
import type { EventName } from "../plugins/plugin.ts";
import { accountRefused, refusedAccountReason } from "./service.ts";
import { startSharedApps } from "./shared-apps.ts";
import type { HostedBot, Runtime, RuntimeOptions } from "./types.ts";
import { timeSlicer } from "../time-slice.ts";

/** How a bot file asks for each trigger (for the warning when a plugin's events have none). */
const TRIGGER_YAML: Record<TriggerName, string> = {
  mentions: "triggers: { mentions: {} }",
  followers: "triggers: { followers: {} }",
  stream: 'triggers: { stream: [{ value: "..." }] }',
  schedule: 'triggers: { schedule: [{ name: ..., cron: "..." }] }',
};

const hasTrigger = (config: BotConfig, trigger: TriggerName) =>
  trigger === "mentions"
    ? !!config.triggers.mentions
    : trigger === "followers"
      ? !!config.triggers.followers
      : config.triggers[trigger].length > 0;

/** Starts every bot. Bots whose account the service refuses start paused. */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { store, clock, logger, observer } = options;
  const actions = createActionSystem({
    store,
    clock,
    logger,
    dryRun: options.dryRun ?? false,
    ...(observer ? { observe: tapActions(observer, clock) } : {}),
    ...(options.shared
      ? { sharedWindows: new RedisWindows(options.shared.redis, { prefix: `${options.shared.leases.prefix}budget:` }) }
      : {}),
  });
  const layers = new Map<string, ActionLayer>();
  // Budget corrections travel with each budgeted call's own answer (the executor returns its headers).
  const base = createClient({
    baseUrl: options.baseUrl,
    clock,
    logger,
    ...(observer
      ? {
          onResponse: (o) =>
            o.status >= 400 &&
            observer.serviceError({
              ...(o.identity.user ? { bot: o.identity.user } : {}),
              app: o.identity.app,
              endpoint: o.endpoint,
              status: o.status,
              at: o.at,
            }),
        }
      : {}),
  });
  const bots = new Map<string, BotRuntime>();
  const paused = new Map<string, BotStatus>();

  const pause = (name: string, err: unknown) => {
    const config = options.bots.find((b) => b.config.name === name)?.config;
    if (!config) return;
    const reason = refusedAccountReason(config, err);
    const bot = bots.get(name);
    if (bot?.paused) return;
    bot?.pause(reason);
    logger.error({ bot: name }, `bot ${name} is paused: ${reason}; the other bots go on`);
    options.observer?.paused({ bot: name, reason, at: clock.now() });
  };

  // How many bots of each app poll each endpoint (they share its A window).
  const pollers = new Map<string, number>();
  for (const b of options.bots) {
    if (hasTrigger(b.config, "mentions") && mentionsVia(b) === "poll")
      pollers.set(`mentions ${b.app.id}`, (pollers.get(`mentions ${b.app.id}`) ?? 0) + 1);
    if (hasTrigger(b.config, "followers"))
      pollers.set(`followers ${b.app.id}`, (pollers.get(`followers ${b.app.id}`) ?? 0) + 1);
  }
  const countOnApp = (appId: string, trigger: "mentions" | "followers") => pollers.get(`${trigger} ${appId}`) ?? 0;

  /** Makes and starts one bot (its identity known), or records it paused when its account is refused. */
  const hostBot = async (
    hosted: HostedBot,
    client: ApiClient,
    resolved: { identity: Awaited<ReturnType<typeof resolveIdentity>> } | { error: unknown },
  ) => {
    const { config, app } = hosted;
    const log = logger.child({ bot: config.name });
    let identity;
    if ("identity" in resolved) identity = resolved.identity;
    else {
      const err = resolved.error;
      if (!accountRefused(err)) throw err;
      const reason = refusedAccountReason(config, err);
      logger.error({ bot: config.name }, `bot ${config.name} is paused: ${reason}; the other bots go on`);
      paused.set(config.name, {
        bot: config.name,
        appId: app.id,
        userId: "",
        username: "",
        plan: app.plan,
        paused: { reason, at: clock.now() },
        triggers: {},
        inbox: 0,
        updatedAt: clock.now(),
      });
      return undefined;
    }
    const layer = actions.bot({
      bot: config.name,
      account: { appId: app.id, userId: identity.userId, plan: app.plan },
      executor: clientExecutor(client),
      verifiers: clientVerifiers(client, identity.userId),
      budget: config.budget,
      replyToBots: config.reply_to_bots,
      replyCooldownMs: config.reply_cooldown,
      ...(app.enrolmentDay ? { enrolmentDay: app.enrolmentDay } : {}),
      onRevoked: (err) => pause(config.name, err),
    });
    const mentionsEvery = Math.max(
      config.triggers.mentions?.interval ?? 0,
      fastestMentionIntervalMs(app.plan, countOnApp(app.id, "mentions")),
    );
    const followersEvery = Math.max(
      config.triggers.followers?.interval ?? 0,
      fastestFollowersIntervalMs(app.plan, countOnApp(app.id, "followers")),
    );
    const bot = new BotRuntime({
      config,
      appId: app.id,
      ...(app.enrolmentDay ? { enrolmentDay: app.enrolmentDay } : {}),
      identity,
      api: client,
      layer,
      store,
      clock,
      log,
      handlerTimeoutMs: options.handlerTimeoutMs ?? 30_000,
      mentionsIntervalMs: mentionsEvery,
      mentionsVia: claimed && !options.shared ? "poll" : mentionsVia(hosted),
      followersIntervalMs: followersEvery,
      ...(observer ? { onHandled: (kind) => observer.event({ bot: config.name, kind, at: clock.now() }) } : {}),
    });
    await bot.setup();
    for (const [event, trigger] of Object.entries(TRIGGER_OF) as Array<[EventName, TriggerName]>) {
      if (bot.handles(event) && !hasTrigger(config, trigger)) {
        log.warn(
          `a plugin handles "${event}" events but the bot has no ${trigger} trigger, so none will come; add ${TRIGGER_YAML[trigger]} to ${config.file}`,
        );
      }
    }
    layers.set(config.name, layer);
    bots.set(config.name, bot);
    return { bot, layer };
  };
  /** Actions an earlier run left unfinished: verified with the service, then sent or settled. */
  const recover = (name: string, layer: ActionLayer) =>
    void layer
      .recover()
      .catch((err: unknown) => logger.error({ bot: name, err }, "could not resume unfinished actions"));

  // Who each account is: known with the account (stored by `bot auth login`, or provisioned),
  // else asked a few at a time (a first start of thousands of bots with tokens in their files
  // asks each once; later starts find them in the state store).
  const clients = options.bots.map((hosted) =>
    base.withAuth({
      consumer: { key: hosted.app.key, secret: hosted.app.secret },
      user: hosted.token,
      label: hosted.config.name,
      appLabel: hosted.app.id,
    }),
  );
  const claimed = options.hosting === "claimed";
  if (claimed && !options.shared) {
    const streaming = options.bots
      .filter((h) => h.config.triggers.stream.length > 0 || mentionsVia(h) === "stream")
      .map((h) => h.config.name);
    if (streaming.length > 0)
      logger.warn(
        { bots: streaming },
        `state in Redis: the app streams are not connected in this mode yet; mentions are polled and stream rules deliver nothing (${streaming.join(", ")})`,
      );
  }
  const identities = claimed
    ? []
    : await mapConcurrently(options.bots, IDENTITY_CONCURRENCY, (hosted, i) =>
        resolveIdentity({
          store,
          client: clients[i]!,
          bot: hosted.config.name,
          plan: hosted.app.plan,
          token: hosted.token.token,
          ...(hosted.user ? { known: hosted.user } : {}),
        }).then(
          (identity) => ({ identity }),
          (error: unknown) => ({ error }),
        ),
      );
  for (const [i, hosted] of claimed ? [] : options.bots.entries()) await hostBot(hosted, clients[i]!, identities[i]!);

  for (const [name, layer] of layers) recover(name, layer);
  for (const bot of bots.values()) bot.start();

  const hosting = startApps(claimed ? { ...options, bots: [] } : options, bots, layers, base, logger);
  const { hubs, queues } = hosting;
  const sharedApps =
    claimed && options.shared
      ? startSharedApps({
          options,
          shared: options.shared,
          bots,
          layers,
          base,
          logger,
          mentionsVia,
          capacity: (appId) => capacityLines(appLoad(options.bots.filter((h) => h.app.id === appId))),
        })
      : undefined;

  const snapshot = (): BotStatus[] => [...[...bots.values()].map((b) => b.status()), ...paused.values()];
  // A bot's status is saved when it changed; an unchanged one only every STATUS_REFRESH_ROUNDS
  // rounds (its `updatedAt` says the process still runs), in turns: 10,000 idle bots made a
  // ~3 MB journal line every 15 s otherwise.
  const savedStatus = new Map<string, string>();
  let round = 0;
  const saveStatus = async (stoppedAt?: number) => {
    let i = 0;
    const slice = timeSlicer();
    for (const name of [...bots.keys(), ...paused.keys()]) {
      // Live events first: the statuses of 10,000 bots took most of a second to gather, and
      // held every mention that came meanwhile (the reply latency's tail, every 15 s).
      if (i % STATUS_CHECK_EVERY === 0 && slice.due()) await slice.next();
      const turn = i++ % STATUS_REFRESH_ROUNDS === round % STATUS_REFRESH_ROUNDS;
      // Read by name when its turn comes: a bot stopped here meanwhile (unhosted) has none.
      const s = bots.get(name)?.status() ?? paused.get(name);
      if (!s) continue;
      const { updatedAt: _, ...what } = s;
      const fingerprint = JSON.stringify(what);
      if (stoppedAt === undefined && !turn && savedStatus.get(s.bot) === fingerprint) continue;
      savedStatus.set(s.bot, fingerprint);
      // Adopted, not copied: status() makes a fresh object each time (its parts copies, or the
      // bot file's budget policy), a paused bot's is made once, and nothing changes either later.
      const saved = stoppedAt ? { ...s, stoppedAt } : s;
      if (store.adopt) store.adopt("status", s.bot, saved);
      else store.set("status", s.bot, saved);
    }
    round++;
    for (const a of hosting.apps()) store.set(APP_STATUS_NAMESPACE, a.appId, a);
    await Promise.all([store.flush(), sharedApps?.saveStatus(3 * (options.statusEveryMs ?? STATUS_EVERY_MS))]);
  };
  let stopped = false;
  const stopSignal = new AbortController();
  const statusLoop = (async () => {
    const every = options.statusEveryMs ?? STATUS_EVERY_MS;
    while (!stopped) {
      await saveStatus().catch((err: unknown) => logger.error({ err }, "could not save the bots' status"));
      await clock.sleep(every, stopSignal.signal).catch(() => undefined);
    }
  })();

  return {
    bots,
    actions,
    status: snapshot,
    apps: () => [...hosting.apps(), ...(sharedApps?.apps() ?? [])],
    streamed: (appId, postId) =>
      (hubs.get(appId)?.has(postId) ?? false) || (sharedApps?.streamed(appId, postId) ?? false),
    async idle(timeoutMs = 10_000) {
      // Real time on purpose: this guards a test against waiting forever, whatever its clock.
      const deadline = Date.now() + timeoutMs;
      for (let calm = 0; calm < 3; ) {
        await new Promise((r) => setTimeout(r, calm === 0 ? 0 : 1));
        const later = actions.queue.list().filter((w) => w.readyAt > clock.now()).length;
        const busyBots = [...bots.values()].filter((b) => !b.quiet()).map((b) => b.name);
        for (const [appId, hub] of hubs) if (hub.busy()) busyBots.push(`the stream of app ${appId}`);
        busyBots.push(...(sharedApps?.busy() ?? []));
        calm = actions.inFlight() === later && busyBots.length === 0 ? calm + 1 : 0;
        if (calm === 0 && Date.now() > deadline) {
          throw new Error(
            `the runtime did not settle: ${actions.inFlight()} actions in flight (${later} waiting for the clock), busy bots: ${busyBots.join(", ") || "none"}`,
          );
        }
      }
    },
    async host(name) {
      const i = options.bots.findIndex((h) => h.config.name === name);
      if (i < 0) throw new Error(`no bot ${name} in this runtime`);
      if (bots.has(name) || stopped) return;
      const hosted = options.bots[i]!;
      paused.delete(name);
      const resolved = await resolveIdentity({
        store,
        client: clients[i]!,
        bot: name,
        plan: hosted.app.plan,
        token: hosted.token.token,
        ...(hosted.user ? { known: hosted.user } : {}),
      }).then(
        (identity) => ({ identity }),
        (error: unknown) => ({ error }),
      );
      const made = await hostBot(hosted, clients[i]!, resolved);
      if (!made) return;
      recover(name, made.layer);
      made.bot.start();
      await sharedApps?.host(hosted, made.bot);
    },
    async unhost(name, why) {
      paused.delete(name);
      sharedApps?.unhost(name);
      const bot = bots.get(name);
      if (!bot) return;
      bots.delete(name);
      layers.delete(name);
      bot.stopTriggers();
      await bot.drain(options.drainMs ?? 4_000);
      if (why === "released") store.set("status", name, { ...bot.status(), stoppedAt: clock.now() });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopSignal.abort();
      const drainMs = options.drainMs ?? 4_000;
      for (const hub of hubs.values()) hub.close();
      for (const queue of queues.values()) queue.close();
      await sharedApps?.close();
      for (const bot of bots.values()) bot.stopTriggers();
      // Actions still waiting for the budget end now as deferred (the ledger keeps them for
      // the next start), so handlers awaiting them finish; requests in flight complete.
      actions.close();
      await Promise.all([...bots.values()].map((b) => b.drain(drainMs)));
      const cancel = new AbortController();
      await Promise.race([actions.idle(), clock.sleep(drainMs, cancel.signal).catch(() => undefined)]);
      cancel.abort();
      await statusLoop;
      await saveStatus(clock.now());
      await base.close();
    },
  };
}

/** How often the bots' and apps' status is saved (default of `statusEveryMs`). */
const STATUS_EVERY_MS = 15_000;

/** Bots whose status is gathered between two looks at the time slice (time-slice.ts). */
const STATUS_CHECK_EVERY = 16;

/** An unchanged bot's status is saved again once in this many status rounds (15 s each by default). */
const STATUS_REFRESH_ROUNDS = 8;

/** How many accounts' identities are asked for at once at start. */
const IDENTITY_CONCURRENCY = 16;

/** `fn` over every item, at most `limit` at a time; results in the items' order. */
async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Whether a bot's mentions come through its app's stream (the plan has one, and the bot did not ask to poll). */
function mentionsVia(hosted: HostedBot): "poll" | "stream" {
  const mentions = hosted.config.triggers.mentions;
  return mentions && mentions.via !== "poll" && planHasStream(hosted.app.plan) ? "stream" : "poll";
}

/** What the bots of one app (`hosted`, all of the same app) ask of it: their triggers, the stream rules. */
function appLoad(hosted: readonly HostedBot[]): AppLoad {
  const app = hosted[0]!.app;
  const ruled = hosted.filter((h) => h.config.triggers.stream.length > 0);
  const caps = STREAM_RULE_CAPS[app.plan];
  return {
    appId: app.id,
    plan: app.plan,
    mentionsPolled: hosted.filter((h) => h.config.triggers.mentions && mentionsVia(h) === "poll").length,
    mentionsStreamed: hosted.filter((h) => mentionsVia(h) === "stream").length,
    followers: hosted.filter((h) => h.config.triggers.followers).length,
    streamBots: ruled.length,
    streamRules: mergeRules(ruled.map((h) => ({ bot: h.config.name, userId: "", rules: h.config.triggers.stream })))
      .size,
    ...(caps ? { ruleCap: caps.maxRules } : {}),
  };
}

/**
 * Per app: the capacity lines (logged once at start), the stream connection (when a bot has
 * rules, or takes its mentions through it) and the catch-up polls of streamed mentions.
 */
function startApps(
  options: RuntimeOptions,
  bots: Map<string, BotRuntime>,
  layers: Map<string, ActionLayer>,
  base: ApiClient,
  logger: Logger,
) {
  const byApp = new Map<string, HostedBot[]>();
  for (const hosted of options.bots) {
    if (!bots.has(hosted.config.name)) continue;
    const list = byApp.get(hosted.app.id);
    if (list) list.push(hosted);
    else byApp.set(hosted.app.id, [hosted]);
  }
  const hubs = new Map<string, StreamHub>();
  const queues = new Map<string, CatchUpQueue>();
  const loads = new Map<string, AppLoad>();
  const capacity = new Map<string, string[]>();
  for (const [appId, hosted] of byApp) {
    const app = hosted[0]!.app;
    const log = logger.child({ app: appId });
    const streamed = hosted.filter((h) => mentionsVia(h) === "stream");
    const ruled = hosted.filter((h) => h.config.triggers.stream.length > 0);
    const caps = STREAM_RULE_CAPS[app.plan];
    const load = appLoad(hosted);
    loads.set(appId, load);
    const lines = capacityLines(load);
    capacity.set(appId, lines);
    for (const line of lines) log.info({ capacity: true, plan: app.plan }, line);
    if (streamed.length === 0 && ruled.length === 0) continue;

    const layer = layers.get(hosted[0]!.config.name)!;
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
    const queue = new CatchUpQueue({
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
    const streamedNames = streamed.map((h) => h.config.name);
    // One poll each closes what came while the process was down: once connected (so that
    // streamed posts and the poll's meet), or at once if the first attempt fails.
    let polledOnce = false;
    const consumer = { key: app.key, secret: app.secret };
    const touchAll = () => {
      for (const h of [...ruled, ...streamed]) {
        const bot = bots.get(h.config.name);
        if (h.config.triggers.stream.length > 0) bot?.touch("stream");
        if (mentionsVia(h) === "stream") bot?.touch("mentions");
      }
    };
    const hub = startStreamHub({
      appId,
      clock: options.clock,
      log: log.child({ trigger: "stream" }),
      client: async () => {
        const bearer = await storedBearer(options.store, options.baseUrl, consumer, options.clock);
        return base.withAuth({ consumer, bearer, appLabel: appId });
      },
      forgetBearer: () => forgetStoredBearer(options.store, options.baseUrl, app.key),
      caps: caps ?? { maxRules: 0, maxRuleLength: 0 },
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
        if (s.state === "connected" || s.state === "reconnecting") {
          touchAll();
          const error = s.state === "reconnecting" ? s.lastError : undefined;
          options.observer?.stream({
            app: appId,
            type: s.state,
            ...(error ? { cause: error.cause, error: error.message } : {}),
            at: options.clock.now(),
          });
        }
        if (s.state === "reconnecting" && !polledOnce) {
          polledOnce = true;
          queue.request(streamedNames);
        }
      },
    });
    hubs.set(appId, { ...hub, busy: () => inLayer === 0 && hub.busy() });
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
        updatedAt: options.clock.now(),
      };
    });
  return { hubs, queues, apps };
}
