/**
 * What the status page shows, as JSON (`GET /api/status`): a summary of the process, the
 * paused bots and why, the latest actions, and one page of bots matching a search, each with
 * its state, budget bars (and its language model's, `budget.llm`), last actions and triggers'
 * last checks. Only the page asked for is
 * built (budgets are read for its bots alone), so the page stays light with 1,000 bots.
 */
import type { BudgetStatus } from "../actions/index.ts";
import type { ModelBudgetStatus, ModelSlotUse } from "../llm/index.ts";
import type { DialogCounts, TriggerStatus } from "../runtime/types.ts";
import type { Activity } from "./activity.ts";
import type { ActionSeen } from "../hosting/observer.ts";
import type { StatusSource } from "./source.ts";
import { streamStates, type StreamState } from "./stream-state.ts";

/** Which bots a page shows. */
export interface ViewQuery {
  /** Part of the bot's name or username (any case). */
  q: string;
  state: "all" | "running" | "paused";
  /** 1-based. */
  page: number;
  per: number;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 200;

/** One action kind's budget as a bar: what is left of the window that binds first. */
export interface BudgetBar {
  kind: string;
  remaining: number;
  /** What the binding window lets postbot use (0 when the plan has no such action). */
  limit: number;
  /** The binding window's length (`15m`) and scope (`user`, `app`, `cap`). */
  window?: { ms: number; scope: string };
  /** When the next one may go, when none may now (ms); null when never. */
  readyAt?: number | null;
  /** Why none may go now. */
  reason?: string;
}

export interface BotRow {
  bot: string;
  username: string;
  plan: string;
  app: string;
  state: "running" | "paused";
  paused?: { reason: string; at: number; accountRefused?: true };
  /** Where the bot's account can connect again (its token was revoked; a bot made by connecting). */
  reconnect?: string;
  triggers: Partial<Record<string, TriggerStatus>>;
  inbox: number;
  /** The bot's dialogs, when a plugin of it defines one. */
  dialogs?: DialogCounts;
  budget: BudgetBar[];
  /** What its language model may still use of `budget.llm` (tokens, requests, a 429's pause), when it has one. */
  llm?: ModelBudgetStatus;
  /** Its requests in flight to each model server, and its replies waiting for a slot there; absent: none. */
  models?: ModelSlotUse[];
  last: readonly ActionSeen[];
}

export interface StatusView {
  /** The runtime's clock, so the page says "3m ago" on its time (a test's frozen clock too). */
  now: number;
  /** `starting` until the runtime is up, `stopping` once it stops. */
  phase: "starting" | "running" | "stopping";
  total: number;
  counts: { running: number; paused: number };
  queueDepth: number;
  streams: StreamState[];
  /** Every paused bot and why (the first 100). */
  paused: Array<{ bot: string; reason: string; at: number; accountRefused?: true; reconnect?: string }>;
  recent: readonly ActionSeen[];
  query: ViewQuery;
  /** Bots matching the query, and how many pages of them there are. */
  matched: number;
  pages: number;
  bots: BotRow[];
}

/** Reads a page's query from the URL's parameters; anything out of range falls back to a default. */
export function parseViewQuery(params: URLSearchParams): ViewQuery {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const n = Number(params.get(name));
    return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
  };
  const state = params.get("state");
  return {
    q: (params.get("q") ?? "").trim().slice(0, 100),
    state: state === "running" || state === "paused" ? state : "all",
    page: int("page", 1, 1, 1_000_000),
    per: int("per", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE),
  };
}

/** The budget of each action kind as a bar. */
export function budgetBars(budget: BudgetStatus | undefined): BudgetBar[] {
  if (!budget) return [];
  return Object.entries(budget.actions).map(([kind, e]) => {
    const binding = [...e.windows].sort((a, b) => a.usable - a.used - (b.usable - b.used))[0];
    const bar: BudgetBar = { kind, remaining: e.remaining, limit: binding?.usable ?? 0 };
    if (binding) bar.window = { ms: binding.windowMs, scope: binding.scope };
    if (e.remaining === 0) {
      bar.readyAt = Number.isFinite(e.readyAt) ? e.readyAt : null;
      if (e.reason) bar.reason = e.reason;
    }
    return bar;
  });
}

const PAUSED_LISTED = 100;

/** Builds the page's data for `query` (see the module comment). */
export function statusView(
  source: StatusSource | undefined,
  activity: Activity,
  query: ViewQuery,
  phase: StatusView["phase"],
  now: number,
): StatusView {
  const all = source?.bots() ?? [];
  const paused = all.filter((b) => b.paused);
  const needle = query.q.toLowerCase();
  const matching = all
    .filter((b) => (query.state === "all" ? true : query.state === "paused" ? !!b.paused : !b.paused))
    .filter((b) => !needle || b.bot.toLowerCase().includes(needle) || b.username.toLowerCase().includes(needle))
    .sort((a, b) => a.bot.localeCompare(b.bot));
  const pages = Math.max(1, Math.ceil(matching.length / query.per));
  const page = Math.min(query.page, pages);
  const shown = matching.slice((page - 1) * query.per, page * query.per);
  return {
    now,
    phase,
    total: all.length,
    counts: { running: all.length - paused.length, paused: paused.length },
    queueDepth: source?.queueDepth() ?? 0,
    streams: streamStates(source?.apps() ?? []),
    paused: paused.slice(0, PAUSED_LISTED).map((b) => ({ bot: b.bot, ...b.paused! })),
    recent: activity.recent(),
    query: { ...query, page },
    matched: matching.length,
    pages,
    bots: shown.map((b) => {
      const llm = source?.llm?.(b.bot);
      return {
        bot: b.bot,
        username: b.username,
        plan: b.plan,
        app: b.appId,
        state: b.paused ? "paused" : "running",
        ...(b.paused ? { paused: b.paused } : {}),
        triggers: b.triggers,
        inbox: b.inbox,
        ...(b.dialogs ? { dialogs: b.dialogs } : {}),
        budget: budgetBars(source?.budget(b.bot)),
        ...(llm ? { llm } : {}),
        ...(b.models ? { models: b.models } : {}),
        last: activity.lastActions(b.bot),
      };
    }),
  };
}
