/**
 * The apps' streams of a process that shares its state in Redis with others (`bot start
 * --state redis://`, the runtime in `hosting: "claimed"` mode): what ./apps.ts does for one
 * process, spread over many (see ../redis/shared-streams.ts).
 *
 * - The process holding an app's stream lease runs its hub, with the rules and mention
 *   rules of every bot of the app, budgeted through a bot of the app it runs.
 * - Each post reaches the process running its bot through the handoff, whose entries this
 *   process takes from its readers ({@link SharedStreams.take}: they call no bot) to the bot,
 *   and is acknowledged once the bot has handled it (`deliverHandled`, the mentions feed's
 *   `acceptHandled`).
 * - When the hub connects, every process polls the mentions of its streamed bots once to
 *   close the gap (a few at a time, through the shared budget), as a single process does
 *   after each reconnect; a bot taken over is polled once when it starts here.
 * - Each app's status is published as this process's part (its bots, its catch-up polls, and
 *   the stream when it holds it) for `bot status` to merge (../redis/app-status.ts).
 */
import type { ActionLayer } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Logger } from "../log.ts";
import { AppStatusParts } from "../redis/app-status.ts";
import type { SharedRedis } from "../redis/shared-state.ts";
import type { CatchUpQueue } from "../triggers/catch-up.ts";
import { SharedStreams, type DirectoryBot, type HubRequest } from "../redis/shared-streams.ts";
import type { HandedEntry, HandoffControl } from "../redis/stream-handoff.ts";
import { startStreamHub, type StreamHub } from "../triggers/stream-hub.ts";
import type { Budgeted } from "../triggers/stream/search.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus } from "../runtime/types.ts";
import { appConnection, catchUpQueue, reportStream } from "./app-hub.ts";
import { knownUser } from "./identity.ts";
import type { FleetBot, HostedBot, RuntimeOptions } from "./types.ts";

/** The apps of a process sharing its state in Redis, as its runtime drives them. */
export interface SharedApps {
  /** A bot started running here (after `bot.start()`). */
  host(hosted: HostedBot, bot: BotRuntime): Promise<void>;
  /** A bot stopped running here. */
  unhost(name: string): void;
  /** A bot joined the fleet, or has a new configuration (wherever it runs). */
  register(hosted: FleetBot): void;
  /** A bot left the fleet: it leaves its app's directory, so its rules leave the app's stream. */
  forget(hosted: FleetBot): Promise<void>;
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

/** What the shared apps are started with. */
export interface SharedAppsDeps {
  options: RuntimeOptions;
  shared: SharedRedis;
  bots: ReadonlyMap<string, BotRuntime>;
  layers: ReadonlyMap<string, ActionLayer>;
  base: ApiClient;
  logger: Logger;
  mentionsVia(hosted: FleetBot): "poll" | "stream";
  /** Every bot of the fleet as the runtime keeps it (whole, or its outline). */
  fleet: ReadonlyMap<string, FleetBot>;
  /** The capacity lines of an app, for all its bots (the same bot files in every process). */
  capacity(appId: string): string[];
}

/** Starts this process's side of the shared apps (see the module comment). */
export function startSharedApps(deps: SharedAppsDeps): SharedApps {
  return new ProcessApps(deps);
}

/** This process's side of the shared apps; see the module comment. */
class ProcessApps implements SharedApps {
  /** Every bot of the fleet: the runtime's own table (it changes it before it calls {@link register} and {@link forget}). */
  private readonly byName: ReadonlyMap<string, FleetBot>;
  private readonly appOf: Map<string, string>;
  /**
   * The bots running here ({@link host} to {@link unhost}), by app: what an app's hub connecting
   * or dropping reaches ({@link onControl}), without a pass over every bot running here for
   * each (33 ms a process at 100,000 accounts, for each app's hub after a take-over).
   */
  private readonly running = new Map<string, Set<string>>();
  /** The app each bot running here was hosted with (its entry in {@link running}). */
  private readonly runningApp = new Map<string, string>();
  private readonly queues = new Map<string, CatchUpQueue>();
  private readonly capacity = new Map<string, string[]>();
  private readonly streams: SharedStreams;
  private readonly parts: AppStatusParts;

  constructor(private readonly deps: SharedAppsDeps) {
    const { options, shared, logger } = deps;
    this.byName = deps.fleet;
    this.appOf = new Map([...deps.fleet].map(([name, h]) => [name, h.app.id]));
    this.parts = new AppStatusParts(shared.redis, shared.leases.prefix, shared.owner);
    this.streams = new SharedStreams({
      redis: shared.redis,
      leases: shared.leases,
      ...(shared.renewals ? { renewals: shared.renewals } : {}),
      owner: shared.owner,
      clock: shared.clock ?? options.clock,
      ...(shared.ttlMs ? { ttlMs: shared.ttlMs } : {}),
      ...(shared.everyMs ? { everyMs: shared.everyMs } : {}),
      ...(shared.leaseOf ? { leaseOf: shared.leaseOf } : {}),
      ...(shared.hurry ? { onUnowned: shared.hurry } : {}),
      ...(shared.holdStarts ? { holdStarts: shared.holdStarts } : {}),
      log: logger.child({ trigger: "stream" }),
      appOf: this.appOf,
      prefix: shared.leases.prefix,
      startHub: (request) => this.startHub(request),
      onControl: (appId, what) => this.onControl(appId, what),
      describe: (appId) => this.describe(appId),
      mentionsBackfillMs: (name) =>
        this.streamedMentions(name) ? this.byName.get(name)?.config.triggers.mentions?.backfill : undefined,
    });
    this.streams.start();
    void this.takeHandedOff();
  }

  /**
   * The app's bots whose account's user is known without starting them (./identity.ts
   * `knownUser`), as each publishes itself when it starts ({@link host}); not those paused by
   * a person.
   */
  private *describe(appId: string): Generator<[string, DirectoryBot]> {
    const paused = this.deps.options.paused;
    for (const [name, bot] of this.byName) {
      if (bot.app.id !== appId || paused?.has(name)) continue;
      const user = knownUser(this.deps.options.store, bot);
      if (user) yield [name, this.entryOf(bot, user)];
    }
  }

  /** A bot's entry in its app's directory: what it asks of the app's stream. */
  private entryOf(bot: FleetBot, user: { id: string; username: string }): DirectoryBot {
    const name = bot.config.name;
    return {
      userId: user.id,
      username: user.username,
      rules: bot.config.triggers.stream,
      mentions: this.streamedMentions(name),
    };
  }

  /** Takes the handoff's entries to the bots running here, until the streams close. */
  private async takeHandedOff(): Promise<void> {
    for (let batch = await this.streams.take(); batch; batch = await this.streams.take())
      for (const handed of batch) this.hand(handed);
  }

  private streamedMentions(name: string): boolean {
    const hosted = this.byName.get(name);
    return !!hosted?.config.triggers.mentions && this.deps.mentionsVia(hosted) === "stream";
  }

  private queueOf(appId: string): CatchUpQueue {
    let queue = this.queues.get(appId);
    if (!queue) {
      queue = catchUpQueue(this.deps.bots, this.deps.logger);
      this.queues.set(appId, queue);
    }
    return queue;
  }

  /** The app's hub, in this process (it holds the app's stream lease). */
  private startHub(request: HubRequest): StreamHub {
    const { options, layers, base, logger } = this.deps;
    const { store, clock } = options;
    const app = this.appNamed(request.appId);
    const log = logger.child({ app: request.appId, trigger: "stream" });
    // Rules and gap searches count against the app's windows, through any bot of the app running here.
    const budgeted: Budgeted = async (endpoint, run) => {
      const layer = this.layerOf(request.appId, layers);
      if (!layer) return (await run(new AbortController().signal)).result;
      return await layer.read(endpoint, run, { label: "stream" });
    };
    return startStreamHub({
      appId: request.appId,
      clock,
      log,
      ...appConnection(app, { store, baseUrl: options.baseUrl, clock, base }),
      wants: request.wants,
      mentionBots: request.mentionBots,
      budgeted,
      onConnected: request.onConnected,
      onInterrupted: request.onInterrupted,
      resume: request.resume,
      onMark: request.onMark,
      connectionFreed: request.connectionFreed,
      onCaughtUp: request.onCaughtUp,
      settles: request.settles,
      onOverflow: (overflow) =>
        log.error(
          { bots: overflow.length },
          `the app's rule cap leaves ${overflow.length} bots without a mention rule; with the state in Redis they are not polled instead: give them an app of their own`,
        ),
      onStatus: reportStream(options.observer, request.appId, clock),
    });
  }

  /** The credentials of app `appId`, from the first bot of the fleet on it (not a copy of the whole fleet to search). */
  private appNamed(appId: string): HostedBot["app"] {
    for (const hosted of this.byName.values()) if (hosted.app.id === appId) return hosted.app;
    throw new Error(`no bot of app ${appId} in the fleet`);
  }

  /** Keeps bot `name` among the bots running here on app `appId` (undefined: none, it stopped). */
  private runs(name: string, appId: string | undefined): void {
    const before = this.runningApp.get(name);
    if (before === appId) return;
    if (before !== undefined) {
      const bots = this.running.get(before)!;
      bots.delete(name);
      if (bots.size === 0) this.running.delete(before);
      this.runningApp.delete(name);
    }
    if (appId === undefined) return;
    this.runningApp.set(name, appId);
    let bots = this.running.get(appId);
    if (!bots) this.running.set(appId, (bots = new Set()));
    bots.add(name);
  }

  /**
   * The action layer of a bot of the app running here, the first found: not a copy of every
   * layer to search (a request of the hub's each, 25,000 layers at 100,000 accounts over four
   * processes; a gap search after a take-over sends hundreds of them).
   */
  private layerOf(appId: string, layers: ReadonlyMap<string, ActionLayer>): ActionLayer | undefined {
    for (const [name, layer] of layers) if (this.appOf.get(name) === appId) return layer;
    return undefined;
  }

  /** An entry of the handoff to its bot here: said handled (and so acknowledged) once it is. */
  private hand({ bot: name, entry, handled, failed }: HandedEntry): void {
    const bot = this.deps.bots.get(name);
    // Not running here (any more): left unacknowledged for the process that runs it.
    if (!bot) return;
    const handling =
      entry.kind === "post" ? bot.deliverHandled(entry.events) : bot.mentions.acceptHandled(entry.events);
    handling.then(handled, failed);
  }

  /** The app's hub (in whichever process) connected or was interrupted: its streamed bots here follow. */
  private onControl(appId: string, what: HandoffControl): void {
    const { bots } = this.deps;
    const names: string[] = [];
    for (const name of this.running.get(appId) ?? [])
      if (bots.has(name) && this.appOf.get(name) === appId && this.streamedMentions(name)) names.push(name);
    for (const name of names) {
      bots.get(name)?.mentions.stream(what === "connected");
      bots.get(name)?.touch("mentions");
    }
    if (what === "connected") this.queueOf(appId).request(names);
  }

  apps(): AppStatus[] {
    const here = new Map<string, { plan: HostedBot["app"]["plan"]; bots: number }>();
    for (const name of this.deps.bots.keys()) {
      const app = this.byName.get(name)?.app;
      if (!app) continue;
      const seen = here.get(app.id);
      if (seen) seen.bots++;
      else here.set(app.id, { plan: app.plan, bots: 1 });
    }
    return [...here].map(([appId, { plan, bots: count }]) => {
      if (!this.capacity.has(appId)) this.capacity.set(appId, this.deps.capacity(appId));
      const stream = this.streams.status(appId);
      const queue = this.queues.get(appId);
      return {
        appId,
        plan,
        bots: count,
        capacity: this.capacity.get(appId)!,
        ...(stream ? { stream } : {}),
        ...(queue ? { catchUp: { ...queue.pending(), done: queue.done } } : {}),
        updatedAt: this.deps.options.clock.now(),
      };
    });
  }

  async host(hosted: HostedBot, bot: BotRuntime): Promise<void> {
    const name = hosted.config.name;
    this.runs(name, hosted.app.id);
    const identity = { id: bot.identity.userId, username: bot.identity.username };
    const state = await this.streams.host(name, this.entryOf(hosted, identity));
    if (!this.streamedMentions(name)) return;
    bot.mentions.stream(state === "connected");
    this.queueOf(hosted.app.id).request([name]);
  }

  unhost(name: string): void {
    this.runs(name, undefined);
    this.streams.unhost(name);
  }

  register(hosted: FleetBot): void {
    const name = hosted.config.name;
    const before = this.appOf.get(name);
    this.appOf.set(name, hosted.app.id);
    this.capacity.delete(hosted.app.id);
    if (before) this.capacity.delete(before);
  }

  async forget(hosted: FleetBot): Promise<void> {
    const name = hosted.config.name;
    this.runs(name, undefined);
    this.appOf.delete(name);
    this.capacity.delete(hosted.app.id);
    await this.streams.forget(name, hosted.app.id);
  }

  streamed(appId: string, postId: string): boolean {
    return this.streams.has(appId, postId);
  }

  // Catch-up polls are the bots' own (BotRuntime.quiet counts them).
  busy(): string[] {
    return this.streams.busy();
  }

  async saveStatus(ttlMs: number): Promise<void> {
    if (this.parts.stopping) return;
    await this.parts.publish(this.apps(), ttlMs);
  }

  async close(): Promise<void> {
    this.parts.close();
    for (const queue of this.queues.values()) queue.close();
    await this.streams.close();
    await this.parts.withdraw();
  }
}
