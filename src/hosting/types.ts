/**
 * What hosting is given and gives back: an app's keys, a bot ready to host, the options of
 * `startRuntime` (users embed it: `import { startRuntime } from "postbot"`) and the runtime it
 * returns. One module for the hosting layer's shared types; below it, src/runtime/types.ts
 * holds the status records the Redis layer shares too.
 */
import type { ActionSystem } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import type { BotConfig } from "../config/index.ts";
import type { Plan } from "../limits/types.ts";
import type { Logger } from "../log.ts";
import type { SharedRedis } from "../redis/shared-state.ts";
import type { BotRuntime } from "../runtime/bot.ts";
import type { AppStatus, BotStatus } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import type { RuntimeObserver } from "./observer.ts";

/** An app of the service: its keys and its plan (an app has one plan). */
export interface AppCredentials {
  /** A non-secret name for the app (logs, windows). */
  id: string;
  key: string;
  secret: string;
  plan: Plan;
  /** Day of the month the app enrolled (the monthly read cap resets then). */
  enrolmentDay?: number;
}

/** A bot ready to host: its file, its app and its account's OAuth 1.0a token. */
export interface HostedBot {
  config: BotConfig;
  app: AppCredentials;
  token: { token: string; secret: string };
  /**
   * Who the account is, when that was learnt with the token: `bot auth login` stores the
   * user id and username the access-token answer carries, and the sandbox provisioning makes
   * the user. Known, the bot starts without asking `GET /2/users/me` (10,000 of them made a
   * first start take 12 s); unknown (a token written in the bot file), it is asked once.
   */
  user?: { id: string; username: string };
  /**
   * Where a bot kept in the state came from (`api`, `connect:<template>`; absent for a bot
   * file's): a refused token's advice names what brings the bot back, the connect page first.
   */
  origin?: string;
  /**
   * Its file's data as read (serialized, ../config/bot-source.ts): what its configuration is
   * built from again after the process kept only its outline ({@link RuntimeOptions.hydrate}).
   */
  source?: string;
}

/**
 * What every process keeps of a bot of the fleet, whether it runs the bot or not: its name,
 * file, plan, triggers (the app's pollers and capacity count every bot of the app) and the
 * app's key. With `hosting: "claimed"` each process runs a share of a deployment of up to
 * 100,000 bots: a bot's full configuration (its plugins and their options, its budget, its
 * account's token) is kept only while it runs here, and built again from {@link FleetBot.source}
 * when it comes here.
 */
export type BotOutline = Pick<BotConfig, "name" | "file" | "plan" | "triggers"> & {
  app?: Pick<NonNullable<BotConfig["app"]>, "consumer_key">;
};

/** A bot of the fleet as {@link FleetOps.fleet} lists it: a {@link HostedBot}, or its outline when it runs elsewhere. */
export interface FleetBot {
  config: BotOutline;
  app: AppCredentials;
  origin?: string;
  /** What its full configuration is built from again ({@link RuntimeOptions.hydrate}). */
  source?: string;
}

export interface RuntimeOptions {
  baseUrl: string;
  bots: readonly HostedBot[];
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Log and count actions against a simulated budget; send nothing. */
  dryRun?: boolean;
  /** How long one handler may run (default 30 s; waiting for the budget does not count). */
  handlerTimeoutMs?: number;
  /** How long `stop()` lets handlers and actions in flight finish (default 4 s each). */
  drainMs?: number;
  /** How often the status of each bot is saved for `bot status` (default 15 s). */
  statusEveryMs?: number;
  /** Told of every action's outcome, event handled, error answer and stream change (`bot start --http`). */
  observer?: RuntimeObserver;
  /**
   * Bots a person paused (the admin API, the status page), and why: they start paused, and
   * stay so until resumed ({@link FleetOps.resume}).
   */
  paused?: ReadonlyMap<string, string>;
  /**
   * Bots to start afresh although their own state is missing while their status says they
   * ran before (`bot start --afresh`): otherwise such a bot is not started (./kept-state.ts).
   */
  afresh?: readonly string[];
  /**
   * `"all"` (the default): every bot runs from the start. `"claimed"`: none does until
   * {@link Runtime.host} is called for it, and {@link Runtime.unhost} stops it again: the
   * process's bot claims decide (several processes sharing one Redis, src/redis/bot-claims.ts).
   * The app streams are not connected in this mode (mentions are polled).
   */
  hosting?: "all" | "claimed";
  /**
   * With `hosting: "claimed"`, the Redis shared with the other processes: the budget windows
   * are counted there (src/redis/shared-windows.ts) and the apps' streams run through it
   * (./shared-apps.ts).
   */
  shared?: SharedRedis;
  /**
   * With `hosting: "claimed"`: a bot that does not run here is kept as its outline (a
   * {@link FleetBot} with its `source`), and this builds its full configuration again when
   * the process comes to run it. Without it, every bot is kept whole.
   */
  hydrate?(bot: FleetBot): Promise<HostedBot>;
}

/**
 * Changes of the fleet while the runtime runs (the live fleet): each touches one bot, and the
 * other bots do not notice (no stream reconnect, no queue drained, no event lost or handled
 * twice). Each refuses with a {@link FleetError} saying what to do (no such bot, a bot of
 * that name runs already, the runtime is stopping). With `hosting: "claimed"`, `add` and
 * `replace` only tell the runtime of the bot: it runs once the process claims it.
 */
export interface FleetOps {
  /** The bots of the fleet now (with `hosting: "claimed"`, also those other processes run). */
  fleet(): ReadonlyMap<string, FleetBot>;
  /** The full configuration of a bot this process runs (or holds paused), else undefined. */
  hosted(name: string): HostedBot | undefined;
  /** Starts a new bot (its account's identity asked once when unknown; refused: it is paused). */
  add(hosted: HostedBot): Promise<void>;
  /**
   * Restarts one bot with a new configuration, after the events it is handling finish
   * (bounded), keeping its state: inbox, cursors, ledger, session data. Its stream rules
   * change by the smallest step; the app's connection stays.
   */
  replace(hosted: HostedBot): Promise<void>;
  /** Stops a bot for good (its state is kept) and takes its rules from its app's stream. */
  remove(name: string): Promise<void>;
  /**
   * Resolves once the stream rules of the bots added, replaced and removed so far are in at
   * the service. `add`, `replace` and `remove` resolve before: an app may change its rules 100
   * times per 15 minutes, and past that the fleet's next change must not wait for the window.
   */
  rulesSettled(): Promise<void>;
  /** Pauses a bot: its triggers stop, and what the stream brings it waits in its inbox. */
  pause(name: string, reason: string): Promise<void>;
  /** Resumes a paused bot (whatever paused it): it restarts and handles what waited. */
  resume(name: string): Promise<void>;
}

/** A started runtime: its bots, their and their apps' status, and how to stop it. */
export interface Runtime extends FleetOps {
  readonly bots: ReadonlyMap<string, BotRuntime>;
  readonly actions: ActionSystem;
  status(): BotStatus[];
  /** Every app's status: capacity, stream, catch-up polls. */
  apps(): AppStatus[];
  /** Whether the app's stream has delivered this post (tests wait for what the sandbox sent). */
  streamed(appId: string, postId: string): boolean;
  /**
   * Resolves when nothing can happen until the clock moves: every action in flight waits in
   * the budget queue for a later time, every handler running waits for such an action, every
   * poll in progress for its request. With a frozen clock, this is when a test can look at
   * the results. Rejects after `timeoutMs` of real time (default 10 s) in which nothing moved
   * (the actions in flight and the busy bots stayed the same), naming what is busy.
   */
  idle(timeoutMs?: number): Promise<void>;
  /** Starts running a bot of the options' list here (`hosting: "claimed"`): its state must be in the store. */
  host(name: string): Promise<void>;
  /**
   * Stops running a bot here: its triggers stop and its handlers finish (bounded). `"lost"`:
   * another process may run it already, so nothing of it is saved (the store refuses it anyway).
   */
  unhost(name: string, why: "lost" | "released"): Promise<void>;
  /** Stops everything and persists; resolves when done. */
  stop(): Promise<void>;
}
