/**
 * One hosted bot, as hosting builds it from its parts (src/hosting/bot-factory.ts): its
 * inbox (./inbox.ts, made here: the one object that changes it), its triggers (./bot-triggers.ts), its
 * liveness (./liveness.ts), and the plugins stage its events go to (injected as
 * {@link EventHandling}). This class only puts them together and answers for the bot as a
 * whole: start, pause, stop, and the status `bot status` shows.
 */
import type { ActionLayer, BotActionsOptions, BudgetStatus } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { TRIGGER_OF, type BotEvent, type EventName, type TriggerName } from "../triggers/events.ts";
import { BotTriggers, type TriggerSpecs } from "./bot-triggers.ts";
import { Inbox } from "./inbox.ts";
import { Liveness } from "./liveness.ts";
import type { MentionsFeed } from "./mentions-feed.ts";
import type { BotIdentity, BotStatus, DialogCounts, EventHandling } from "./types.ts";

/** A bot's parts, as hosting builds them (src/hosting/bot-factory.ts). */
export interface BotRuntimeOptions {
  name: string;
  appId: string;
  enrolmentDay?: number;
  identity: BotIdentity;
  layer: ActionLayer;
  store: Store;
  clock: Clock;
  log: Logger;
  /** The plugins stage: runs each event's filters and handlers (src/plugins/stage.ts). */
  handling: EventHandling;
  /** The bot file's triggers, with the intervals its plan allows. */
  triggers: TriggerSpecs;
  /** The bot file's `budget` (reserve and caps), shown by `bot status`. */
  budgetPolicy?: BotActionsOptions["budget"];
  /** Events handled at once (their actions still queue by priority). */
  concurrency?: number;
  /** An event has been handled (`bot start --http` counts them). */
  onHandled?(kind: BotEvent["kind"]): void;
}

/** Status marks drawn so far in this process ({@link BotRuntime.statusMark}). */
let statusMarks = 0;

/** The figures of a bot's status when its mark was drawn ({@link BotRuntime.statusMark}). */
interface Marked {
  mark: number;
  revision: number;
  inbox: number;
  /** The inbox's pause itself (a new object at each pause). */
  paused: BotStatus["paused"];
  dialogs: DialogCounts | undefined;
}

/** One hosted bot; see the module comment. */
export class BotRuntime {
  readonly name: string;
  readonly identity: BotIdentity;
  /** The bot's action layer: what hosting sends a person's decisions through (a review's hide). */
  readonly layer: ActionLayer;
  /**
   * Where the runtime's side of the app's stream hands the bot its streamed mentions
   * (./mentions-feed.ts), and where hosting asks for catch-up polls.
   */
  readonly mentions: MentionsFeed;
  private readonly liveness: Liveness;
  /** The bot's inbox: the one object that changes it. */
  readonly inbox: Inbox;
  private readonly triggers: BotTriggers;
  /** Told when a figure of {@link status} may have moved ({@link watchStatus}). */
  private statusListener: (() => void) | undefined;
  /** The figures of the last status mark drawn; a runtime's first call draws one (a bot restarted is another runtime). */
  private marked: Marked = { mark: 0, revision: -1, inbox: -1, paused: undefined, dialogs: undefined };

  constructor(private readonly options: BotRuntimeOptions) {
    this.name = options.name;
    this.identity = options.identity;
    this.layer = options.layer;
    this.liveness = new Liveness(
      options.clock,
      (trigger, event) => {
        if (!event && (trigger === "mentions" || trigger === "dms")) options.handling.heard?.(trigger);
        this.statusListener?.();
      },
      options.store.get<BotStatus>("status", this.name)?.triggers,
    );
    const { handling } = options;
    const liveness = this.liveness;
    // Methods, not named arrows: every bot has them, and tsx gives each named arrow a name
    // property of its own (a few hundred bytes a bot).
    this.inbox = new Inbox({
      store: options.store,
      bot: options.name,
      handling,
      clock: options.clock,
      log: options.log,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      ...(handling.orderKey
        ? {
            orderKey(e: BotEvent) {
              return handling.orderKey!(e);
            },
          }
        : {}),
      onDelivered(e) {
        liveness.touch(TRIGGER_OF[e.kind], true);
      },
      ...(options.onHandled ? { onHandled: options.onHandled } : {}),
    });
    this.triggers = new BotTriggers({
      bot: this.name,
      userId: options.identity.userId,
      clock: options.clock,
      layer: options.layer,
      log: options.log,
      specs: options.triggers,
      inbox: this.inbox,
      liveness: this.liveness,
    });
    this.mentions = this.triggers.mentions;
  }

  /** Whether some plugin of this bot handles or filters events of this kind. */
  handles(event: EventName): boolean {
    return this.options.handling.handles(event);
  }

  /**
   * How the bot's mentions reach it, when its file has a mentions trigger: through the app's
   * stream, or polled every `everyMs`. `bot say --wait` waits that long for an answer.
   */
  mentionsDelivery(): { via: "poll" | "stream"; everyMs: number } | undefined {
    return this.triggers.mentionsDelivery();
  }

  /** How often the bot's direct messages are polled, when its file has a dms trigger (`bot say --dm --wait`). */
  dmsDelivery(): { everyMs: number } | undefined {
    return this.triggers.dmsDelivery();
  }

  /** Starts the polling and schedule triggers of the bot file; handles what the inbox kept. */
  start(): void {
    // The stage first: what the inbox kept may be answers its dialogs wait for.
    this.options.handling.start?.({
      thread: this.triggers.mentionsDelivery()?.via === "poll",
      dm: this.triggers.dmsDelivery() !== undefined,
    });
    this.triggers.start();
    this.inbox.resume();
    this.statusListener?.();
  }

  /** Puts events in the inbox (flushing unless the caller flushes) and handles them. */
  deliver(events: readonly BotEvent[], flush = true): void {
    this.inbox.deliver(events, flush);
  }

  /** See {@link Inbox.deliverHandled}. */
  deliverHandled(events: readonly BotEvent[]): Promise<void> {
    return this.inbox.deliverHandled(events);
  }

  /** Records liveness: a check of a trigger, or an event from it. */
  touch(trigger: TriggerName, event = false): void {
    this.liveness.touch(trigger, event);
  }

  /**
   * Whether the bot can make no progress until the clock moves: every event being handled is
   * waiting for an action, and every poll in progress is waiting for its (budgeted) request.
   */
  quiet(): boolean {
    return this.inbox.quiet() && this.triggers.quiet() && !this.options.handling.busy?.();
  }

  /** Stops the triggers; events being handled go on (see {@link drain}). */
  stopTriggers(): void {
    this.triggers.stop();
  }

  /** Stops taking events and waits up to `timeoutMs` for those being handled. */
  async drain(timeoutMs: number): Promise<void> {
    const drained = this.inbox.drain(timeoutMs);
    this.triggers.stop();
    this.options.handling.stop?.();
    await drained;
  }

  /**
   * Hands the bot over to its successor (hosting restarts it with a new configuration, or
   * resumes it): its triggers stop, no event starts any more (events still come into the
   * inbox, where the successor finds them), and those being handled get up to `timeoutMs` to
   * finish. Resolves whether they all did.
   */
  async handOver(timeoutMs: number): Promise<boolean> {
    if (!this.inbox.paused) this.inbox.pause("being restarted with its new configuration");
    this.statusListener?.();
    this.triggers.stop();
    return this.inbox.settled(timeoutMs);
  }

  /** New poll intervals (the bots sharing the app's windows changed); see {@link BotTriggers.retune}. */
  retune(intervals: { mentionsMs?: number; followersMs?: number }): void {
    this.triggers.retune(intervals);
  }

  /** Pauses the bot: its triggers stop and its events wait in the inbox (`accountRefused`: its token was revoked). */
  pause(reason: string, accountRefused = false): void {
    this.inbox.pause(reason, accountRefused);
    this.statusListener?.();
    this.triggers.stop();
    this.options.handling.stop?.();
  }

  get paused(): BotStatus["paused"] {
    return this.inbox.paused;
  }

  /** What the bot's budget allows now, per action (the status page's budget bars). */
  budget(): BudgetStatus {
    return this.options.layer.status();
  }

  /**
   * Tells `listener` whenever a figure of {@link status} may have moved while the bot is
   * {@link statusStill}: a check or an event of a trigger (every event delivered is one), its
   * start, a pause. What moves while it is not still (its inbox, its waits for budget, its
   * requests to a model server, its open dialogs) the status saver looks at every round.
   * Work for budget of a still bot (a poll waiting) is told by the budget queue
   * (ActionQueue.watchJoins).
   */
  watchStatus(listener: () => void): void {
    this.statusListener = listener;
  }

  /**
   * Whether nothing of {@link status} moves but by what {@link watchStatus} tells: no event
   * fetched or being handled, nothing waiting for budget, no request to a model server, no
   * dialog open (its wait may time out).
   */
  statusStill(): boolean {
    const { handling, layer } = this.options;
    if (this.inbox.size > 0 || handling.models?.() || layer.waitingCount() > 0) return false;
    const d = handling.dialogs?.();
    return d === undefined || d.open.thread + d.open.dm === 0;
  }

  /**
   * A cheap mark of what {@link status} shows: while it stays the same, so does the status
   * (but for `updatedAt`), and the status saver need not gather it. A number drawn afresh
   * (from a count of the whole process's bots, so no two runtimes share one) only when a
   * figure the status shows moved since the last call: the mark built as a string of those
   * figures for each of 25,000 idle bots every 15 s was the largest JavaScript item of an idle
   * process. `undefined` when the status may change without the mark showing it (something
   * waits for budget, whose time moves with the app's other bots; requests to a model
   * server): gather it.
   */
  statusMark(): number | undefined {
    const { handling, layer } = this.options;
    if (handling.models?.() || layer.waitingCount() > 0) return undefined;
    const d = handling.dialogs?.();
    const paused = this.inbox.paused;
    const seen = this.marked;
    const same =
      seen.revision === this.liveness.revision &&
      seen.inbox === this.inbox.size &&
      seen.paused === paused &&
      (d === undefined
        ? seen.dialogs === undefined
        : seen.dialogs !== undefined &&
          seen.dialogs.open.thread === d.open.thread &&
          seen.dialogs.open.dm === d.open.dm &&
          seen.dialogs.started === d.started &&
          seen.dialogs.steps === d.steps &&
          seen.dialogs.timeouts === d.timeouts);
    if (!same)
      this.marked = {
        mark: ++statusMarks,
        revision: this.liveness.revision,
        inbox: this.inbox.size,
        paused,
        dialogs: d && { open: { ...d.open }, started: d.started, steps: d.steps, timeouts: d.timeouts },
      };
    return this.marked.mark;
  }

  status(): BotStatus {
    const { options } = this;
    const paused = this.inbox.paused;
    const dialogs = options.handling.dialogs?.();
    const models = options.handling.models?.();
    return {
      bot: this.name,
      appId: options.appId,
      userId: this.identity.userId,
      username: this.identity.username,
      plan: this.identity.plan,
      ...(paused ? { paused } : {}),
      triggers: this.liveness.snapshot(),
      inbox: this.inbox.size,
      budgetPolicy: options.budgetPolicy,
      waiting: options.layer
        .waiting()
        .map(({ label, endpoint, readyAt, reason }) => ({ label, endpoint, readyAt, ...(reason ? { reason } : {}) })),
      ...(options.enrolmentDay ? { enrolmentDay: options.enrolmentDay } : {}),
      ...(dialogs ? { dialogs } : {}),
      ...(models ? { models } : {}),
      updatedAt: options.clock.now(),
    };
  }
}
