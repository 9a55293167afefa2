/**
 * One reading of the runtime's state per scrape: every gauge of that scrape reads the same
 * snapshot, so the figures of one scrape agree with each other.
 */
import type { Registry } from "prom-client";
import type { BudgetStatus } from "../../actions/index.ts";
import type { AppStatus, BotStatus } from "../../runtime/types.ts";
import type { StatusSource } from "../source.ts";

/** One reading of the runtime's state, shared by every gauge of a scrape so they agree. */
export interface Reading {
  now: number;
  bots: BotStatus[];
  budgets: Map<string, BudgetStatus>;
  /** Replies waiting for their bot's `budget.llm`, by bot (bots with none left out). */
  llmWaiting: Map<string, number>;
  queueDepth: number;
  apps: AppStatus[];
}

/** The reading of the scrape under way, or undefined between scrapes and while the runtime starts. */
export type CurrentReading = () => Reading | undefined;

/** The registries a family of metrics registers in (prom-client's `registers` option). */
export type Registers = Registry[];

/** Reads every status the gauges need, once, at the start of a scrape. */
export function read(source: StatusSource): Reading {
  const bots = source.bots();
  const budgets = new Map<string, BudgetStatus>();
  const llmWaiting = new Map<string, number>();
  for (const b of bots) {
    const budget = source.budget(b.bot);
    if (budget) budgets.set(b.bot, budget);
    const waiting = source.llm?.(b.bot)?.waiting ?? 0;
    if (waiting > 0) llmWaiting.set(b.bot, waiting);
  }
  return { now: source.now(), bots, budgets, llmWaiting, queueDepth: source.queueDepth(), apps: source.apps() };
}

/** Seconds in `ms` milliseconds, never negative (a clock read twice may go back by a tick). */
export const seconds = (ms: number) => Math.max(0, ms) / 1000;
