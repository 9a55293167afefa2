/**
 * A bot's budget for its language model (the bot file's `budget.llm`): tokens per window
 * (counted from each answer's `usage`) and requests per window, as sliding windows on the
 * injected {@link Clock}, plus a pause after a 429 until the time the server named. Asking
 * waits until both windows have room, as an action waits for the service's windows; the wait
 * is the model's own, so it never holds back the bot's other actions (a like does not queue
 * behind a reply waiting for tokens). The windows are kept in the state store, so a restart
 * does not hand out a day's tokens twice; `bot status` reads them from there. Each is kept as
 * counts per hundredth of its length ({@link WINDOW_STEPS}), not one entry per use, so what is
 * saved stays small however many replies a day's window holds; a use then counts up to 1 % of
 * the window longer than it exactly would.
 *
 * A request is let through while the token window has any room: what it will cost is only
 * known from its answer, so a window may end over its limit by one answer (at most
 * `max_tokens` plus the prompt), and the next request waits for that to leave the window.
 */
import type { Clock } from "../clock.ts";
import type { Store } from "../store/store.ts";

/** The bot file's `budget.llm`, as the schema outputs it. */
export interface ModelBudgetPolicy {
  /** Tokens (prompt and answer) at most in any `tokensPerMs`. */
  tokens?: number | undefined;
  tokensPerMs: number;
  /** Requests at most in any `requestsPerMs`. */
  requests?: number | undefined;
  requestsPerMs: number;
}

/** One window of the model's budget, as `bot status` and `/metrics` show it. */
export interface ModelWindowState {
  used: number;
  limit: number;
  windowMs: number;
  /** When room comes back: when the oldest counted use leaves the window. */
  resetAt: number;
}

/** What is left of a bot's model budget. */
export interface ModelBudgetStatus {
  tokens?: ModelWindowState;
  requests?: ModelWindowState;
  /** Requests waiting for room now. */
  waiting: number;
  /** Until when a 429 paused the model (absent: not paused). */
  pausedUntil?: number;
}

/** What is kept in the store per bot. */
interface Saved {
  policy: ModelBudgetPolicy;
  /**
   * Each window's counts, `[a step's end (ms), tokens or requests in that step]`, oldest first
   * (see {@link WINDOW_STEPS}). Saved before steps: one pair per use, at its time; read alike.
   */
  tokens: Array<[number, number]>;
  requests: Array<[number, number]>;
  pausedUntil?: number;
  /** Requests waiting for room when it was saved (absent: none), for `bot status` and the status page. */
  waiting?: number;
}

/** The store namespace of the model budgets, by bot. */
export const MODEL_BUDGET_NAMESPACE = "llm.budget";

/**
 * Into how many steps a window's length is cut to tell its uses apart in time. Uses within one
 * step are kept as one count at the step's end, so a window is at most this many counts (plus
 * one), however many replies it holds: a day's 1,000 replies were 2,000 pairs, all written
 * again at each of their saves. A use then counts up to one step (1 % of the window: 14.4 min
 * of a day, 0.6 s of a minute) longer than it would exactly, never shorter, so the limit holds.
 */
export const WINDOW_STEPS = 100;

/** Uses of varying size (tokens) in a sliding window, by step (see {@link WINDOW_STEPS}). */
class UseWindow {
  /** `[step's end, uses in it]`, oldest first. */
  readonly uses: Array<[number, number]> = [];
  private readonly step: number;

  /**
   * @param saved the window's counts as saved; a record of the version before steps (one pair
   *   per use, at its exact time) is folded into steps as it is read.
   */
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    saved: ReadonlyArray<readonly [number, number]> = [],
  ) {
    this.step = Math.max(1, Math.floor(windowMs / WINDOW_STEPS));
    for (const [at, n] of saved) this.add(at, n);
  }

  /** The end of the step `at` falls in: when a use then leaves the window, less `windowMs`. */
  private stepEnd(at: number): number {
    return Math.ceil(at / this.step) * this.step;
  }

  private prune(now: number): void {
    const cutoff = now - this.windowMs;
    let drop = 0;
    while (drop < this.uses.length && this.uses[drop]![0] <= cutoff) drop++;
    if (drop > 0) this.uses.splice(0, drop);
  }

  used(now: number): number {
    this.prune(now);
    let sum = 0;
    for (const [, n] of this.uses) sum += n;
    return sum;
  }

  /** When the window has room again (`now` when it has). */
  freeAt(now: number): number {
    let over = this.used(now) - this.limit + 1;
    if (over <= 0) return now;
    for (const [at, n] of this.uses) {
      over -= n;
      if (over <= 0) return at + this.windowMs;
    }
    return now;
  }

  add(now: number, n: number): void {
    if (!(n > 0)) return;
    const at = this.stepEnd(now);
    const last = this.uses.length - 1;
    // A new pair, not the last one changed: that may be the store's own (read from it at start).
    // A clock that went back counts into the latest step (later, never earlier).
    if (last >= 0 && at <= this.uses[last]![0]) this.uses[last] = [this.uses[last]![0], this.uses[last]![1] + n];
    else this.uses.push([at, n]);
  }

  /** Takes back `n` of what {@link add} counted at `at` (nothing, once that left the window). */
  remove(at: number, n: number): void {
    const end = this.stepEnd(at);
    for (let i = this.uses.length - 1; i >= 0; i--) {
      const [step, count] = this.uses[i]!;
      if (step > end) continue;
      if (step < end) return;
      if (count > n) this.uses[i] = [step, count - n];
      else this.uses.splice(i, 1);
      return;
    }
  }

  state(now: number): ModelWindowState {
    const used = this.used(now);
    return {
      used,
      limit: this.limit,
      windowMs: this.windowMs,
      resetAt: this.uses.length > 0 ? this.uses[0]![0] + this.windowMs : now + this.windowMs,
    };
  }
}

/** A bot's model budget; see the module comment. */
export class ModelBudget {
  private readonly tokens: UseWindow | undefined;
  private readonly requests: UseWindow | undefined;
  private pausedUntil = 0;
  private waiters = 0;

  constructor(
    readonly bot: string,
    readonly policy: ModelBudgetPolicy,
    private readonly clock: Clock,
    private readonly store?: Store,
  ) {
    const saved = store?.get<Saved>(MODEL_BUDGET_NAMESPACE, bot);
    if (policy.tokens !== undefined) this.tokens = new UseWindow(policy.tokens, policy.tokensPerMs, saved?.tokens);
    if (policy.requests !== undefined)
      this.requests = new UseWindow(policy.requests, policy.requestsPerMs, saved?.requests);
    this.pausedUntil = saved?.pausedUntil ?? 0;
    this.save();
  }

  /** When a request may go (now, when it may). */
  readyAt(): number {
    const now = this.clock.now();
    return Math.max(now, this.pausedUntil, this.tokens?.freeAt(now) ?? now, this.requests?.freeAt(now) ?? now);
  }

  /**
   * Waits until a request may go, on the clock, and counts it. Rejects with the signal's
   * reason when `signal` aborts (the bot stops). Resolves with what takes the count back
   * (once), for a request that then never left (its reply's time-to-live passed, or its bot
   * stopped, while it waited for its server's request slot).
   */
  async acquire(signal: AbortSignal): Promise<() => void> {
    this.waiters++;
    // Saved when a request starts and stops waiting (not on the path that waits for nothing),
    // so what reads the store (`bot status`, the status page) sees the replies held back.
    let waited = false;
    try {
      for (;;) {
        const at = this.readyAt();
        const now = this.clock.now();
        if (at <= now) break;
        if (!waited) {
          waited = true;
          this.save();
        }
        await this.clock.sleep(at - now, signal);
      }
    } finally {
      this.waiters--;
      if (waited) this.save();
    }
    const at = this.clock.now();
    this.requests?.add(at, 1);
    this.save();
    let unspent = false;
    return () => {
      if (unspent || !this.requests) return;
      unspent = true;
      this.requests.remove(at, 1);
      this.save();
    };
  }

  /** Counts an answer's tokens. */
  spend(tokens: number): void {
    this.tokens?.add(this.clock.now(), tokens);
    this.save();
  }

  /** Stops asking for `ms` from now (a 429's `retry-after`). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.save();
  }

  status(): ModelBudgetStatus {
    return modelBudgetStatus(this.snapshot(), this.clock.now(), this.waiters);
  }

  private snapshot(): Saved {
    return {
      policy: this.policy,
      tokens: this.tokens?.uses ?? [],
      requests: this.requests?.uses ?? [],
      ...(this.pausedUntil > 0 ? { pausedUntil: this.pausedUntil } : {}),
      ...(this.waiters > 0 ? { waiting: this.waiters } : {}),
    };
  }

  /**
   * Not flushed: a crash loses at most the last uses, as the service's windows do. Runs twice
   * per reply (the request, then its tokens), so the value is built fresh here (new lists,
   * new pairs, a copy of the policy) and handed to the store as it is (`adopt`): `set` would
   * copy it all once more (a `structuredClone` of every pair of the day's window).
   */
  private save(): void {
    if (!this.store) return;
    const s = this.snapshot();
    const fresh: Saved = {
      ...s,
      policy: { ...s.policy },
      tokens: s.tokens.map(([at, n]) => [at, n]),
      requests: s.requests.map(([at, n]) => [at, n]),
    };
    if (this.store.adopt) this.store.adopt<Saved>(MODEL_BUDGET_NAMESPACE, this.bot, fresh);
    else this.store.set<Saved>(MODEL_BUDGET_NAMESPACE, this.bot, fresh);
  }
}

/** The status of a saved budget at `now` (what `bot status` shows from the store). */
function modelBudgetStatus(saved: Saved, now: number, waiting: number): ModelBudgetStatus {
  const { policy } = saved;
  return {
    ...(policy.tokens !== undefined
      ? { tokens: new UseWindow(policy.tokens, policy.tokensPerMs, saved.tokens).state(now) }
      : {}),
    ...(policy.requests !== undefined
      ? { requests: new UseWindow(policy.requests, policy.requestsPerMs, saved.requests).state(now) }
      : {}),
    waiting,
    ...(saved.pausedUntil !== undefined && saved.pausedUntil > now ? { pausedUntil: saved.pausedUntil } : {}),
  };
}

/** A bot's model budget as the store keeps it, at `now`, or undefined when it has none. */
export function savedModelBudget(store: Store, bot: string, now: number): ModelBudgetStatus | undefined {
  const saved = store.get<Saved>(MODEL_BUDGET_NAMESPACE, bot);
  return saved ? modelBudgetStatus(saved, now, saved.waiting ?? 0) : undefined;
}
