/**
 * The budgeted action layer: every action a plugin takes goes through one chain,
 *
 *     ledger ▸ reply safety ▸ budget ▸ queue ▸ retry ▸ executor
 *
 * in the manner of grammY's API transformers (extra steps go in front with `use`):
 *
 * - the ledger never sends an idempotency key twice and, after a crash, checks an action
 *   that may have been sent against the service before sending it again;
 * - reply safety refuses replies that would start a loop;
 * - the budget refuses what the plan can never allow;
 * - the queue waits, by priority and time-to-live, until every window has room;
 * - retry handles 429s (pause until the reset, exponential back-off), usage caps, network
 *   failures (verifying a write that may have arrived before repeating it);
 * - the executor, the runtime's API client, sends the request.
 *
 * One {@link ActionSystem} per process holds what bots share (the app windows, the queue,
 * the list of bots); each bot gets its {@link ActionLayer} from it.
 */
import { createHash } from "node:crypto";
import type { EndpointKey } from "../api/endpoints.ts";
import { RateLimitError } from "../api/errors.ts";
import { parseRateLimitHeaders } from "../api/rate-limit-headers.ts";
import type { Clock } from "../clock.ts";
import { AccountBudget, BudgetBook, type ActionCap, type EndpointBudget, type MonthlyUsage } from "../limits/budget.ts";
import { CAPPED_ENDPOINTS } from "../limits/plan-limits.ts";
import type { Plan } from "../limits/types.ts";
import { silentLogger, type Logger } from "../log.ts";
import { createMemoryStore, type Store } from "../store/store.ts";
import { READ_KIND, type Action, type ActionKind, type Executed, type Executor, type Job, type Outcome, type Perform, type Transformer, type Verification, type Verifier } from "./action.ts";
import { dryRunExecutor } from "./dry-run.ts";
import { ACTION_KINDS, isActionKind, READ_PRIORITY } from "./kinds.ts";
import { Ledger, type LedgerOptions } from "./ledger.ts";
import { replyPolicy } from "./policy.ts";
import { ActionQueue, QueueError } from "./queue.ts";
import { backoffMs, classifyFailure, DEFAULT_RETRY, describeError, headersOf, type RetryPolicy } from "./retry.ts";

/** What the process-wide action system is built on. */
export interface ActionSystemOptions {
  /** The state store (ledger, budget windows, reply cooldowns). */
  store: Store;
  clock: Clock;
  logger?: Logger;
  /**
   * `--dry-run`: nothing is sent; actions are logged and counted against a simulated budget
   * and ledger kept in memory, so a dry run leaves the real state untouched.
   */
  dryRun?: boolean;
  retry?: Partial<RetryPolicy>;
  ledger?: LedgerOptions;
}

/** What one bot's layer needs: its account, its executor, and its bot file's rules. */
export interface BotActionsOptions {
  bot: string;
  account: { appId: string; userId: string; plan: Plan };
  /** Sends an action (the runtime plugs the API client in). */
  executor: Executor;
  /** Per kind, how to ask the service whether an action already happened (see {@link Verifier}). */
  verifiers?: Partial<Record<ActionKind, Verifier>>;
  /** The bot file's `budget`: `reserve` as a fraction and per-action caps. */
  budget?: { reserve?: number } & Partial<Record<ActionKind, ActionCap | undefined>>;
  /** Day of the month the app enrolled: the monthly read cap resets then (default 1). */
  enrolmentDay?: number;
  /** `reply_to_bots` (default false). */
  replyToBots?: boolean;
  /** `reply_cooldown` in ms (default 15 minutes). */
  replyCooldownMs?: number;
  /** Priorities by kind (lower runs sooner); defaults in {@link ACTION_KINDS}. */
  priorities?: Partial<Record<ActionKind | typeof READ_KIND, number>>;
  /** Time-to-live by kind, in ms; defaults in {@link ACTION_KINDS}. */
  ttlMs?: Partial<Record<ActionKind, number>>;
  /** The ledger (default on). Off only to measure what it costs. */
  ledger?: boolean;
}

/** A post as actions refer to it: its id and, when known, what reply safety and time-to-live need. */
export interface PostRef {
  id: string;
  author_id?: string;
  conversation_id?: string;
  /** ISO time (as on the wire) or ms: a reaction's time-to-live counts from it. */
  created_at?: string | number;
}

/** Per-call choices a plugin may make; every one has a default from the kind. */
export interface ActionOptions {
  /** Overrides the target part of the idempotency key (`<bot>:<kind>:<key>`). */
  key?: string;
  priority?: number;
  /** Time-to-live in ms, instead of the kind's default. */
  ttlMs?: number;
  signal?: AbortSignal;
}

/** An action described by hand, for kinds and endpoints beyond the built-in helpers. */
export interface ActionInput {
  kind: ActionKind;
  target: string;
  endpoint?: EndpointKey;
  path?: Record<string, string>;
  body?: unknown;
  context?: Action["context"];
  /** When the thing acted on happened (ms): the time-to-live counts from it. */
  origin?: number;
}

/** Options of a budgeted read ({@link ActionLayer.call}). */
export interface CallOptions {
  priority?: number;
  /** Give up when no slot was free within this many ms. */
  ttlMs?: number;
  signal?: AbortSignal;
  /** What the call is, for logs (default: the endpoint). */
  label?: string;
  /** Posts the answer delivered, for the monthly cap (default for capped endpoints: `meta.result_count`). */
  postsDelivered?: (result: unknown) => number;
}

/** Why {@link ActionLayer.call} could not return an answer. */
export class CallError extends Error {
  override name = "CallError";
  constructor(readonly outcome: Exclude<Outcome, { status: "sent" | "dry-run" | "duplicate" }>) {
    super(outcome.reason, { cause: outcome.status === "failed" ? outcome.error : undefined });
  }
}

/** What `ctx.budget` and `bot status` show for one bot. */
export interface BudgetStatus {
  bot: string;
  plan: Plan;
  /** Per action kind, what its endpoint and cap allow now. */
  actions: Record<ActionKind, EndpointBudget>;
  monthly?: MonthlyUsage;
}

/** One bot's actions. Performing never throws for refusals, drops or failures: see {@link Outcome}. */
export interface ActionLayer {
  readonly bot: string;
  readonly budget: AccountBudget;
  /** Replies to a post (`POST /2/posts` with `reply.in_reply_to_post_id`). */
  reply(to: PostRef, text: string, options?: ActionOptions): Promise<Outcome>;
  like(post: PostRef | string, options?: ActionOptions): Promise<Outcome>;
  repost(post: PostRef | string, options?: ActionOptions): Promise<Outcome>;
  follow(userId: string, options?: ActionOptions): Promise<Outcome>;
  /**
   * Sends a direct message. The key is the user and the text: the same text to the same user
   * is sent once (a welcome DM), a different text is a new message.
   */
  dm(userId: string, text: string, options?: ActionOptions): Promise<Outcome>;
  /** Hides (or with `hidden: false`, unhides) a reply to one of the bot's posts. */
  hide(post: PostRef | string, options?: ActionOptions & { hidden?: boolean }): Promise<Outcome>;
  /**
   * Posts. The key defaults to the text (the service refuses duplicate content anyway);
   * a scheduled post that repeats its text gives a key per run (`{ key: "morning:2026-01-02" }`).
   */
  post(text: string, options?: ActionOptions & { body?: Record<string, unknown> }): Promise<Outcome>;
  perform(input: ActionInput, options?: ActionOptions): Promise<Outcome>;
  /**
   * A budgeted read (the mentions poll, a verifier's lookup): waits for a slot of
   * `endpoint`, retries on 429 and network errors, corrects the budget by the answer's
   * headers. Throws {@link CallError} when it cannot get an answer.
   */
  call<R>(endpoint: EndpointKey, run: (signal: AbortSignal) => Promise<Executed<R>>, options?: CallOptions): Promise<R>;
  /** Actions of `kind` (or requests to an endpoint) that may be sent right now. */
  remaining(kind: ActionKind | EndpointKey): number;
  status(): BudgetStatus;
  /**
   * Resumes what an earlier run left unfinished: queued actions are queued again, pending
   * ones are verified first. Resolves once each has been decided (sent, verified, dropped...).
   */
  recover(): Promise<Outcome[]>;
  /** Adds a step in front of the chain. */
  use(transformer: Transformer): ActionLayer;
}

/** What the process's bots share. */
export interface ActionSystem {
  readonly book: BudgetBook;
  readonly queue: ActionQueue;
  readonly ledger: Ledger;
  readonly dryRun: boolean;
  /** User ids of the bots hosted here (reply safety reads it). */
  readonly botIds: ReadonlySet<string>;
  bot(options: BotActionsOptions): ActionLayer;
  /** Resolves when no action is being performed. */
  idle(): Promise<void>;
  /** Actions and budgeted reads being performed now (queued ones included). */
  inFlight(): number;
  /**
   * Stops: waiting actions end as `deferred` (the ledger keeps them for the next start);
   * requests in flight finish. Await {@link idle} after it.
   */
  close(): void;
}

/** How a log line names an action: what it does and to what, with the text it sends, shortened. */
function describeAction(action: Pick<Action, "kind" | "target" | "path" | "body">): string {
  const text = (action.body as { text?: unknown } | undefined)?.text;
  const quoted = typeof text === "string" ? ` "${text.length > 60 ? `${text.slice(0, 57)}...` : text}"` : "";
  switch (action.kind) {
    case "reply":
      return `reply to post ${action.target}${quoted}`;
    case "post":
      return `post${quoted}`;
    case "dm":
      return `dm to user ${action.path.participant_id ?? action.target}${quoted}`;
    case "follow":
      return `follow user ${action.target}`;
    case "like":
    case "repost":
    case "hide":
      return `${action.kind} post ${action.target}`;
    default:
      return `${action.kind} ${action.target}`;
  }
}

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

const originOf = (post: PostRef | string): number | undefined => {
  if (typeof post === "string" || post.created_at === undefined) return undefined;
  const ms = typeof post.created_at === "number" ? post.created_at : Date.parse(post.created_at);
  return Number.isFinite(ms) ? ms : undefined;
};

const idOf = (post: PostRef | string) => (typeof post === "string" ? post : post.id);

/** Posts delivered by a capped read, by default: the envelope's `meta.result_count`, else its data. */
function defaultPostsDelivered(result: unknown): number {
  const r = result as { meta?: { result_count?: unknown }; data?: unknown } | undefined;
  if (typeof r?.meta?.result_count === "number") return r.meta.result_count;
  if (Array.isArray(r?.data)) return r.data.length;
  return r?.data ? 1 : 0;
}

/**
 * Creates the process's action system.
 *
 * @example
 * ```ts
 * const actions = createActionSystem({ store, clock, logger });
 * const greeter = actions.bot({ bot: "greeter", account: { appId, userId, plan: "basic" }, executor });
 * await greeter.recover();
 * const outcome = await greeter.reply(mention, "Hello!");
 * ```
 */
export function createActionSystem(options: ActionSystemOptions): ActionSystem {
  const dryRun = options.dryRun ?? false;
  const store = dryRun ? createMemoryStore() : options.store;
  const log = options.logger ?? silentLogger;
  const clock = options.clock;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const book = new BudgetBook({ store, clock, logger: log });
  const queue = new ActionQueue({ clock, logger: log });
  const ledger = new Ledger(store, clock, options.ledger);
  const botIds = new Set<string>();
  const inFlight = new Set<Promise<unknown>>();

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  };

  const system: ActionSystem = {
    book,
    queue,
    ledger,
    dryRun,
    botIds,
    bot: (bot) => {
      botIds.add(bot.account.userId);
      return createLayer(bot, { store, clock, log: log.child({ bot: bot.bot }), book, queue, ledger, retry, dryRun, botIds, track });
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    inFlight: () => inFlight.size,
    close: () => queue.close(),
  };
  return system;
}

interface Shared {
  store: Store;
  clock: Clock;
  log: Logger;
  book: BudgetBook;
  queue: ActionQueue;
  ledger: Ledger;
  retry: RetryPolicy;
  dryRun: boolean;
  botIds: ReadonlySet<string>;
  track: <T>(p: Promise<T>) => Promise<T>;
}

function createLayer(options: BotActionsOptions, shared: Shared): ActionLayer {
  const { bot } = options;
  const { clock, log, queue, ledger, retry } = shared;
  const { reserve, ...caps } = options.budget ?? {};
  const budget = shared.book.account({ ...options.account, bot }, { reserve, caps, enrolmentDay: options.enrolmentDay });
  const executor = shared.dryRun ? dryRunExecutor() : options.executor;
  const verifiers = options.verifiers ?? {};
  const useLedger = options.ledger ?? true;
  const inFlightKeys = new Map<string, Promise<Outcome>>();

  const priorityOf = (kind: ActionKind | typeof READ_KIND) =>
    options.priorities?.[kind] ?? (kind === READ_KIND ? READ_PRIORITY : ACTION_KINDS[kind].priority);
  const ttlOf = (kind: ActionKind) => options.ttlMs?.[kind] ?? ACTION_KINDS[kind].ttlMs;

  /**
   * queue ▸ retry ▸ run: waits for a slot, sends, and on failure decides between waiting
   * and trying again, verifying first, or giving up. Shared by actions and reads.
   */
  async function send<R>(params: {
    endpoint: EndpointKey;
    capAction?: string;
    priority: number;
    expiresAt?: number;
    signal: AbortSignal;
    label: string;
    run: (signal: AbortSignal) => Promise<Executed<R>>;
    beforeSend?: () => Promise<void>;
    /** After an ambiguous failure of a write: was it done after all? */
    onAmbiguous?: () => Promise<Verification | { unknown: string }>;
    postsDelivered?: (result: R) => number;
  }): Promise<Outcome<R>> {
    const { endpoint, signal } = params;
    let attempt = 0;
    let notBefore: number | undefined;
    let began = false;
    for (;;) {
      let slot;
      try {
        slot = await queue.acquire({
          budget,
          endpoint,
          ...(params.capAction ? { action: params.capAction } : {}),
          priority: params.priority,
          ...(params.expiresAt !== undefined ? { expiresAt: params.expiresAt } : {}),
          ...(notBefore !== undefined ? { notBefore } : {}),
          signal,
          label: `${bot} ${params.label}`,
        });
      } catch (error) {
        if (error instanceof QueueError) {
          if (error.kind === "refused") return { status: "refused", reason: error.message };
          if (error.kind === "expired") return { status: "dropped", reason: error.message };
          return { status: "deferred", reason: "postbot stopped before the action's turn came; it is sent after the next start" };
        }
        if (signal.aborted) return { status: "deferred", reason: "aborted before its turn came" };
        throw error;
      }
      if (!began) {
        began = true;
        try {
          await params.beforeSend?.();
        } catch (error) {
          return { status: "failed", reason: `not sent: could not record it in the ledger first (${describeError(error)})`, maybeSent: false, error };
        }
      }
      attempt++;
      try {
        const executed = await params.run(signal);
        budget.settle(slot);
        if (executed.headers) budget.observe(endpoint, parseRateLimitHeaders(executed.headers));
        if (params.postsDelivered) budget.countPostsRead(params.postsDelivered(executed.result));
        return { status: "sent", result: executed.result };
      } catch (error) {
        budget.settle(slot);
        const failure = classifyFailure(error, signal);
        const status = (error as { status?: number }).status ?? 0;
        const headers = headersOf(error);
        if (headers) budget.observe(endpoint, parseRateLimitHeaders(headers), status);
        const reason = describeError(error);
        const giveUp = attempt >= retry.maxAttempts;
        switch (failure.kind) {
          case "aborted":
            return { status: "deferred", reason: "postbot stopped while the request was on its way; it is checked after the next start" };
          case "invalid-token":
          case "permanent":
            return { status: "failed", reason, maybeSent: false, error };
          case "rate-limited": {
            if (error instanceof RateLimitError && error.resetAt !== undefined) {
              const window = { remaining: 0, resetAt: error.resetAt, ...(error.limit !== undefined ? { limit: error.limit } : {}) };
              budget.observe(endpoint, { window }, 429);
            }
            if (giveUp) return { status: "failed", reason: `${reason} (gave up after ${attempt} attempts)`, maybeSent: false, error };
            notBefore = Math.max(failure.resetAt ?? 0, clock.now() + backoffMs(attempt, retry));
            log.warn({ endpoint, action: params.label, retry_at: new Date(notBefore).toISOString(), attempt }, `429 from the service; ${params.label} waits and tries again`);
            continue;
          }
          case "usage-capped":
            budget.markCapSpent();
            if (giveUp) return { status: "failed", reason, maybeSent: false, error };
            notBefore = undefined; // the budget now holds capped reads until the enrolment day
            continue;
          case "transient": {
            if (giveUp) return { status: "failed", reason: `${reason} (gave up after ${attempt} attempts)`, maybeSent: failure.maybeSent, error };
            if (failure.maybeSent && params.onAmbiguous) {
              const found = await params.onAmbiguous();
              if ("unknown" in found) return { status: "failed", reason: `${reason}; ${found.unknown}`, maybeSent: true, error };
              if (found.done) return { status: "sent", result: found.result as R };
            }
            notBefore = clock.now() + backoffMs(attempt, retry);
            log.warn({ endpoint, action: params.label, retry_at: new Date(notBefore).toISOString(), attempt }, `${reason}; trying again`);
            continue;
          }
        }
      }
    }
  }

  async function call<R>(endpoint: EndpointKey, run: (signal: AbortSignal) => Promise<Executed<R>>, opts: CallOptions = {}): Promise<R> {
    const counted = CAPPED_ENDPOINTS.includes(endpoint) ? (opts.postsDelivered ?? defaultPostsDelivered) : opts.postsDelivered;
    const outcome = await shared.track(
      send<R>({
        endpoint,
        priority: opts.priority ?? priorityOf(READ_KIND),
        ...(opts.ttlMs !== undefined ? { expiresAt: clock.now() + opts.ttlMs } : {}),
        signal: opts.signal ?? new AbortController().signal,
        label: opts.label ?? endpoint,
        run,
        ...(counted ? { postsDelivered: counted as (r: R) => number } : {}),
      }),
    );
    if (outcome.status === "sent" || outcome.status === "dry-run") return outcome.result;
    if (outcome.status === "duplicate") return outcome.result as R;
    throw new CallError(outcome);
  }

  /** Asks the kind's verifier, through the budget, whether `action` already happened. */
  async function verify(action: Action, signal: AbortSignal): Promise<Verification | { unknown: string }> {
    const verifier = isActionKind(action.kind) ? verifiers[action.kind] : undefined;
    if (!verifier) {
      if (isActionKind(action.kind) && ACTION_KINDS[action.kind].repeatable) return { done: false };
      return { unknown: `no verifier for ${action.kind} can tell whether it was sent, so it is not sent again` };
    }
    try {
      const found = await call(verifier.endpoint, (s) => verifier.check(action, s), {
        priority: action.priority,
        signal,
        label: `verify ${action.kind} ${action.target}`,
      });
      if (found.done) log.info({ action: action.kind, target: action.target, key: action.key }, `${action.kind} ${action.target} had reached the service; not sending it again`);
      return found;
    } catch (error) {
      return { unknown: `could not check whether it was sent (${describeError(error)})` };
    }
  }

  /** The last step: the queue, retry and the executor. */
  const dispatch: Perform = (job) => {
    const { action } = job;
    const repeatable = isActionKind(action.kind) && ACTION_KINDS[action.kind].repeatable;
    return send({
      endpoint: action.endpoint,
      capAction: action.kind,
      priority: action.priority,
      ...(action.expiresAt !== undefined ? { expiresAt: action.expiresAt } : {}),
      signal: job.signal,
      label: `${action.kind} ${action.target}`,
      run: (signal) => executor(action, signal),
      ...(job.beforeSend ? { beforeSend: job.beforeSend } : {}),
      ...(repeatable ? {} : { onAmbiguous: () => verify(action, job.signal) }),
    }).then((outcome) => (shared.dryRun && outcome.status === "sent" ? { status: "dry-run", result: outcome.result } : outcome));
  };

  /** The budget step: refuses at once what the plan or the bot file can never allow. */
  const budgetGate: Transformer = (next) => async (job) => {
    const r = budget.check(job.action.endpoint, job.action.kind);
    if (!r.ok && r.readyAt === Infinity) return { status: "refused", reason: r.reason };
    return next(job);
  };

  /** The ledger step: at most once, and nothing lost. */
  const ledgerStep: Transformer = (next) => async (job) => {
    const { action } = job;
    const key = action.key;
    if (!useLedger || !key) return next(job);
    const running = inFlightKeys.get(key);
    if (running) {
      return running.then((o): Outcome => (o.status === "sent" || o.status === "dry-run" ? { status: "duplicate", key, result: o.result } : o));
    }
    const run = (async (): Promise<Outcome> => {
      const entry = ledger.get(key);
      if (entry && ledger.isFinal(key)) return { status: "duplicate", key, ...(entry.result !== undefined ? { result: entry.result } : {}) };
      let current = action;
      if (entry?.state === "pending") {
        // Left by a run that stopped while sending: the service may have it already.
        current = entry.action ?? action;
        if (current.expiresAt !== undefined && current.expiresAt <= clock.now()) {
          ledger.finish(key, "unknown", { reason: "its time-to-live passed before it could be checked" });
          return { status: "dropped", key, reason: "left unfinished by the last run and past its time-to-live; not sent again" };
        }
        const found = await verify(current, job.signal);
        if ("unknown" in found) {
          if (job.signal.aborted) return { status: "deferred", key, reason: "stopped while checking" };
          ledger.finish(key, "unknown", { reason: found.unknown });
          return { status: "failed", key, reason: found.unknown, maybeSent: true };
        }
        if (found.done) {
          ledger.finish(key, "done", { result: found.result });
          return { status: "duplicate", key, ...(found.result !== undefined ? { result: found.result } : {}) };
        }
      } else if (entry?.state === "queued" && entry.action) {
        current = entry.action; // keep the first request's time-to-live
      }
      ledger.queue(current);
      const outcome = await next({ action: current, signal: job.signal, beforeSend: () => ledger.begin(key) });
      switch (outcome.status) {
        case "sent":
        case "dry-run":
        case "duplicate":
          ledger.finish(key, "done", { result: outcome.result });
          break;
        case "refused":
          ledger.forget(key);
          break;
        case "dropped":
          ledger.finish(key, "dropped", { reason: outcome.reason });
          break;
        case "failed":
          ledger.finish(key, outcome.maybeSent ? "unknown" : "failed", { reason: outcome.reason });
          break;
        case "deferred":
          break; // stays queued or pending for the next start
      }
      return outcome;
    })();
    inFlightKeys.set(key, run);
    try {
      return await run;
    } finally {
      inFlightKeys.delete(key);
    }
  };

  const policy = replyPolicy({
    store: shared.store,
    clock,
    selfId: options.account.userId,
    botIds: shared.botIds,
    ...(options.replyToBots !== undefined ? { replyToBots: options.replyToBots } : {}),
    ...(options.replyCooldownMs !== undefined ? { cooldownMs: options.replyCooldownMs } : {}),
  });

  const extra: Transformer[] = [];
  const chain = (): Perform => [...extra, ledgerStep, policy, budgetGate].reduceRight<Perform>((next, step) => step(next), dispatch);

  /** Logs one line per action: bot (from the child logger), action, target, and how it ended. */
  function report(action: Action, outcome: Outcome): Outcome {
    const fields = { action: action.kind, target: action.target, status: outcome.status, ...(action.key ? { key: action.key } : {}) };
    const what = describeAction(action);
    switch (outcome.status) {
      case "sent":
        log.info(fields, `${what}: sent`);
        break;
      case "dry-run":
        log.info({ ...fields, dry_run: true }, `${what}: dry run, not sent`);
        break;
      case "duplicate":
        log.debug(fields, `${what}: done already, not sent again`);
        break;
      case "refused":
      case "dropped":
      case "deferred":
        log.info({ ...fields, reason: outcome.reason }, `${what}: ${outcome.status}: ${outcome.reason}`);
        break;
      case "failed":
        log.warn({ ...fields, reason: outcome.reason, maybe_sent: outcome.maybeSent }, `${what}: failed: ${outcome.reason}`);
        break;
    }
    return outcome;
  }

  function runAction(action: Action, signal: AbortSignal | undefined): Promise<Outcome> {
    const job: Job = { action, signal: signal ?? new AbortController().signal };
    return shared.track(
      chain()(job).then((outcome) => {
        const keyed = action.key && !("key" in outcome && outcome.key) ? ({ ...outcome, key: action.key } as Outcome) : outcome;
        return report(action, keyed);
      }),
    );
  }

  function build(input: ActionInput, opts: ActionOptions = {}): Action {
    const facts = ACTION_KINDS[input.kind];
    const now = clock.now();
    const origin = Math.min(input.origin ?? now, now);
    const target = opts.key ?? input.target;
    const action: Action = {
      key: `${bot}:${input.kind}:${target}`,
      kind: input.kind,
      bot,
      userId: options.account.userId,
      endpoint: input.endpoint ?? facts.endpoint,
      target: input.target,
      path: input.path ?? {},
      priority: opts.priority ?? priorityOf(input.kind),
      createdAt: now,
      expiresAt: origin + (opts.ttlMs ?? ttlOf(input.kind)),
    };
    if (input.body !== undefined) action.body = input.body;
    if (input.context) action.context = input.context;
    return action;
  }

  const userId = options.account.userId;
  const withOrigin = (post: PostRef | string) => {
    const origin = originOf(post);
    return origin !== undefined ? { origin } : {};
  };

  const layer: ActionLayer = {
    bot,
    budget,
    perform: (input, opts) => runAction(build(input, opts), opts?.signal),
    reply(to, text, opts) {
      const context: NonNullable<Action["context"]> = {};
      if (to.author_id) context.authorId = to.author_id;
      if (to.conversation_id) context.conversationId = to.conversation_id;
      return layer.perform({ kind: "reply", target: to.id, body: { text, reply: { in_reply_to_post_id: to.id } }, context, ...withOrigin(to) }, opts);
    },
    like: (post, opts) => layer.perform({ kind: "like", target: idOf(post), path: { id: userId }, body: { post_id: idOf(post) }, ...withOrigin(post) }, opts),
    repost: (post, opts) =>
      layer.perform({ kind: "repost", target: idOf(post), path: { id: userId }, body: { post_id: idOf(post) }, ...withOrigin(post) }, opts),
    follow: (target, opts) => layer.perform({ kind: "follow", target, path: { id: userId }, body: { target_user_id: target } }, opts),
    dm: (participant, text, opts) =>
      layer.perform({ kind: "dm", target: `${participant}:${shortHash(text)}`, path: { participant_id: participant }, body: { text } }, opts),
    hide(post, opts) {
      const hidden = opts?.hidden ?? true;
      const id = idOf(post);
      return layer.perform({ kind: "hide", target: hidden ? id : `${id}:unhide`, path: { id }, body: { hidden }, ...withOrigin(post) }, opts);
    },
    post: (text, opts) => layer.perform({ kind: "post", target: shortHash(text), body: { ...opts?.body, text } }, opts),
    call,
    remaining: (kind) => (isActionKind(kind) ? budget.remaining(ACTION_KINDS[kind].endpoint, kind) : budget.remaining(kind)),
    status() {
      const actions = Object.fromEntries(
        (Object.keys(ACTION_KINDS) as ActionKind[]).map((kind) => [kind, budget.describe(ACTION_KINDS[kind].endpoint, kind)]),
      ) as Record<ActionKind, EndpointBudget>;
      const monthly = budget.monthlyUsage();
      return { bot, plan: options.account.plan, actions, ...(monthly ? { monthly } : {}) };
    },
    recover() {
      const unfinished = ledger.unfinished(bot).filter(([, e]) => e.action);
      if (unfinished.length > 0) {
        const pending = unfinished.filter(([, e]) => e.state === "pending").length;
        log.info({ queued: unfinished.length - pending, pending }, `resuming ${unfinished.length} unfinished actions (${pending} to check with the service first)`);
      }
      return Promise.all(unfinished.map(([, e]) => runAction(e.action!, undefined)));
    },
    use(transformer) {
      extra.push(transformer);
      return layer;
    },
  };
  return layer;
}
