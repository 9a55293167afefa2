/**
 * A bot's plugins as the stage (./stage.ts) runs them: their setup (in the order of the bot
 * file), what they registered, the bot's dialogs (./dialogs/engine.ts, made when a plugin
 * defines one or the state keeps one), the plugins' sessions as their schemas read them, and
 * what the runtime asks of the bot's plugins besides its events: which kinds they take, in
 * which order a user's events go, the dialogs' timers and counts. The stage adds the
 * handling of each event.
 */
import type { ActionLayer, LayerActionOptions, PostRef } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import type { ModelAccess } from "../llm/access.ts";
import { JudgeSlot } from "../llm/judge-slot.ts";
import { modelSlotUse, type ModelSlotUse } from "../llm/request-slots.ts";
import type { Logger } from "../log.ts";
import type { PullQueue } from "../pull-queue.ts";
import type { Inbox } from "../runtime/inbox.ts";
import type { BotIdentity, DialogCounts, PolledChannels } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import { eventUser, type BotEvent, type EventName } from "../triggers/events.ts";
import { awaited, botStore, budgetView, contextState, refOf, type ContextState } from "./context.ts";
import { DEFAULT_SESSION_MAX_BYTES, type DurableScope, type SessionSettings } from "./dialogs/durable-scope.ts";
import {
  DialogEngine,
  dialogNamespace,
  type DialogSender,
  type DialogTurn,
  type DueWait,
  type Inbound,
  type TurnRun,
} from "./dialogs/engine.ts";
import type { DialogDefinition, StartResult } from "./dialogs/types.ts";
import type { BotStore, BudgetView, Dialog, SessionData, UserEventContext } from "./plugin.ts";
import { HandlerRegistry, type PluginEntry } from "./registry.ts";
import { ReviewQueue } from "./review-queue.ts";
import type { z } from "zod";

/** What a bot's contexts are made of (its identity, client, action layer and state) and the handlers' time limit. */
export interface PluginsStageOptions {
  identity: BotIdentity;
  /** The bot's client (`ctx.unbudgetedApi`). */
  api: ApiClient;
  /** The bot's action layer: every verb of the contexts goes through it. */
  layer: ActionLayer;
  /** The state store (the bot's key-value data, `bot.store`). */
  store: Store;
  /**
   * The bot's inbox as its dialogs read it (src/runtime/inbox.ts `inboxReader`), to tell an
   * answer fetched and not yet handled from one that never came.
   */
  inbox: Pick<Inbox, "has" | "pending">;
  clock: Clock;
  /** The bot's logger. */
  log: Logger;
  /** How long a handler may run before it is abandoned (not counting waits for the budget). */
  handlerTimeoutMs: number;
  /** The bot file's `session` (ttl and size cap of `ctx.session`). */
  session?: { ttlMs?: number; maxBytes?: number };
  /** The bot file, for messages. */
  file?: string;
  /** The bot's model budget and figures (`bot.models`); default: no budget, nothing observed. */
  models?: ModelAccess;
}

/** A user's message as a dialog takes it: a mention or reply in a thread, or a DM. */
export function inboundOf(event: BotEvent): Inbound | undefined {
  if (event.kind === "dm") {
    const { message } = event;
    return {
      user: event.sender,
      channel: "dm",
      place: message.dm_conversation_id,
      message: { id: message.id, text: message.text, createdAt: message.created_at },
    };
  }
  if (event.kind !== "mention" && event.kind !== "reply") return undefined;
  const { post } = event;
  return {
    user: event.author,
    channel: "thread",
    place: post.conversation_id,
    message: { id: post.id, text: post.text, createdAt: post.created_at },
    post: refOf(post),
  };
}

/** One bot's plugins; see the module comment. */
export abstract class BotPlugins {
  protected readonly registry = new HandlerRegistry();
  /** The bot's key-value store (`bot.store`), and the budget view every event's context shares. */
  private readonly kv: BotStore;
  protected readonly budgetView: BudgetView;
  /**
   * The bot's dialogs, made when a plugin defines one or the state keeps one of the
   * bot's (most bots have none: with 10,000 bots, an engine each was a few kB a bot).
   */
  private made: DialogEngine | undefined;
  /** Timeout turns running now (the runtime's idle check waits for them). */
  private timeoutsRunning = 0;
  protected readonly session: SessionSettings;
  /** Each plugin's session schema, when it gives one. */
  private readonly sessionSchemas = new Map<string, z.ZodType>();
  /** The plugins whose session each scope has read through its schema already. */
  private readonly parsed = new WeakMap<DurableScope, Set<string>>();
  /** Whether a handler read a session (the user's events are handled one at a time from then on). */
  private sessionsRead = false;

  constructor(protected readonly options: PluginsStageOptions) {
    this.kv = botStore(options.store, options.identity.name);
    this.budgetView = budgetView(options.layer);
    this.session = {
      maxBytes: options.session?.maxBytes ?? DEFAULT_SESSION_MAX_BYTES,
      ...(options.session?.ttlMs !== undefined ? { ttlMs: options.session.ttlMs } : {}),
    };
  }

  /**
   * Runs a dialog's turn the engine decided on (its plugin's step) and hands its outcome back
   * to the engine: the stage's, where every plugin's code is called (./stage.ts). Resolves
   * whether the turn was kept.
   */
  protected abstract play(turn: DialogTurn): Promise<boolean>;

  /** The bot's dialogs (made on first use). */
  protected get engine(): DialogEngine {
    return (this.made ??= this.makeEngine());
  }

  /** Whether a plugin of the bot defines a dialog. */
  protected get hasDialogs(): boolean {
    return this.made?.active ?? false;
  }

  private makeEngine(): DialogEngine {
    const { options } = this;
    const { inbox } = options;
    return new DialogEngine({
      bot: options.identity.name,
      store: options.layer.store,
      clock: options.clock,
      log: options.log,
      session: this.session,
      ...(options.file !== undefined ? { file: options.file } : {}),
      inInbox: (id) => inbox.has(id),
      // A message of the user there, fetched and not yet handled: it may be the answer.
      waitingMessage: (userId, channel, place) =>
        inbox.pending().some((e) => {
          const m = inboundOf(e);
          return (
            m !== undefined && m.user.id === userId && m.channel === channel && (channel === "dm" || m.place === place)
          );
        }),
    });
  }

  /** Whether the state keeps a dialog of the bot (or what a finished one left to sweep). */
  private keepsDialogs(): boolean {
    return this.options.layer.store.entries(dialogNamespace(this.options.identity.name)).length > 0;
  }

  /** Runs every plugin's setup for this bot, in the order of its bot file. */
  setup(plugins: readonly PluginEntry[]): Promise<void> {
    const { identity, log } = this.options;
    for (const p of plugins) if (p.definition.session) this.sessionSchemas.set(p.name, p.definition.session);
    const models = this.options.models ?? { bot: identity.name, clock: this.options.clock, judge: new JudgeSlot() };
    const stage = this;
    return this.registry.setup(plugins, {
      name: identity.name,
      identity,
      log,
      store: this.kv,
      review: new ReviewQueue(this.options.store, identity.name),
      clock: this.options.clock,
      dialog(plugin, name, definition) {
        return stage.dialog(plugin, name, definition);
      },
      models,
    });
  }

  handles(kind: EventName): boolean {
    // A dialog takes answers: mentions and replies to the bot in threads, and DMs.
    return (
      this.registry.handles(kind) || (this.hasDialogs && (kind === "mention" || kind === "reply" || kind === "dm"))
    );
  }

  /**
   * One at a time, in order: the events of one user, when the bot keeps something per user (a
   * dialog, a session a plugin declared or has read, the bot file's `session`), so their
   * handlers never change that user's state at once; otherwise one user's events in one thread
   * (or DM conversation), so answers there keep their order while the user's other threads, each
   * perhaps waiting for budget, go on beside them.
   */
  orderKey(event: BotEvent): string | undefined {
    const user = eventUser(event);
    if (user === undefined || this.perUser()) return user;
    const place =
      "post" in event ? event.post.conversation_id : event.kind === "dm" ? event.message.dm_conversation_id : undefined;
    return place === undefined ? user : `${user}\u0000${place}`;
  }

  private perUser(): boolean {
    return this.sessionsRead || this.hasDialogs || this.sessionSchemas.size > 0 || this.options.session !== undefined;
  }

  start(polled?: PolledChannels): void {
    const { layer, log } = this.options;
    const session = (plugin: string, scope: DurableScope) => this.sessionIn(plugin, scope);
    // Dialogs the state keeps are taken up (their waits armed) even when no plugin defines them now.
    const engine = this.made ?? (this.keepsDialogs() ? this.engine : undefined);
    const run = { send: layer, log, session };
    if (engine) void this.takeTimeouts(engine.resume(polled), run);
  }

  /** Takes the waits whose time is up from the engine (its timers put them there) until the bot stops. */
  private async takeTimeouts(due: PullQueue<DueWait>, run: Omit<TurnRun, "scope">): Promise<void> {
    for (let waits = await due.take(); waits; waits = await due.take())
      for (const wait of waits) void this.timeout(wait, run);
  }

  /** A wait's time is up: its timeout turn, run as an answer's is, under the user's lock. */
  private async timeout(wait: DueWait, run: Omit<TurnRun, "scope">): Promise<void> {
    this.timeoutsRunning++;
    try {
      const release = await this.engine.acquire(wait.user);
      try {
        const turn = this.engine.timeoutTurn(wait, run);
        if (!turn) return;
        await this.play(turn);
        for (const err of turn.run.scope.finish()) run.log.error({ plugin: turn.plugin }, err.message);
      } finally {
        release();
      }
    } catch (err) {
      run.log.error({ err }, `a dialog's timeout failed: ${(err as Error)?.message ?? String(err)}`);
    } finally {
      this.timeoutsRunning--;
    }
  }

  heard(trigger: "mentions" | "dms"): void {
    this.made?.heard(trigger === "dms" ? "dm" : "thread");
  }

  stop(): void {
    this.made?.suspend();
  }

  busy(): boolean {
    return this.timeoutsRunning > 0 || (this.made?.busy ?? false);
  }

  dialogs(): DialogCounts | undefined {
    if (!this.hasDialogs) return undefined;
    const open = { thread: 0, dm: 0 };
    for (const c of this.engine.all()) open[c.channel]++;
    const { started, steps, timeouts } = this.engine.counters;
    return { open, started, steps, timeouts };
  }

  /** The bot's requests to model servers in flight and waiting for a slot (src/llm/request-slots.ts); undefined: none. */
  models(): ModelSlotUse[] | undefined {
    const use = modelSlotUse(this.options.identity.name);
    return use.length > 0 ? use : undefined;
  }

  /** A user's open dialog in a channel (the test bed and the status read it). */
  dialogOf(userId: string, channel: "thread" | "dm") {
    return this.engine.state(userId, channel);
  }

  /** What `bot.dialog(name, definition)` gives a plugin. */
  private dialog(plugin: string, name: string, definition: DialogDefinition<unknown>): Dialog {
    this.engine.define(plugin, name, definition);
    const { engine } = this;
    const { layer } = this.options;
    const stage = this;
    return {
      name,
      async start(ctx: UserEventContext): Promise<StartResult> {
        const state = contextState(ctx);
        if (!state) throw new TypeError(`${name}.start(ctx): give it the context a handler got`);
        const inbound = inboundOf(state.event);
        if (!state.scope) return { started: false, reason: "no user" };
        if (!inbound) return { started: false, reason: "not a message" };
        const refused = engine.startable(plugin, name);
        if (refused) return refused;
        const release = await engine.acquire(inbound.user.id);
        try {
          const opened = engine.open(plugin, name, inbound, {
            scope: state.scope,
            send: counted(state, layer),
            log: ctx.log,
            session: (p, scope) => stage.sessionIn(p, scope),
          });
          if (!("turn" in opened)) return opened;
          return (await stage.play(opened.turn))
            ? { started: true, id: opened.id }
            : { started: false, reason: "stopped" };
        } finally {
          release();
        }
      },
      state: (userId, channel) => engine.state(userId, channel, plugin),
    };
  }

  /** A plugin's session of the event's user (`ctx.session`). */
  protected sessionOf(plugin: string | undefined, state: ContextState): SessionData {
    const { scope } = state;
    if (!scope) throw new Error(`ctx.session: a ${state.event.kind} event comes from no user, so it has no session`);
    this.sessionsRead = true;
    return this.sessionIn(plugin ?? "", scope);
  }

  /**
   * A plugin's session of the scope's user, read through the plugin's schema the first time:
   * the one object `ctx.session` and its dialogs' `turn.session` both are.
   */
  protected sessionIn(name: string, scope: DurableScope): SessionData {
    let parsed = this.parsed.get(scope);
    if (!parsed) this.parsed.set(scope, (parsed = new Set()));
    if (!parsed.has(name)) {
      parsed.add(name);
      const schema = this.sessionSchemas.get(name);
      if (schema) {
        const read = schema.safeParse(scope.session(name));
        if (read.success) scope.replaceSession(name, read.data as SessionData);
        else {
          this.options.log.warn(
            { plugin: name, user: scope.user },
            `plugin ${name}: the stored session of user ${scope.user} does not fit its session schema (${read.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}); it starts anew`,
          );
          const fresh = schema.safeParse({});
          scope.replaceSession(name, (fresh.success ? fresh.data : {}) as SessionData);
        }
      }
    }
    return scope.session(name);
  }
}

/** The bot's layer as a dialog's turn speaks through it, counted as the event's handlers awaiting it. */
export function counted(state: ContextState, layer: ActionLayer): DialogSender {
  return {
    reply: (to: PostRef, text: string, o: LayerActionOptions) => awaited(state, layer.reply(to, text, o)),
    dm: (userId: string, text: string, o: LayerActionOptions) => awaited(state, layer.dm(userId, text, o)),
    repeatsText: (text: string) => layer.repeatsText(text),
  };
}
