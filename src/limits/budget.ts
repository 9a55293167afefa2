/**
 * Budgets: how many requests each account may still send, per endpoint, so that postbot
 * never sends one the plan forbids.
 *
 * For an account (app, user, plan) and an endpoint, every limit of spec part 8.2 applies at
 * once: the user's (U) windows are the account's own, the app's (A) windows are shared by
 * every account of that app in the process (one {@link BudgetBook} holds them all). The
 * windows are sliding and exact ({@link SlidingWindow}), persisted in the state store so a
 * restart remembers what was spent, and corrected by what the service reports after every
 * response. On top of the plan come the bot file's own rules: a reserve kept unused in every
 * window, per-action caps, and the basic plan's monthly read cap.
 *
 * Key formats (shared with the sandbox's meter, so a log line reads the same on both sides):
 * `<endpoint>|u:<user id>|<per>` and `<endpoint>|a:<app id>|<per>`.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { RateLimitHeaders } from "../api/rate-limit-headers.ts";
import type { Clock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { capPeriod, checkEnrolmentDay } from "./budget-month.ts";
import { CAPPED_ENDPOINTS, limitsFor, MONTHLY_POST_CAP } from "./plan-limits.ts";
import { WINDOW_MS, type Limit, type LimitScope, type Per, type Plan } from "./types.ts";
import { SlidingWindow } from "./window.ts";

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

/** At most `max` actions in any `per` milliseconds (a bot file's `budget.reply: {max, per}`). */
export interface ActionCap {
  max: number;
  per: number;
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

/** The monthly read cap's state for one app. */
export interface MonthlyUsage {
  cap: number;
  used: number;
  periodStart: number;
  resetAt: number;
}

interface StoredUsage {
  periodStart: number;
  posts: number;
}

/**
 * The store namespaces the budget keeps its windows, pauses and monthly usage in: whoever
 * reads a budget without running it (`bot status` copies them into a memory store, so
 * reading writes nothing) needs exactly these.
 */
export const BUDGET_NAMESPACES = ["budget.windows", "budget.pauses", "budget.usage"] as const;
const [NS_WINDOWS, NS_PAUSES, NS_USAGE] = BUDGET_NAMESPACES;

const perOfKey = (key: string): number | undefined => {
  const last = key.slice(key.lastIndexOf("|") + 1);
  if (last in WINDOW_MS) return WINDOW_MS[last as Per];
  const ms = /^(\d+)ms$/.exec(last);
  return ms ? Number(ms[1]) : undefined;
};

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : "never");

/**
 * The windows of one process, shared by all its accounts: A windows are keyed by app id, so
 * two bots of one app count against the same app window. Create one per process.
 *
 * @example
 * ```ts
 * const book = new BudgetBook({ store, clock, logger });
 * const greeter = book.account({ appId: "1", userId: "42", plan: "basic", bot: "greeter" }, { reserve: 0.1 });
 * greeter.check("POST /2/posts", "reply"); // { ok: true } or { ok: false, readyAt, reason }
 * ```
 */
export class BudgetBook {
  readonly clock: Clock;
  readonly log: Logger;
  private readonly store: Store;
  private readonly windows = new Map<string, SlidingWindow>();
  private readonly warned = new Set<string>();
  private readonly dirty = new Set<string>();

  constructor(options: { store: Store; clock: Clock; logger?: Logger }) {
    this.store = options.store;
    this.clock = options.clock;
    this.log = options.logger ?? silentLogger;
    this.compact();
  }

  /** The budget of one account under the bot file's policy. */
  account(account: BudgetAccount, policy: BudgetPolicy = {}): AccountBudget {
    return new AccountBudget(this, account, policy);
  }

  /** The window of `key`, loaded from the store the first time it is used. */
  window(key: string, max: number, windowMs: number): SlidingWindow {
    let w = this.windows.get(key);
    if (!w || w.max !== max || w.windowMs !== windowMs) {
      const times = w ? w.snapshot(this.clock.now()) : (this.store.get<number[]>(NS_WINDOWS, key) ?? []);
      w = new SlidingWindow(max, windowMs, times);
      this.windows.set(key, w);
    }
    return w;
  }

  /**
   * Marks a window to be written to the store. The write happens in a microtask, so a burst
   * of slots handed out at once writes each window once (a 24-hour window holds up to 10,000
   * events), and still before any code awaiting a slot runs, so the ledger's flush before a
   * request carries the window too.
   */
  save(key: string): void {
    this.dirty.add(key);
    if (this.dirty.size === 1) queueMicrotask(() => this.persist());
  }

  /** Writes every changed window to the store now (dropping entries that became empty). */
  persist(): void {
    const now = this.clock.now();
    for (const key of this.dirty) {
      const times = this.windows.get(key)?.snapshot(now) ?? [];
      if (times.length > 0) this.store.set(NS_WINDOWS, key, times);
      else this.store.delete(NS_WINDOWS, key);
    }
    this.dirty.clear();
  }

  /** Moves one counted event of a window (see {@link SlidingWindow.retime}). */
  retime(key: string, from: number, to: number): void {
    const w = this.windows.get(key);
    if (!w) return;
    w.retime(from, to);
    this.save(key);
  }

  pausedUntil(key: string): number {
    const until = this.store.get<number>(NS_PAUSES, key) ?? 0;
    return until > this.clock.now() ? until : 0;
  }

  pause(key: string, until: number): void {
    if (until > this.pausedUntil(key)) this.store.set(NS_PAUSES, key, until);
  }

  /** Posts read through capped endpoints by an app in the period starting at `periodStart`. */
  postsRead(appId: string, periodStart: number): number {
    const u = this.store.get<StoredUsage>(NS_USAGE, appId);
    return u && u.periodStart === periodStart ? u.posts : 0;
  }

  countPostsRead(appId: string, periodStart: number, n: number): void {
    this.store.set<StoredUsage>(NS_USAGE, appId, { periodStart, posts: this.postsRead(appId, periodStart) + n });
  }

  /** Logs a warning once per distinct message key (a misconfigured plan would otherwise log on every response). */
  warnOnce(key: string, fields: object, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log.warn(fields, message);
  }

  /**
   * Keeps the store bounded: events that left their window, expired pauses and windows of
   * accounts no longer hosted all go. Every window holds at most its `max` events.
   */
  compact(): void {
    const now = this.clock.now();
    for (const [key, times] of this.store.entries<number[]>(NS_WINDOWS)) {
      const ms = perOfKey(key);
      const kept = ms === undefined || !Array.isArray(times) ? [] : times.filter((t) => typeof t === "number" && t > now - ms);
      if (kept.length === 0) this.store.delete(NS_WINDOWS, key);
      else if (kept.length !== times.length) this.store.set(NS_WINDOWS, key, kept);
    }
    for (const [key, until] of this.store.entries<number>(NS_PAUSES)) if (!(until > now)) this.store.delete(NS_PAUSES, key);
  }
}

interface CountedWindow {
  key: string;
  limit: Limit;
  window: SlidingWindow;
  /** The part of `max` the reserve leaves usable. */
  usable: number;
}

/**
 * One account's budget: what every window of an endpoint allows, with the bot's reserve and
 * caps. Obtain from {@link BudgetBook.account}.
 */
export class AccountBudget {
  readonly account: Required<BudgetAccount>;
  private readonly reserve: number;
  private readonly caps: Readonly<Record<string, ActionCap | undefined>>;
  private readonly enrolmentDay: number;
  private readonly countedCache = new Map<EndpointKey, CountedWindow[]>();

  constructor(
    private readonly book: BudgetBook,
    account: BudgetAccount,
    policy: BudgetPolicy,
  ) {
    this.account = { ...account, bot: account.bot ?? account.userId };
    const reserve = policy.reserve ?? 0;
    if (!(reserve >= 0 && reserve < 1)) throw new RangeError(`reserve must be at least 0 and below 1 (0% to 99%), got ${reserve}`);
    this.reserve = reserve;
    this.caps = policy.caps ?? {};
    this.enrolmentDay = checkEnrolmentDay(policy.enrolmentDay ?? 1);
  }

  private now() {
    return this.book.clock.now();
  }

  /** The plan's limits for an endpoint, or `"unavailable"` when the plan does not offer it. */
  limits(endpoint: EndpointKey): readonly Limit[] | "unavailable" {
    return limitsFor(endpoint, this.account.plan);
  }

  /**
   * What the reserve leaves of a maximum: `max - floor(max * reserve)`, so a reserve below
   * 100% never turns a window of 1 into a window of 0 (the action would never run).
   */
  usable(max: number): number {
    return max - Math.floor(max * this.reserve);
  }

  /** `<endpoint>|u:<user id>` or `<endpoint>|a:<app id>`: whose requests a window or a pause counts. */
  private scopeKey(endpoint: EndpointKey, scope: LimitScope): string {
    return scope === "app" ? `${endpoint}|a:${this.account.appId}` : `${endpoint}|u:${this.account.userId}`;
  }

  private windowKey(endpoint: EndpointKey, limit: Limit): string {
    return `${this.scopeKey(endpoint, limit.scope)}|${limit.per}`;
  }

  /** The windows of an endpoint (cached: the queue asks for them on every wake). */
  private counted(endpoint: EndpointKey): CountedWindow[] {
    const cached = this.countedCache.get(endpoint);
    if (cached && cached.every((c) => this.book.window(c.key, c.limit.max, WINDOW_MS[c.limit.per]) === c.window)) return cached;
    const limits = this.limits(endpoint);
    const fresh =
      limits === "unavailable"
        ? []
        : limits.map((limit) => {
            const key = this.windowKey(endpoint, limit);
            return { key, limit, window: this.book.window(key, limit.max, WINDOW_MS[limit.per]), usable: this.usable(limit.max) };
          });
    this.countedCache.set(endpoint, fresh);
    return fresh;
  }

  private capWindow(action: string | undefined): { key: string; cap: ActionCap; window: SlidingWindow } | undefined {
    const cap = action ? this.caps[action] : undefined;
    if (!action || !cap) return undefined;
    const key = `cap|${this.account.bot}|${action}|${cap.per}ms`;
    return { key, cap, window: this.book.window(key, Math.max(cap.max, 0), cap.per) };
  }

  private pauseKeys(endpoint: EndpointKey): string[] {
    return [this.scopeKey(endpoint, "user"), this.scopeKey(endpoint, "app")];
  }

  /** The monthly read cap of this account's app, when the plan has one. */
  monthlyUsage(): MonthlyUsage | undefined {
    const cap = MONTHLY_POST_CAP[this.account.plan];
    if (cap === undefined) return undefined;
    const { start, end } = capPeriod(this.now(), this.enrolmentDay);
    return { cap, used: this.book.postsRead(this.account.appId, start), periodStart: start, resetAt: end };
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
    let binding: { cap: ActionCap } | { window: CountedWindow } | { paused: true } | { month: MonthlyUsage } | undefined;
    const cap = this.capWindow(action);
    if (cap) {
      if (cap.cap.max <= 0) return { ok: false, readyAt: Infinity, reason: `${action} is turned off by the bot's budget (max 0)` };
      const at = cap.window.nextFreeAt(now);
      if (at > readyAt) (readyAt = at), (binding = { cap: cap.cap });
    }
    for (const c of this.counted(endpoint)) {
      const at = c.window.nextFreeAt(now, 1 + c.limit.max - c.usable);
      if (at > readyAt) (readyAt = at), (binding = { window: c });
    }
    for (const key of this.pauseKeys(endpoint)) {
      const until = this.book.pausedUntil(key);
      if (until > readyAt) (readyAt = until), (binding = { paused: true });
    }
    if (CAPPED_ENDPOINTS.includes(endpoint)) {
      const usage = this.monthlyUsage();
      if (usage && usage.used >= usage.cap && usage.resetAt > readyAt) (readyAt = usage.resetAt), (binding = { month: usage });
    }
    if (readyAt <= now || !binding) return { ok: true };
    let reason: string;
    if ("cap" in binding) reason = `the bot's cap of ${binding.cap.max} ${action} per ${binding.cap.per / 1000}s is spent until ${iso(readyAt)}`;
    else if ("window" in binding) {
      const c = binding.window;
      const whose = c.limit.scope === "app" ? `app ${this.account.appId}'s` : "the account's";
      const kept = c.usable < c.limit.max ? ` (${c.usable} usable after the reserve)` : "";
      reason = `${whose} ${c.limit.max}/${c.limit.per} window of ${endpoint} is full${kept} until ${iso(readyAt)}`;
    } else if ("paused" in binding) reason = `${endpoint} is paused after the service said the limit was reached, until ${iso(readyAt)}`;
    else {
      reason = `the ${plan} plan's monthly cap of ${binding.month.cap} posts read through recent search and the filtered stream is spent; these reads wait until the enrolment day, ${iso(readyAt).slice(0, 10)}`;
    }
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
    for (const c of this.counted(endpoint)) {
      c.window.record(at);
      keys.push(c.key);
    }
    const cap = this.capWindow(action);
    if (cap) {
      cap.window.record(at);
      keys.push(cap.key);
    }
    for (const key of keys) this.book.save(key);
    return { endpoint, at, keys };
  }

  /**
   * Moves the slot's count to the time the answer arrived: the service counted the request
   * somewhere in between, so the local window then frees room no earlier than the service's.
   */
  settle(slot: Slot, at = this.now()): void {
    if (at > slot.at) for (const key of slot.keys) this.book.retime(key, slot.at, at);
  }

  /** Holds every request to `endpoint` of this account (or, for `"app"`, of every account of the app) until `until`. */
  pause(endpoint: EndpointKey, until: number, scope: LimitScope = "user"): void {
    this.book.pause(this.scopeKey(endpoint, scope), until);
  }

  /**
   * Trusts what the service reported after a response to `endpoint` (status `status`):
   *
   * - `x-rate-limit-*` describes the endpoint's tightest window for this credential. It is
   *   matched to the local window of the same maximum, the one with the least room when two
   *   have the same maximum (the service reports the tightest, too), and that window is
   *   corrected down to the reported `remaining`. A limit no local window has means the plan
   *   in the bot file is not the app's plan: that is logged once.
   * - `x-app-limit-24hour-*` and `x-user-limit-24hour-*` correct the app's and the user's
   *   24-hour windows.
   * - Whatever the match, a reported `remaining` of 0 pauses the endpoint until the reported
   *   reset, so even a window postbot does not know of cannot produce a 429.
   *
   * A correction only ever removes room (see {@link SlidingWindow.correct}); on a 429 the
   * window is not touched, only paused.
   */
  observe(endpoint: EndpointKey, headers: RateLimitHeaders, status = 200): void {
    const counted = this.counted(endpoint);
    const now = this.now();
    const apply = (match: CountedWindow | undefined, remaining: number | undefined) => {
      if (!match || remaining === undefined || status === 429) return;
      const before = match.window.remaining(now);
      match.window.correct(now, remaining);
      if (match.window.remaining(now) !== before) {
        this.book.log.debug({ window: match.key, counted_remaining: before, service_remaining: remaining }, "budget corrected by the service's headers");
        this.book.save(match.key);
      }
    };
    const pauseIfSpent = (remaining: number | undefined, resetAt: number | undefined, scope: LimitScope) => {
      if (remaining === 0 && resetAt !== undefined && resetAt > now) this.pause(endpoint, resetAt, scope);
    };

    const w = headers.window;
    if (w) {
      let match: CountedWindow | undefined;
      if (w.limit !== undefined) {
        for (const c of counted) {
          if (c.limit.max !== w.limit) continue;
          if (!match || c.window.remaining(now) < match.window.remaining(now)) match = c;
        }
        if (!match && counted.length > 0) {
          const ours = counted.map((c) => `${c.limit.max}/${c.limit.per} ${c.limit.scope === "app" ? "A" : "U"}`).join("; ");
          this.book.warnOnce(
            `limit|${endpoint}|${w.limit}|${this.account.appId}`,
            { endpoint, service_limit: w.limit, plan: this.account.plan },
            `the service reports a limit of ${w.limit} for ${endpoint}, but the ${this.account.plan} plan has ${ours}; is the bot file's plan the app's plan?`,
          );
        }
      }
      apply(match, w.remaining);
      pauseIfSpent(w.remaining, w.resetAt, match?.limit.scope ?? "user");
    }
    for (const [h, scope] of [
      [headers.app24h, "app"],
      [headers.user24h, "user"],
    ] as const) {
      if (!h) continue;
      apply(
        counted.find((c) => c.limit.scope === scope && c.limit.per === "24h"),
        h.remaining,
      );
      pauseIfSpent(h.remaining, h.resetAt, scope);
    }
  }

  /** Counts posts delivered by a capped endpoint (recent search, the filtered stream) against the monthly cap. */
  countPostsRead(n: number): void {
    const usage = this.monthlyUsage();
    if (!usage || !(n > 0)) return;
    const spentBefore = usage.used >= usage.cap;
    this.book.countPostsRead(this.account.appId, usage.periodStart, n);
    if (!spentBefore && usage.used + n >= usage.cap) this.logCapSpent(usage);
  }

  /** The service answered `usage-capped`: the cap is spent whatever the local count says. */
  markCapSpent(): void {
    const usage = this.monthlyUsage();
    if (!usage || usage.used >= usage.cap) return;
    this.book.countPostsRead(this.account.appId, usage.periodStart, usage.cap - usage.used);
    this.logCapSpent(usage);
  }

  private logCapSpent(usage: MonthlyUsage): void {
    this.book.log.warn(
      { app: this.account.appId, cap: usage.cap, reset_at: iso(usage.resetAt) },
      `the monthly cap of ${usage.cap} posts read through recent search and the filtered stream is spent; those reads wait until the enrolment day, ${iso(usage.resetAt).slice(0, 10)}`,
    );
  }

  /** What one endpoint (and an action's cap) allows right now, window by window. */
  describe(endpoint: EndpointKey, action?: string): EndpointBudget {
    const now = this.now();
    const windows: WindowState[] = this.counted(endpoint).map((c) => ({
      key: c.key,
      scope: c.limit.scope,
      windowMs: c.window.windowMs,
      max: c.limit.max,
      usable: c.usable,
      used: c.window.used(now),
      resetAt: c.window.resetAt(now),
    }));
    const cap = this.capWindow(action);
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
