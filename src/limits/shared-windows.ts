/**
 * Windows shared by several processes: the contract a {@link BudgetBook} needs when the
 * state lives where many `bot start` processes meet (Redis: src/redis/shared-windows.ts). Without one
 * the book counts in process memory, which is exact for one process and the fastest path.
 *
 * Why a separate contract rather than a second SlidingWindow: a shared window must check and
 * take in one atomic step (two processes must never both see the last slot as free), so the
 * taking is asynchronous and all-or-nothing over every window of an endpoint at once; the
 * local windows stay as this process's mirror (for `bot status`), never the judge.
 */

import type { StagedWrite } from "../store/staged-write.ts";

/** One window a request must fit into: at most `allowed` events in any `windowMs`. */
export interface WindowClaim {
  key: string;
  windowMs: number;
  /** What may be used of the window (its maximum less the bot's reserve). */
  allowed: number;
}

/** What a shared take answered: a slot, or when the earliest room comes and which key holds it back. */
export type SharedTake = { ok: true; at: number; member: string } | { ok: false; readyAt: number; binding: string };

/** Windows and pauses shared by every process of a deployment; see the module comment. */
export interface SharedWindows {
  /**
   * Atomically: if every window has room and no pause key holds past `now`, counts one event
   * at `now` in all of them; otherwise counts nothing and says when the first room comes
   * (Infinity when a window allows nothing at all). With `write`, its commands are applied
   * with the slot, or not at all (a take refused, or its fence refused: a FencedError), and
   * its `done` is told which.
   */
  take(
    windows: readonly WindowClaim[],
    pauses: readonly string[],
    now: number,
    write?: StagedWrite,
  ): Promise<SharedTake>;
  /** The service reported `remaining` of a window of `max`: counts what is missing at `now`; returns how many were added. */
  correct(key: string, windowMs: number, max: number, remaining: number, now: number): Promise<number>;
  /** Moves one event counted at `from` (this slot's `member` when known) to `to`. */
  retime(key: string, from: number, to: number, member?: string): Promise<void>;
  /** Removes one event counted at `at` (a request that never reached the service). */
  forget(key: string, at: number, member?: string): Promise<void>;
  /** Holds `key` (an endpoint's user or app scope) until `until`, unless it is held longer already. */
  pause(key: string, until: number, now: number): Promise<void>;
  /** Events counted in a window at `now` (for `bot status` and benches). */
  used(key: string, windowMs: number, now: number): Promise<number>;
  /**
   * Adds `n` (may be 0) to the posts the app read through capped endpoints in the monthly cap
   * period `period` (the counter is atomic: every process's reads are counted once); resolves
   * to the period's total so far, every process's reads included. `now` is the caller's clock.
   */
  countReads(appId: string, period: { start: number; end: number }, n: number, now: number): Promise<number>;
}
