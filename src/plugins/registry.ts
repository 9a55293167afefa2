/**
 * A bot's handlers and filters: each plugin's `setup` runs once for the bot, in the order of
 * its bot file, and registers what it handles (`bot.on`) and filters (`bot.filter`). The
 * plugins stage (./stage.ts) reads them for every event.
 */
import type { Clock } from "../clock.ts";
import type { ModelAccess } from "../llm/access.ts";
import type { Logger } from "../log.ts";
import type { BotIdentity } from "../runtime/types.ts";
import { TRIGGER_OF, type EventName } from "../triggers/events.ts";
import type { DialogDefinition } from "./dialogs/types.ts";
import type { BotStore, Dialog, Filter, Handler, Plugin, PluginBot } from "./plugin.ts";
import type { ReviewList } from "./review-queue.ts";
import { PluginSetupError } from "./setup-error.ts";

/** A handler (or filter) as a plugin registered it. */
export interface HandlerEntry<C> {
  /** The plugin that registered the handler (for logs). */
  plugin: string;
  handler: (ctx: C) => unknown;
}

/** A plugin as a bot lists it: its name in the bot file, its parsed options, and the plugin. */
export interface PluginEntry {
  name: string;
  /** The options after the plugin's schema (defaults filled in); `{}` when it takes none. */
  options: unknown;
  definition: Plugin;
}

/** The handlers and filters of one bot, by event, in the order its plugins registered them. */
export class HandlerRegistry {
  readonly handlers = new Map<EventName, Array<HandlerEntry<never>>>();
  readonly filters = new Map<EventName, Array<HandlerEntry<never>>>();
  /** Each plugin's logger (naming the bot and the plugin), made once at setup. */
  readonly pluginLogs = new Map<string, Logger>();

  /**
   * Runs every plugin's setup, in the order of the bot file.
   *
   * @throws {PluginSetupError} naming the first plugin whose setup threw.
   */
  async setup(
    plugins: readonly PluginEntry[],
    bot: {
      name: string;
      identity: BotIdentity;
      log: Logger;
      store: BotStore;
      review: ReviewList;
      clock: Clock;
      models: ModelAccess;
      /** Defines a plugin's dialog (`bot.dialog`). */
      dialog(plugin: string, name: string, definition: DialogDefinition<unknown>): Dialog;
    },
  ): Promise<void> {
    for (const plugin of plugins) {
      const log = bot.log.child({ plugin: plugin.name });
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
      const pluginBot: PluginBot = {
        name: bot.name,
        identity: bot.identity,
        log,
        store: bot.store,
        review: bot.review,
        clock: bot.clock,
        models: bot.models,
        on: register(this.handlers) as <E extends EventName>(event: E, handler: Handler<E>) => void,
        filter: register(this.filters) as <E extends EventName>(event: E, check: Filter<E>) => void,
        dialog: (name, definition) => bot.dialog(plugin.name, name, definition as DialogDefinition<unknown>),
      };
      try {
        const session = plugin.definition.session;
        if (session && !session.safeParse({}).success)
          throw new Error(
            `its session schema does not accept {}, the session of a user it never met; give its fields defaults or make them optional`,
          );
        await plugin.definition.setup(pluginBot, plugin.options);
      } catch (err) {
        throw new PluginSetupError(plugin.name, err);
      }
    }
  }

  /** Whether some plugin handles or filters events of this kind. */
  handles(event: EventName): boolean {
    return (this.handlers.get(event)?.length ?? 0) > 0 || (this.filters.get(event)?.length ?? 0) > 0;
  }
}
