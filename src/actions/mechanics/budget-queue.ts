/**
 * The budget queue, the mechanism behind the queue step (../steps/queue.ts): where an action
 * waits for budget. It hands out a slot (a request counted in every window) as soon as every
 * window of the action's endpoint has room, highest priority first, so a flood of work is
 * sent exactly as fast as the plan allows: never a request the plan forbids, never a slot
 * left unused while work waits.
 *
 * There are no polling loops: the queue asks each budget when its next slot frees
 * (`readyAt`, from the windows' `nextFreeAt`) and sleeps on the injected clock until the
 * earliest. Room only ever appears with time (corrections and pauses only take room away),
 * so waking at those times misses nothing.
 *
 * One queue serves the whole process, so bots of one app share their app's windows in
 * priority order.
 *
 * When the windows are shared with other processes (the state on Redis), a free slot is
 * claimed from Redis instead of taken here: one claim at a time per budget and endpoint (so
 * this process still serves its work in priority order), the waiting request staying in the
 * queue meanwhile. A refusal holds the window until the time Redis named and the queue
 * sleeps until then; while Redis is away the claim waits with it (the log says so once), and
 * nothing is sent without a slot.
 */
import type { EndpointKey } from "../../api/endpoints.ts";
import type { Clock } from "../../clock.ts";
import { MarkRefused, type AccountBudget, type Readiness, type Slot, type StageMark } from "../../limits/budget.ts";
import { silentLogger, type Logger } from "../../log.ts";
import type { ActionObserver } from "../observe.ts";

/** A wait that can never end or ended without a slot; `kind` says which. */
export class QueueError extends Error {
  override name = "QueueError";
  constructor(
    /** `refused`: it can never run; `expired`: its time-to-live passed; `closed`: the queue stopped. */
    readonly kind: "refused" | "expired" | "closed",
    message: string,
  ) {
    super(message);
  }
}

/** One wait for a slot: whose budget, which endpoint, how urgent, until when. */
export interface SlotRequest {
  budget: AccountBudget;
  /** The bot whose work waits (for logs, `bot status` and the observer). */
  bot: string;
  endpoint: EndpointKey;
  /** The action whose cap applies as well. */
  action?: string;
  /** Lower is served first; ties go to the oldest request. */
  priority: number;
  /** Give up when no slot was free before this time (ms). */
  expiresAt?: number;
  /** Do not hand out a slot before this time (a retry's back-off). */
  notBefore?: number;
  signal?: AbortSignal;
  /** What is waiting, for logs (`reply 1460323737035677698`). */
  label: string;
  /**
   * With a shared budget: the write to make with the slot (the ledger's mark), see
   * {@link AccountBudget.claim}. When it is refused the request rejects with {@link MarkRefused}.
   */
  stage?: StageMark;
}

interface Waiting extends SlotRequest {
  seq: number;
  resolve(slot: Slot): void;
  reject(error: unknown): void;
  onAbort?: () => void;
  /** The last reason logged, so a wait is logged once per reason, not on every wake. */
  reason?: string;
  /** A claim of a shared slot for it is on its way. */
  claiming?: boolean;
  /** It left the queue (aborted, closed) while its claim was on its way. */
  gone?: boolean;
  /**
   * When its budget said room comes (readyAt), and the budget's {@link AccountBudget.freed}
   * then: until that time, with no room freed since, the answer cannot have changed.
   */
  putOff?: { until: number; freed: number };
}

/** What is waiting, for `bot status`. */
export interface WaitingInfo {
  bot: string;
  endpoint: EndpointKey;
  label: string;
  priority: number;
  readyAt: number;
  reason?: string;
}

/** How long a shared claim may take before the log says Redis does not answer. */
const CLAIM_SLOW_MS = 2_000;
/** How long a claim that failed waits before it is tried again. */
const CLAIM_RETRY_MS = 1_000;

/** The queue's order: by priority (a lower number first), then by arrival. */
const inQueueOrder = (a: Waiting, b: Waiting): number => a.priority - b.priority || a.seq - b.seq;

/** The wait a request is part of: its bot, endpoint and cap (what the log says once). */
const waitOf = (item: Waiting): string => `${item.bot}|${item.endpoint}|${item.action ?? ""}`;

/** One pump's pass over the queue: its time, the earliest wake it found, and the budgets' "not yet" it asked. */
interface Pass {
  now: number;
  wake: number;
  blocked: Map<AccountBudget, Map<string, Readiness & { ok: false }>>;
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : "never");

/** The process's queue of actions waiting for budget; see the module comment. */
export class ActionQueue {
  private waiting: Waiting[] = [];
  private seq = 0;
  private cancelTimer: (() => void) | undefined;
  private timerAt = Infinity;
  private closed = false;
  private scheduled = false;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly observe: ActionObserver;
  /** The budgets work waits for now (bot, endpoint, cap): a wait is logged when it starts, once. */
  private readonly waits = new Set<string>();
  /**
   * Requests in the queue per wait (bot, endpoint, cap): a wait ends when its last request
   * leaves. Counted as they come and go, since gathering them from 10,000 waiting requests on
   * every pump (one per new request) cost a millisecond or two each time.
   */
  private readonly inQueue = new Map<string, number>();
  /** Shared-slot claims on their way, by budget and endpoint (one at a time each). */
  private readonly claims = new Map<AccountBudget, Set<string>>();
  /** Claims that have waited past {@link CLAIM_SLOW_MS}: the log said so once. */
  private slowClaims = 0;
  /** See {@link watchJoins}. */
  private joined: ((bot: string) => void) | undefined;
  /**
   * The requests waiting of each bot, kept as they come and leave: a status round asks each
   * of 10,000 bots what it has waiting while each has a catch-up poll here, and picking a
   * bot's own from the whole queue was a walk of 10,000 requests per bot, three times a bot.
   */
  private readonly ofBot = new Map<string, Set<Waiting>>();

  constructor(options: { clock: Clock; logger?: Logger; observe?: ActionObserver }) {
    this.clock = options.clock;
    this.log = options.logger ?? silentLogger;
    this.observe = options.observe ?? (() => {});
  }

  /**
   * Tells `listener` the bot of every request that joins the queue (one listener: the last
   * given). Hosting's status saver looks at a bot only when something may have changed its
   * status; a request that waits for budget is such a change.
   */
  watchJoins(listener: (bot: string) => void): void {
    this.joined = listener;
  }

  /** Requests waiting for a slot. */
  get size(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a slot (already counted in every window) once the request may be sent;
   * rejects with a {@link QueueError} when it never may, when its time-to-live passes first,
   * or when the queue closes, and with the signal's reason when aborted.
   */
  acquire(request: SlotRequest): Promise<Slot> {
    if (this.closed) return Promise.reject(new QueueError("closed", "postbot is stopping"));
    if (request.signal?.aborted) return Promise.reject(request.signal.reason);
    return new Promise<Slot>((resolve, reject) => {
      const item: Waiting = { ...request, seq: this.seq++, resolve, reject };
      if (request.signal) {
        item.onAbort = () => {
          if (!this.remove(item)) return;
          item.gone = true;
          reject(request.signal!.reason);
        };
        request.signal.addEventListener("abort", item.onAbort, { once: true });
      }
      // Sorted by priority, then by arrival: insert after every item that goes first (found by
      // halving: a reply goes before thousands of waiting polls).
      let lo = 0;
      let hi = this.waiting.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.waiting[mid]!.priority > item.priority) hi = mid;
        else lo = mid + 1;
      }
      this.waiting.splice(lo, 0, item);
      const wait = waitOf(item);
      this.inQueue.set(wait, (this.inQueue.get(wait) ?? 0) + 1);
      const mine = this.ofBot.get(item.bot);
      if (mine) mine.add(item);
      else this.ofBot.set(item.bot, new Set([item]));
      this.joined?.(item.bot);
      this.schedule();
    });
  }

  /** Claims of shared slots (Redis) on their way: work that is moving without the clock. */
  claimsInFlight(): number {
    let n = 0;
    for (const kinds of this.claims.values()) n += kinds.size;
    return n;
  }

  /** Rejects everything waiting (with `closed`) and refuses new requests: shutdown. */
  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    const all = this.waiting;
    this.waiting = [];
    this.inQueue.clear();
    this.ofBot.clear();
    this.waits.clear();
    for (const item of all) {
      item.gone = true;
      this.settle(item, () => item.reject(new QueueError("closed", "postbot is stopping")));
    }
  }

  /**
   * What waits, and until when, highest priority first: of one bot when named (each bot's
   * status asks for its own, and asking the budget about every waiting request for each of
   * 10,000 bots held the event loop for most of a second).
   */
  list(bot?: string): WaitingInfo[] {
    const now = this.clock.now();
    const items = bot === undefined ? this.waiting : [...(this.ofBot.get(bot) ?? [])].sort(inQueueOrder);
    return items.map((w) => {
      const r = w.budget.check(w.endpoint, w.action);
      const readyAt = Math.max(r.ok ? now : r.readyAt, w.notBefore ?? 0);
      const info: WaitingInfo = { bot: w.bot, endpoint: w.endpoint, label: w.label, priority: w.priority, readyAt };
      if (!r.ok) info.reason = r.reason;
      return info;
    });
  }

  /** How many of a bot's requests wait: without a copy of them, or asking their budgets. */
  count(bot: string): number {
    return this.ofBot.get(bot)?.size ?? 0;
  }

  private remove(item: Waiting): boolean {
    const i = this.waiting.indexOf(item);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    this.left(item);
    return true;
  }

  /** A request left the queue: when it was the last of its wait, the wait ends (the next one is logged again). */
  private left(item: Waiting): void {
    const mine = this.ofBot.get(item.bot);
    if (mine?.delete(item) && mine.size === 0) this.ofBot.delete(item.bot);
    const wait = waitOf(item);
    const n = (this.inQueue.get(wait) ?? 1) - 1;
    if (n > 0) {
      this.inQueue.set(wait, n);
      return;
    }
    this.inQueue.delete(wait);
    this.waits.delete(wait);
  }

  private settle(item: Waiting, fn: () => void): void {
    if (item.onAbort) item.signal?.removeEventListener("abort", item.onAbort);
    fn();
  }

  /** Pumps once after the current burst of requests, not once per request. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Hands out every slot that is free now, in priority order, and sleeps until the next one. */
  private pump = (): void => {
    const pass: Pass = { now: this.clock.now(), wake: Infinity, blocked: new Map() };
    const kept: Waiting[] = [];
    for (const item of this.waiting) if (this.consider(item, pass)) kept.push(item);
    this.waiting = kept;
    this.arm(pass.wake);
  };

  /**
   * One waiting request in a pump's pass: handed its slot, refused, expired, or kept waiting
   * (then the pass wakes no later than its turn or its expiry). True when it stays waiting.
   */
  private consider(item: Waiting, pass: Pass): boolean {
    const { now } = pass;
    if (item.claiming) return true;
    if (item.expiresAt !== undefined && item.expiresAt <= now) {
      const why = `waited past its time-to-live (${iso(item.expiresAt)})${item.reason ? `: ${item.reason}` : ""}`;
      this.fail(item, new QueueError("expired", why));
      return false;
    }
    if (item.notBefore !== undefined && item.notBefore > now) {
      pass.wake = Math.min(pass.wake, item.notBefore, item.expiresAt ?? Infinity);
      return true;
    }
    // Put off until a time still to come, and no room freed since: still so, without asking
    // its budget again. A pump runs for every new request; 10,000 bots' catch-up polls wait
    // for the app's window at once, each with its own budget, and asking each of them on
    // every pump took 8-16% of the runtime's time in a flood of 100 mentions a second.
    if (item.putOff && item.putOff.until > now && item.putOff.freed === item.budget.freed) {
      pass.wake = Math.min(pass.wake, item.putOff.until, item.expiresAt ?? Infinity);
      return true;
    }
    const r = this.readiness(item, pass);
    if (r === "claiming") return true;
    if (r === "taken") return false;
    if (r.readyAt === Infinity) {
      this.fail(item, new QueueError("refused", r.reason));
      return false;
    }
    if (item.expiresAt !== undefined && r.readyAt >= item.expiresAt) {
      // Its turn cannot come before it expires: say so now rather than hold it till then.
      const why = `would wait past its time-to-live (${iso(item.expiresAt)}): ${r.reason}`;
      this.fail(item, new QueueError("expired", why));
      return false;
    }
    this.putOff(item, r);
    pass.wake = Math.min(pass.wake, r.readyAt, item.expiresAt ?? Infinity);
    return true;
  }

  /**
   * Asks the item's budget for its slot (once per budget and kind in a pass: within a pass
   * room only shrinks, so a "not yet" holds for every later request of the same kind). The
   * slot free, it is taken and handed out (`taken`), or, on a shared budget, claimed
   * (`claiming`); otherwise the budget's "not yet".
   */
  private readiness(item: Waiting, pass: Pass): "taken" | "claiming" | (Readiness & { ok: false }) {
    const memoKey = `${item.endpoint}|${item.action ?? ""}`;
    const known = pass.blocked.get(item.budget)?.get(memoKey);
    if (known) return known;
    const fresh = item.budget.check(item.endpoint, item.action);
    if (fresh.ok && item.budget.shared) {
      // One claim per budget and endpoint at a time: the rest of its kind wait behind it.
      this.claimFor(item, memoKey);
      return "claiming";
    }
    if (fresh.ok) {
      const slot = item.budget.take(item.endpoint, item.action);
      this.left(item);
      this.settle(item, () => item.resolve(slot));
      return "taken";
    }
    let forBudget = pass.blocked.get(item.budget);
    if (!forBudget) pass.blocked.set(item.budget, (forBudget = new Map()));
    forBudget.set(memoKey, fresh);
    return fresh;
  }

  /** The item leaves the queue without a slot. */
  private fail(item: Waiting, error: QueueError): void {
    this.left(item);
    this.settle(item, () => item.reject(error));
  }

  /** The item waits for its turn at `r.readyAt`: logged and observed once per wait, remembered until room is freed. */
  private putOff(item: Waiting, r: Readiness & { ok: false }): void {
    item.reason = r.reason;
    const wait = waitOf(item);
    if (!this.waits.has(wait)) {
      // Once per wait, not per action or wake: a spent budget is news, its queue is not.
      this.waits.add(wait);
      this.log.info(
        { bot: item.bot, action: item.label, endpoint: item.endpoint, ready_at: iso(r.readyAt) },
        `${item.label} waits for budget until ${iso(r.readyAt)}, when it refills: ${r.reason}`,
      );
      this.observe({
        type: "waiting",
        bot: item.bot,
        endpoint: item.endpoint,
        label: item.label,
        readyAt: r.readyAt,
        reason: r.reason,
      });
    }
    item.putOff = { until: r.readyAt, freed: item.budget.freed };
  }

  /**
   * Starts claiming a shared slot for `item` unless a claim of the same budget and endpoint
   * is on its way (then it waits for the next pump, which that claim's answer starts).
   */
  private claimFor(item: Waiting, memoKey: string): void {
    let mine = this.claims.get(item.budget);
    if (mine?.has(memoKey)) return;
    if (!mine) this.claims.set(item.budget, (mine = new Set()));
    mine.add(memoKey);
    item.claiming = true;
    let slow: (() => void) | undefined = this.clock.setTimeout(() => {
      slow = undefined;
      if (this.slowClaims++ === 0)
        this.log.warn(
          { endpoint: item.endpoint },
          `the shared budget (Redis) does not answer; actions wait for it, nothing is sent without a slot`,
        );
    }, CLAIM_SLOW_MS);
    const done = () => {
      if (slow) slow();
      else if (--this.slowClaims === 0) this.log.info("the shared budget (Redis) answers again; actions go on");
      mine!.delete(memoKey);
      if (mine!.size === 0) this.claims.delete(item.budget);
      item.claiming = false;
      this.schedule();
    };
    item.budget.claim(item.endpoint, item.action, item.gone ? undefined : item.stage).then(
      (r) => {
        done();
        if (!r.ok) return;
        // Left while claiming: the slot goes back, unless the ledger marked the request with it
        // (its entry keeps the slot, checked and given back by the next start, as after a crash).
        if (item.gone) return r.slot.marked ? undefined : item.budget.giveBack(r.slot);
        this.remove(item);
        this.settle(item, () => item.resolve(r.slot));
      },
      (err: unknown) => {
        done();
        if (err instanceof MarkRefused) {
          // Its bot runs elsewhere now: nothing was taken, and it must not be sent from here.
          if (this.remove(item)) this.settle(item, () => item.reject(err));
          return;
        }
        // A refused script or a lost connection: try again a moment later, never without a slot.
        if (!item.gone) item.notBefore = Math.max(item.notBefore ?? 0, this.clock.now() + CLAIM_RETRY_MS);
        this.log.warn(
          { err, endpoint: item.endpoint },
          `could not claim a slot from the shared budget: ${(err as Error)?.message ?? String(err)}; trying again in ${CLAIM_RETRY_MS} ms`,
        );
      },
    );
  }

  private arm(at: number): void {
    if (at === this.timerAt) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = at;
    if (at === Infinity) return;
    this.cancelTimer = this.clock.setTimeout(() => {
      this.timerAt = Infinity;
      this.cancelTimer = undefined;
      this.pump();
    }, at - this.clock.now());
  }
}
