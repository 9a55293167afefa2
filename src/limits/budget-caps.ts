/**
 * The bot file's per-action caps (`budget.reply: {max: 50, per: 24h}`): at most `max`
 * actions of a kind in any `per` milliseconds, counted per bot, on top of the plan's windows.
 */
import type { WindowBook } from "./book.ts";
import type { SlidingWindow } from "./window.ts";

/** At most `max` actions in any `per` milliseconds (a bot file's `budget.reply: {max, per}`). */
export interface ActionCap {
  max: number;
  per: number;
}

/** A cap's window: `cap|<bot>|<action>|<per>ms`. */
export interface CapWindow {
  key: string;
  cap: ActionCap;
  window: SlidingWindow;
}

/** The window of `action`'s cap for `bot`, when the bot file caps that action. */
export function capWindow(
  book: WindowBook,
  bot: string,
  caps: Readonly<Record<string, ActionCap | undefined>>,
  action: string | undefined,
): CapWindow | undefined {
  const cap = action ? caps[action] : undefined;
  if (!action || !cap) return undefined;
  const key = `cap|${bot}|${action}|${cap.per}ms`;
  return { key, cap, window: book.window(key, Math.max(cap.max, 0), cap.per) };
}

/** A cap's window as a bot file writes it: `24h`, `15m`, `90s`. */
const perWindow = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;

/** Why a spent cap holds an action back, in the bot file's words: `the bot's cap of 50 reply per 24h is spent until …`. */
export const capReason = (cap: ActionCap, action: string | undefined, until: string): string =>
  `the bot's cap of ${cap.max} ${action} per ${perWindow(cap.per)} is spent until ${until}`;
