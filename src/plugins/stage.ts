/**
 * The plugins stage of one bot: the one place where the runtime hands events to plugins
 * ({@link EventHandling}: the bot's engine in src/runtime knows nothing of contexts), and
 * where every handler, filter and dialog step is called. It builds the event's context
 * (./context.ts), runs every filter of the event first (one answering `false` stops it for
 * every plugin), then the handlers in the order of the bot file, each inside an error
 * boundary and a time limit ({@link dispatch}), so one broken or hanging plugin is logged with
 * its bot, plugin and event and the others still run; after a handler hid the event's post,
 * no later plugin answers it. A handler may leave work to go on while the later handlers run
 * (`ctx.meanwhile`: `llm-reply`'s reply, whose model may take seconds): the event ends, and
 * leaves the inbox, only once that work has settled too. What the stage knows of the bot's
 * plugins besides (their setup, dialogs and sessions) is ./bot-plugins.ts.
 *
 * An event from a user runs in a durable scope (./dialogs/durable-scope.ts): the user's
 * sessions are read from it, every action the handlers ask for carries it (what they changed
 * is written with the action's first ledger record), and what no action carried is set when
 * the handlers (and the work they left meanwhile) are done. A user's message (a mention or a
 * reply in a thread, a DM) goes first, after the filters, to the bot's dialog waiting for that
 * user there (./dialogs/engine.ts); a message a dialog takes reaches no handler.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { EventHandling } from "../runtime/types.ts";
import { eventUser, type BotEvent } from "../triggers/events.ts";
import { BotPlugins, counted, inboundOf, type PluginsStageOptions } from "./bot-plugins.ts";
import { createContext, viewFor, type ContextState } from "./context.ts";
import { DurableScope } from "./dialogs/durable-scope.ts";
import type { DialogEngine, DialogTurn, Inbound } from "./dialogs/engine.ts";
import type { HandlerEntry } from "./registry.ts";

export type { PluginsStageOptions } from "./bot-plugins.ts";

/** An event's loggers, each made when first used. */
interface EventLogs {
  log(): Logger;
  pluginLog(plugin: string): Logger;
}

/** One bot's plugins stage; see the module comment. */
export class PluginsStage extends BotPlugins implements EventHandling {
  /** The contexts of the events being handled, as the engine watches them. */
  private readonly states = new Map<string, ContextState>();

  waiting(eventId: string): boolean {
    return (this.states.get(eventId)?.waiting ?? 0) > 0;
  }

  handle(event: BotEvent, onWaiting?: (waiting: boolean) => void): Promise<void> | undefined {
    const handlers = this.registry.handlers.get(event.kind);
    const filters = this.registry.filters.get(event.kind);
    // Filters run whether or not a handler follows: a filter may act (moderation hides a reply).
    // A user's message may be an answer a dialog waits for.
    const inbound = this.hasDialogs ? inboundOf(event) : undefined;
    if (!handlers?.length && !filters?.length && !inbound) return undefined;
    return this.run(event, handlers, filters, inbound, onWaiting);
  }

  private async run(
    event: BotEvent,
    handlers: Array<HandlerEntry<never>> | undefined,
    filterEntries: Array<HandlerEntry<never>> | undefined,
    inbound: Inbound | undefined,
    onWaiting: ((waiting: boolean) => void) | undefined,
  ): Promise<void> {
    const made = this.eventLogs(event);
    // One plugin alone on the event (the usual bot): its context's logger names it, and it
    // needs no view of its own.
    const lone = !filterEntries?.length && handlers?.length === 1 ? handlers[0]!.plugin : undefined;
    const contextLog = lone === undefined ? made.log : () => made.pluginLog(lone);
    const scope = this.scopeOf(event);
    const { ctx, state } = createContext(
      {
        identity: this.options.identity,
        api: this.options.api,
        layer: this.options.layer,
        budget: this.budgetView,
        log: contextLog,
        plugin: lone,
        session: (plugin, s) => this.sessionOf(plugin, s),
      },
      event,
      onWaiting,
      scope,
    );
    this.states.set(event.id, state);
    const blocked = filterEntries?.length ? await this.runFilters(filterEntries, ctx, state, made) : undefined;
    // A dialog waiting for this user here takes the message; no handler sees it then.
    const taken = blocked === undefined && inbound && scope ? await this.route(inbound, scope, state, made) : false;
    // A filter says why it stops an event (moderation logs its hide); the stage only notes it
    // for debugging, and not at all for a post that was hidden: its hide's line says it all.
    if (blocked !== undefined) {
      if (this.options.log.isLevelEnabled("debug") && !("hidden" in ctx && ctx.hidden))
        made.log().debug({ filter: blocked }, `stopped by the filter of plugin ${blocked}; no handler runs`);
    } else if (taken) {
      // Handled by the dialog.
    } else if (!handlers?.length) {
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
    // The event ends with the work a handler left to go on beside the later plugins (`ctx.meanwhile`).
    while (state.meanwhile?.length) await Promise.all(state.meanwhile.splice(0));
    // What no action carried is set now (a handler that sent nothing, or changed more after).
    for (const refused of scope?.finish() ?? []) made.log().error({ plugin: refused.plugin }, refused.message);
    this.states.delete(event.id);
  }

  /**
   * Runs a dialog's turn the engine decided on: its plugin's step inside the handlers' time
   * limit, then hands the outcome back to the engine, which keeps the turn or, when the step
   * threw or ran out of time, reports it and keeps nothing; what the turn said goes down
   * through the action layer from here, and its outcome back to the engine.
   */
  protected async play(turn: DialogTurn): Promise<boolean> {
    let failure: { error: unknown } | undefined;
    if (turn.handler) {
      try {
        await this.runStep(turn.plugin, turn.handler, turn.turn);
      } catch (error) {
        failure = { error };
      }
    }
    return settleTurn(this.engine, turn, failure);
  }

  /** Runs a plugin's dialog step, inside the handlers' time limit: what it throws, or its running out of time, rejects. */
  private async runStep<T>(plugin: string, handler: (turn: T) => unknown, turn: T): Promise<void> {
    const result = handler(turn);
    if (!isThenable(result)) return;
    const { clock, log, handlerTimeoutMs } = this.options;
    try {
      await limited(result, turn, handlerTimeoutMs, { clock, log });
    } catch (err) {
      if (err instanceof HandlerTimeout)
        throw new Error(`plugin ${plugin} did not finish it within ${handlerTimeoutMs} ms`);
      throw err;
    }
  }

  /** The event's loggers, made on first use: most events log nothing. */
  private eventLogs(event: BotEvent): EventLogs {
    // (Methods rather than named arrows here and in context.ts: tsx names each arrow with a
    // defineProperty per event.)
    const bindings = { event: event.kind, ...("post" in event ? { post: event.post.id } : {}) };
    let log: Logger | undefined;
    const logger = this.options.log;
    const pluginLogs = this.registry.pluginLogs;
    return {
      log() {
        return (log ??= logger.child(bindings));
      },
      pluginLog(plugin) {
        return (pluginLogs.get(plugin) ?? logger.child({ plugin })).child(bindings);
      },
    };
  }

  /** The durable scope of an event from a user (none for one from no user). */
  private scopeOf(event: BotEvent): DurableScope | undefined {
    const user = eventUser(event);
    if (user === undefined) return undefined;
    return new DurableScope({
      store: this.options.layer.store,
      clock: this.options.clock,
      bot: this.options.identity.name,
      id: event.id,
      user,
      session: this.session,
      ...(this.options.file !== undefined ? { file: this.options.file } : {}),
    });
  }

  /** Runs every filter of the event; the plugin whose filter stopped it (answered `false`), if one did. */
  private async runFilters<C extends object>(
    filterEntries: Array<HandlerEntry<never>>,
    ctx: C,
    state: ContextState,
    made: EventLogs,
  ): Promise<string | undefined> {
    let blocked: string | undefined;
    const filters = this.views<C>(filterEntries, made).map(({ plugin, handler }) => ({
      plugin,
      async handler(c: C) {
        if ((await handler(c)) === false) blocked ??= plugin;
      },
    }));
    await dispatch(
      filters,
      ctx,
      this.dispatchOptions(state, made, () => blocked !== undefined),
    );
    return blocked;
  }

  /**
   * Hands a user's message to the dialog waiting for it, holding the user's lock: asks the
   * engine what the dialog makes of it, runs the turn it decided on (./dialogs/engine.ts),
   * and says whether the dialog took the message (an error counts as taken).
   */
  private async route(inbound: Inbound, scope: DurableScope, state: ContextState, made: EventLogs): Promise<boolean> {
    const { engine } = this;
    const release = await engine.acquire(inbound.user.id);
    try {
      const { taken, turn } = engine.answer(inbound, {
        scope,
        send: counted(state, this.options.layer),
        log: made.log(),
        session: (plugin, s) => this.sessionIn(plugin, s),
      });
      if (turn) await this.play(turn);
      return taken;
    } catch (err) {
      made.log().error({ err }, `a dialog could not take this message: ${(err as Error)?.message}`);
      return true;
    } finally {
      release();
    }
  }

  /** The handlers as each plugin sees the context: through a view naming the plugin in its logs. */
  private views<C extends object>(entries: Array<HandlerEntry<never>>, made: EventLogs): Array<HandlerEntry<C>> {
    return entries.map(({ plugin, handler }) => ({
      plugin,
      handler(c: C) {
        return (handler as (c: unknown) => unknown)(viewFor(c, () => made.pluginLog(plugin), plugin));
      },
    }));
  }

  private dispatchOptions<C>(state: ContextState, made: EventLogs, stop: (c: C) => boolean): DispatchOptions<C> {
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
}

/**
 * After a dialog's step ran (or failed: `failure`): the engine keeps or throws away the turn,
 * the message it describes goes down through the action layer from here, and its outcome
 * back to the engine. Whether the turn was kept. (Exported for tests that drive an engine
 * without the stage's time limit.)
 */
export async function settleTurn(
  engine: DialogEngine,
  turn: DialogTurn,
  failure: { error: unknown } | undefined,
): Promise<boolean> {
  const settled = engine.settle(turn, failure);
  const { say } = settled;
  if (say) {
    const { send } = turn.run;
    const outcome =
      "dm" in say.to
        ? await send.dm(say.to.dm, say.text, say.options)
        : await send.reply(say.to.reply, say.text, say.options);
    engine.sent(turn, settled, outcome);
  }
  return settled.kept;
}

export interface DispatchOptions<C> {
  clock: Clock;
  log: Logger;
  /** How long one handler may take before it is abandoned and logged (default 30 s). */
  timeoutMs?: number;
  /**
   * Checked after each handler: when true, the remaining handlers are not run. The runtime
   * stops an event once a handler hid its post, so no later plugin answers a hidden reply.
   */
  stop?: (ctx: C) => boolean;
  /**
   * Checked when a handler's time is up: while true (the handler is waiting for an action
   * the budget queue holds back), the limit is extended by another `timeoutMs`. A plugin
   * that awaits a reply on a small plan is waiting for the plan, not hanging.
   */
  busy?: (ctx: C) => boolean;
}

export interface DispatchReport {
  ran: string[];
  failed: Array<{ plugin: string; reason: "threw" | "timed out"; error?: unknown }>;
  stoppedAfter?: string;
}

class HandlerTimeout extends Error {}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null)?.then === "function";

/**
 * Settles with the handler's promise, or rejects with {@link HandlerTimeout} once
 * `timeoutMs` passed on the clock while `busy` is false. One clock timer, no AbortSignal:
 * thousands of events a second each start one.
 */
function limited<C>(
  work: PromiseLike<unknown>,
  ctx: C,
  timeoutMs: number,
  options: DispatchOptions<C>,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let cancel: (() => void) | undefined;
    const arm = () => {
      cancel = options.clock.setTimeout(() => {
        if (options.busy?.(ctx)) arm();
        else {
          cancel = undefined;
          reject(new HandlerTimeout());
        }
      }, timeoutMs);
    };
    arm();
    work.then(
      (value) => {
        cancel?.();
        resolve(value);
      },
      (error: unknown) => {
        cancel?.();
        reject(error);
      },
    );
  });
}

/**
 * Runs `entries` in order on `ctx`; never throws. A handler that returns synchronously needs
 * no time limit (it cannot hang the event without hanging the process), so only a returned
 * promise is raced against the clock.
 */
export async function dispatch<C>(
  entries: ReadonlyArray<HandlerEntry<C>>,
  ctx: C,
  options: DispatchOptions<C>,
): Promise<DispatchReport> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const report: DispatchReport = { ran: [], failed: [] };
  for (const { plugin, handler } of entries) {
    try {
      const result = handler(ctx);
      if (isThenable(result)) await limited(result, ctx, timeoutMs, options);
      report.ran.push(plugin);
    } catch (error) {
      if (error instanceof HandlerTimeout) {
        report.failed.push({ plugin, reason: "timed out" });
        options.log.error(
          { plugin, timeout_ms: timeoutMs },
          `plugin ${plugin} did not finish within ${timeoutMs} ms; going on without it`,
        );
      } else {
        report.failed.push({ plugin, reason: "threw", error });
        options.log.error(
          { plugin, err: error },
          `plugin ${plugin} threw: ${(error as Error)?.message ?? String(error)}`,
        );
      }
    }
    if (options.stop?.(ctx)) {
      report.stoppedAfter = plugin;
      break;
    }
  }
  return report;
}
