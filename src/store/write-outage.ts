/**
 * A run of failed writes of the file store (a full disk, mostly) while `bot start` runs: when
 * it began, when it was last told, and the next try. The store's flushes wait meanwhile
 * (file-store.ts, `retry`); this says so once when it begins (what happens, what to do), again
 * every few minutes while it lasts, and once when it ends, and schedules each try on the
 * runtime's clock: one second after the first failure, then twice as long each time, up to
 * ten seconds, which is the most space coming back waits to be used.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { describeFsError, fsAdvice } from "./fs-error.ts";

export interface WriteOutageOptions {
  stateDir: string;
  clock: Clock;
  log: Logger;
  /** The first wait before a try, doubled after each failure up to `maxMs`. */
  firstMs: number;
  maxMs: number;
  /** While writes keep failing, the log says so again this often. */
  remindMs: number;
}

/** The failed writes of one store, from the first to the one that goes through. */
export class WriteOutage {
  private since: number | undefined;
  private toldAt = 0;
  private waitMs: number;
  private cancelTry: (() => void) | undefined;

  constructor(private readonly options: WriteOutageOptions) {
    this.waitMs = options.firstMs;
  }

  /** Whether writes are failing now (the last one failed). */
  get failing(): boolean {
    return this.since !== undefined;
  }

  /** How long writes have been failing, in whole seconds (0 when they are not). */
  seconds(): number {
    return this.since === undefined ? 0 : Math.round((this.options.clock.now() - this.since) / 1000);
  }

  /** A write failed: says so (the first time, then every few minutes) and runs `retry` after the next wait. */
  failed(error: unknown, changes: number, retry: () => void): void {
    const { clock, log, stateDir } = this.options;
    const now = clock.now();
    if (this.since === undefined) {
      this.since = now;
      this.toldAt = now;
      log.error(
        { dir: stateDir, err: error, changes },
        `cannot write the state in ${stateDir}: ${describeFsError(error)}; ${fsAdvice(error, "check the state directory's permissions")}. Meanwhile postbot keeps the changes in memory and tries again every few seconds: nothing is sent before its ledger mark is written, and what comes meanwhile waits; once the state is written again, it goes on`,
      );
    } else if (now - this.toldAt >= this.options.remindMs) {
      this.toldAt = now;
      log.warn(
        { dir: stateDir, err: error, changes, seconds: this.seconds() },
        `still cannot write the state in ${stateDir} (for ${this.seconds()} s, ${changes} changes waiting): ${describeFsError(error)}; ${fsAdvice(error, "check the state directory's permissions")}`,
      );
    }
    this.cancel();
    this.cancelTry = clock.setTimeout(() => {
      this.cancelTry = undefined;
      retry();
    }, this.waitMs);
    this.waitMs = Math.min(this.waitMs * 2, this.options.maxMs);
  }

  /** A write went through: the outage, if there was one, is over (said once). */
  ended(): void {
    if (this.since === undefined) return;
    const { log, stateDir } = this.options;
    log.info(
      { dir: stateDir, seconds: this.seconds() },
      `the state in ${stateDir} is written again (it could not be for ${this.seconds()} s); what waited goes on`,
    );
    this.since = undefined;
    this.waitMs = this.options.firstMs;
    this.cancel();
  }

  /** Cancels the try to come, if any. */
  cancel(): void {
    this.cancelTry?.();
    this.cancelTry = undefined;
  }
}
