/**
 * The budget book: the windows, pauses and monthly usage of one process, shared by all its
 * accounts, kept in the state store. A windows are keyed by app id, so two bots of one app
 * count against the same app window. Create one per process; each account's
 * {@link AccountBudget} reads and writes through it.
 *
 * Key formats (shared with the sandbox's meter, so a log line reads the same on both sides):
 * `<endpoint>|u:<user id>|<per>` and `<endpoint>|a:<app id>|<per>`; caps
 * `cap|<bot>|<action>|<per>ms`.
 */
import type { Clock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { AccountBudget, type BudgetAccount, type BudgetPolicy } from "./budget.ts";
import { WINDOW_MS, type Per } from "./types.ts";
import { SlidingWindow } from "./window.ts";

/**
 * The store namespaces the budget keeps its windows, pauses and monthly usage in: whoever
 * reads a budget without running it (`bot status` copies them into a memory store, so
 * reading writes nothing) needs exactly these.
 */
export const BUDGET_NAMESPACES = ["budget.windows", "budget.pauses", "budget.usage"] as const;
const [NS_WINDOWS, NS_PAUSES, NS_USAGE] = BUDGET_NAMESPACES;

interface StoredUsage {
  periodStart: number;
  posts: number;
}

const perOfKey = (key: string): number | undefined => {
  const last = key.slice(key.lastIndexOf("|") + 1);
  if (last in WINDOW_MS) return WINDOW_MS[last as Per];
  const ms = /^(\d+)ms$/.exec(last);
  return ms ? Number(ms[1]) : undefined;
};

/**
 * The windows of one process, shared by all its accounts.
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

  /** Forgets one counted event of a window (a request that never reached the service), loading the window if need be. */
  forget(key: string, at: number): void {
    const w = this.windows.get(key);
    const times = w ? undefined : this.store.get<number[]>(NS_WINDOWS, key);
    if (w) {
      if (w.forget(at)) this.save(key);
    } else if (times) {
      const i = times.lastIndexOf(at);
      if (i >= 0) this.store.set(NS_WINDOWS, key, [...times.slice(0, i), ...times.slice(i + 1)]);
    }
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
