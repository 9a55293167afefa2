/**
 * What the runtime says of its bots and apps, and what a bot is to everything above it: the
 * records `bot status`, the metrics and the status page read (saved in the state store, and
 * with the state on Redis published per process by src/redis/app-status.ts), and a bot's
 * identity. One module, low enough for the Redis layer, hosting, observe and the plugin API
 * to share; it mentions nothing above the runtime.
 */
import type { BotActionsOptions, WaitingInfo } from "../actions/index.ts";
import type { ModelSlotUse } from "../llm/request-slots.ts";
import type { Plan } from "../limits/types.ts";
import type { BotEvent, EventName, TriggerName } from "../triggers/events.ts";
import type { StreamStatus } from "../triggers/stream/status.ts";

/** The bot a handler runs for: its name and its account on the service. */
export interface BotIdentity {
  /** The bot's name (its file's `name`). */
  name: string;
  /** Its account's user id and username on the service. */
  userId: string;
  username: string;
  plan: Plan;
}

/** Liveness of one trigger. */
export interface TriggerStatus {
  /** When the trigger last asked the service (polls) or last heard from it (stream). */
  lastCheckAt?: number;
  lastEventAt?: number;
  events: number;
}

/** What `bot status` shows of a bot (kept in the state store's `status` namespace). */
export interface BotStatus {
  bot: string;
  /** The app (non-secret id) whose windows the bot shares. */
  appId: string;
  userId: string;
  username: string;
  plan: string;
  /**
   * Why and since when the bot is paused. `accountRefused`: the service refused its account's
   * token (revoked: 401, code 89); signing the account in again, not resuming, brings it back.
   */
  paused?: { reason: string; at: number; accountRefused?: true };
  /** When the runtime last stopped cleanly (absent while it runs, or after a crash). */
  stoppedAt?: number;
  /**
   * When the bot's own state (its file, its Redis hash) was first kept: a start that finds
   * that state missing while its status says this refuses to start the bot afresh (it would
   * answer again what it answered). Added by the status saver.
   */
  stateSince?: number;
  /** Day of the month the app's monthly read cap resets. */
  enrolmentDay?: number;
  triggers: Partial<Record<TriggerName, TriggerStatus>>;
  /** Events fetched and not yet handled. */
  inbox: number;
  /** The bot file's `budget` (reserve and caps), so `bot status` can show what is left. */
  budgetPolicy?: BotActionsOptions["budget"];
  /** What waits for budget now (an answer to a mention, a poll...), and until when. */
  waiting?: Array<Pick<WaitingInfo, "label" | "endpoint" | "readyAt" | "reason">>;
  /** The bot's dialogs (src/plugins/dialogs), when a plugin of it defines one. */
  dialogs?: DialogCounts;
  /**
   * Its requests in flight to each model server it asks, and its replies waiting for one of
   * that server's request slots (`llm-reply`'s `parallel`); absent while it has none.
   */
  models?: ModelSlotUse[];
  /**
   * When it was gathered. A running bot's status is saved again only when it changed: while
   * it runs, it is current as of the last round of the status saver that saved it (`savedBy`,
   * its record in the `status.rounds` namespace: src/hosting/status-saver.ts), which is what
   * `bot status` shows (src/hosting/status-report.ts).
   */
  updatedAt: number;
  /** The status saver (one a runtime) that saved it while the bot ran; absent once it stopped. */
  savedBy?: string;
}

/** A bot's dialogs: open now (by channel), and what happened since the process started. */
export interface DialogCounts {
  /** Open now, in threads and by DM. */
  open: { thread: number; dm: number };
  /** Dialogs started since the process started. */
  started: number;
  /** Turns on a user's answer (steps taken) since the process started. */
  steps: number;
  /** Waits whose time ran out since the process started. */
  timeouts: number;
}

/**
 * What `bot status` (and the metrics) show of an app: who shares it, what that means for
 * each bot (the capacity lines logged at start), its stream's state and last error, and
 * its catch-up polls. Saved in the state store's `status.apps` namespace with the bots'.
 */
export interface AppStatus {
  appId: string;
  plan: Plan;
  /** Bots of the process on this app (of all processes, in `bot status` of a state on Redis). */
  bots: number;
  /** With the state on Redis: how many processes run the app's bots (see src/redis/app-status.ts). */
  processes?: number;
  /** How the bots use the app's shared windows, one sentence per endpoint. */
  capacity: string[];
  /** The app's stream, when some bot's rules or mentions use it. */
  stream?: StreamStatus;
  /** Catch-up mention polls (bots whose mentions come through the stream) waiting and running, and done since start. */
  catchUp?: { waiting: number; running: number; done: number };
  updatedAt: number;
}

/** The store namespace of {@link AppStatus} records, by app id. */
export const APP_STATUS_NAMESPACE = "status.apps";

/**
 * What the engine hands each event to: the plugins stage (src/plugins/stage.ts), injected
 * by hosting. The engine knows nothing of plugins, contexts or handlers beyond this.
 */
/** Which channels of users' messages reach the bot by a poll (see {@link EventHandling.start}). */
export interface PolledChannels {
  /** Mentions and replies in threads: the mentions trigger polls (not the stream). */
  thread: boolean;
  /** Direct messages: the dms trigger. */
  dm: boolean;
}

export interface EventHandling {
  /** Whether some plugin of the bot handles or filters events of this kind. */
  handles(kind: EventName): boolean;
  /**
   * Runs the bot's filters and handlers for the event (each plugin inside its error boundary
   * and time limit); `undefined` when none takes events of its kind. Never rejects.
   * `onWaiting` is told when the handling starts awaiting an action (`true`: for its budget,
   * mostly) and when it awaits none any more (`false`): the inbox frees its slot meanwhile.
   */
  handle(event: BotEvent, onWaiting?: (waiting: boolean) => void): Promise<void> | undefined;
  /** Whether the handlers running for this event all wait for an action the budget holds back. */
  waiting(eventId: string): boolean;
  /**
   * The key of the events the engine must handle one at a time, in the order they came
   * (undefined: any order); absent: by the user an event comes from.
   */
  orderKey?(event: BotEvent): string | undefined;
  /**
   * The bot starts running here (before the inbox's events are taken up): the stage's own
   * timers start. `polled` says which of the messages a user sends the bot come by a poll
   * (mentions polled rather than streamed, DMs): they are known only as late as its next poll.
   */
  start?(polled?: PolledChannels): void;
  /**
   * A trigger has just read the service (its poll is over, its events are in the inbox): a
   * dialog's timeout that waited to know whether an answer came in time may go on.
   */
  heard?(trigger: "mentions" | "dms"): void;
  /** The bot stops running here (stopped, paused, or taken over by another process): its timers stop. */
  stop?(): void;
  /** Whether the stage is doing work of its own that no event brought (a dialog's timeout turn). */
  busy?(): boolean;
  /** The bot's dialogs, when a plugin defines one. */
  dialogs?(): DialogCounts | undefined;
  /** The bot's requests to model servers in flight and waiting for a slot (undefined: none). */
  models?(): ModelSlotUse[] | undefined;
}
