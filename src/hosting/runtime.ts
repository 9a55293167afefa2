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
 *
 * The fleet can change while it runs ({@link FleetOps}): a bot added, replaced, removed,
 * paused or resumed, one change per bot at a time. Each touches its bot alone; its app's
 * stream changes its rules without reconnecting, and the poll intervals and capacity lines
 * shared by the app's bots follow.
 */
import { createActionSystem, type ActionLayer, type ActionSystem } from "../actions/index.ts";
import { createClient, type ApiClient } from "../api/client.ts";
import { RedisWindows } from "../redis/shared-windows.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus, BotStatus } from "../runtime/types.ts";
import { PluginSetupError } from "../plugins/setup-error.ts";
import { tapActions } from "./action-tap.ts";
import { startApps, type Apps } from "./apps.ts";
import { buildBot, refusedStatus, type BotFactoryDeps } from "./bot-factory.ts";
import { checkKeptState, stateSince } from "./kept-state.ts";
import { Outlines } from "./outline.ts";
import { appLoad, capacityLines } from "./capacity.ts";
import { identify, identifyAll, type Identified } from "./identity.ts";
import { FleetError } from "./fleet-error.ts";
import { accountRefused, refusedAccountReason } from "./service.ts";
import { startSharedApps, type SharedApps } from "./shared-apps.ts";
import { STATUS_EVERY_MS, StatusSaver } from "./status-saver.ts";
import { taughtAbuseModel } from "./taught-model.ts";
import { mentionsVia, PollerTally, triggerSpecs, type PollerCount } from "./trigger-plan.ts";
import type { FleetBot, HostedBot, Runtime, RuntimeOptions } from "./types.ts";

/** How long a bot being restarted (replaced, resumed) lets the events it handles finish. */
export const HAND_OVER_MS = 30_000;

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
      ? {
          sharedWindows: new RedisWindows(options.shared.redis, {
            prefix: options.shared.leases.prefix,
            ...(options.shared.budget ? { apart: options.shared.budget } : {}),
          }),
        }
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
  /**
   * Every bot of the fleet, by name, in the order they came (with `hosting: "claimed"`, those
   * run elsewhere too): whole, or its outline ({@link slim}).
   */
  private readonly hostedBots = new Map<string, FleetBot>();
  /** The full configuration of each bot kept whole: every bot, or when {@link slim}, those that run (or wait paused) here. */
  private readonly whole = new Map<string, HostedBot>();
  /**
   * Whether a bot that does not run here is kept as its outline, its configuration built
   * again when it comes ({@link RuntimeOptions.hydrate}): a process runs a quarter of
   * 100,000 bots, and kept every bot's plugins, options, budget and token besides.
   */
  private readonly slim: boolean;
  /** The outlines of the bots that do not run here, sharing their equal parts. */
  private readonly outlines = new Outlines();
  /** Each bot's client. */
  private readonly clients = new Map<string, ApiClient>();
  /** Bots paused by a change of the fleet ({@link pause}), and why: they stay paused when hosted again. */
  private readonly held = new Map<string, { reason: string; at: number }>();
  /** The change of each bot under way: one at a time per bot. */
  private readonly changing = new Map<string, Promise<unknown>>();
  /** The pollers of each app now ({@link pollers}: as the running bots were last tuned to). */
  private readonly pollerTally = new PollerTally();
  private pollers: PollerCount;
  private readonly claimed: boolean;
  private readonly factory: BotFactoryDeps;
  private readonly saver: StatusSaver;
  private hosting: Apps | undefined;
  private sharedApps: SharedApps | undefined;
  private stopped = false;

  private readonly options: RuntimeOptions;

  constructor(
    options: RuntimeOptions,
    readonly actions: ActionSystem,
    private readonly base: ApiClient,
  ) {
    this.claimed = options.hosting === "claimed";
    this.slim = this.claimed && options.shared !== undefined && options.hydrate !== undefined;
    for (const hosted of options.bots) this.enter(hosted);
    // Slim, the list is not kept: its bots' configurations go once each is in its outline.
    this.options = this.slim ? { ...options, bots: [] } : options;
    for (const [name, reason] of options.paused ?? []) this.held.set(name, { reason, at: options.clock.now() });
    this.pollers = this.pollerTally.counts();
    const taught = taughtAbuseModel(options.store, options.logger);
    this.factory = {
      actions,
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      ...(options.observer ? { observer: options.observer } : {}),
      serviceUrl: options.baseUrl,
      handlerTimeoutMs: options.handlerTimeoutMs ?? 30_000,
      pollers: (appId, trigger) => this.pollers(appId, trigger),
      // A process sharing its state without the shared streams polls every bot's mentions.
      mentionsVia: (hosted) => this.via(hosted),
      onRevoked: (name, err, token) => this.revoked(name, err, token),
      ...(taught ? { abuseModel: taught } : {}),
      ...(options.shared?.holding ? { holding: options.shared.holding } : {}),
    };
    this.saver = new StatusSaver({
      store: options.store,
      clock: options.clock,
      logger: options.logger,
      everyMs: options.statusEveryMs ?? STATUS_EVERY_MS,
      names: () => [...this.bots.keys(), ...this.paused.keys()],
      status: (name) => {
        // Its own object, which the saver keeps and adds to: a paused bot's is copied.
        const paused = this.paused.get(name);
        return this.bots.get(name)?.status() ?? (paused && { ...paused });
      },
      mark: (name) => this.bots.get(name)?.statusMark(),
      still: (name) => this.bots.get(name)?.statusStill() ?? true,
      apps: () => this.hosting?.apps() ?? [],
      alsoSave: () => this.hosting?.saveMarks(),
      ...(this.claimed && options.shared ? { publish: (ttlMs) => this.sharedApps!.saveStatus(ttlMs) } : {}),
    });
    // A request waiting for budget shows in its bot's status (a still bot's too: a poll).
    actions.queue.watchJoins((bot) => this.saver.changed(bot));
  }

  /** How a bot's mentions come here. */
  private via(hosted: FleetBot): "poll" | "stream" {
    return this.claimed && !this.options.shared ? "poll" : mentionsVia(hosted);
  }

  /**
   * Takes a bot into the fleet (or its new configuration): its client, and the count of its
   * app's pollers. Slim, a bot that neither runs nor waits paused here is kept as its outline.
   */
  private enter(hosted: HostedBot): void {
    const name = hosted.config.name;
    const kept = this.slim && !this.bots.has(name) && !this.paused.has(name) ? this.outlines.of(hosted) : hosted;
    this.place(name, kept, kept === hosted ? hosted : undefined);
  }

  /** Puts a bot's entry (and its full configuration, when kept) in the fleet; its app's pollers follow. */
  private place(name: string, bot: FleetBot, whole: HostedBot | undefined): void {
    const before = this.hostedBots.get(name);
    if (before) this.pollerTally.add(before, -1);
    this.pollerTally.add(bot);
    this.hostedBots.set(name, bot); // a new configuration keeps the bot's place
    if (whole) this.whole.set(name, whole);
    else this.whole.delete(name);
    this.clients.delete(name); // made afresh with its credentials when it runs (clientOf)
  }

  /** Slim: a bot that stopped running here keeps its outline alone (its configuration and client go). */
  private shed(name: string): void {
    const whole = this.whole.get(name);
    if (!this.slim || !whole || this.bots.has(name) || this.paused.has(name)) return;
    const outline = this.outlines.of(whole);
    if (outline === whole) return;
    this.hostedBots.set(name, outline);
    this.whole.delete(name);
    this.clients.delete(name);
  }

  /**
   * The API client of bot `name` (known), made when first needed: with `hosting: "claimed"`
   * every process knows every bot of the deployment and runs a share of them, and a client
   * (with a connection pool of its own) for each of 100,000 bots was memory and start-up CPU
   * spent on bots the process never runs.
   */
  private clientOf(name: string): ApiClient {
    let client = this.clients.get(name);
    if (!client) {
      const hosted = this.whole.get(name)!;
      client = this.base.withAuth({
        consumer: { key: hosted.app.key, secret: hosted.app.secret },
        user: hosted.token,
        label: name,
        appLabel: hosted.app.id,
      });
      this.clients.set(name, client);
    }
    return client;
  }

  /** A bot leaves the fleet (or makes room for its new configuration): its app's pollers follow. */
  private leave(name: string): void {
    const hosted = this.hostedBots.get(name);
    if (!hosted) return;
    this.pollerTally.add(hosted, -1);
    this.hostedBots.delete(name);
    this.whole.delete(name);
  }

  /**
   * Starts every bot (with `hosting: "claimed"`, none: the claims host them one by one), the
   * apps' streams and the status loop. Who each account is: known with the account (stored by
   * `bot auth login`, or provisioned), else asked a few at a time.
   */
  async start(): Promise<void> {
    const { options } = this;
    if (this.claimed && !options.shared) this.warnUnstreamed();
    const all = this.claimed ? [] : options.bots;
    const identities = await identifyAll(
      options.store,
      all,
      all.map((h) => this.clientOf(h.config.name)),
      options.logger,
    );
    for (const [i, hosted] of all.entries())
      await this.hostBot(hosted, this.clientOf(hosted.config.name), identities[i]!);
    for (const [name, layer] of this.layers) this.recover(name, layer);
    for (const [name, bot] of this.bots) this.run(name, bot);
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
        fleet: this.hostedBots,
        capacity: (appId) => capacityLines(appLoad([...this.hostedBots.values()].filter((h) => h.app.id === appId))),
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
      const reason = refusedAccountReason(config, err, hosted.origin);
      this.options.logger.error({ bot: config.name }, `bot ${config.name} is paused: ${reason}; the other bots go on`);
      this.paused.set(config.name, refusedStatus(hosted, reason, this.options.clock.now()));
      this.saver.changed(config.name);
      return undefined;
    }
    const missing = await this.stateMissing(hosted);
    if (missing) {
      this.notStarted(hosted, missing, `${missing}; the other bots go on`);
      return undefined;
    }
    let built: Awaited<ReturnType<typeof buildBot>>;
    try {
      built = await buildBot(hosted, client, resolved.identity, this.factory);
    } catch (err) {
      if (!(err instanceof PluginSetupError)) throw err;
      const file = hosted.config.file;
      this.notStarted(
        hosted,
        `${err.message} (${file}); fix it, then save ${file} again or resume the bot`,
        `${err.message} (${file}); the other bots go on. Fix the plugin or its options, then save ${file} again (or resume the bot) to start it`,
        { plugin: err.plugin, err: err.cause },
      );
      return undefined;
    }
    this.layers.set(config.name, built.layer);
    this.bots.set(config.name, built.bot);
    this.watchStatus(config.name, built.bot);
    return built;
  }

  /**
   * A bot that must not start (a plugin's setup threw, its state is missing: ./kept-state.ts):
   * reported with why (`why` in its status, `said` in the log), paused, so `bot status` and
   * the status page show it; the other bots go on. Saving its file again, or resuming it,
   * tries again.
   */
  private notStarted(hosted: FleetBot, why: string, said: string, fields: Record<string, unknown> = {}): void {
    const { config } = hosted;
    const { logger, clock } = this.options;
    const reason = `not started: ${why}`;
    logger.error({ bot: config.name, file: config.file, ...fields }, `bot ${config.name} is not started: ${said}`);
    this.paused.set(config.name, refusedStatus(hosted, reason, clock.now(), false));
    this.saver.changed(config.name);
    this.options.observer?.paused({ bot: config.name, reason, at: clock.now() });
  }

  /**
   * Why the bot must not start because its own state is missing though its status says it
   * ran (./kept-state.ts), or undefined (and its state marked, when new). With the state in
   * Redis, the status is read again first: another process may have run the bot since.
   */
  private async stateMissing(hosted: HostedBot): Promise<string | undefined> {
    const { store, clock, logger } = this.options;
    const name = hosted.config.name;
    await store.reread?.("status", name);
    const afresh = this.options.afresh?.includes(name) ?? false;
    const missing = checkKeptState(store, name, {
      now: clock.now(),
      afresh,
      onAfresh: (since) =>
        logger.warn(
          { bot: name },
          `bot ${name} starts afresh (--afresh): its state, kept since ${new Date(since).toISOString()}, was missing; what it answered before may be answered again (its first poll reaches back as on a first start)`,
        ),
    });
    return missing;
  }

  /** A bot running here from now on: the status saver looks at it, and again whenever it says its status moved. */
  private watchStatus(name: string, bot: BotRuntime): void {
    bot.watchStatus(() => this.saver.changed(name));
    this.saver.changed(name);
  }

  /** Starts a bot just built, or holds it paused when a change of the fleet paused it. */
  private run(name: string, bot: BotRuntime): void {
    const held = this.held.get(name);
    if (held) bot.pause(held.reason);
    else bot.start();
  }

  /**
   * A running bot's account was refused (a revoked token): it pauses, the others go on. A
   * refusal of a token the bot no longer uses (a request of its previous configuration,
   * answered after the account was connected again) leaves it running.
   */
  private revoked(name: string, err: unknown, token: string): void {
    const hosted = this.whole.get(name);
    if (!hosted || hosted.token.token !== token) return;
    const reason = refusedAccountReason(hosted.config, err, hosted.origin);
    const bot = this.bots.get(name);
    if (bot?.paused) return;
    bot?.pause(reason, true);
    this.options.logger.error({ bot: name }, `bot ${name} is paused: ${reason}; the other bots go on`);
    this.options.observer?.paused({ bot: name, reason, at: this.options.clock.now() });
  }

  /** Actions an earlier run left unfinished: verified with the service, then sent or settled. */
  private recover(name: string, layer: ActionLayer): void {
    void layer
      .recover()
      .catch((err: unknown) => this.options.logger.error({ err, bot: name }, "could not resume unfinished actions"));
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
    // Real time on purpose: this guards a test against waiting forever, whatever its clock. The
    // wait gives up only after timeoutMs with nothing moving: 500 bots' first polls on a busy
    // machine take longer than that, and each step of them is progress.
    let deadline = Date.now() + timeoutMs;
    let seen = "";
    for (let calm = 0; calm < 3; ) {
      await new Promise((r) => setTimeout(r, calm === 0 ? 0 : 1));
      const later = actions.queue.list().filter((w) => w.readyAt > options.clock.now()).length;
      const busyBots = [...this.bots.values()].filter((b) => !b.quiet()).map((b) => b.name);
      for (const [appId, hub] of this.hosting?.hubs ?? []) if (hub.busy()) busyBots.push(`the stream of app ${appId}`);
      busyBots.push(...(this.sharedApps?.busy() ?? []));
      for (const name of this.changing.keys()) busyBots.push(`the change of bot ${name}`);
      calm = actions.inFlight() === later && busyBots.length === 0 ? calm + 1 : 0;
      const now = `${actions.inFlight()} ${later} ${busyBots.join()}`;
      if (now !== seen) [seen, deadline] = [now, Date.now() + timeoutMs];
      else if (calm === 0 && Date.now() > deadline) {
        throw new Error(
          `the runtime did not settle: ${actions.inFlight()} actions in flight (${later} waiting for the clock), busy bots: ${busyBots.join(", ") || "none"}`,
        );
      }
    }
  }

  async host(name: string): Promise<void> {
    const known = this.hostedBots.get(name);
    if (!known) throw new Error(`no bot ${name} in this runtime`);
    if (this.bots.has(name) || this.stopped) return;
    const hosted = this.whole.get(name) ?? (await this.hydrated(name, known));
    // Changed or removed meanwhile (the change keeps its outline, or the bot is gone): its next claim hosts it.
    if (!hosted || this.hostedBots.get(name) !== known || this.bots.has(name) || this.stopped) return;
    this.whole.set(name, hosted);
    await this.begin(hosted);
  }

  /**
   * The full configuration of a bot kept as its outline, built again as it comes to run
   * here; one that no longer builds (a plugin changed since) is recorded not started, with why.
   */
  private async hydrated(name: string, known: FleetBot): Promise<HostedBot | undefined> {
    try {
      return await this.options.hydrate!(known);
    } catch (err) {
      const why = (err as Error)?.message ?? String(err);
      this.notStarted(known, why, `${why}; the other bots go on`);
      return undefined;
    }
  }

  /**
   * Starts a bot that does not run here yet: who its account is, its build, what an earlier
   * run left unfinished, and its place in its app's stream. Refused: recorded paused.
   */
  private async begin(hosted: HostedBot): Promise<void> {
    const name = hosted.config.name;
    const client = this.clientOf(name);
    this.paused.delete(name);
    const made = await this.hostBot(
      hosted,
      client,
      await identify(this.options.store, hosted, client, this.options.logger),
    );
    if (!made) return this.shed(name);
    this.recover(name, made.layer);
    this.run(name, made.bot);
    if (this.claimed) await this.sharedApps?.host(hosted, made.bot);
    else await this.hosting?.add(hosted);
  }

  async unhost(name: string, why: "lost" | "released"): Promise<void> {
    this.paused.delete(name);
    this.sharedApps?.unhost(name);
    const bot = this.bots.get(name);
    if (!bot) return;
    this.bots.delete(name);
    this.saver.changed(name); // its saver forgets it
    this.layers.delete(name);
    bot.stopTriggers();
    await bot.drain(this.options.drainMs ?? 4_000);
    this.shed(name);
    if (why === "released") {
      const since = stateSince(this.options.store, name);
      this.options.store.set("status", name, {
        ...bot.status(),
        stoppedAt: this.options.clock.now(),
        ...(since !== undefined ? { stateSince: since } : {}),
      });
    }
  }

  fleet(): ReadonlyMap<string, FleetBot> {
    return this.hostedBots;
  }

  hosted(name: string): HostedBot | undefined {
    return this.whole.get(name);
  }

  rulesSettled(): Promise<void> {
    return this.hosting?.rulesSettled() ?? Promise.resolve();
  }

  /** Runs one change of a bot after the one under way (a change per bot at a time). */
  private change<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = this.changing.get(name) ?? Promise.resolve();
    const next = before.then(() => {
      if (this.stopped) throw new FleetError("stopping", `the bots are stopping; bot ${name} was not changed`);
      return work();
    });
    const settled = next.catch(() => undefined);
    this.changing.set(name, settled);
    void settled.then(() => {
      if (this.changing.get(name) === settled) this.changing.delete(name);
    });
    return next;
  }

  private known(name: string): FleetBot {
    const hosted = this.hostedBots.get(name);
    if (!hosted)
      throw new FleetError(
        "not-found",
        `no bot ${name} runs here; the bots are ${[...this.hostedBots.keys()].slice(0, 20).join(", ") || "none"}`,
      );
    return hosted;
  }

  add(hosted: HostedBot): Promise<void> {
    const name = hosted.config.name;
    return this.change(name, async () => {
      if (this.hostedBots.has(name))
        throw new FleetError(
          "exists",
          `a bot named ${name} runs already (${this.hostedBots.get(name)!.config.file}); replace it, or give the new one another name`,
        );
      this.enter(hosted);
      this.sharedApps?.register(this.hostedBots.get(name)!);
      this.retune(hosted.app.id);
      if (this.claimed) return;
      try {
        await this.begin(hosted);
      } catch (err) {
        this.leave(name);
        this.clients.delete(name);
        this.retune(hosted.app.id);
        throw err;
      }
    });
  }

  replace(hosted: HostedBot): Promise<void> {
    const name = hosted.config.name;
    return this.change(name, async () => {
      const outline = this.known(name);
      const before = this.whole.get(name);
      this.enter(hosted);
      this.sharedApps?.register(this.hostedBots.get(name)!);
      this.retune(outline.app.id, hosted.app.id);
      const old = this.bots.get(name);
      try {
        if (old) await this.restart(before!, hosted, old);
        else if (this.paused.has(name) && !this.claimed) await this.begin(hosted);
      } catch (err) {
        // Not built (its plugins' setup failed, its account could not be asked): the running version goes on.
        this.place(name, outline, before);
        this.sharedApps?.register(outline);
        this.retune(outline.app.id, hosted.app.id);
        throw err;
      }
    });
  }

  /**
   * Restarts a running bot with `after`: the new bot is built first (its plugins set up), then
   * the old one hands over (its triggers stop, the events it handles finish, bounded by
   * {@link HAND_OVER_MS}; what arrives meanwhile waits in the inbox), and the new one starts
   * from the same state. Its actions in flight are not recovered again: the old layer
   * finishes them; unless the service refused the old token, which can send nothing: then
   * the new one resumes what waits in the ledger.
   */
  private async restart(before: HostedBot, after: HostedBot, old: BotRuntime): Promise<void> {
    const name = after.config.name;
    const { logger } = this.options;
    const client = this.clientOf(name);
    const sameAccount = before.app.id === after.app.id && before.token.token === after.token.token;
    const resolved = sameAccount
      ? { identity: old.identity }
      : await identify(this.options.store, after, client, this.options.logger);
    if ("error" in resolved && !accountRefused(resolved.error)) throw resolved.error;
    const built = "error" in resolved ? undefined : await buildBot(after, client, resolved.identity, this.factory);
    if (this.claimed) this.sharedApps?.unhost(name);
    // Paused because the service refused its token: what it could not send waits in the ledger.
    const refused = old.paused?.accountRefused === true;
    const finished = await old.handOver(HAND_OVER_MS);
    // Taken when the old one stopped: a drop of the stream during the hand-over counts.
    const sync = old.mentions.syncState();
    if (!finished)
      logger.warn(
        { bot: name },
        `bot ${name}: events still being handled after ${HAND_OVER_MS / 1000} s; its new configuration starts beside them (the ledger keeps any action from being sent twice)`,
      );
    this.bots.delete(name);
    this.layers.delete(name);
    if (!built) {
      await this.hostBot(after, client, resolved);
      if (!this.claimed) await this.hosting?.remove(before);
      return this.shed(name);
    }
    this.bots.set(name, built.bot);
    this.watchStatus(name, built.bot);
    this.layers.set(name, built.layer);
    // With its new token it sends what the refused one could not (the old layer can send nothing).
    if (refused && !sameAccount) this.recover(name, built.layer);
    this.run(name, built.bot);
    if (sync && this.via(after) === "stream" && this.via(before) === "stream") built.bot.mentions.adopt(sync);
    if (this.claimed) await this.sharedApps?.host(after, built.bot);
    else await this.hosting?.replace(before, after);
  }

  remove(name: string): Promise<void> {
    return this.change(name, async () => {
      const hosted = this.known(name);
      const whole = this.whole.get(name);
      this.leave(name);
      this.clients.delete(name);
      this.held.delete(name);
      this.paused.delete(name);
      this.retune(hosted.app.id);
      const bot = this.bots.get(name);
      if (bot) {
        this.bots.delete(name);
        this.saver.changed(name);
        this.layers.delete(name);
        bot.stopTriggers();
        await bot.drain(this.options.drainMs ?? 4_000);
      }
      if (this.claimed) await this.sharedApps?.forget(hosted);
      else await this.hosting?.remove(whole!);
      // `bot status` lists it no more; its state (inbox, cursors, ledger) stays for a return.
      this.options.store.delete("status", name);
    });
  }

  pause(name: string, reason: string): Promise<void> {
    return this.change(name, async () => {
      this.known(name);
      const at = this.options.clock.now();
      this.held.set(name, { reason, at });
      const bot = this.bots.get(name);
      if (!bot || bot.paused) return;
      bot.pause(reason);
      this.options.observer?.paused({ bot: name, reason, at });
    });
  }

  resume(name: string): Promise<void> {
    return this.change(name, async () => {
      this.known(name);
      const hosted = this.whole.get(name)!;
      this.held.delete(name);
      const bot = this.bots.get(name);
      if (bot?.paused) await this.restart(hosted, hosted, bot);
      else if (!bot && this.paused.has(name) && !this.claimed) await this.begin(hosted);
    });
  }

  /**
   * The bots of these apps changed: each of their bots running here polls at the interval the
   * plan allows for the app's pollers now (the capacity lines say it). A bot's intervals depend
   * on its app's counts of pollers alone, so an app whose counts did not change is left as it
   * is: a streamed bot added to 10,000 costs no pass over the others (their mentions wait
   * meanwhile).
   */
  private retune(...appIds: string[]): void {
    const before = this.pollers;
    this.pollers = this.pollerTally.counts();
    const apps = new Set(
      appIds.filter((id) =>
        (["mentions", "followers"] as const).some((trigger) => before(id, trigger) !== this.pollers(id, trigger)),
      ),
    );
    if (apps.size === 0) return;
    for (const [name, bot] of this.bots) {
      const hosted = this.whole.get(name);
      if (!hosted || !apps.has(hosted.app.id)) continue;
      const specs = triggerSpecs(hosted, this.pollers, this.via(hosted));
      bot.retune({
        ...(specs.mentions ? { mentionsMs: specs.mentions.intervalMs } : {}),
        ...(specs.followers ? { followersMs: specs.followers.intervalMs } : {}),
      });
    }
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
    // Changes under way end (a stream's rules change gives up once its hub is closed).
    const cancelChanges = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.changing.values()]),
      options.clock.sleep(drainMs, cancelChanges.signal).catch(() => undefined),
    ]);
    cancelChanges.abort();
    for (const bot of this.bots.values()) bot.stopTriggers();
    // Actions still waiting for the budget end now as deferred (the ledger keeps them for
    // the next start), so handlers awaiting them finish; requests in flight complete.
    actions.close();
    await Promise.all([...this.bots.values()].map((b) => b.drain(drainMs)));
    const cancel = new AbortController();
    await Promise.race([actions.idle(), options.clock.sleep(drainMs, cancel.signal).catch(() => undefined)]);
    cancel.abort();
    // The last status not saved (a disk that refuses writes while stopping): the stop goes on.
    await this.saver
      .finish(options.clock.now())
      .catch((err: unknown) => options.logger.warn({ err }, "could not save the bots' status while stopping"));
    await this.base.close();
  }
}
