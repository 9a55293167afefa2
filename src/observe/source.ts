/**
 * What the observability side reads from a running runtime when a page or a scrape asks:
 * status snapshots, never live objects, so it holds nothing of the runtime's and cannot
 * change it. {@link runtimeSource} adapts a {@link Runtime}; tests may give their own.
 */
import type { BudgetStatus } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import { reviewList, type BotReviewItem } from "../hosting/review-desk.ts";
import type { Runtime } from "../hosting/types.ts";
import { savedModelBudget, type ModelBudgetStatus } from "../llm/index.ts";
import type { Store } from "../store/store.ts";
import type { AppStatus, BotStatus } from "../runtime/types.ts";

export interface StatusSource {
  /** Every bot's status, the paused ones included. */
  bots(): BotStatus[];
  /** A bot's budget now; undefined for a bot that never started (paused at start). */
  budget(bot: string): BudgetStatus | undefined;
  /** Actions and budgeted reads waiting for budget, process-wide. */
  queueDepth(): number;
  /** Each app of the process: its stream's state, reconnects and last error. */
  apps(): AppStatus[];
  /** The runtime's clock (ages on the page, poll lag). */
  now(): number;
  /** The replies the bots' moderation listed for review (`/review`), newest first; absent: no list. */
  review?(): BotReviewItem[];
  /**
   * What a bot's language model may still use of its file's `budget.llm` (llm-reply), as
   * `bot status` shows it; undefined for a bot without one (or before its first request).
   */
  llm?(bot: string): ModelBudgetStatus | undefined;
}

/**
 * The status source of a started runtime; with its state store, the review list and the
 * model budgets too, read from the store as `bot status` reads them (one place for each).
 */
export function runtimeSource(runtime: Runtime, clock: Clock, store?: Store): StatusSource {
  return {
    bots: () => runtime.status(),
    budget: (bot) => runtime.bots.get(bot)?.budget(),
    queueDepth: () => runtime.actions.queue.size,
    apps: () => runtime.apps(),
    now: () => clock.now(),
    ...(store
      ? {
          review: () => reviewList(store, { bots: [...runtime.bots.keys()] }),
          llm: (bot: string) => savedModelBudget(store, bot, clock.now()),
        }
      : {}),
  };
}
