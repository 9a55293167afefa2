/**
 * The plugins stage of one bot: turns each event into handler calls. It builds the event's
 * context (./context.ts), runs every filter of the event first (one answering `false` stops
 * it for every plugin), then the handlers in the order of the bot file, each inside the
 * dispatcher's error boundary and time limit (./dispatcher.ts); after a handler hid the
 * event's post, no later plugin answers it. The bot's engine (src/runtime) calls it through
 * {@link EventHandling} and knows nothing of contexts.
 */
import type { ActionLayer } from "../actions/index.ts";
import type { ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity, EventHandling } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import type { BotEvent, EventName } from "../triggers/events.ts";
import { botStore, budgetView, createContext, viewFor, type ContextState } from "./context.ts";
import { dispatch, type DispatchOptions, type HandlerEntry } from "./dispatcher.ts";
import type { BotStore, BudgetView } from "./plugin.ts";
import { HandlerRegistry, type PluginEntry } from "./registry.ts";

/** What a bot's contexts are made of (its identity, client, action layer and state) and the handlers' time limit. */
export interface PluginsStageOptions {
  identity: BotIdentity;
  /** The bot's client (`ctx.unbudgetedApi`). */
  api: ApiClient;
  /** The bot's action layer: every verb of the contexts goes through it. */
  layer: ActionLayer;
  /** The state store (the bot's key-value data, `ctx.store`). */
  store: Store;
  clock: Clock;
  /** The bot's logger. */
  log: Logger;
  /** How long a handler may run before it is abandoned (not counting waits for the budget). */
  handlerTimeoutMs: number;
}

/** An event's loggers, each made when first used. */
interface EventLogs {
  log(): Logger;
  pluginLog(plugin: string): Logger;
}

/** One bot's plugins stage; see the module comment. */
export class PluginsStage implements EventHandling {
  private readonly registry = new HandlerRegistry();
  /** What every event's context shares: the bot's key-value store and budget view. */
  private readonly kv: BotStore;
  private readonly budgetView: BudgetView;
  /** The contexts of the events being handled, as the engine watches them. */
  private readonly states = new Map<string, ContextState>();

  constructor(private readonly options: PluginsStageOptions) {
    this.kv = botStore(options.store, options.identity.name);
    this.budgetView = budgetView(options.layer);
  }

  /** Runs every plugin's setup for this bot, in the order of its bot file. */
  setup(plugins: readonly PluginEntry[]): Promise<void> {
    const { identity, log } = this.options;
    return this.registry.setup(plugins, {
      name: identity.name,
      identity,
      log,
      store: this.kv,
      clock: this.options.clock,
    });
  }

  handles(kind: EventName): boolean {
    return this.registry.handles(kind);
  }

  waiting(eventId: string): boolean {
    return (this.states.get(eventId)?.waiting ?? 0) > 0;
  }

  handle(event: BotEvent, onWaiting?: (waiting: boolean) => void): Promise<void> | undefined {
    const handlers = this.registry.handlers.get(event.kind);
    const filters = this.registry.filters.get(event.kind);
    // Filters run whether or not a handler follows: a filter may act (moderation hides a reply).
    if (!handlers?.length && !filters?.length) return undefined;
    return this.run(event, handlers, filters, onWaiting);
  }

  private async run(
    event: BotEvent,
    handlers: Array<HandlerEntry<never>> | undefined,
    filterEntries: Array<HandlerEntry<never>> | undefined,
    onWaiting: ((waiting: boolean) => void) | undefined,
  ): Promise<void> {
    // Loggers are made on first use: most events log nothing. (Methods rather than named
    // arrows here and in context.ts: tsx names each arrow with a defineProperty per event.)
    const bindings = { event: event.kind, ...("post" in event ? { post: event.post.id } : {}) };
    let log: Logger | undefined;
    const logger = this.options.log;
    const pluginLogs = this.registry.pluginLogs;
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
        identity: this.options.identity,
        api: this.options.api,
        layer: this.options.layer,
        kv: this.kv,
        budget: this.budgetView,
        log: contextLog,
        plugin: lone,
      },
      event,
      onWaiting,
    );
    this.states.set(event.id, state);
    /** The plugin whose filter stopped the event. */
    let blocked: string | undefined;
    if (filterEntries?.length) {
      const filters = this.views<typeof ctx>(filterEntries, made).map(({ plugin, handler }) => ({
        plugin,
        async handler(c: typeof ctx) {
          if ((await handler(c)) === false) blocked ??= plugin;
        },
      }));
      await dispatch(
        filters,
        ctx,
        this.dispatchOptions(state, made, () => blocked !== undefined),
      );
    }
    // A filter says why it stops an event (moderation logs its hide); the stage only notes it
    // for debugging, and not at all for a post that was hidden: its hide's line says it all.
    if (blocked !== undefined) {
      if (this.options.log.isLevelEnabled("debug") && !("hidden" in ctx && ctx.hidden))
        made.log().debug({ filter: blocked }, `stopped by the filter of plugin ${blocked}; no handler runs`);
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
    this.states.delete(event.id);
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
