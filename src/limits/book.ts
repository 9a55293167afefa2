/**
 * What an account's budget (./account-budget.ts) and its parts (caps, windows, corrections,
 * the monthly cap) use of the process's budget book (./budget-book.ts): the windows, pauses
 * and holds they read and write, and the book's clock and log. The book makes each account's
 * budget; this contract is what lets the budget use the book without importing it back.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { SharedWindows } from "./shared-windows.ts";
import type { SlidingWindow } from "./window.ts";

/** The process's windows as an account's budget sees them; `BudgetBook` implements it. */
export interface WindowBook {
  readonly clock: Clock;
  readonly log: Logger;
  /** The windows shared with other processes, when the state is on Redis. */
  readonly shared: SharedWindows | undefined;
  /** Changes when room appears other than by time passing (see `BudgetBook.freed`). */
  readonly freed: number;
  /** Until when the shared windows hold `key` (0 when they do not, or without shared windows). */
  heldUntil(key: string): number;
  /** Remembers that the shared windows hold `key` until `until`. */
  hold(key: string, until: number): void;
  /** Trusts the service's `remaining` for a window of `max`; whether the local window changed. */
  correct(key: string, window: SlidingWindow, max: number, remaining: number): boolean;
  /** The window of `key`, loaded from the store the first time it is used. */
  window(key: string, max: number, windowMs: number): SlidingWindow;
  /** Marks a window to be written to the store. */
  save(key: string): void;
  /** Moves one counted event of a window; `member` names it in the shared window. */
  retime(key: string, from: number, to: number, member?: string): void;
  /** Forgets one counted event of a window (a request that never reached the service). */
  forget(key: string, at: number, member?: string): void;
  pausedUntil(key: string): number;
  pause(key: string, until: number): void;
  /** Posts read through capped endpoints by an app in the cap period `period`. */
  postsRead(appId: string, period: { start: number; end: number }): number;
  /** Counts `n` posts read by the app in the cap period `period`. */
  countPostsRead(appId: string, period: { start: number; end: number }, n: number): void;
  /** Logs a warning once per distinct message key. */
  warnOnce(key: string, fields: object, message: string): void;
}
