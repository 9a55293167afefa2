/**
 * Bots that live in the state rather than in files: added through the admin API, or made
 * from a template when an account connected itself through the web (`bot start --http`).
 * Being part of the state (the file store, or Redis shared by several processes) is what
 * lets a restart keep them and every process sharing the state see them; a bot file lives
 * on one machine only.
 *
 * The same place keeps the pauses people asked for (the admin API, the status page's
 * buttons), of any bot, file or not: a paused bot stays paused across a restart and in
 * whichever process runs it.
 *
 * A record holds the bot file's text as given (`${VAR}` is read from the environment when
 * the bot starts, as for a file), so the text is checked exactly like a file each time it is
 * loaded, and never holds a secret: whoever adds a bot gives its account by name (`account:
 * {stored: NAME}`, the credential store's) or by `${VAR}`, never a token in plain text.
 *
 * {@link storeDynamicBots} keeps them in a {@link Store} (one process: the file store);
 * `src/redis/dynamic-bots.ts` in Redis, where other processes' changes are read back.
 */
import type { Store } from "./store.ts";

/** A bot kept in the state; see the module comment. */
export interface DynamicBot {
  name: string;
  /** The bot file's text as given (`${VAR}` unread). */
  yaml: string;
  /** Where it came from: `api`, or `connect:<template>` for an account that connected itself. */
  origin: string;
  /** Who made it or last changed it: an admin token's name, the connected account's username. */
  by: string;
  /** When it was added and last changed (ms). */
  createdAt: number;
  updatedAt: number;
}

/** The origin of a bot made from a template ({@link DynamicBot.origin}): `connect:<template>`. */
export const connectOrigin = (template: string) => `connect:${template}`;

/** The template a bot was made from, when it was made by connecting (its connect page is `/connect/<template>`). */
export const templateOf = (origin: string | undefined) =>
  origin?.startsWith("connect:") ? origin.slice("connect:".length) : undefined;

/** A pause a person asked for: why, who, since when. */
export interface FleetPause {
  reason: string;
  by: string;
  at: number;
}

/** The dynamic bots and the pauses of a deployment; see the module comment. */
export interface DynamicBots {
  /** Every dynamic bot, read fresh (in Redis, what every process has written). */
  list(): Promise<DynamicBot[]>;
  get(name: string): Promise<DynamicBot | undefined>;
  /** Adds or replaces a bot's record (durable when it resolves). */
  put(bot: DynamicBot): Promise<void>;
  /** Deletes a bot's record (and its pause); resolves whether there was one. */
  remove(name: string): Promise<boolean>;
  /** Every pause asked for, by bot name. */
  pauses(): Promise<Map<string, FleetPause>>;
  /** Records a pause (`undefined`: the bot was resumed). */
  setPause(name: string, pause: FleetPause | undefined): Promise<void>;
  /** Changes whenever a record or a pause changes: a process sharing the state reads the rest only then. */
  version(): Promise<string>;
}

/** The store's namespaces of dynamic bots and of pauses. */
export const DYNAMIC_BOTS_NAMESPACE = "fleet:bots";
export const FLEET_PAUSES_NAMESPACE = "fleet:paused";
const VERSION_NAMESPACE = "fleet:version";

/** {@link DynamicBots} in a {@link Store}: for a process that has the state to itself. */
export function storeDynamicBots(store: Store): DynamicBots {
  const bump = async () => {
    store.set(VERSION_NAMESPACE, "version", (store.get<number>(VERSION_NAMESPACE, "version") ?? 0) + 1);
    await store.flush();
  };
  return {
    list: async () => store.entries<DynamicBot>(DYNAMIC_BOTS_NAMESPACE).map(([, bot]) => bot),
    get: async (name) => store.get<DynamicBot>(DYNAMIC_BOTS_NAMESPACE, name),
    async put(bot) {
      store.set(DYNAMIC_BOTS_NAMESPACE, bot.name, bot);
      await bump();
    },
    async remove(name) {
      const had = store.get(DYNAMIC_BOTS_NAMESPACE, name) !== undefined;
      store.delete(DYNAMIC_BOTS_NAMESPACE, name);
      store.delete(FLEET_PAUSES_NAMESPACE, name);
      await bump();
      return had;
    },
    pauses: async () => new Map(store.entries<FleetPause>(FLEET_PAUSES_NAMESPACE)),
    async setPause(name, pause) {
      if (pause) store.set(FLEET_PAUSES_NAMESPACE, name, pause);
      else store.delete(FLEET_PAUSES_NAMESPACE, name);
      await bump();
    },
    version: async () => String(store.get<number>(VERSION_NAMESPACE, "version") ?? 0),
  };
}
