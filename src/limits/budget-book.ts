/**
 * The budget book: the windows, pauses and monthly usage of one process, shared by all its
 * accounts, kept in the state store. A windows are keyed by app id, so two bots of one app
 * count against the same app window. Create one per process; each account's
 * {@link AccountBudget} reads and writes through it.
 *
 * Key formats (shared with the sandbox's meter, so a log line reads the same on both sides):
 * `<endpoint>|u:<user id>|<per>` and `<endpoint>|a:<app id>|<per>`; caps
 * `cap|<bot>|<action>|<per>ms`.
 *
 * With `shared` windows (the state on Redis, several processes), the shared windows are the
 * judge: a slot is taken there atomically ({@link AccountBudget.claim}), corrections,
 * pauses, moves and give-backs go there too, and a refusal holds the window's key in this
 * process until the time Redis named, so the queue sleeps instead of asking again. The local
 * windows then only mirror this process's own requests and are not persisted. The monthly
 * read count is then Redis's counter too (every process's reads added atomically); the book
 * keeps the latest total Redis answered plus its own reads since, for the synchronous check.
 */
import type { Clock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Store } from "../store/store.ts";
import { AccountBudget, type BudgetAccount, type BudgetPolicy } from "./account-budget.ts";
import type { WindowBook } from "./book.ts";
import type { SharedWindows } from "./shared-windows.ts";
import { WINDOW_MS, type Per } from "./types.ts";
import { SlidingWindow } from "./window.ts";

/**
 * The store namespaces the budget keeps its windows, pauses and monthly usage in: whoever
 * reads a budget without running it (`bot status` copies them into a memory store, so
 * reading writes nothing) needs exactly these.
 */
export const BUDGET_NAMESPACES = ["budget.windows", "budget.pauses", "budget.usage"] as const;
const [NS_WINDOWS, NS_PAUSES, NS_USAGE] = BUDGET_NAMESPACES;

/** Where an app's monthly read count is kept (key: the app id), as {@link StoredUsage}. */
export const MONTHLY_USAGE_NAMESPACE = NS_USAGE;

/** An app's monthly read count: the cap period it is of, and the posts read in it. */
export interface StoredUsage {
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
export class BudgetBook implements WindowBook {
  readonly clock: Clock;
  readonly log: Logger;
  private readonly store: Store;
  private readonly windows = new Map<string, SlidingWindow>();
  private readonly warned = new Set<string>();
  private readonly dirty = new Set<string>();
  /** The windows shared with other processes, when the state is on Redis. */
  readonly shared: SharedWindows | undefined;
  /** Keys the shared windows said are full (or paused) until then. */
  private readonly holds = new Map<string, number>();
  /** Writes to the shared windows not answered yet. */
  private readonly writing = new Set<Promise<unknown>>();
  /** With shared windows: posts read per `<app>|<period start>`, as Redis last totalled them and counted here since. */
  private readonly reads = new Map<string, number>();
  private freedCount = 0;

  /**
   * Counts the times room appeared other than by time passing (a slot given back, a window
   * made again with other limits). Room otherwise only appears with time (a correction, a
   * pause, a hold only take it away), so a request the budget put off until T stays put off
   * until T while this count stays the same: the queue relies on it to not ask again.
   */
  get freed(): number {
    return this.freedCount;
  }

  constructor(options: { store: Store; clock: Clock; logger?: Logger; shared?: SharedWindows }) {
    this.store = options.store;
    this.clock = options.clock;
    this.log = options.logger ?? silentLogger;
    this.shared = options.shared;
    this.compact();
  }

  /** Until when the shared windows hold `key` (0 when they do not, or without shared windows). */
  heldUntil(key: string): number {
    const until = this.holds.get(key);
    if (until === undefined) return 0;
    if (until > this.clock.now()) return until;
    this.holds.delete(key);
    return 0;
  }

  /** Remembers that the shared windows hold `key` until `until`. */
  hold(key: string, until: number): void {
    if (until > (this.holds.get(key) ?? 0)) this.holds.set(key, until);
  }

  /**
   * Runs a write to the shared windows without waiting for it. While Redis is away the client
   * queues it; a failure is logged once per kind and the local count stays as it was.
   */
  sharedWrite(what: string, write: Promise<unknown>): void {
    const done = write
      .catch((err: unknown) =>
        this.warnOnce(
          `shared|${what}`,
          { err },
          `could not ${what} in the shared budget: ${(err as Error)?.message ?? String(err)}`,
        ),
      )
      .finally(() => this.writing.delete(done));
    this.writing.add(done);
  }

  /** Resolves once every write to the shared windows made so far has been answered (tests, shutdown). */
  async sharedWrites(): Promise<void> {
    while (this.writing.size > 0) await Promise.all([...this.writing]);
  }

  /**
   * Trusts the service's `remaining` for a window of `max` (see `SlidingWindow.correct`): in
   * the shared window when there is one (the local mirror counts only this process), else in
   * the local one. Returns whether the local window changed (the shared one is corrected in
   * the background).
   */
  correct(key: string, window: SlidingWindow, max: number, remaining: number): boolean {
    const now = this.clock.now();
    if (this.shared) {
      this.sharedWrite("correct a window", this.shared.correct(key, window.windowMs, max, remaining, now));
      return false;
    }
    const before = window.remaining(now);
    window.correct(now, remaining);
    if (window.remaining(now) === before) return false;
    this.save(key);
    return true;
  }

  /** The budget of one account under the bot file's policy. */
  account(account: BudgetAccount, policy: BudgetPolicy = {}): AccountBudget {
    return new AccountBudget(this, account, policy);
  }

  /** The window of `key`, loaded from the store the first time it is used. */
  window(key: string, max: number, windowMs: number): SlidingWindow {
    let w = this.windows.get(key);
    if (!w || w.max !== max || w.windowMs !== windowMs) {
      if (w) this.freedCount++;
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
    if (this.shared) return;
    this.dirty.add(key);
    if (this.dirty.size === 1) queueMicrotask(() => this.persist());
  }

  /**
   * Writes every changed window to the store now (dropping entries that became empty). The
   * snapshot is a fresh array the book never touches again, so the store adopts it rather
   * than copying it once more (an app's day is 5,000 times or more, written twice an action).
   */
  persist(): void {
    const now = this.clock.now();
    for (const key of this.dirty) {
      const times = this.windows.get(key)?.snapshot(now) ?? [];
      if (times.length === 0) this.store.delete(NS_WINDOWS, key);
      else if (this.store.adopt) this.store.adopt(NS_WINDOWS, key, times);
      else this.store.set(NS_WINDOWS, key, times);
    }
    this.dirty.clear();
  }

  /** Moves one counted event of a window (see {@link SlidingWindow.retime}); `member` names it in the shared window. */
  retime(key: string, from: number, to: number, member?: string): void {
    if (this.shared) this.sharedWrite("move a counted request", this.shared.retime(key, from, to, member));
    const w = this.windows.get(key);
    if (!w) return;
    w.retime(from, to);
    this.save(key);
  }

  /** Forgets one counted event of a window (a request that never reached the service), loading the window if need be. */
  forget(key: string, at: number, member?: string): void {
    this.freedCount++;
    if (this.shared) this.sharedWrite("give back a slot", this.shared.forget(key, at, member));
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
    if (this.shared) {
      this.hold(key, until);
      this.sharedWrite("pause an endpoint", this.shared.pause(key, until, this.clock.now()));
    }
    if (until > this.pausedUntil(key)) this.store.set(NS_PAUSES, key, until);
  }

  /**
   * Posts read through capped endpoints by an app in the cap period `period`. With shared
   * windows, the first ask for a period fetches Redis's total in the background (0 until it
   * answers).
   */
  postsRead(appId: string, period: { start: number; end: number }): number {
    if (this.shared) {
      const key = `${appId}|${period.start}`;
      if (!this.reads.has(key)) this.countPostsRead(appId, period, 0);
      return this.reads.get(key) ?? 0;
    }
    const u = this.store.get<StoredUsage>(NS_USAGE, appId);
    return u && u.periodStart === period.start ? u.posts : 0;
  }

  /** Counts `n` posts read (with shared windows: in Redis's counter, atomically, and here at once). */
  countPostsRead(appId: string, period: { start: number; end: number }, n: number): void {
    const shared = this.shared;
    if (shared) {
      const key = `${appId}|${period.start}`;
      this.reads.set(key, (this.reads.get(key) ?? 0) + n);
      this.sharedWrite(
        "count posts read",
        shared.countReads(appId, period, n, this.clock.now()).then((total) => {
          // Later reads of this process may already be counted here and not yet in Redis's answer.
          this.reads.set(key, Math.max(total, this.reads.get(key) ?? 0));
        }),
      );
      return;
    }
    this.store.set<StoredUsage>(NS_USAGE, appId, {
      periodStart: period.start,
      posts: this.postsRead(appId, period) + n,
    });
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
      const kept =
        ms === undefined || !Array.isArray(times) ? [] : times.filter((t) => typeof t === "number" && t > now - ms);
      if (kept.length === 0) this.store.delete(NS_WINDOWS, key);
      else if (kept.length !== times.length) this.store.set(NS_WINDOWS, key, kept);
    }
    for (const [key, until] of this.store.entries<number>(NS_PAUSES))
      if (!(until > now)) this.store.delete(NS_PAUSES, key);
  }
}
