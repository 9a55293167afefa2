/**
 * The runtime: every bot of a process, sharing one action system (so the app-wide windows
 * are shared), one connection pool, one stream connection per app and one state store.
 *
 * One failing account (a revoked token: 401, code 89) is reported and paused; the other bots
 * go on. `stop()` stops the triggers, lets actions in flight finish within a bound, persists
 * everything, and resolves well within the 10 seconds a service manager waits.
 */
import { createActionSystem, type ActionLayer, type ActionSystem, type Executor } from "../actions/index.ts";
import { clientExecutor, clientVerifiers } from "../actions/client.ts";
import { createClient, type ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import { fastestFollowersIntervalMs, fastestMentionIntervalMs, type BotConfig } from "../config/index.ts";
import type { Plan } from "../limits/types.ts";
import type { Logger } from "../log.ts";
import { tapActions } from "../observe/action-tap.ts";
import type { RuntimeObserver } from "../observe/observer.ts";
import type { Store } from "../store/store.ts";
import { startStreamHub, type BotRules, type StreamHub } from "../triggers/stream-hub.ts";
import { BotRuntime, isRevoked, type BotStatus } from "./bot.ts";
import { TRIGGER_OF, type TriggerName } from "./events.ts";
import { hiddenGuard } from "./hidden.ts";
import { resolveIdentity } from "./identity.ts";
import type { EventName } from "./plugin.ts";

/** An app of the service: its keys and its plan (an app has one plan). */
export interface AppCredentials {
  /** A non-secret name for the app (logs, windows). */
  id: string;
  key: string;
  secret: string;
  plan: Plan;
  /** Day of the month the app enrolled (the monthly read cap resets then). */
  enrolmentDay?: number;
}

/** A bot ready to host: its file, its app and its account's OAuth 1.0a token. */
export interface HostedBot {
  config: BotConfig;
  app: AppCredentials;
  token: { token: string; secret: string };
}

export interface RuntimeOptions {
  baseUrl: string;
  bots: readonly HostedBot[];
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Log and count actions against a simulated budget; send nothing. */
  dryRun?: boolean;
  /** How long one handler may run (default 30 s; waiting for the budget does not count). */
  handlerTimeoutMs?: number;
  /** How long `stop()` lets handlers and actions in flight finish (default 4 s each). */
  drainMs?: number;
  /** How often the status of each bot is saved for `bot status` (default 15 s). */
  statusEveryMs?: number;
  /** Told of every action's outcome, event handled, error answer and stream change (`bot start --http`). */
  observer?: RuntimeObserver;
}

export interface Runtime {
  readonly bots: ReadonlyMap<string, BotRuntime>;
  readonly actions: ActionSystem;
  status(): BotStatus[];
  /**
   * Resolves when nothing can happen until the clock moves: every action in flight waits in
   * the budget queue for a later time, every handler running waits for such an action, every
   * poll in progress for its request. With a frozen clock, this is when a test can look at
   * the results. Rejects after `timeoutMs` of real time (default 10 s) naming what is busy.
   */
  idle(timeoutMs?: number): Promise<void>;
  /** Stops everything and persists; resolves when done. */
  stop(): Promise<void>;
}

/** How a bot file asks for each trigger (for the warning when a plugin's events have none). */
const TRIGGER_YAML: Record<TriggerName, string> = {
  mentions: "triggers: { mentions: {} }",
  followers: "triggers: { followers: {} }",
  stream: 'triggers: { stream: [{ value: "..." }] }',
  schedule: 'triggers: { schedule: [{ name: ..., cron: "..." }] }',
};

const hasTrigger = (config: BotConfig, trigger: TriggerName) =>
  trigger === "mentions" ? !!config.triggers.mentions : trigger === "followers" ? !!config.triggers.followers : config.triggers[trigger].length > 0;

/** Why a bot whose token the service refuses (401/89) is paused, and what to do about it. */
const revokedReason = (bot: string, err: unknown) =>
  `the service refused the account (${(err as Error)?.message ?? String(err)}); sign it in again (bot auth login --account ${bot}) and restart`;

/** Starts every bot. Bots whose account the service refuses start paused. */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { store, clock, logger, observer } = options;
  const actions = createActionSystem({ store, clock, logger, dryRun: options.dryRun ?? false });
  const layers = new Map<string, ActionLayer>();
  const appLayer = new Map<string, ActionLayer>();
  const base = createClient({
    baseUrl: options.baseUrl,
    clock,
    logger,
    onRateLimit: (o) => (o.identity.user ? layers.get(o.identity.user) : appLayer.get(o.identity.app))?.budget.observe(o.endpoint, o, o.status),
    ...(observer
      ? { onResponse: (o) => o.status >= 400 && observer.serviceError({ ...(o.identity.user ? { bot: o.identity.user } : {}), app: o.identity.app, endpoint: o.endpoint, status: o.status, at: o.at }) }
      : {}),
  });
  const bots = new Map<string, BotRuntime>();
  const paused = new Map<string, BotStatus>();

  const pause = (name: string, err: unknown) => {
    const reason = revokedReason(name, err);
    const bot = bots.get(name);
    if (bot?.paused) return;
    bot?.pause(reason);
    logger.error({ bot: name }, `bot ${name} is paused: ${reason}; the other bots go on`);
  };

  const countOnApp = (appId: string, trigger: "mentions" | "followers") => options.bots.filter((b) => b.app.id === appId && hasTrigger(b.config, trigger)).length;

  for (const hosted of options.bots) {
    const { config, app } = hosted;
    const log = logger.child({ bot: config.name });
    const client = base.withAuth({ consumer: { key: app.key, secret: app.secret }, user: hosted.token, label: config.name, appLabel: app.id });
    let identity;
    try {
      identity = await resolveIdentity({ store, client, bot: config.name, plan: app.plan, token: hosted.token.token });
    } catch (err) {
      if (!isRevoked(err)) throw err;
      const reason = revokedReason(config.name, err);
      logger.error({ bot: config.name }, `bot ${config.name} is paused: ${reason}; the other bots go on`);
      paused.set(config.name, { bot: config.name, appId: app.id, userId: "", username: "", plan: app.plan, paused: { reason, at: clock.now() }, triggers: {}, inbox: 0, updatedAt: clock.now() });
      continue;
    }
    const send = clientExecutor(client);
    const executor: Executor = async (action, signal) => {
      try {
        return await send(action, signal);
      } catch (err) {
        if (isRevoked(err)) pause(config.name, err);
        throw err;
      }
    };
    const layer = actions
      .bot({
        bot: config.name,
        account: { appId: app.id, userId: identity.userId, plan: app.plan },
        executor,
        verifiers: clientVerifiers(client, identity.userId),
        budget: config.budget,
        replyToBots: config.reply_to_bots,
        replyCooldownMs: config.reply_cooldown,
        ...(app.enrolmentDay ? { enrolmentDay: app.enrolmentDay } : {}),
      })
      .use(hiddenGuard(store, config.name));
    if (observer) layer.use(tapActions(observer, clock));
    layers.set(config.name, layer);
    if (!appLayer.has(app.id)) appLayer.set(app.id, layer);
    const mentionsEvery = Math.max(config.triggers.mentions?.interval ?? 0, fastestMentionIntervalMs(app.plan, countOnApp(app.id, "mentions")));
    const followersEvery = Math.max(config.triggers.followers?.interval ?? 0, fastestFollowersIntervalMs(app.plan, countOnApp(app.id, "followers")));
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
      followersIntervalMs: followersEvery,
      onRevoked: pause,
      ...(observer ? { onHandled: (kind) => observer.event({ bot: config.name, kind, at: clock.now() }) } : {}),
    });
    await bot.setup();
    for (const [event, trigger] of Object.entries(TRIGGER_OF) as Array<[EventName, TriggerName]>) {
      if (bot.handles(event) && !hasTrigger(config, trigger)) {
        log.warn(`a plugin handles "${event}" events but the bot has no ${trigger} trigger, so none will come; add ${TRIGGER_YAML[trigger]} to ${config.file}`);
      }
    }
    bots.set(config.name, bot);
  }

  // Actions an earlier run left unfinished: verified with the service, then sent or settled.
  for (const [name, layer] of layers) {
    void layer.recover().catch((err: unknown) => logger.error({ bot: name, err }, "could not resume unfinished actions"));
  }
  for (const bot of bots.values()) bot.start();

  const hubs = await startHubs(options, bots, layers, base, logger);

  const snapshot = (): BotStatus[] => [...[...bots.values()].map((b) => b.status()), ...paused.values()];
  const saveStatus = async (stoppedAt?: number) => {
    for (const s of snapshot()) store.set("status", s.bot, stoppedAt ? { ...s, stoppedAt } : s);
    await store.flush();
  };
  let stopped = false;
  const stopSignal = new AbortController();
  const statusLoop = (async () => {
    const every = options.statusEveryMs ?? 15_000;
    while (!stopped) {
      await saveStatus().catch((err: unknown) => logger.error({ err }, "could not save the bots' status"));
      await clock.sleep(every, stopSignal.signal).catch(() => undefined);
    }
  })();

  return {
    bots,
    actions,
    status: snapshot,
    async idle(timeoutMs = 10_000) {
      // Real time on purpose: this guards a test against waiting forever, whatever its clock.
      const deadline = Date.now() + timeoutMs;
      for (let calm = 0; calm < 3; ) {
        await new Promise((r) => setTimeout(r, calm === 0 ? 0 : 1));
        const later = actions.queue.list().filter((w) => w.readyAt > clock.now()).length;
        const busyBots = [...bots.values()].filter((b) => !b.quiet()).map((b) => b.name);
        calm = actions.inFlight() === later && busyBots.length === 0 ? calm + 1 : 0;
        if (calm === 0 && Date.now() > deadline) {
          throw new Error(`the runtime did not settle: ${actions.inFlight()} actions in flight (${later} waiting for the clock), busy bots: ${busyBots.join(", ") || "none"}`);
        }
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopSignal.abort();
      const drainMs = options.drainMs ?? 4_000;
      for (const hub of hubs) hub.close();
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

/** One stream connection per app that has bots with stream rules. */
async function startHubs(options: RuntimeOptions, bots: Map<string, BotRuntime>, layers: Map<string, ActionLayer>, base: ApiClient, logger: Logger): Promise<StreamHub[]> {
  const byApp = new Map<string, HostedBot[]>();
  for (const hosted of options.bots) {
    if (hosted.config.triggers.stream.length === 0 || !bots.has(hosted.config.name)) continue;
    byApp.set(hosted.app.id, [...(byApp.get(hosted.app.id) ?? []), hosted]);
  }
  const hubs: StreamHub[] = [];
  for (const [appId, hosted] of byApp) {
    const app = hosted[0]!.app;
    const layer = layers.get(hosted[0]!.config.name)!;
    const log = logger.child({ app: appId, trigger: "stream" });
    const wants: BotRules[] = hosted.map((h) => ({ bot: h.config.name, userId: bots.get(h.config.name)!.identity.userId, rules: h.config.triggers.stream }));
    const touchAll = () => {
      for (const h of hosted) bots.get(h.config.name)?.touch("stream");
    };
    try {
      hubs.push(
        await startStreamHub({
          client: base.withAuth({ consumer: { key: app.key, secret: app.secret }, appLabel: appId }),
          log,
          wants,
          budgeted: (endpoint, run) => layer.call(endpoint, async (signal) => ({ result: await run(signal) }), { label: "stream rules" }),
          deliver: (bot, event) => bots.get(bot)?.deliver([event]),
          onLifecycle: (event) => {
            touchAll();
            if (event.type !== "keep-alive") {
              const { cause, error } = event as { cause?: string; error?: Error };
              options.observer?.stream({ app: appId, type: event.type, ...(cause ? { cause } : {}), ...(error ? { error: error.message } : {}), at: options.clock.now() });
            }
            if (event.type === "connected") log.debug({ attempt: event.attempt }, "stream connected");
            else if (event.type === "reconnecting") log.warn({ cause: event.cause, delay_ms: event.delayMs, attempt: event.attempt }, `stream reconnecting in ${event.delayMs} ms (${event.cause})`);
            else if (event.type === "gave-up") log.error({ cause: event.cause, err: event.error }, "stream gave up; stream rules deliver nothing until restart");
            else if (event.type === "stream-error") log.warn({ errors: event.errors }, "the service sent an error in the stream");
          },
        }),
      );
    } catch (err) {
      log.error({ err }, `could not start the stream of app ${appId}: ${(err as Error)?.message ?? String(err)}; the bots' other triggers go on`);
    }
  }
  return hubs;
}
