/**
 * The apps of a process that runs its bots alone: per app, the capacity lines (logged at
 * start, and again with what changed when the app's bots change), the one stream connection
 * (when a bot has rules, or takes its mentions through it) and the catch-up polls of
 * streamed mentions; what the stream routes, the runtime takes into the bots
 * (../runtime/mentions-feed.ts `takeStreamed`). With the state in Redis, the same is spread
 * over the processes by ./shared-apps.ts.
 *
 * The bots of an app may change while it runs (the live fleet): a bot added, changed or
 * removed changes the app's rules by the smallest step while its stream stays connected
 * ({@link StreamHub.update}); the other bots notice nothing. An app's stream starts when its
 * first bot wanting one arrives and closes when its last one leaves.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Logger } from "../log.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import { takeStreamed } from "../runtime/mentions-feed.ts";
import type { AppStatus } from "../runtime/types.ts";
import type { CatchUpQueue } from "../triggers/catch-up.ts";
import { startStreamHub, type StreamHub } from "../triggers/stream-hub.ts";
import { storeMarks, type StreamMarks } from "../triggers/stream/marks.ts";
import type { MentionBot } from "../triggers/stream/routing.ts";
import type { BotRules } from "../triggers/stream/rules.ts";
import type { Budgeted } from "../triggers/stream/search.ts";
import type { StreamStatus } from "../triggers/stream/status.ts";
import { appConnection, catchUpQueue, reportStream } from "./app-hub.ts";
import { capacityChanges, capacityLines, LoadTally, type AppLoad } from "./capacity.ts";
import { mentionsVia } from "./trigger-plan.ts";
import type { AppCredentials, HostedBot, RuntimeOptions } from "./types.ts";

/** The apps of a process: their hubs (tests and `idle` look at them), catch-up queues and status. */
export interface Apps {
  hubs: Map<string, StreamHub>;
  queues: Map<string, CatchUpQueue>;
  apps(): AppStatus[];
  /** A bot started running here (after `bot.start()`): its app's stream and capacity follow. */
  add(hosted: HostedBot): Promise<void>;
  /** A running bot was restarted with a new configuration (`after`, already started). */
  replace(before: HostedBot, after: HostedBot): Promise<void>;
  /** A bot stopped for good: its rules leave the app's stream. */
  remove(hosted: HostedBot): Promise<void>;
  /**
   * Resolves once the rule changes of the bots added, replaced and removed so far went
   * through: those calls resolve before (a change may wait for the app's window of rule changes).
   */
  rulesSettled(): Promise<void>;
  /** Saves each stream's mark as it is now (with the status, every few seconds: how long the stream is known connected). */
  saveMarks(): void;
}

/** What the apps are started with. */
interface AppDeps {
  options: RuntimeOptions;
  bots: ReadonlyMap<string, BotRuntime>;
  layers: ReadonlyMap<string, ActionLayer>;
  base: ApiClient;
  logger: Logger;
}

/** One app as this process runs it. */
interface App {
  app: AppCredentials;
  /** Its bots running here, by name, in the order they came. */
  bots: Map<string, HostedBot>;
  /**
   * What each of them wants of the stream (see {@link ProcessApps.wants}), kept as they come
   * and go: a change of one bot of 10,000 does not ask each of the others again.
   */
  wants: Map<string, { rules?: BotRules; mentions?: MentionBot }>;
  /** What they ask of the app, counted as they come and go. */
  tally: LoadTally;
  capacity: string[];
  /** What the capacity lines were made of, to say what changed. */
  load?: AppLoad;
  log: Logger;
}

/** Starts every app of the bots running here; see the module comment. */
export function startApps(deps: AppDeps): Apps {
  return new ProcessApps(deps);
}

const wantsStream = (h: HostedBot) => h.config.triggers.stream.length > 0 || mentionsVia(h) === "stream";

/** Whether a bot of the app wants its stream (the first one found says so). */
function anyWantsStream(app: App): boolean {
  for (const h of app.bots.values()) if (wantsStream(h)) return true;
  return false;
}

/** The action layer of the app's first bot running here: the stream's requests are budgeted through it. */
function firstLayer(app: App, layers: ReadonlyMap<string, ActionLayer>): ActionLayer | undefined {
  for (const name of app.bots.keys()) {
    const layer = layers.get(name);
    if (layer) return layer;
  }
  return undefined;
}

/**
 * Whether each status a hub reports moved its state or its connection count. The stream says
 * it is there when it connects or tries again, not when its rules change: each fleet change
 * does that, and a pass over all the app's bots each time held up the others' mentions.
 */
function stateMoves(): (s: StreamStatus) => boolean {
  let seen: Pick<StreamStatus, "state" | "connects" | "reconnects"> = { state: "starting", connects: 0, reconnects: 0 };
  return (s) => {
    const moved = s.state !== seen.state || s.connects !== seen.connects || s.reconnects !== seen.reconnects;
    seen = s;
    return moved;
  };
}

class ProcessApps implements Apps {
  readonly hubs = new Map<string, StreamHub>();
  readonly queues = new Map<string, CatchUpQueue>();
  private readonly byApp = new Map<string, App>();
  /** Where each app's stream left off, in the state store (set with the events of each post it delivers). */
  private readonly marks: StreamMarks;
  /**
   * The rule changes of fleet changes, until the service has them. An app may change its rules
   * 100 times per 15 minutes: past that a change waits for the window, and the fleet's next
   * change (a bot paused, an account connecting) must not wait behind it. Changes waiting
   * together go out as one request (the hub sends what is wanted when its turn comes).
   */
  private readonly rulesInFlight = new Set<Promise<void>>();

  constructor(private readonly deps: AppDeps) {
    this.marks = storeMarks(deps.options.store);
    for (const hosted of deps.options.bots) {
      if (!deps.bots.has(hosted.config.name)) continue;
      this.place(this.appOf(hosted), hosted);
    }
    for (const [appId, app] of this.byApp) {
      app.load = app.tally.load();
      app.capacity = capacityLines(app.load);
      for (const line of app.capacity) app.log.info({ capacity: true, plan: app.app.plan }, line);
      if (anyWantsStream(app)) this.startStream(appId, app);
    }
  }

  /** A bot comes to its app here (or its new configuration): its wants are asked once. */
  private place(app: App, hosted: HostedBot): void {
    const name = hosted.config.name;
    const before = app.bots.get(name);
    if (before) app.tally.add(before, -1);
    app.tally.add(hosted);
    app.bots.set(name, hosted);
    const bot = this.deps.bots.get(name);
    if (!bot) {
      app.wants.delete(name);
      return;
    }
    const { userId, username } = bot.identity;
    app.wants.set(name, {
      ...(hosted.config.triggers.stream.length > 0
        ? { rules: { bot: name, userId, rules: hosted.config.triggers.stream } }
        : {}),
      ...(mentionsVia(hosted) === "stream" ? { mentions: { bot: name, userId, username } } : {}),
    });
  }

  private appOf(hosted: HostedBot): App {
    let app = this.byApp.get(hosted.app.id);
    if (!app) {
      app = {
        app: hosted.app,
        bots: new Map(),
        wants: new Map(),
        tally: new LoadTally(hosted.app),
        capacity: [],
        log: this.deps.logger.child({ app: hosted.app.id }),
      };
      this.byApp.set(hosted.app.id, app);
    }
    return app;
  }

  apps(): AppStatus[] {
    return [...this.byApp].map(([appId, app]) => {
      const hub = this.hubs.get(appId);
      const queue = this.queues.get(appId);
      return {
        appId,
        plan: app.app.plan,
        bots: app.bots.size,
        capacity: app.capacity,
        ...(hub ? { stream: hub.status() } : {}),
        ...(queue ? { catchUp: { ...queue.pending(), done: queue.done } } : {}),
        updatedAt: this.deps.options.clock.now(),
      };
    });
  }

  async add(hosted: HostedBot): Promise<void> {
    const app = this.appOf(hosted);
    this.place(app, hosted);
    this.recount(hosted.app.id, app);
    await this.follow(hosted.app.id, app, hosted, true);
  }

  async replace(before: HostedBot, after: HostedBot): Promise<void> {
    if (before.app.id !== after.app.id) {
      await this.remove(before);
      await this.add(after);
      return;
    }
    const app = this.appOf(after);
    this.place(app, after);
    this.recount(after.app.id, app);
    await this.follow(after.app.id, app, after, false);
  }

  async remove(hosted: HostedBot): Promise<void> {
    const appId = hosted.app.id;
    const app = this.byApp.get(appId);
    const gone = app?.bots.get(hosted.config.name);
    if (!app || !gone) return;
    app.bots.delete(hosted.config.name);
    app.tally.add(gone, -1);
    app.wants.delete(hosted.config.name);
    this.recount(appId, app);
    const hub = this.hubs.get(appId);
    if (hub && !anyWantsStream(app)) {
      // No bot of the app wants its stream any more: its rules go, then the connection.
      await hub.update([], []);
      this.stopStream(appId);
      app.log.info(`stream of app ${appId}: no bot of the app wants it any more; closed`);
    } else if (hub) this.afterRules(app, hub.update(...this.wants(app)));
    if (app.bots.size === 0) this.byApp.delete(appId);
  }

  /** Runs `then` once the rule change went through, without holding up the fleet change that made it. */
  private afterRules(app: App, change: Promise<void>, then: () => void = () => {}): void {
    const done: Promise<void> = change
      .then(then)
      .catch((err: unknown) =>
        app.log.warn(
          { err: (err as Error)?.message },
          `stream rules: a fleet change's rules could not be followed up (${(err as Error)?.message ?? String(err)})`,
        ),
      )
      .finally(() => this.rulesInFlight.delete(done));
    this.rulesInFlight.add(done);
  }

  async rulesSettled(): Promise<void> {
    // A follow-up may start another change (a backfill does not; a rules change is awaited by then).
    while (this.rulesInFlight.size > 0) await Promise.all([...this.rulesInFlight]);
  }

  /** The app's capacity after its bots changed: the lines that changed are logged. */
  private recount(appId: string, app: App): void {
    const load = app.tally.load();
    for (const line of capacityChanges(app.load, load))
      app.log.info({ capacity: true, plan: app.app.plan, app: appId }, line);
    app.load = load;
    app.capacity = capacityLines(load);
  }

  /**
   * The app's stream after one of its bots came or changed: started when it is the first to
   * want it, else told the new wants. Once the service has the bot's rules, its mentions
   * trigger learns whether the stream is connected; a bot restarted in sync with the stream
   * (it took its predecessor's state) needs nothing more. Otherwise one catch-up poll closes
   * what came before the rules did, and a bot new to the stream (`fresh`) gets what mentioned
   * it before its rule was in at once, by a search ({@link StreamHub.backfill}): its catch-up
   * poll may wait long behind those of thousands of bots in the app's window.
   */
  private async follow(appId: string, app: App, hosted: HostedBot, fresh: boolean): Promise<void> {
    const name = hosted.config.name;
    const hub = this.hubs.get(appId);
    if (!hub) {
      if (wantsStream(hosted)) this.startStream(appId, app);
      return;
    }
    this.afterRules(app, hub.update(...this.wants(app)), () => this.joined(appId, app, hub, hosted, fresh));
  }

  /** {@link follow}, once the service has the bot's rules. */
  private joined(appId: string, app: App, hub: StreamHub, hosted: HostedBot, fresh: boolean): void {
    const name = hosted.config.name;
    if (this.hubs.get(appId) !== hub || app.bots.get(name) !== hosted) return; // gone or changed meanwhile
    const mentions = hosted.config.triggers.mentions;
    if (mentionsVia(hosted) !== "stream" || !mentions) return;
    const bot = this.deps.bots.get(name);
    if (!bot || bot.mentions.synced) return;
    const connected = hub.status().state === "connected";
    bot.mentions.stream(connected);
    if (fresh && connected)
      hub
        .backfill([name], this.deps.options.clock.now() - mentions.backfill)
        .catch((err: unknown) =>
          app.log.warn(
            { bot: name, err: (err as Error)?.message },
            `bot ${name}: could not search for what mentioned it before its stream rule was in (${(err as Error)?.message ?? String(err)}); its catch-up poll brings it`,
          ),
        );
    this.queues.get(appId)?.request([name]);
  }

  /** What the app's bots running here want of its stream: their own rules, and their mentions. */
  private wants(app: App): [BotRules[], MentionBot[]] {
    const { bots } = this.deps;
    const wants: BotRules[] = [];
    const mentionBots: MentionBot[] = [];
    for (const [name, want] of app.wants) {
      if (!bots.has(name)) continue; // stopping (its rules go with it)
      if (want.rules) wants.push(want.rules);
      if (want.mentions) mentionBots.push(want.mentions);
    }
    return [wants, mentionBots];
  }

  saveMarks(): void {
    for (const [appId, hub] of this.hubs) {
      const mark = hub.mark();
      if (mark) this.marks.save(appId, mark);
    }
  }

  private stopStream(appId: string): void {
    this.hubs.get(appId)?.close();
    this.queues.get(appId)?.close();
    this.hubs.delete(appId);
    this.queues.delete(appId);
  }

  /**
   * An app's stream connection: its requests budgeted through a bot of the app, its posts
   * delivered to the bots, and one catch-up poll per streamed bot once connected (or at
   * once, if the first attempt fails) and after every reconnect. Where it left off is kept in
   * the state store, set with the events of each post it delivers: the next start (or the
   * app's next stream, here) closes the gap since then.
   */
  private startStream(appId: string, app: App): void {
    const { options, bots } = this.deps;
    // While a request of the hub is with the action layer, the layer's own accounting says
    // whether it waits for the clock; the hub counts as busy only outside them.
    let inLayer = 0;
    const budgeted: Budgeted = async (endpoint, run) => {
      const layer = firstLayer(app, this.deps.layers);
      if (!layer) return (await run(new AbortController().signal)).result;
      inLayer++;
      try {
        return await layer.read(endpoint, run, { label: "stream" });
      } finally {
        inLayer--;
      }
    };
    const queue = catchUpQueue(bots, this.deps.logger);
    const streamedNames = () =>
      [...app.bots.values()].filter((h) => mentionsVia(h) === "stream").map((h) => h.config.name);
    // One poll each closes what came while the process was down: once connected (so that
    // streamed posts and the poll's meet), or at once if the first attempt fails.
    let polledOnce = false;
    const touchAll = () => {
      for (const h of app.bots.values()) {
        const bot = bots.get(h.config.name);
        if (h.config.triggers.stream.length > 0) bot?.touch("stream");
        if (mentionsVia(h) === "stream") bot?.touch("mentions");
      }
    };
    const report = reportStream(options.observer, appId, options.clock);
    const moved = stateMoves();
    const [wants, mentionBots] = this.wants(app);
    const hub = startStreamHub({
      appId,
      clock: options.clock,
      log: app.log.child({ trigger: "stream" }),
      ...appConnection(app.app, {
        store: options.store,
        baseUrl: options.baseUrl,
        clock: options.clock,
        base: this.deps.base,
      }),
      wants,
      mentionBots,
      budgeted,
      resume: () => this.marks.read(appId),
      onMark: (mark) => this.marks.save(appId, mark),
      onConnected: () => {
        const names = streamedNames();
        for (const name of names) bots.get(name)?.mentions.stream(true);
        polledOnce = true;
        queue.request(names);
        touchAll();
      },
      onInterrupted: () => {
        for (const name of streamedNames()) bots.get(name)?.mentions.stream(false);
      },
      onOverflow: (overflow) => {
        for (const name of overflow) bots.get(name)?.mentions.pollInstead();
      },
      onStatus: (s) => {
        if (moved(s) && (s.state === "connected" || s.state === "reconnecting")) touchAll();
        report(s);
        if (s.state === "reconnecting" && !polledOnce) {
          polledOnce = true;
          queue.request(streamedNames());
        }
      },
    });
    // The runtime takes what the hub routed into the running bots, as they are when it comes.
    void takeStreamed(hub, bots, app.log.child({ trigger: "stream" }));
    this.queues.set(appId, queue);
    this.hubs.set(appId, { ...hub, busy: () => inLayer === 0 && hub.busy() });
  }
}
