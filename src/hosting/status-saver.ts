/**
 * The bots' and apps' status, saved in the state store every few seconds for `bot status`
 * (and, with the state on Redis, each app's part published for the other processes' view),
 * and once more when the runtime stops, with the time it stopped.
 *
 * A bot's status is saved when it changed; an unchanged one only every
 * {@link STATUS_REFRESH_ROUNDS} rounds (its `updatedAt` says the process still runs), in
 * turns: 10,000 idle bots made a ~3 MB journal line every 15 s otherwise.
 */
import { createHash } from "node:crypto";
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

/** An unchanged bot's status is saved again once in this many status rounds (15 s each by default). */
const STATUS_REFRESH_ROUNDS = 8;

/**
 * What tells a bot's status changed since it was last saved: a digest of its JSON, kept between
 * rounds for each bot. (The JSON itself, kept, was a few hundred bytes of each running bot's
 * live memory; a digest is 44 characters, and a collision would at worst put a save off to
 * the bot's next turn.)
 */
const fingerprintOf = (what: object): string => createHash("sha256").update(JSON.stringify(what)).digest("base64");

/** Where the status goes, and where each bot's and app's is read from. */
export interface StatusSaverOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  everyMs: number;
  /** The bots whose status is saved, by name (those running, then those paused at start). */
  names(): Iterable<string>;
  /** A bot's status now (undefined: it stopped running here meanwhile). */
  status(name: string): BotStatus | undefined;
  /**
   * A cheap mark of a bot's status (../runtime/bot.ts's `statusMark`): while it is what it was
   * when the status was last saved, the status is not gathered until its turn comes.
   * `undefined`: gather it.
   */
  mark?(name: string): string | undefined;
  apps(): AppStatus[];
  /** Sets what else is saved with each round (the apps' stream marks: until when each stream is known connected). */
  alsoSave?(): void;
  /** Saves what the store does not hold (with the state on Redis: this process's part of each app), kept `ttlMs`. */
  publish?(ttlMs: number): Promise<void>;
}

/** The status loop of a runtime; see the module comment. */
export class StatusSaver {
  private readonly saved = new Map<string, string>();
  /** Each bot's mark ({@link StatusSaverOptions.mark}) when its status was last gathered. */
  private readonly marks = new Map<string, string>();
  private round = 0;
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

  /** One round: each bot whose status changed (or whose turn it is), every app, then a flush. */
  async save(stoppedAt?: number): Promise<void> {
    const { store } = this.options;
    let i = 0;
    const slice = timeSlicer();
    for (const name of this.options.names()) {
      // Live events first: the statuses of 10,000 bots took most of a second to gather, and
      // held every mention that came meanwhile (the reply latency's tail, every 15 s).
      if (i % STATUS_CHECK_EVERY === 0 && slice.due()) await slice.next();
      const turn = i++ % STATUS_REFRESH_ROUNDS === this.round % STATUS_REFRESH_ROUNDS;
      // Marked the same as when last gathered: the status too (but for its time), not gathered.
      const marked = this.options.mark?.(name);
      const mark = marked === undefined ? undefined : `${marked} ${stateSince(store, name) ?? "-"}`;
      const unmarked = stoppedAt === undefined && !turn && mark !== undefined;
      if (unmarked && this.marks.get(name) === mark) continue;
      // Read by name when its turn comes: a bot stopped here meanwhile (unhosted) has none.
      const s = this.options.status(name);
      if (!s) continue;
      if (mark === undefined) this.marks.delete(name);
      else this.marks.set(name, mark);
      const { updatedAt: _, ...what } = s;
      const fingerprint = fingerprintOf(what);
      if (stoppedAt === undefined && !turn && this.saved.get(s.bot) === fingerprint) continue;
      this.saved.set(s.bot, fingerprint);
      // Adopted, not copied: status() makes a fresh object each time (its parts copies, or the
      // bot file's budget policy), a paused bot's is made once, and nothing changes either later.
      // With when its own state was first kept (./kept-state.ts), carried over while it does not run.
      const since = stateSince(store, s.bot);
      const saved =
        stoppedAt || since !== undefined
          ? { ...s, ...(stoppedAt ? { stoppedAt } : {}), ...(since !== undefined ? { stateSince: since } : {}) }
          : s;
      if (store.adopt) store.adopt("status", s.bot, saved);
      else store.set("status", s.bot, saved);
    }
    this.round++;
    for (const a of this.options.apps()) store.set(APP_STATUS_NAMESPACE, a.appId, a);
    this.options.alsoSave?.();
    await Promise.all([store.flush(), this.options.publish?.(3 * this.options.everyMs)]);
  }
}
