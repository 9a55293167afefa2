/**
 * The runtime: every bot of a process, sharing one action system (so the app-wide windows
 * are shared), one connection pool, one stream connection per app and one state store.
 * Each bot is built from its parts by ./bot-factory.ts; the apps' streams are run by
 * ./apps.ts (or, with the state in Redis, ./shared-apps.ts); the status is saved by
 * ./status-saver.ts.
 *
 * One failing account (a revoked token: 401, code 89) is reported and paused; the other bots
 * go on. `stop()` stops the triggers, lets actions in flight finish within a bound, persists
 * everything, and resolves well within the 10 seconds a service manager waits.
 */
import { createActionSystem, type ActionLayer, type ActionSystem } from "../actions/index.ts";
import { createClient, type ApiClient } from "../api/client.ts";
import { RedisWindows } from "../redis/shared-windows.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus, BotStatus } from "../runtime/types.ts";
import { tapActions } from "./action-tap.ts";
import { startApps, type Apps } from "./apps.ts";
import { buildBot, refusedStatus, type BotFactoryDeps } from "./bot-factory.ts";
import { appLoad, capacityLines } from "./capacity.ts";
import { identify, identifyAll, type Identified } from "./identity.ts";
import { accountRefused, refusedAccountReason } from "./service.ts";
import { startSharedApps, type SharedApps } from "./shared-apps.ts";
import { STATUS_EVERY_MS, StatusSaver } from "./status-saver.ts";
import { mentionsVia, pollerCounts } from "./trigger-plan.ts";
import type { HostedBot, Runtime, RuntimeOptions } from "./types.ts";

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
  const runtime = new HostedRuntime(options, actions, serviceClient(options));
  await runtime.start();
  return runtime;
}

/**
 * The client every bot's is made from (one connection pool). Budget corrections travel with
 * each budgeted call's own answer (the executor returns its headers); the observer hears of
 * every error answer.
 */
function serviceClient(options: RuntimeOptions): ApiClient {
  const { observer } = options;
  return createClient({
    baseUrl: options.baseUrl,
    clock: options.clock,
    logger: options.logger,
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
}

/** A started runtime; see the module comment. */
class HostedRuntime implements Runtime {
  readonly bots = new Map<string, BotRuntime>();
  private readonly layers = new Map<string, ActionLayer>();
  /** Bots whose account the service refused at start (they never ran). */
  private readonly paused = new Map<string, BotStatus>();
  /** Each bot's client, in the order of the options' bots. */
  private readonly clients: ApiClient[];
  private readonly claimed: boolean;
  private readonly factory: BotFactoryDeps;
  private readonly saver: StatusSaver;
  private hosting: Apps | undefined;
  private sharedApps: SharedApps | undefined;
  private stopped = false;

  constructor(
    private readonly options: RuntimeOptions,
    readonly actions: ActionSystem,
    private readonly base: ApiClient,
  ) {
    this.claimed = options.hosting === "claimed";
    this.clients = options.bots.map((hosted) =>
      base.withAuth({
        consumer: { key: hosted.app.key, secret: hosted.app.secret },
        user: hosted.token,
        label: hosted.config.name,
        appLabel: hosted.app.id,
      }),
    );
    this.factory = {
      actions,
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      ...(options.observer ? { observer: options.observer } : {}),
      handlerTimeoutMs: options.handlerTimeoutMs ?? 30_000,
      pollers: pollerCounts(options.bots),
      // A process sharing its state without the shared streams polls every bot's mentions.
      mentionsVia: (hosted) => (this.claimed && !options.shared ? "poll" : mentionsVia(hosted)),
      onRevoked: (name, err) => this.pause(name, err),
    };
    this.saver = new StatusSaver({
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      everyMs: options.statusEveryMs ?? STATUS_EVERY_MS,
      names: () => [...this.bots.keys(), ...this.paused.keys()],
      status: (name) => this.bots.get(name)?.status() ?? this.paused.get(name),
      apps: () => this.hosting?.apps() ?? [],
      ...(this.claimed && options.shared ? { publish: (ttlMs) => this.sharedApps!.saveStatus(ttlMs) } : {}),
    });
  }

  /**
   * Starts every bot (with `hosting: "claimed"`, none: the claims host them one by one), the
   * apps' streams and the status loop. Who each account is: known with the account (stored by
   * `bot auth login`, or provisioned), else asked a few at a time.
   */
  async start(): Promise<void> {
    const { options } = this;
    if (this.claimed && !options.shared) this.warnUnstreamed();
    const identities = this.claimed ? [] : await identifyAll(options.store, options.bots, this.clients);
    for (const [i, hosted] of this.claimed ? [] : options.bots.entries())
      await this.hostBot(hosted, this.clients[i]!, identities[i]!);
    for (const [name, layer] of this.layers) this.recover(name, layer);
    for (const bot of this.bots.values()) bot.start();
    this.hosting = startApps({
      options: this.claimed ? { ...options, bots: [] } : options,
      bots: this.bots,
      layers: this.layers,
      base: this.base,
      logger: options.logger,
    });
    if (this.claimed && options.shared)
      this.sharedApps = startSharedApps({
        options,
        shared: options.shared,
        bots: this.bots,
        layers: this.layers,
        base: this.base,
        logger: options.logger,
        mentionsVia,
        capacity: (appId) => capacityLines(appLoad(options.bots.filter((h) => h.app.id === appId))),
      });
    this.saver.start();
  }

  private warnUnstreamed(): void {
    const streaming = this.options.bots
      .filter((h) => h.config.triggers.stream.length > 0 || mentionsVia(h) === "stream")
      .map((h) => h.config.name);
    if (streaming.length > 0)
      this.options.logger.warn(
        { bots: streaming },
        `state in Redis: the app streams are not connected in this mode yet; mentions are polled and stream rules deliver nothing (${streaming.join(", ")})`,
      );
  }

  /** Builds one bot (its identity known), or records it paused when its account is refused. */
  private async hostBot(hosted: HostedBot, client: ApiClient, resolved: Identified) {
    const { config } = hosted;
    if ("error" in resolved) {
      const err = resolved.error;
      if (!accountRefused(err)) throw err;
      const reason = refusedAccountReason(config, err);
      this.options.logger.error({ bot: config.name }, `bot ${config.name} is paused: ${reason}; the other bots go on`);
      this.paused.set(config.name, refusedStatus(hosted, reason, this.options.clock.now()));
      return undefined;
    }
    const built = await buildBot(hosted, client, resolved.identity, this.factory);
    this.layers.set(config.name, built.layer);
    this.bots.set(config.name, built.bot);
    return built;
  }

  /** A running bot's account was refused (a revoked token): it pauses, the others go on. */
  private pause(name: string, err: unknown): void {
    const config = this.options.bots.find((b) => b.config.name === name)?.config;
    if (!config) return;
    const reason = refusedAccountReason(config, err);
    const bot = this.bots.get(name);
    if (bot?.paused) return;
    bot?.pause(reason);
    this.options.logger.error({ bot: name }, `bot ${name} is paused: ${reason}; the other bots go on`);
    this.options.observer?.paused({ bot: name, reason, at: this.options.clock.now() });
  }

  /** Actions an earlier run left unfinished: verified with the service, then sent or settled. */
  private recover(name: string, layer: ActionLayer): void {
    void layer
      .recover()
      .catch((err: unknown) => this.options.logger.error({ bot: name, err }, "could not resume unfinished actions"));
  }

  status(): BotStatus[] {
    return [...[...this.bots.values()].map((b) => b.status()), ...this.paused.values()];
  }

  apps(): AppStatus[] {
    return [...(this.hosting?.apps() ?? []), ...(this.sharedApps?.apps() ?? [])];
  }

  streamed(appId: string, postId: string): boolean {
    return (this.hosting?.hubs.get(appId)?.has(postId) ?? false) || (this.sharedApps?.streamed(appId, postId) ?? false);
  }

  async idle(timeoutMs = 10_000): Promise<void> {
    const { actions, options } = this;
    // Real time on purpose: this guards a test against waiting forever, whatever its clock.
    const deadline = Date.now() + timeoutMs;
    for (let calm = 0; calm < 3; ) {
      await new Promise((r) => setTimeout(r, calm === 0 ? 0 : 1));
      const later = actions.queue.list().filter((w) => w.readyAt > options.clock.now()).length;
      const busyBots = [...this.bots.values()].filter((b) => !b.quiet()).map((b) => b.name);
      for (const [appId, hub] of this.hosting?.hubs ?? []) if (hub.busy()) busyBots.push(`the stream of app ${appId}`);
      busyBots.push(...(this.sharedApps?.busy() ?? []));
      calm = actions.inFlight() === later && busyBots.length === 0 ? calm + 1 : 0;
      if (calm === 0 && Date.now() > deadline) {
        throw new Error(
          `the runtime did not settle: ${actions.inFlight()} actions in flight (${later} waiting for the clock), busy bots: ${busyBots.join(", ") || "none"}`,
        );
      }
    }
  }

  async host(name: string): Promise<void> {
    const i = this.options.bots.findIndex((h) => h.config.name === name);
    if (i < 0) throw new Error(`no bot ${name} in this runtime`);
    if (this.bots.has(name) || this.stopped) return;
    const hosted = this.options.bots[i]!;
    this.paused.delete(name);
    const made = await this.hostBot(
      hosted,
      this.clients[i]!,
      await identify(this.options.store, hosted, this.clients[i]!),
    );
    if (!made) return;
    this.recover(name, made.layer);
    made.bot.start();
    await this.sharedApps?.host(hosted, made.bot);
  }

  async unhost(name: string, why: "lost" | "released"): Promise<void> {
    this.paused.delete(name);
    this.sharedApps?.unhost(name);
    const bot = this.bots.get(name);
    if (!bot) return;
    this.bots.delete(name);
    this.layers.delete(name);
    bot.stopTriggers();
    await bot.drain(this.options.drainMs ?? 4_000);
    if (why === "released")
      this.options.store.set("status", name, { ...bot.status(), stoppedAt: this.options.clock.now() });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.saver.halt();
    const { actions, options } = this;
    const drainMs = options.drainMs ?? 4_000;
    for (const hub of this.hosting?.hubs.values() ?? []) hub.close();
    for (const queue of this.hosting?.queues.values() ?? []) queue.close();
    await this.sharedApps?.close();
    for (const bot of this.bots.values()) bot.stopTriggers();
    // Actions still waiting for the budget end now as deferred (the ledger keeps them for
    // the next start), so handlers awaiting them finish; requests in flight complete.
    actions.close();
    await Promise.all([...this.bots.values()].map((b) => b.drain(drainMs)));
    const cancel = new AbortController();
    await Promise.race([actions.idle(), options.clock.sleep(drainMs, cancel.signal).catch(() => undefined)]);
    cancel.abort();
    await this.saver.finish(options.clock.now());
    await this.base.close();
  }
}
