/**
 * One hosted bot: its plugins' handlers, its inbox, its polling and schedule triggers, and
 * the liveness figures `bot status` shows (the age of the last event of each trigger catches
 * a silent wedge). The runtime creates one per bot file and feeds stream events to it.
 */
import type { ActionLayer, BudgetStatus, HeaderBag } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { EndpointKey } from "../api/endpoints.ts";
import type { Clock } from "../clock.ts";
import type { BotConfig } from "../config/index.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { startFollowersTrigger } from "../triggers/followers.ts";
import { MentionsTrigger } from "../triggers/mentions.ts";
import type { PollLoop } from "../triggers/poller.ts";
import { startSchedule, type ScheduleHandle } from "../triggers/schedule.ts";
import { botStore, budgetView, createContext, viewFor } from "../plugins/context.ts";
import { dispatch, type DispatchOptions, type HandlerEntry } from "../plugins/dispatcher.ts";
import { TRIGGER_OF, type BotEvent, type TriggerName } from "../triggers/events.ts";
import { Inbox } from "./inbox.ts";
import type { BotIdentity, BotStatus, TriggerStatus } from "./types.ts";
import type { BotStore, BudgetView, EventName, Filter, Handler, PluginBot } from "../plugins/plugin.ts";

export type { TriggerName };

export interface BotRuntimeOptions {
  config: BotConfig;
  appId: string;
  enrolmentDay?: number;
  identity: BotIdentity;
  api: ApiClient;
  layer: ActionLayer;
  store: Store;
  clock: Clock;
  log: Logger;
  /** How long a handler may run before it is abandoned (not counting waits for the budget). */
  handlerTimeoutMs: number;
  /** Mentions poll interval: the bot file's, or the fastest its plan allows. */
  mentionsIntervalMs: number;
  /**
   * How mentions arrive: polled at the interval, or through the app's stream (the runtime
   * then feeds {@link BotRuntime.acceptMentions} and asks for {@link BotRuntime.catchUpMentions}).
   */
  mentionsVia?: "poll" | "stream";
  /** Followers poll interval. */
  followersIntervalMs: number;
  /** Events handled at once (their actions still queue by priority). */
  concurrency?: number;
  /** An event has been handled (`bot start --http` counts them). */
  onHandled?(kind: BotEvent["kind"]): void;
}

/** An event's loggers, each made when first used. */
interface EventLogs {
  log(): Logger;
  pluginLog(plugin: string): Logger;
}

export class BotRuntime {
  readonly name: string;
  readonly identity: BotIdentity;
  readonly inbox: Inbox;
  private readonly handlers = new Map<EventName, Array<HandlerEntry<never>>>();
  private readonly filters = new Map<EventName, Array<HandlerEntry<never>>>();
  /** Each plugin's logger (naming the bot and the plugin), made once at setup. */
  private readonly pluginLogs = new Map<string, Logger>();
  /** What every event's context shares: the bot's key-value store and budget view. */
  private readonly kv: BotStore;
  private readonly budgetView: BudgetView;
  private readonly triggers: Array<PollLoop | ScheduleHandle> = [];
  private readonly running = new Map<string, Promise<void>>();
  /** Events waiting to be handled, oldest first: the inbox's content, kept in memory. */
  private readonly waiting: BotEvent[] = [];
  /** Who waits for an event to be handled (a schedule run spans its event's handling). */
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly states = new Map<string, { waiting: number }>();
  /** Polls whose request is on its way (or waiting for the budget). */
  private fetching = 0;
  private readonly liveness: Partial<Record<TriggerName, TriggerStatus>> = {};
  private pausedFor: BotStatus["paused"];
  private stopped = false;
  /** The mentions trigger, when the bot file has one. */
  private mentions: MentionsTrigger | undefined;
  /** Catch-up polls of streamed mentions under way. */
  private catchingUp = 0;

  constructor(private readonly options: BotRuntimeOptions) {
    this.name = options.config.name;
    this.identity = options.identity;
    this.inbox = new Inbox(options.store, this.name);
    this.kv = botStore(options.store, this.name);
    this.budgetView = budgetView(options.layer);
  }

  /** Runs every plugin's setup, in the order of the bot file. */
  async setup(): Promise<void> {
    for (const plugin of this.options.config.plugins) {
      const log = this.options.log.child({ plugin: plugin.name });
      this.pluginLogs.set(plugin.name, log);
      const register = (table: Map<EventName, Array<HandlerEntry<never>>>) => (event: EventName, fn: unknown) => {
        if (!(event in TRIGGER_OF))
          throw new Error(
            `plugin ${plugin.name}: there is no event "${event}"; events are ${Object.keys(TRIGGER_OF).join(", ")}`,
          );
        const list = table.get(event) ?? [];
        list.push({ plugin: plugin.name, handler: fn as (ctx: never) => unknown });
        table.set(event, list);
      };
      const bot: PluginBot = {
        name: this.name,
        identity: this.identity,
        log,
        store: this.kv,
        on: register(this.handlers) as <E extends EventName>(event: E, handler: Handler<E>) => void,
        filter: register(this.filters) as <E extends EventName>(event: E, check: Filter<E>) => void,
      };
      await (plugin.definition.setup as (bot: PluginBot, options: unknown) => unknown)(bot, plugin.options);
    }
  }

  /** The events some plugin of this bot handles or filters. */
  handles(event: EventName): boolean {
    return (this.handlers.get(event)?.length ?? 0) > 0 || (this.filters.get(event)?.length ?? 0) > 0;
  }

  /**
   * How the bot's mentions reach it, when its file has a mentions trigger: through the app's
   * stream, or polled every `everyMs`. `bot say --wait` waits that long for an answer.
   */
  mentionsDelivery(): { via: "poll" | "stream"; everyMs: number } | undefined {
    if (!this.options.config.triggers.mentions) return undefined;
    return { via: this.options.mentionsVia ?? "poll", everyMs: this.options.mentionsIntervalMs };
  }

  /** Starts the polling and schedule triggers of the bot file; handles what the inbox kept. */
  start(): void {
    const { config, clock, store, api } = this.options;
    const userId = this.identity.userId;
    const onError = (trigger: TriggerName) => (err: unknown) => {
      // A refused token has paused the bot already (the action layer reports it): stop polling.
      if (this.pausedFor) return "stop" as const;
      this.options.log.warn(
        { trigger, err },
        `${trigger} poll failed: ${(err as Error)?.message ?? String(err)}; trying again at the next interval`,
      );
    };
    const mentions = config.triggers.mentions;
    if (mentions) {
      this.mentions = new MentionsTrigger({
        bot: this.name,
        userId,
        clock,
        store,
        intervalMs: this.options.mentionsIntervalMs,
        backfillMs: mentions.backfill,
        fetch: (query, signal) =>
          this.read("GET /2/users/:id/mentions", "mentions poll", signal, (s) =>
            api.exchange("GET /2/users/:id/mentions", { params: { id: userId }, query }, { signal: s }),
          ),
        deliver: (events) => this.deliver(events, false),
        onPoll: () => this.touch("mentions"),
        onError: onError("mentions"),
        onCursorReset: (reason) =>
          this.options.log.warn(
            { trigger: "mentions" },
            `${reason}; dropped it and reading the mentions of the last ${Math.round(mentions.backfill / 60_000)} min instead`,
          ),
      });
      if (this.options.mentionsVia !== "stream") this.triggers.push(this.mentions.startPolling());
    }
    if (config.triggers.followers) {
      this.triggers.push(
        startFollowersTrigger({
          bot: this.name,
          clock,
          store,
          intervalMs: this.options.followersIntervalMs,
          fetch: (query, signal) =>
            this.read("GET /2/users/:id/followers", "followers poll", signal, (s) =>
              api.exchange("GET /2/users/:id/followers", { params: { id: userId }, query }, { signal: s }),
            ),
          deliver: (events) => this.deliver(events, false),
          onPoll: () => this.touch("followers"),
          onError: onError("followers"),
        }),
      );
    }
    for (const schedule of config.triggers.schedule) {
      this.triggers.push(
        startSchedule(schedule, {
          clock,
          run: async (at) => {
            const event: BotEvent = {
              kind: "schedule",
              id: `schedule:${schedule.name}:${at}`,
              schedule: { name: schedule.name, cron: schedule.cron, at },
            };
            const handled = this.handled(event.id);
            this.deliver([event]);
            await handled;
          },
          onSkip: (at) =>
            this.options.log.warn(
              { schedule: schedule.name, at: new Date(at).toISOString() },
              `schedule ${schedule.name}: the previous run is still going; skipping this one`,
            ),
          onError: (err) =>
            this.options.log.error({ schedule: schedule.name, err }, `schedule ${schedule.name} failed`),
        }),
      );
    }
    // What an earlier run fetched but did not finish handling comes first.
    const queued = new Set(this.waiting.map((e) => e.id));
    this.waiting.unshift(...this.inbox.pending().filter((e) => !queued.has(e.id)));
    this.pump();
  }

  /** Puts events in the inbox (flushing unless the caller flushes with its cursor) and handles them. */
  deliver(events: readonly BotEvent[], flush = true): void {
    if (events.length === 0) return;
    const { added, dropped } = this.inbox.add(events);
    this.waiting.push(...added);
    if (dropped.length > 0) {
      const gone = new Set(dropped);
      this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((e) => !gone.has(e.id)));
      this.options.log.warn(
        { dropped: dropped.length },
        `inbox full: dropped the ${dropped.length} oldest unhandled events`,
      );
    }
    if (flush)
      void this.options.store
        .flush()
        .catch((err: unknown) => this.options.log.error({ err }, "could not save the inbox"));
    for (const e of events) this.touch(TRIGGER_OF[e.kind], true);
    queueMicrotask(() => this.pump());
  }

  /**
   * One catch-up poll of mentions that come through the stream (at start and after a
   * reconnect). Resolves when its events are in the inbox.
   */
  async catchUpMentions(signal: AbortSignal): Promise<void> {
    if (!this.mentions || this.stopped || this.pausedFor) return;
    this.catchingUp++;
    try {
      await this.mentions.poll(signal);
    } catch (err) {
      // A refused token has paused the bot already (the action layer reports it).
      if (!this.pausedFor) throw err;
    } finally {
      this.catchingUp--;
    }
  }

  /** Mentions the app's stream delivered: each handed out once, whether streamed or polled first. */
  acceptMentions(events: readonly BotEvent[]): void {
    if (!this.mentions || this.stopped) return;
    void this.mentions
      .accept(events)
      .catch((err: unknown) => this.options.log.error({ err }, "could not save streamed mentions"));
  }

  /**
   * Events handed over from another process (the stream handoff, src/redis/stream-handoff.ts):
   * resolves once each has been handled here, so the handoff acknowledges it only then. While
   * the bot is stopped or paused it never resolves: the entry stays unacknowledged and goes to
   * whichever process runs the bot next.
   */
  async deliverHandled(events: readonly BotEvent[]): Promise<void> {
    if (this.stopped || this.pausedFor) return new Promise<void>(() => {});
    const done = events.map((e) => this.handled(e.id));
    this.deliver(events);
    await Promise.all(done);
  }

  /**
   * {@link acceptMentions} for handed-over mentions: resolves once those the trigger took
   * (not seen before) have been handled; those it had already are done at once.
   */
  async acceptMentionsHandled(events: readonly BotEvent[]): Promise<void> {
    if (!this.mentions) return;
    if (this.stopped || this.pausedFor) return new Promise<void>(() => {});
    const done = new Map(events.map((e) => [e.id, this.handled(e.id)]));
    await this.mentions.accept(events);
    const waits: Array<Promise<void>> = [];
    for (const e of events) {
      if (this.inbox.has(e.id) || this.running.has(e.id)) waits.push(done.get(e.id)!);
      else this.waiters.delete(e.id);
    }
    await Promise.all(waits);
  }

  /** The app's stream connected or dropped (streamed mentions wait for a catch-up poll after a drop). */
  mentionsStream(connected: boolean): void {
    if (connected) this.mentions?.streamConnected();
    else this.mentions?.streamInterrupted();
  }

  /** The stream cannot carry this bot's mentions (the app's rule cap): poll them instead. */
  pollMentionsInstead(): void {
    if (this.mentions && !this.stopped && !this.pausedFor) this.triggers.push(this.mentions.startPolling());
  }

  /** Records liveness: a check of a trigger, or an event from it. */
  touch(trigger: TriggerName, event = false): void {
    const s = (this.liveness[trigger] ??= { events: 0 });
    const now = this.options.clock.now();
    s.lastCheckAt = now;
    if (event) {
      s.lastEventAt = now;
      s.events++;
    }
  }

  /** Starts handling waiting events, up to the concurrency. */
  private pump(): void {
    if (this.stopped || this.pausedFor) return;
    const max = this.options.concurrency ?? 8;
    while (this.running.size < max && this.waiting.length > 0) {
      const event = this.waiting.shift()!;
      const run = this.handle(event).finally(() => {
        this.running.delete(event.id);
        this.pump();
      });
      this.running.set(event.id, run);
    }
  }

  private async handle(event: BotEvent): Promise<void> {
    const handlers = this.handlers.get(event.kind);
    const filterEntries = this.filters.get(event.kind);
    // Filters run whether or not a handler follows: a filter may act (moderation hides a reply).
    if (handlers?.length || filterEntries?.length) {
      // Loggers are made on first use: most events log nothing. (Methods rather than named
      // arrows here and in context.ts: tsx names each arrow with a defineProperty per event.)
      const bindings = { event: event.kind, ...("post" in event ? { post: event.post.id } : {}) };
      let log: Logger | undefined;
      const logger = this.options.log;
      const pluginLogs = this.pluginLogs;
      const made: EventLogs = {
        log() {
          return (log ??= logger.child(bindings));
        },
        pluginLog(plugin) {
          return (pluginLogs.get(plugin) ?? logger.child({ plugin })).child(bindings);
        },
      };
      // One plugin alone on the event (the usual bot): its context's logger names it, and it
      // needs no view of its own.
      const lone = !filterEntries?.length && handlers?.length === 1 ? handlers[0]!.plugin : undefined;
      const contextLog = lone === undefined ? made.log : () => made.pluginLog(lone);
      const { ctx, state } = createContext(
        {
          identity: this.identity,
          api: this.options.api,
          layer: this.options.layer,
          kv: this.kv,
          budget: this.budgetView,
          log: contextLog,
        },
        event,
      );
      this.states.set(event.id, state);
      let blocked = false;
      if (filterEntries?.length) {
        const filters = this.views<typeof ctx>(filterEntries, made).map(({ plugin, handler }) => ({
          plugin,
          async handler(c: typeof ctx) {
            if ((await handler(c)) === false) blocked = true;
          },
        }));
        await dispatch(
          filters,
          ctx,
          this.dispatchOptions(state, made, () => blocked),
        );
      }
      if (blocked) made.log().info(`stopped by a filter; no handler runs`);
      else if (!handlers?.length) {
        if (this.options.log.isLevelEnabled("debug")) made.log().debug("no plugin handles this event");
      }
      // After a handler hid the event's post, no later plugin answers it.
      else {
        const entries =
          lone === undefined ? this.views<typeof ctx>(handlers, made) : (handlers as Array<HandlerEntry<typeof ctx>>);
        await dispatch(
          entries,
          ctx,
          this.dispatchOptions(state, made, () => "hidden" in ctx && ctx.hidden),
        );
      }
    }
    this.states.delete(event.id);
    this.inbox.done(event.id);
    this.options.onHandled?.(event.kind);
    for (const wake of this.waiters.get(event.id) ?? []) wake();
    this.waiters.delete(event.id);
  }

  /** The handlers as each plugin sees the context: through a view naming the plugin in its logs. */
  private views<C extends object>(entries: Array<HandlerEntry<never>>, made: EventLogs): Array<HandlerEntry<C>> {
    return entries.map(({ plugin, handler }) => ({
      plugin,
      handler(c: C) {
        return (handler as (c: unknown) => unknown)(viewFor(c, () => made.pluginLog(plugin)));
      },
    }));
  }

  private dispatchOptions<C>(state: { waiting: number }, made: EventLogs, stop: (c: C) => boolean): DispatchOptions<C> {
    return {
      clock: this.options.clock,
      get log() {
        return made.log();
      },
      timeoutMs: this.options.handlerTimeoutMs,
      busy() {
        return state.waiting > 0;
      },
      stop,
    };
  }

  /** Resolves once the event has been handled (it may be waiting behind others). */
  private handled(id: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]));
  }

  /**
   * A trigger's request, budgeted by the action layer (the answer's headers correct the
   * budget) and counted for {@link quiet}.
   */
  private async read<R>(
    endpoint: EndpointKey,
    label: string,
    signal: AbortSignal,
    exchange: (signal: AbortSignal) => Promise<{ body: R; headers: HeaderBag }>,
  ): Promise<R> {
    this.fetching++;
    try {
      return await this.options.layer.read(
        endpoint,
        async (s) => {
          const { body, headers } = await exchange(s);
          return { result: body, headers };
        },
        { signal, label },
      );
    } finally {
      this.fetching--;
    }
  }

  /**
   * Whether the bot can make no progress until the clock moves: every event being handled is
   * waiting for an action, and every poll in progress is waiting for its (budgeted) request.
   */
  quiet(): boolean {
    for (const id of this.running.keys()) if ((this.states.get(id)?.waiting ?? 0) === 0) return false;
    const polling = this.triggers.filter((t) => "current" in t && t.current() !== undefined).length + this.catchingUp;
    return polling === this.fetching;
  }

  /** Stops the triggers; events being handled go on (see {@link drain}). */
  stopTriggers(): void {
    for (const t of this.triggers.splice(0)) t.stop();
  }

  /** Stops taking events and waits up to `timeoutMs` for those being handled. */
  async drain(timeoutMs: number): Promise<void> {
    this.stopped = true;
    this.stopTriggers();
    const cancel = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.running.values()]),
      this.options.clock.sleep(timeoutMs, cancel.signal).catch(() => {}),
    ]);
    cancel.abort();
  }

  /** Pauses the bot: its triggers stop and its events wait in the inbox. */
  pause(reason: string): void {
    this.pausedFor = { reason, at: this.options.clock.now() };
    this.stopTriggers();
  }

  get paused(): BotStatus["paused"] {
    return this.pausedFor;
  }

  /** What the bot's budget allows now, per action (the status page's budget bars). */
  budget(): BudgetStatus {
    return this.options.layer.status();
  }

  status(): BotStatus {
    return {
      bot: this.name,
      appId: this.options.appId,
      userId: this.identity.userId,
      username: this.identity.username,
      plan: this.identity.plan,
      ...(this.pausedFor ? { paused: this.pausedFor } : {}),
      triggers: copyLiveness(this.liveness),
      inbox: this.waiting.length + this.running.size,
      budgetPolicy: this.options.config.budget,
      waiting: this.options.layer
        .waiting()
        .map(({ label, endpoint, readyAt, reason }) => ({ label, endpoint, readyAt, ...(reason ? { reason } : {}) })),
      ...(this.options.enrolmentDay ? { enrolmentDay: this.options.enrolmentDay } : {}),
      updatedAt: this.options.clock.now(),
    };
  }
}

/**
 * A copy of the liveness figures (flat numbers per trigger): the status of every bot is
 * gathered every 15 s, and structuredClone of each was a good part of that work with
 * 10,000 bots.
 */
function copyLiveness(
  liveness: Partial<Record<TriggerName, TriggerStatus>>,
): Partial<Record<TriggerName, TriggerStatus>> {
  const out: Partial<Record<TriggerName, TriggerStatus>> = {};
  for (const [trigger, s] of Object.entries(liveness) as Array<[TriggerName, TriggerStatus]>) out[trigger] = { ...s };
  return out;
}
