/**
 * Budgets: how many requests each account may still send, per endpoint, so that postbot
 * never sends one the plan forbids.
 *
 * For an account (app, user, plan) and an endpoint, every window of spec part 8.2 applies
 * at once (./budget-windows.ts), kept in the process's budget book (./budget-book.ts, seen through ./book.ts:
 * sliding, exact, persisted), corrected by what the service reports after every response
 * (./budget-corrections.ts). On top of the plan come the bot file's rules: a reserve kept
 * unused in every window, per-action caps (./budget-caps.ts), and the basic plan's monthly
 * read cap (./budget-monthly-cap.ts). This file puts them together: may a request be sent
 * now ({@link AccountBudget.check}), count it ({@link AccountBudget.take}), settle it with
 * the answer ({@link AccountBudget.settle}) or give it back ({@link AccountBudget.giveBack}).
 */
import type { EndpointKey } from "../api/endpoints.ts";
import { parseRateLimitHeaders, type RateLimitHeaders } from "../api/rate-limit-headers.ts";
import type { WindowBook } from "./book.ts";
import { capReason, capWindow, type ActionCap } from "./budget-caps.ts";
import { correctFromHeaders } from "./budget-corrections.ts";
import { checkEnrolmentDay } from "./budget-month.ts";
import { MonthlyCap, type MonthlyUsage } from "./budget-monthly-cap.ts";
import { checkReserve, EndpointWindows, scopeKey, usableOf, type CountedWindow } from "./budget-windows.ts";
import { CAPPED_ENDPOINTS } from "./plan-limits.ts";
import type { Limit, LimitScope, Plan } from "./types.ts";
import type { SharedTake } from "./shared-windows.ts";
import { FencedError } from "../fencing.ts";
import type { StagedWrite } from "../store/staged-write.ts";

export type { ActionCap } from "./budget-caps.ts";
export type { MonthlyUsage } from "./budget-monthly-cap.ts";

/** The identity budgets are counted for. */
export interface BudgetAccount {
  /** The app (consumer) the account's token belongs to: A windows are shared per app. */
  appId: string;
  /** The account's user id: U windows are its own. */
  userId: string;
  plan: Plan;
  /** The bot's name: per-action caps are counted per bot. Default: the user id. */
  bot?: string;
}

/** The bot file's rules, stricter than the plan. */
export interface BudgetPolicy {
  /** Share of every plan window kept unused, from 0 (default) to below 1. */
  reserve?: number;
  /** Per-action caps, by action name (`reply`, `like`...). */
  caps?: Readonly<Record<string, ActionCap | undefined>>;
  /**
   * Day of the month the app enrolled (1 to 31; default 1): the monthly read cap resets then.
   * The service's `GET /2/usage/posts` reports it as `cap_reset_day`.
   */
  enrolmentDay?: number;
}

/** Whether a request may be sent now, and if not, when and why not. */
export type Readiness = { ok: true } | { ok: false; readyAt: number; reason: string };

/** A request counted by {@link AccountBudget.take}: hand it back to {@link AccountBudget.settle}. */
export interface Slot {
  readonly endpoint: EndpointKey;
  readonly at: number;
  readonly keys: readonly string[];
  /** Its id in the shared windows (when the budget is shared), so its answer moves exactly it. */
  readonly member?: string;
  /** The ledger's mark of the request was written with it ({@link AccountBudget.claim}'s `stage`). */
  readonly marked?: boolean;
}

/**
 * Prepares the state store's write that must be durable before the request leaves (the
 * ledger's "pending" mark with this slot), for a shared take to apply with the slot.
 */
export type StageMark = (slot: { at: number; keys: readonly string[] }) => Promise<StagedWrite | undefined>;

/** The ledger's mark could not be written with the slot (its bot's lease was lost): nothing was taken, and nothing may be sent. */
export class MarkRefused extends Error {
  override name = "MarkRefused";
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

/** What the service answered a request counted in a slot: what corrects the budget. */
export interface Answer {
  /** The HTTP status (0 when no answer came). */
  status: number;
  /** The answer's headers (names in lower case), or the error's. */
  headers?: Record<string, string | string[] | undefined>;
  /** A 429 said the window is spent until then (ms), when it said when. */
  limitedUntil?: number;
  /** The limit that 429 reported. */
  limit?: number;
  /** The service said the monthly read cap is spent. */
  usageCapped?: boolean;
  /** Posts a capped read delivered, for the monthly cap. */
  postsRead?: number;
}

/** One window as `bot status` shows it. */
export interface WindowState {
  key: string;
  scope: LimitScope | "cap";
  /** The window's length in ms. */
  windowMs: number;
  /** The plan's (or the cap's) maximum. */
  max: number;
  /** What the budget lets postbot use: the maximum less the reserve. */
  usable: number;
  used: number;
  /** When the oldest counted request leaves the window. */
  resetAt: number;
}

/** An endpoint's budget for one account, for `ctx.budget` and `bot status`. */
export interface EndpointBudget {
  endpoint: EndpointKey;
  /** The action whose cap applies, when one was asked about. */
  action?: string;
  /** Requests that may be sent right now (0 when paused or unavailable). */
  remaining: number;
  /** When the next request may be sent (now when `remaining > 0`; Infinity when never). */
  readyAt: number;
  /** Why not now, when `remaining` is 0. */
  reason?: string;
  windows: WindowState[];
  pausedUntil?: number;
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : "never");

/**
 * One account's budget: what every window of an endpoint allows, with the bot's reserve and
 * caps. Obtain from `BudgetBook.account` (./budget-book.ts).
 */
export class AccountBudget {
  readonly account: Required<BudgetAccount>;
  private readonly reserve: number;
  private readonly caps: Readonly<Record<string, ActionCap | undefined>>;
  private readonly windows: EndpointWindows;
  private readonly month: MonthlyCap;

  constructor(
    private readonly book: WindowBook,
    account: BudgetAccount,
    policy: BudgetPolicy,
  ) {
    this.account = { ...account, bot: account.bot ?? account.userId };
    this.reserve = checkReserve(policy.reserve ?? 0);
    this.caps = policy.caps ?? {};
    this.windows = new EndpointWindows(book, this.account, this.reserve);
    this.month = new MonthlyCap(
      book,
      this.account.appId,
      this.account.plan,
      checkEnrolmentDay(policy.enrolmentDay ?? 1),
    );
  }

  private now() {
    return this.book.clock.now();
  }

  /** The plan's limits for an endpoint, or `"unavailable"` when the plan does not offer it. */
  limits(endpoint: EndpointKey): readonly Limit[] | "unavailable" {
    return this.windows.limits(endpoint);
  }

  /** What the reserve leaves of a maximum (see `usableOf`). */
  usable(max: number): number {
    return usableOf(max, this.reserve);
  }

  private cap(action: string | undefined) {
    return capWindow(this.book, this.account.bot, this.caps, action);
  }

  private pauseKeys(endpoint: EndpointKey): string[] {
    return [scopeKey(this.account, endpoint, "user"), scopeKey(this.account, endpoint, "app")];
  }

  /** The monthly read cap of this account's app, when the plan has one. */
  monthlyUsage(): MonthlyUsage | undefined {
    return this.month.usage();
  }

  /**
   * Whether one request to `endpoint` (for `action`, whose cap then applies too) may be sent
   * now. When not, `readyAt` is the earliest time it may (Infinity: never, e.g. the plan does
   * not offer the endpoint), and `reason` says which rule holds it back.
   */
  check(endpoint: EndpointKey, action?: string): Readiness {
    const now = this.now();
    const { plan } = this.account;
    if (this.limits(endpoint) === "unavailable") {
      return { ok: false, readyAt: Infinity, reason: `${endpoint} is not available on the ${plan} plan (spec part 8)` };
    }
    // The queue asks this for every waiting action on every wake, so the reason is only
    // written out at the end, for the one rule that holds the request back longest.
    let readyAt = now;
    let binding:
      | { cap: ActionCap }
      | { window: CountedWindow }
      | { paused: true }
      | { month: MonthlyUsage }
      | undefined;
    const cap = this.cap(action);
    if (cap) {
      if (cap.cap.max <= 0)
        return { ok: false, readyAt: Infinity, reason: `${action} is turned off by the bot's budget (max 0)` };
      const at = cap.window.nextFreeAt(now);
      if (at > readyAt && !this.book.shared) (readyAt = at), (binding = { cap: cap.cap });
    }
    // Shared windows are judged by Redis when a slot is claimed; here only what Redis said
    // the last time it refused (held keys) counts, so the queue sleeps until then.
    const shared = this.book.shared !== undefined;
    if (cap && shared) {
      const at = this.book.heldUntil(cap.key);
      if (at > readyAt) (readyAt = at), (binding = { cap: cap.cap });
    }
    for (const c of this.windows.of(endpoint)) {
      const at = shared ? this.book.heldUntil(c.key) : c.window.nextFreeAt(now, 1 + c.limit.max - c.usable);
      if (at > readyAt) (readyAt = at), (binding = { window: c });
    }
    for (const key of this.pauseKeys(endpoint)) {
      const until = Math.max(this.book.pausedUntil(key), shared ? this.book.heldUntil(key) : 0);
      if (until > readyAt) (readyAt = until), (binding = { paused: true });
    }
    if (CAPPED_ENDPOINTS.includes(endpoint)) {
      const usage = this.month.usage();
      if (usage && usage.used >= usage.cap && usage.resetAt > readyAt)
        (readyAt = usage.resetAt), (binding = { month: usage });
    }
    if (readyAt <= now || !binding) return { ok: true };
    let reason: string;
    if ("cap" in binding) reason = capReason(binding.cap, action, iso(readyAt));
    else if ("window" in binding) {
      const c = binding.window;
      const whose = c.limit.scope === "app" ? `app ${this.account.appId}'s` : "the account's";
      const kept = c.usable < c.limit.max ? ` (${c.usable} usable after the reserve)` : "";
      reason = `${whose} ${c.limit.max}/${c.limit.per} window of ${endpoint} is full${kept} until ${iso(readyAt)}`;
    } else if ("paused" in binding)
      reason = `${endpoint} is paused after the service said the limit was reached, until ${iso(readyAt)}`;
    else reason = this.month.reason(binding.month);
    return { ok: false, readyAt, reason };
  }

  /**
   * Counts one request to `endpoint` (and `action`'s cap) as sent now. Call it only after
   * {@link check} said yes, right before sending; give the slot to {@link settle} when the
   * answer arrives.
   */
  take(endpoint: EndpointKey, action?: string): Slot {
    const at = this.now();
    const keys: string[] = [];
    for (const c of this.windows.of(endpoint)) {
      c.window.record(at);
      keys.push(c.key);
    }
    const cap = this.cap(action);
    if (cap) {
      cap.window.record(at);
      keys.push(cap.key);
    }
    for (const key of keys) this.book.save(key);
    return { endpoint, at, keys };
  }

  /** See `BudgetBook.freed`: changes when room appears other than by time passing. */
  get freed(): number {
    return this.book.freed;
  }

  /** Whether slots must be claimed from windows shared with other processes ({@link claim}). */
  get shared(): boolean {
    return this.book.shared !== undefined;
  }

  /**
   * Takes a slot from the windows shared with other processes, atomically over every window
   * of the endpoint, the action's cap and the pauses (see src/redis/shared-windows.ts). When they have
   * no room, nothing is counted, the window that holds it back is held in this process until
   * Redis said room comes, and the answer says so as {@link check} would. Without shared
   * windows it is {@link check} then {@link take}. With `stage`, the write it prepares is
   * applied with the slot in the same script (the slot is then `marked`), or neither is; a
   * write refused by its lease's fence rejects with {@link MarkRefused}.
   */
  async claim(
    endpoint: EndpointKey,
    action?: string,
    stage?: StageMark,
  ): Promise<{ ok: true; slot: Slot } | (Readiness & { ok: false })> {
    const local = this.check(endpoint, action);
    if (!local.ok) return local;
    const shared = this.book.shared;
    if (!shared) return { ok: true, slot: this.take(endpoint, action) };
    const counted = this.windows.of(endpoint);
    const cap = this.cap(action);
    const claims = counted.map((c) => ({ key: c.key, windowMs: c.window.windowMs, allowed: c.usable }));
    if (cap) claims.push({ key: cap.key, windowMs: cap.cap.per, allowed: cap.cap.max });
    const at = this.now();
    let r: SharedTake;
    let write: StagedWrite | undefined;
    for (let attempt = 0; ; attempt++) {
      write = undefined;
      if (stage) {
        try {
          write = await stage({ at, keys: claims.map((c) => c.key) });
        } catch (err) {
          throw new MarkRefused(err);
        }
      }
      try {
        r = await shared.take(claims, this.pauseKeys(endpoint), at, write);
        break;
      } catch (err) {
        // Refused by the mark's fence: the store first checks whether the bot is still this
        // process's (its lease may only have run out while Redis hung, and been claimed again),
        // so a second stage carries the new lease, or is refused itself.
        if (err instanceof FencedError && write && attempt === 0) continue;
        if (err instanceof FencedError) throw new MarkRefused(err);
        throw err;
      }
    }
    if (!r.ok) {
      this.book.hold(r.binding, r.readyAt);
      const again = this.check(endpoint, action);
      return again.ok
        ? { ok: false, readyAt: r.readyAt, reason: `the shared budget of ${endpoint} is spent until ${iso(r.readyAt)}` }
        : again;
    }
    const keys = claims.map((c) => c.key);
    for (const c of counted) c.window.record(r.at);
    cap?.window.record(r.at);
    return { ok: true, slot: { endpoint, at: r.at, keys, member: r.member, ...(write ? { marked: true } : {}) } };
  }

  /**
   * Settles a slot with the service's answer. The slot's count moves to the time the answer
   * arrived (the service counted the request somewhere in between, so the local window then
   * frees room no earlier than the service's); then the answer corrects the budget: its
   * rate-limit headers, a 429's reset, a spent monthly cap, the posts a capped read delivered.
   */
  settle(slot: Slot, answer: Answer = { status: 200 }): void {
    const at = this.now();
    if (at > slot.at) for (const key of slot.keys) this.book.retime(key, slot.at, at, slot.member);
    if (answer.headers) this.observe(slot.endpoint, parseRateLimitHeaders(answer.headers), answer.status);
    if (answer.limitedUntil !== undefined) {
      this.observe(
        slot.endpoint,
        {
          window: {
            remaining: 0,
            resetAt: answer.limitedUntil,
            ...(answer.limit !== undefined ? { limit: answer.limit } : {}),
          },
        },
        429,
      );
    }
    if (answer.usageCapped) this.month.markSpent();
    if (answer.postsRead !== undefined) this.month.count(answer.postsRead);
  }

  /** Gives a slot back: its request never reached the service (a restart's check found it missing). */
  giveBack(slot: { at: number; keys: readonly string[]; member?: string }): void {
    for (const key of slot.keys) this.book.forget(key, slot.at, slot.member);
  }

  /** Holds every request to `endpoint` of this account (or, for `"app"`, of every account of the app) until `until`. */
  pause(endpoint: EndpointKey, until: number, scope: LimitScope = "user"): void {
    this.book.pause(scopeKey(this.account, endpoint, scope), until);
  }

  /** Trusts what the service reported after a response to `endpoint` (see ./budget-corrections.ts). */
  observe(endpoint: EndpointKey, headers: RateLimitHeaders, status = 200): void {
    correctFromHeaders(
      {
        book: this.book,
        account: this.account,
        endpoint,
        counted: this.windows.of(endpoint),
        pause: (until, scope) => this.pause(endpoint, until, scope),
      },
      headers,
      status,
    );
  }

  /** Counts posts delivered by a capped endpoint (recent search, the filtered stream) against the monthly cap. */
  countPostsRead(n: number): void {
    this.month.count(n);
  }

  /** The service answered `usage-capped`: the cap is spent whatever the local count says. */
  markCapSpent(): void {
    this.month.markSpent();
  }

  /** What one endpoint (and an action's cap) allows right now, window by window. */
  describe(endpoint: EndpointKey, action?: string): EndpointBudget {
    const now = this.now();
    const windows: WindowState[] = this.windows.of(endpoint).map((c) => ({
      key: c.key,
      scope: c.limit.scope,
      windowMs: c.window.windowMs,
      max: c.limit.max,
      usable: c.usable,
      used: c.window.used(now),
      resetAt: c.window.resetAt(now),
    }));
    const cap = this.cap(action);
    if (cap) {
      windows.push({
        key: cap.key,
        scope: "cap",
        windowMs: cap.cap.per,
        max: cap.cap.max,
        usable: cap.cap.max,
        used: cap.window.used(now),
        resetAt: cap.window.resetAt(now),
      });
    }
    const readiness = this.check(endpoint, action);
    const pausedUntil = Math.max(...this.pauseKeys(endpoint).map((k) => this.book.pausedUntil(k)));
    const remaining = readiness.ok ? Math.max(0, Math.min(...windows.map((w) => w.usable - w.used))) : 0;
    const out: EndpointBudget = { endpoint, remaining, readyAt: readiness.ok ? now : readiness.readyAt, windows };
    if (action) out.action = action;
    if (!readiness.ok) out.reason = readiness.reason;
    if (pausedUntil > 0) out.pausedUntil = pausedUntil;
    return out;
  }

  /** Requests to `endpoint` (for `action`) that may be sent right now. */
  remaining(endpoint: EndpointKey, action?: string): number {
    return this.describe(endpoint, action).remaining;
  }
}
