/**
 * A bot's inbox: the events fetched from the service and not yet handled, and the cursors of
 * the triggers that fetched them, kept in the state store; and their hand-out to the plugins
 * stage ({@link EventHandling}, injected) a few at a time. It is the one object that changes
 * them: made once per bot by its runtime (./bot.ts); others only read the state
 * ({@link waitingEvents}, {@link inboxReader}).
 *
 * What a poll delivers ({@link Delivery}: its events and its cursor's move) goes in together
 * ({@link Inbox.commit}) and is made durable by one flush, here, not by the trigger, so a
 * crash can neither lose a fetched event nor fetch it twice. An event leaves the inbox once
 * its handlers have run; on start, what is left is handled first ({@link Inbox.resume}).
 *
 * No head-of-line blocking: a handler awaiting an action (which waits, mostly, for its budget:
 * a reply for the 15-minute reply window) holds no slot. The slots (`concurrency`) count
 * only the events whose handlers are at work, so a like is never held up by replies waiting
 * for their window. What bounds memory then is {@link DEFAULT_MAX_IN_FLIGHT}: events being
 * handled at most, waiting or not; past it, events wait in the inbox (durable, and bounded
 * there by {@link INBOX_LIMIT}) until one ends.
 *
 * Events of one order key are handled one at a time, in the order they came (./turns.ts):
 * the stage says which ({@link EventHandling.orderKey}; by default the user an event comes
 * from, {@link eventUser}). So an answer in a dialog is never handled beside the message
 * before it, and a user's session is never changed by two handlers at once.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import {
  CURSORS_NAMESPACE,
  eventUser,
  type BotEvent,
  type CursorMove,
  type Delivery,
  type EventName,
} from "../triggers/events.ts";
import { Turns } from "./turns.ts";
import type { BotStatus, EventHandling } from "./types.ts";

/** Events kept at most per bot; past it the oldest are dropped (and reported). */
export const INBOX_LIMIT = 10_000;

/**
 * Events being handled at most per bot, those whose handlers await an action included: 1,000.
 * Each is in memory anyway (the inbox keeps its events there, up to 10,000 a bot); being
 * handled adds its handler's context and its request in the budget queue, a kilobyte or two:
 * at most a couple of megabytes for a bot whose replies all wait, ten times the pro plan's
 * 100 replies per 15 minutes.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;

/** Where a bot's inbox keeps its events, and what it hands them to. */
export interface InboxOptions {
  store: Store;
  bot: string;
  /** The plugins stage. */
  handling: EventHandling;
  clock: Clock;
  log: Logger;
  /** Events whose handlers are at work at once (their actions still queue by priority); default 8. */
  concurrency?: number;
  /** Events being handled at most, those awaiting an action included; default {@link DEFAULT_MAX_IN_FLIGHT}. */
  maxInFlight?: number;
  /** The key of events handled one at a time, in order (default: the event's user); undefined: any order. */
  orderKey?: (event: BotEvent) => string | undefined;
  /** An event came in (liveness counts it against its trigger). */
  onDelivered(event: BotEvent): void;
  /** An event has been handled (`bot start --http` counts them). */
  onHandled?(kind: EventName): void;
}

/** One bot's inbox; see the module comment. */
export class Inbox {
  private readonly namespace: string;
  /** Events in the store's namespace (counted once, then kept), so adding one is not O(inbox). */
  private stored: number | undefined;
  /** Events waiting to be handled, oldest first: the stored events, kept in memory. */
  private readonly waiting: BotEvent[] = [];
  private readonly running = new Map<string, Promise<void>>();
  /** Events being handled whose handlers await an action: they hold no slot. */
  private readonly parked = new Set<string>();
  private readonly maxInFlight: number;
  private readonly turns = new Turns();
  /** Who waits for an event to be handled (a schedule run spans its event's handling). */
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly concurrency: number;
  private stopped = false;
  private pausedFor: BotStatus["paused"];

  constructor(private readonly options: InboxOptions) {
    this.namespace = inboxNamespace(options.bot);
    this.concurrency = options.concurrency ?? 8;
    this.maxInFlight = Math.max(this.concurrency, options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  }

  /** Whether the bot stopped taking events (it is being stopped here). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Why and since when the bot is paused (its account refused), if it is. */
  get paused(): BotStatus["paused"] {
    return this.pausedFor;
  }

  /** Events fetched and not yet handled (waiting or being handled). */
  get size(): number {
    return this.waiting.length + this.running.size + this.turns.size;
  }

  /** Handles what an earlier run fetched and did not finish handling first, then what comes. */
  resume(): void {
    const queued = new Set([...this.waiting.map((e) => e.id), ...this.running.keys(), ...this.turns.ids()]);
    this.waiting.unshift(...this.pending().filter((e) => !queued.has(e.id)));
    this.pump();
  }

  /** Puts events in the inbox (flushing unless the caller says it need not) and handles them. */
  deliver(events: readonly BotEvent[], flush = true): void {
    if (events.length === 0) return;
    this.take(events);
    if (flush)
      void this.options.store
        .flush()
        .catch((err: unknown) => this.options.log.error({ err }, "could not save the inbox"));
  }

  /** A trigger's cursor, as last moved. */
  cursor<T>(key: string): T | undefined {
    return this.options.store.get<T>(CURSORS_NAMESPACE, key);
  }

  /**
   * Puts `events` in the inbox and moves the cursor at once (before returning), then makes
   * both durable; resolves once they are (a {@link Delivery}'s two parts).
   */
  commit(events: readonly BotEvent[], cursor?: CursorMove): Promise<void> {
    if (events.length > 0) this.take(events, cursor);
    else if (cursor) this.move(cursor);
    return this.flushOwn(events[0]?.id, cursor);
  }

  /**
   * Makes the inbox's and the cursor's changes durable: only their parts of the store, where
   * it writes its parts apart (in Redis, a streamed mention's commit does not wait for the
   * status of every bot, written meanwhile in one transaction); the whole store otherwise.
   */
  private async flushOwn(eventId: string | undefined, cursor: CursorMove | undefined): Promise<void> {
    const { store } = this.options;
    if (!store.flushPartOf) return await store.flush();
    await Promise.all([
      eventId === undefined ? undefined : store.flushPartOf(this.namespace, eventId),
      cursor === undefined ? undefined : store.flushPartOf(CURSORS_NAMESPACE, cursor.key),
    ]);
  }

  /** Whether an event waits here (fetched, not yet handled). */
  has(id: string): boolean {
    return this.options.store.get(this.namespace, id) !== undefined;
  }

  /** Events stored, oldest first. */
  pending(): BotEvent[] {
    return waitingEvents(this.options.store, this.options.bot);
  }

  /** Stores events (and a cursor's move), counts them, and starts handling them soon. */
  private take(events: readonly BotEvent[], cursor?: CursorMove): void {
    const { added, dropped } = this.put(events);
    if (cursor) this.move(cursor);
    this.waiting.push(...added);
    if (dropped.length > 0) {
      const gone = new Set(dropped);
      this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((e) => !gone.has(e.id)));
      this.turns.drop(gone);
      this.options.log.warn(
        { dropped: dropped.length },
        `inbox full: dropped the ${dropped.length} oldest unhandled events`,
      );
    }
    for (const e of events) this.options.onDelivered(e);
    queueMicrotask(() => this.pump());
  }

  /** Stores the events not already here; returns them, and the ids of any dropped to stay within {@link INBOX_LIMIT}. */
  private put(events: readonly BotEvent[]): { added: BotEvent[]; dropped: string[] } {
    const { store } = this.options;
    this.stored ??= store.entries(this.namespace).length;
    const added = events.filter((e) => store.get(this.namespace, e.id) === undefined);
    for (const e of added) store.set(this.namespace, e.id, e);
    this.stored += added.length;
    if (this.stored <= INBOX_LIMIT) return { added, dropped: [] };
    const all = store.entries<BotEvent>(this.namespace);
    const dropped = all.slice(0, Math.max(0, all.length - INBOX_LIMIT)).map(([id]) => id);
    for (const id of dropped) store.delete(this.namespace, id);
    this.stored = all.length - dropped.length;
    return { added, dropped };
  }

  /** Moves a trigger's cursor (an undefined value drops it); the next flush makes it durable. */
  private move(cursor: CursorMove): void {
    if (cursor.value === undefined) this.options.store.delete(CURSORS_NAMESPACE, cursor.key);
    else this.options.store.set(CURSORS_NAMESPACE, cursor.key, cursor.value);
  }

  /** Resolves once the event has been handled (it may be waiting behind others). */
  handled(id: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]));
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
   * Runs `take`, which puts those of `events` it has not seen before in the inbox, and
   * resolves once those have been handled; the others are done at once.
   */
  async handledAfter(events: readonly BotEvent[], take: () => Promise<unknown>): Promise<void> {
    const done = new Map(events.map((e) => [e.id, this.handled(e.id)]));
    await take();
    const waits: Array<Promise<void>> = [];
    for (const e of events) {
      if (this.has(e.id) || this.running.has(e.id)) waits.push(done.get(e.id)!);
      else this.waiters.delete(e.id);
    }
    await Promise.all(waits);
  }

  /** Whether every event being handled waits for an action (the budget queue holds it back). */
  quiet(): boolean {
    for (const id of this.running.keys()) if (!this.options.handling.waiting(id)) return false;
    return true;
  }

  /** Stops starting events (they wait in the inbox) while the bot's account is refused, or a person paused it. */
  pause(reason: string, accountRefused = false): void {
    this.pausedFor = {
      reason,
      at: this.options.clock.now(),
      ...(accountRefused ? { accountRefused: true as const } : {}),
    };
  }

  /**
   * Waits up to `timeoutMs` for the events being handled now (none start while paused or
   * stopped); resolves whether they all finished.
   */
  async settled(timeoutMs: number): Promise<boolean> {
    const cancel = new AbortController();
    const finished = await Promise.race([
      Promise.allSettled([...this.running.values()]).then(() => true),
      this.options.clock.sleep(timeoutMs, cancel.signal).then(
        () => false,
        () => false,
      ),
    ]);
    cancel.abort();
    return finished;
  }

  /** Stops taking events and waits up to `timeoutMs` for those being handled. */
  async drain(timeoutMs: number): Promise<void> {
    this.stopped = true;
    const cancel = new AbortController();
    await Promise.race([
      Promise.allSettled([...this.running.values()]),
      this.options.clock.sleep(timeoutMs, cancel.signal).catch(() => {}),
    ]);
    cancel.abort();
  }

  /**
   * Starts handling waiting events while a slot is free (see the module comment); an event
   * whose user has one running waits aside for it.
   */
  private pump(): void {
    if (this.stopped || this.pausedFor) return;
    while (this.hasSlot() && this.waiting.length > 0) {
      const event = this.waiting.shift()!;
      const key = (this.options.orderKey ?? eventUser)(event);
      if (key !== undefined && !this.turns.take(event, key)) continue;
      this.running.set(event.id, this.run(event, key));
    }
  }

  /** Whether an event may start: fewer than `concurrency` at work, fewer than `maxInFlight` in all. */
  private hasSlot(): boolean {
    return this.running.size - this.parked.size < this.concurrency && this.running.size < this.maxInFlight;
  }

  /** The event's handler awaits an action (its slot is free for the next), or no longer does. */
  private parks(id: string, waiting: boolean): void {
    if (!waiting) {
      this.parked.delete(id);
      return;
    }
    this.parked.add(id);
    // Not from inside the handler's own call: the pump that started it may still be running.
    queueMicrotask(() => this.pump());
  }

  /**
   * Hands the event to the plugins stage; once handled, it leaves the inbox and its slot goes
   * to the next: the user's next event first, if one waits. An event no plugin takes is done
   * at once.
   */
  private run(event: BotEvent, key: string | undefined): Promise<void> {
    let ended = false;
    const release = () => {
      ended = true;
      this.running.delete(event.id);
      this.parked.delete(event.id);
      const next = key !== undefined ? this.turns.release(key) : undefined;
      if (next) this.waiting.unshift(next);
      this.pump();
    };
    // An action a handler left running past its end (not awaited) is no longer the event's.
    const work = this.options.handling.handle(event, (waiting) => ended || this.parks(event.id, waiting));
    if (work === undefined) {
      this.finish(event);
      return Promise.resolve().then(release);
    }
    return work.then(
      () => {
        this.finish(event);
        release();
      },
      (err: unknown) => {
        release();
        throw err;
      },
    );
  }

  private finish(event: BotEvent): void {
    const { store } = this.options;
    if (this.stored !== undefined && store.get(this.namespace, event.id) !== undefined) this.stored--;
    store.delete(this.namespace, event.id);
    this.options.onHandled?.(event.kind);
    for (const wake of this.waiters.get(event.id) ?? []) wake();
    this.waiters.delete(event.id);
  }
}

/**
 * The events waiting in a bot's inbox, oldest first, read straight from the state: for those
 * that only look (`bot say`, a start's "resumed from" line, the dialogs), so the running bot's
 * {@link Inbox} stays the one object that changes it.
 */
export function waitingEvents(store: Store, bot: string): BotEvent[] {
  return store.entries<BotEvent>(inboxNamespace(bot)).map(([, e]) => e);
}

/** A bot's inbox as those that only read it see it (its dialogs: an answer fetched and not yet handled). */
export function inboxReader(store: Store, bot: string): Pick<Inbox, "has" | "pending"> {
  const namespace = inboxNamespace(bot);
  return {
    has(id) {
      return store.get(namespace, id) !== undefined;
    },
    pending() {
      return waitingEvents(store, bot);
    },
  };
}

function inboxNamespace(bot: string): string {
  return `inbox:${bot}`;
}
