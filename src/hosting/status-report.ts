/**
 * What `bot status` shows, read from the state store (never written, so it can look while
 * `bot start` runs): per bot, whether it runs or is paused and why, each trigger's last check
 * and last event with their ages (a trigger that has gone quiet is how a silent wedge
 * shows), its cursors, what it did last (from the action ledger), the budget left per action,
 * and what its app's monthly read cap has counted.
 */
import { createActionSystem, type BudgetStatus } from "../actions/index.ts";
import type { ActionKind } from "../actions/action.ts";
import type { LedgerEntry, LedgerState } from "../actions/index.ts";
import type { Clock } from "../clock.ts";
import { savedModelBudget, type ModelBudgetStatus } from "../llm/budget.ts";
import type { ModelSlotUse } from "../llm/request-slots.ts";
import { BUDGET_NAMESPACES } from "../limits/budget.ts";
import type { Plan } from "../limits/types.ts";
import { createMemoryStore, type Store } from "../store/store.ts";
import { dmsCursorKey, type DmsCursor } from "../triggers/dms.ts";
import { followersCursorKey } from "../triggers/followers.ts";
import { CURSORS_NAMESPACE } from "../triggers/events.ts";
import { mentionsCursorKey, type MentionsCursor } from "../triggers/mentions.ts";
import { APP_STATUS_NAMESPACE, type AppStatus, type BotStatus, type DialogCounts } from "../runtime/types.ts";
import { STATUS_EVERY_MS, STATUS_ROUNDS_NAMESPACE, type StatusRound } from "./status-saver.ts";

export interface BotReport extends BotStatus {
  cursors: { mentions?: string; followersKnown?: number; dms?: string };
  budget?: BudgetStatus;
  /** What the bot's language model used of its file's `budget.llm` (llm-reply), when it has one. */
  llm?: ModelBudgetStatus;
  /** The bot's app: who shares its windows, its stream's state and last error. */
  app?: AppStatus;
  /** The action the ledger changed last for this bot: what, on what, how it ended, when. */
  lastAction?: LastAction;
}

/** A bot's latest action as the ledger has it. */
export interface LastAction {
  kind: string;
  target: string;
  /** Its ledger key (`<bot>:dm:re:<message>` tells a DM answer from a DM to a user). */
  key?: string;
  state: LedgerState;
  reason?: string;
  /** Who or what the target is, for a person (`@ana`, `@ana: "any tips…"`), when the plugin's event said. */
  about?: string;
  at: number;
}

/** Each bot's latest ledger entry, in one pass over the ledger (keys are `<bot>:<kind>:<target>`). */
function lastActions(store: Store): Map<string, LastAction> {
  const last = new Map<string, LastAction>();
  for (const [key, e] of store.entries<LedgerEntry>("ledger")) {
    const seen = last.get(e.bot);
    if (seen && seen.at > e.updatedAt) continue;
    last.set(e.bot, {
      kind: e.kind,
      target: e.target,
      key,
      state: e.state,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.about ? { about: e.about } : {}),
      at: e.updatedAt,
    });
  }
  return last;
}

/** Every bot's report, from the store. */
export function collectStatus(store: Store, clock: Clock): BotReport[] {
  // The budget is rebuilt from a copy of its namespaces, so reading it writes nothing.
  const copy = createMemoryStore();
  for (const ns of BUDGET_NAMESPACES) for (const [k, v] of store.entries(ns)) copy.set(ns, k, v);
  const system = createActionSystem({ store: copy, clock });
  const refuse = async () => {
    throw new Error("bot status sends nothing");
  };
  const last = lastActions(store);
  const rounds = new Map(store.entries<StatusRound>(STATUS_ROUNDS_NAMESPACE));
  return store.entries<BotStatus>("status").map(([, saved]) => {
    // Saved when it last changed; current as of its saver's last round (./status-saver.ts).
    const { savedBy, ...status } = saved;
    const round = savedBy === undefined ? undefined : rounds.get(savedBy);
    if (round && round.at > status.updatedAt) status.updatedAt = round.at;
    const mentions = store.get<MentionsCursor>(CURSORS_NAMESPACE, mentionsCursorKey(status.bot));
    const followers = store.get<string[]>(CURSORS_NAMESPACE, followersCursorKey(status.bot));
    const dms = store.get<DmsCursor>(CURSORS_NAMESPACE, dmsCursorKey(status.bot));
    const app = store.get<AppStatus>(APP_STATUS_NAMESPACE, status.appId);
    const lastAction = last.get(status.bot);
    const llm = savedModelBudget(store, status.bot, clock.now());
    const report: BotReport = {
      ...status,
      ...(app ? { app } : {}),
      ...(lastAction ? { lastAction } : {}),
      ...(llm ? { llm } : {}),
      cursors: {
        ...(mentions?.since_id ? { mentions: mentions.since_id } : {}),
        ...(followers ? { followersKnown: followers.length } : {}),
        ...(dms && "last_id" in dms ? { dms: dms.last_id } : {}),
      },
    };
    if (status.userId) {
      const layer = system.bot({
        bot: status.bot,
        account: { appId: status.appId, userId: status.userId, plan: status.plan as Plan },
        executor: refuse,
        ...(status.budgetPolicy ? { budget: status.budgetPolicy } : {}),
        ...(status.enrolmentDay ? { enrolmentDay: status.enrolmentDay } : {}),
      });
      report.budget = layer.status();
    }
    return report;
  });
}

/** `3s`, `4m`, `2h`, `5d`: how long ago. */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

const ago = (at: number | undefined, now: number) => (at === undefined ? "never" : `${age(now - at)} ago`);

/** How a ledger state reads in a sentence: `sent`, `failed (why)`... */
const ENDED: Record<LedgerState, string> = {
  queued: "waiting for budget",
  pending: "being sent",
  done: "sent",
  failed: "failed",
  unknown: "may have been sent (the service could not tell; never sent again)",
  dropped: "dropped",
};

/**
 * What an action acted on, as a person reads it: `reply to post 1460…`, `like of post 1460…`,
 * `follow of user 42`, `dm to user 42` (its ledger target is the user and a hash of the text),
 * `post` (its target is an internal key, not something to show).
 */
function actionTarget(kind: string, target: string, key?: string): string {
  // An answer to a DM is filed under `<bot>:dm:re:<message id>` (`<bot>:dm-reply:<message id>`
  // before postbot 0.2): it answers a message, whoever it goes to.
  if (kind === "dm" && target.startsWith("re:")) return `dm answering message ${target.slice(3)}`;
  if (key?.includes(":dm-reply:")) return `dm answering message ${target}`;
  switch (kind) {
    case "reply":
      return `reply to post ${target}`;
    case "dm":
      return `dm to user ${target.split(":")[0]}`;
    case "follow":
    case "mute":
      return `${kind} of user ${target}`;
    case "post":
      return "post";
    case "hide":
      // An unhide is filed under `<post id>:unhide`.
      return `${target.endsWith(":unhide") ? "unhide" : "hide"} of post ${target.split(":")[0]}`;
    default:
      return `${kind} of post ${target.split(":")[0]}`;
  }
}

/** Kinds named by who or what they acted on (as the log names them); a reply or post is named by its own post. */
const NAMED_BY_TARGET = new Set(["like", "repost", "hide", "follow", "mute", "dm"]);

/**
 * `reply to post 1460323737035677698: sent 3m ago`, `follow of user 42 (@ana): failed 2h ago (why)`,
 * `like of post 1460… (@ana: "any tips…"): sent 1m ago`.
 */
function formatLastAction(a: LastAction, now: number): string {
  const about = a.about && NAMED_BY_TARGET.has(a.kind) ? ` (${a.about})` : "";
  return `${actionTarget(a.kind, a.target, a.key)}${about}: ${ENDED[a.state]} ${ago(a.at, now)}${a.reason ? ` (${a.reason})` : ""}`;
}

/** `2 dialogs open (1 in a thread, 1 by DM); since start 3 started, 5 steps, 1 timeout`. */
function formatDialogs(c: DialogCounts): string {
  const open = c.open.thread + c.open.dm;
  const where =
    open === 0
      ? ""
      : ` (${[c.open.thread > 0 ? `${c.open.thread} in ${c.open.thread === 1 ? "a thread" : "threads"}` : "", c.open.dm > 0 ? `${c.open.dm} by DM` : ""].filter(Boolean).join(", ")})`;
  return `${count(open, "dialog")} open${where}; since start ${thousands(c.started)} started, ${count(c.steps, "step")}, ${count(c.timeouts, "timeout")}`;
}

/** `1 bot`, `3 events`: a count with its noun. */
const count = (n: number, noun: string) =>
  `${thousands(n)} ${n === 1 ? noun : noun.endsWith("y") ? `${noun.slice(0, -1)}ies` : `${noun}s`}`;

const iso = (ms: number) => new Date(ms).toISOString();
const thousands = (n: number) => n.toLocaleString("en-US");

/** `tokens 48,210 of 50,000 left per 1d, requests 0 of 30 left per 1m (more in 20s), 2 replies waiting for it`: what the bot's model may still use. */
function llmLine(b: ModelBudgetStatus, now: number): string {
  const window = (name: string, w: NonNullable<ModelBudgetStatus["tokens"]>) => {
    const left = Math.max(0, w.limit - w.used);
    return `${name} ${thousands(left)} of ${thousands(w.limit)} left per ${age(w.windowMs)}${left === 0 ? ` (more in ${age(w.resetAt - now)})` : ""}`;
  };
  const parts = [
    ...(b.tokens ? [window("tokens", b.tokens)] : []),
    ...(b.requests ? [window("requests", b.requests)] : []),
  ];
  if (b.pausedUntil !== undefined) parts.push(`paused by the model server for ${age(b.pausedUntil - now)}`);
  if (b.waiting > 0) parts.push(`${count(b.waiting, "reply")} waiting for it`);
  return parts.join(", ") || "no limit";
}

/** `1 request in flight to http://127.0.0.1:11434, 2 replies waiting for a request slot (llm-reply's parallel)`. */
function modelSlotLine(m: ModelSlotUse): string {
  const waiting =
    m.waiting > 0 ? `, ${count(m.waiting, "reply")} waiting for a request slot (llm-reply's parallel)` : "";
  return `${count(m.inFlight, "request")} in flight to ${m.server}${waiting}`;
}

/** A running bot's status older than three status rounds: its process may have stopped without saving. */
const STALE_STATUS_MS = 3 * STATUS_EVERY_MS;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** An app's lines: its plan and bots, its stream's state and last error, its capacity. */
function formatApp(app: AppStatus, now: number): string[] {
  const over =
    app.processes !== undefined ? ` over ${app.processes} ${app.processes === 1 ? "process" : "processes"}` : "";
  const lines = [`app ${app.appId}  ${app.plan}  ${app.bots} ${app.bots === 1 ? "bot" : "bots"}${over}`];
  const s = app.stream;
  if (s) {
    const state =
      s.state === "reconnecting" && s.retryAt !== undefined
        ? `reconnecting (next attempt in ${age(s.retryAt - now)})`
        : `${s.state} since ${ago(s.since, now)}`;
    lines.push(
      `  stream     ${state}; ${count(s.reconnects, "reconnect")}, ${count(s.posts, "post")}, last post ${ago(s.lastPostAt, now)}; rules: ${s.rules.own} for the bots' stream triggers, ${s.rules.mentions} for the mentions of ${count(s.mentionBots, "bot")}`,
    );
    if (s.lastError)
      lines.push(`  last error ${ago(s.lastError.at, now)} (${s.lastError.cause}): ${s.lastError.message}`);
    if (s.gaps.count > 0)
      lines.push(
        `  gaps       ${s.gaps.count} closed, last ${age(s.gaps.lastMs ?? 0)} long; ${s.gaps.recovered} posts recovered by search`,
      );
    const lost = s.gaps.unrecovered;
    if (lost)
      lines.push(
        `  lost       posts that matched the rules from ${iso(lost.from)} to ${iso(lost.to)} could not be recovered: the stream was away longer than recent search reaches back (7 days)`,
      );
  }
  if (app.catchUp && app.catchUp.waiting + app.catchUp.running > 0)
    lines.push(`  catch-up   ${app.catchUp.waiting + app.catchUp.running} mention polls to go`);
  for (const line of app.capacity) lines.push(`  capacity   ${line}`);
  return lines;
}

/** The report as text for a terminal. */
export function formatStatus(reports: readonly BotReport[], now: number): string {
  if (reports.length === 0) return "No bot has run with this data directory yet (start them with `bot start`).";
  const lines: string[] = [];
  const apps = new Map(reports.filter((r) => r.app).map((r) => [r.app!.appId, r.app!]));
  for (const app of apps.values()) lines.push(...formatApp(app, now));
  for (const r of reports) {
    const state = r.paused
      ? `PAUSED since ${ago(r.paused.at, now)}: ${r.paused.reason}`
      : r.stoppedAt
        ? `stopped ${ago(r.stoppedAt, now)}`
        : now - r.updatedAt <= STALE_STATUS_MS
          ? `running (status saved ${ago(r.updatedAt, now)})`
          : `running as of ${ago(r.updatedAt, now)}: no status saved since, so if postbot is not running, it stopped without saving`;
    lines.push(`${r.bot}  @${r.username || "?"}  ${r.plan}  ${state}`);
    for (const [trigger, t] of Object.entries(r.triggers)) {
      lines.push(
        `  ${trigger.padEnd(10)} last check ${ago(t.lastCheckAt, now).padEnd(10)} last event ${ago(t.lastEventAt, now).padEnd(10)} ${count(t.events, "event")}`,
      );
    }
    if (Object.keys(r.triggers).length === 0) lines.push("  (no trigger has run yet)");
    if (r.cursors.mentions) lines.push(`  cursor     mentions since_id ${r.cursors.mentions}`);
    if (r.cursors.followersKnown !== undefined) lines.push(`  cursor     ${r.cursors.followersKnown} followers known`);
    if (r.cursors.dms) lines.push(`  cursor     direct messages up to event ${r.cursors.dms}`);
    if (r.inbox > 0) lines.push(`  inbox      ${count(r.inbox, "event")} waiting to be handled`);
    if (r.dialogs) lines.push(`  dialogs    ${formatDialogs(r.dialogs)}`);
    for (const m of r.models ?? []) lines.push(`  model      ${modelSlotLine(m)}`);
    lines.push(`  last       ${r.lastAction ? formatLastAction(r.lastAction, now) : "no action yet"}`);
    if (r.waiting && r.waiting.length > 0) {
      const next = r.waiting.reduce((a, b) => (b.readyAt < a.readyAt ? b : a));
      const shown =
        r.waiting
          .slice(0, 3)
          .map((w) => w.label)
          .join(", ") + (r.waiting.length > 3 ? `, and ${r.waiting.length - 3} more` : "");
      lines.push(
        `  waiting    ${r.waiting.length} for budget, the next in ${age(next.readyAt - now)}: ${shown}${next.reason ? ` (${next.reason})` : ""}`,
      );
    }
    if (r.budget) {
      const parts = (Object.entries(r.budget.actions) as Array<[ActionKind, BudgetStatus["actions"][ActionKind]]>).map(
        ([kind, b]) => {
          if (b.remaining > 0) return `${kind} ${b.remaining}`;
          return Number.isFinite(b.readyAt)
            ? `${kind} 0 (more in ${age(b.readyAt - now)})`
            : `${kind} — (${b.reason ?? "not on this plan"})`;
        },
      );
      lines.push(`  budget     ${parts.join(", ")}`);
      const m = r.budget.monthly;
      if (r.llm) lines.push(`  llm        ${llmLine(r.llm, now)}`);
      if (m) {
        lines.push(
          `  monthly    ${thousands(m.used)} of ${thousands(m.cap)} posts read by app ${r.appId} this period: every post that recent search and the filtered stream return counts, for all the app's bots (mention polls do not); resets on ${dayOf(m.resetAt)}, in ${age(m.resetAt - now)}`,
        );
      }
    }
  }
  return lines.join("\n");
}
