/**
 * The bots' and apps' status, saved in the state store every few seconds for `bot status`
 * (and, with the state on Redis, each app's part published for the other processes' view),
 * and once more when the runtime stops, with the time it stopped.
 *
 * A bot's status is saved when it changed, and only then: that the process still runs and
 * its bots' statuses are what they were is said once a round for all of them, by the
 * saver's own record in {@link STATUS_ROUNDS_NAMESPACE} (when its last round ended), which
 * each status it saved names (`savedBy`). An idle process writes that one record a round,
 * whatever its number of bots: re-saving each unchanged bot in turns (once in 8 rounds)
 * was, with the marks built per bot, most of what an idle process of 25,000 bots did.
 *
 * Nor does a round look at every bot: given {@link StatusSaverOptions.still}, it looks at
 * those told changed since the last round ({@link StatusSaver.changed}) and those not still
 * when it last looked; a still bot is looked at again only once told. Looking at each of
 * 25,000 idle bots every round (its mark, its state's time) was still a third of an idle
 * process's CPU.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { APP_STATUS_NAMESPACE, type AppStatus, type BotStatus } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import { stateSince } from "./kept-state.ts";
import { timeSlicer } from "../time-slice.ts";

/** How often the bots' and apps' status is saved (default of `statusEveryMs`). */
export const STATUS_EVERY_MS = 15_000;

/** Bots whose status is gathered between two looks at the time slice (time-slice.ts). */
const STATUS_CHECK_EVERY = 16;

/**
 * Where each status saver (one a runtime) says when its last round ended, under its id: the
 * statuses it saved (their `savedBy`) are current as of then (./status-report.ts reads them
 * so). Kept with the bots' statuses (the state store's status shard).
 */
export const STATUS_ROUNDS_NAMESPACE = "status.rounds";

/** A status saver's record in {@link STATUS_ROUNDS_NAMESPACE}. */
export interface StatusRound {
  /** When its last round ended. */
  at: number;
}

/** A saver's record left by a process that did not stop cleanly is dropped after this long (by the next saver to start). */
const STALE_ROUND_MS = 7 * 24 * 3_600_000;

/**
 * What tells a bot's status changed since it was last saved: a digest of its JSON, kept between
 * rounds for each bot. (The JSON itself, kept, was a few hundred bytes of each running bot's
 * live memory; a digest is 44 characters, and a collision would at worst put a save off to
 * the bot's next turn.)
 */
const fingerprintOf = (status: BotStatus): string => {
  // Its time left out by setting it aside (JSON leaves an undefined out), not by a copy of
  // the status without it.
  const { updatedAt } = status;
  (status as { updatedAt?: number }).updatedAt = undefined;
  const json = JSON.stringify(status);
  status.updatedAt = updatedAt;
  return createHash("sha256").update(json).digest("base64");
};

/** Where the status goes, and where each bot's and app's is read from. */
export interface StatusSaverOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  everyMs: number;
  /** The bots whose status is saved, by name (those running, then those paused at start). */
  names(): Iterable<string>;
  /**
   * A bot's status now (undefined: it stopped running here meanwhile): an object of its own,
   * which the saver keeps (adopts) and adds to.
   */
  status(name: string): BotStatus | undefined;
  /**
   * A cheap mark of a bot's status (../runtime/bot.ts's `statusMark`): while it is what it was
   * when the status was last saved, the status is not gathered. `undefined`: gather it (and
   * save it if its fingerprint changed).
   */
  mark?(name: string): number | undefined;
  /**
   * Whether nothing of a bot's status moves unless {@link StatusSaver.changed} is told
   * (../runtime/bot.ts's `statusStill`). Given, a round looks only at the bots told changed
   * and those not still when last looked at; absent, at every bot every round.
   */
  still?(name: string): boolean;
  apps(): AppStatus[];
  /** Sets what else is saved with each round (the apps' stream marks: until when each stream is known connected). */
  alsoSave?(): void;
  /** Saves what the store does not hold (with the state on Redis: this process's part of each app), kept `ttlMs`. */
  publish?(ttlMs: number): Promise<void>;
}

/** The status loop of a runtime; see the module comment. */
export class StatusSaver {
  /** This saver's key in {@link STATUS_ROUNDS_NAMESPACE}, named by each status it saves. */
  readonly id = randomUUID();
  private readonly saved = new Map<string, string>();
  /** Each bot's mark ({@link StatusSaverOptions.mark}) and `stateSince` when its status was last gathered. */
  private readonly marks = new Map<string, { mark: number; since: number | undefined }>();
  /** Bots told changed since the last round began. */
  private dirty = new Set<string>();
  /** Bots not still when last looked at: looked at every round. */
  private readonly watched = new Set<string>();
  private rounds = 0;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly options: StatusSaverOptions) {}

  /** Saves now, then every `everyMs`, until {@link halt}. */
  start(): void {
    const { clock, logger, everyMs } = this.options;
    this.loop = (async () => {
      while (!this.stopped) {
        await this.save().catch((err: unknown) => logger.error({ err }, "could not save the bots' status"));
        await clock.sleep(everyMs, this.stopSignal.signal).catch(() => undefined);
      }
    })();
  }

  /** A bot's status may have changed (or it came, or went): the next round looks at it. */
  changed(name: string): void {
    this.dirty.add(name);
  }

  /** Ends the loop (a round under way finishes). */
  halt(): void {
    this.stopped = true;
    this.stopSignal.abort();
  }

  /** Once the loop has ended, saves every bot's status with the time the runtime stopped. */
  async finish(stoppedAt: number): Promise<void> {
    await this.loop;
    await this.save(stoppedAt);
  }

  /**
   * One round: each bot whose status changed, every app, this saver's round record, then a
   * flush. With `stoppedAt` (the runtime stops) every bot's, saying so, and the round record goes.
   */
  async save(stoppedAt?: number): Promise<void> {
    const { store } = this.options;
    const first = this.rounds++ === 0;
    if (first) this.dropStaleRounds();
    let i = 0;
    const slice = timeSlicer();
    for (const name of this.due(first || stoppedAt !== undefined)) {
      // Live events first: the statuses of 10,000 bots took most of a second to gather, and
      // held every mention that came meanwhile (the reply latency's tail, every 15 s).
      if (i++ % STATUS_CHECK_EVERY === 0 && slice.due()) await slice.next();
      // Marked the same as when last gathered: the status too (but for its time), not gathered.
      const mark = this.options.mark?.(name);
      const since = stateSince(store, name);
      const last = this.marks.get(name);
      if (stoppedAt === undefined && mark !== undefined && last?.mark === mark && last.since === since) {
        this.watch(name);
        continue;
      }
      // Read by name: a bot stopped here meanwhile (unhosted) has none.
      const s = this.options.status(name);
      if (!s) {
        this.forget(name);
        continue;
      }
      this.watch(name);
      if (mark === undefined) this.marks.delete(name);
      else this.marks.set(name, { mark, since });
      const fingerprint = fingerprintOf(s);
      if (stoppedAt === undefined && this.saved.get(s.bot) === fingerprint) continue;
      this.saved.set(s.bot, fingerprint);
      // status() makes an object of its own each time (./runtime.ts copies a paused bot's),
      // kept as it is (adopted) with what the saver adds: when its own state was first kept
      // (./kept-state.ts), carried over while it does not run, and which saver's rounds say it
      // is current, or when it stopped. No copy of it: 10,000 bots' statuses gathered in the
      // round after a start (each one saved) were copied twice a bot.
      if (stoppedAt) s.stoppedAt = stoppedAt;
      else s.savedBy = this.id;
      if (since !== undefined) s.stateSince = since;
      if (store.adopt) store.adopt("status", s.bot, s);
      else store.set("status", s.bot, s);
    }
    for (const a of this.options.apps()) store.set(APP_STATUS_NAMESPACE, a.appId, a);
    if (stoppedAt === undefined)
      store.set<StatusRound>(STATUS_ROUNDS_NAMESPACE, this.id, { at: this.options.clock.now() });
    else store.delete(STATUS_ROUNDS_NAMESPACE, this.id);
    this.options.alsoSave?.();
    await Promise.all([store.flush(), this.options.publish?.(3 * this.options.everyMs)]);
  }

  /** The bots a round looks at: every bot (`all`), else those told changed and those watched. */
  private due(all: boolean): Iterable<string> {
    const told = this.dirty;
    this.dirty = new Set();
    if (all || !this.options.still) return this.options.names();
    for (const name of this.watched) told.add(name);
    return told;
  }

  /** Watched from now on while not still (without `still`: nothing is). */
  private watch(name: string): void {
    if (!this.options.still || this.options.still(name)) this.watched.delete(name);
    else this.watched.add(name);
  }

  /** A bot no longer here: nothing kept of it. */
  private forget(name: string): void {
    this.watched.delete(name);
    this.marks.delete(name);
    this.saved.delete(name);
  }

  /** The round records of savers long gone (their processes did not stop cleanly): their bots' statuses fall back to their own time. */
  private dropStaleRounds(): void {
    const { store, clock } = this.options;
    for (const [id, round] of store.entries<StatusRound>(STATUS_ROUNDS_NAMESPACE))
      if (clock.now() - round.at > STALE_ROUND_MS) store.delete(STATUS_ROUNDS_NAMESPACE, id);
  }
}
