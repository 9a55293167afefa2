/**
 * The action system of a process and the action layer of each bot.
 *
 * One {@link ActionSystem} per process holds what bots share: the budget book (the app
 * windows), the queue, the ledger and the list of bots. Each bot gets its
 * {@link ActionLayer} from it: the verbs (`reply`, `like`...) that build an {@link Action}
 * and run it through the bot's pipeline (see ./pipeline.ts for the steps), budgeted reads
 * for the runtime's triggers, the budget's status, and the recovery of what an earlier run
 * left unfinished. Plugins never see the layer: they get the narrow {@link Actions} facade
 * the context builds from it.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Clock } from "../clock.ts";
import {
  BudgetBook,
  type AccountBudget,
  type ActionCap,
  type EndpointBudget,
  type MonthlyUsage,
} from "../limits/budget.ts";
import { CAPPED_ENDPOINTS } from "../limits/plan-limits.ts";
import type { SharedWindows } from "../limits/shared-windows.ts";
import type { Plan } from "../limits/types.ts";
import { silentLogger, type Logger } from "../log.ts";
import { overlayStore } from "../store/overlay.ts";
import type { Store } from "../store/store.ts";
import {
  actionKey,
  awaitsCheck,
  awaitsText,
  READ_KIND,
  type Action,
  type ActionKind,
  type ActionOutcome,
  type Executed,
  type Executor,
  type Outcome,
  type Verifier,
  type WriteText,
} from "./action.ts";
import { dryRunExecutor } from "./dry-run.ts";
import { ACTION_KINDS, isActionKind, READ_PRIORITY } from "./kinds.ts";
import { Ledger, type LedgerOptions } from "./mechanics/idempotency-ledger.ts";
import { safeObserver, type ActionObserver } from "./observe.ts";
import { botPipelines, type PipelineParts } from "./bot-pipelines.ts";
import { ActionQueue, type WaitingInfo } from "./mechanics/budget-queue.ts";
import { reportOutcome } from "./report.ts";
import { isHidden } from "./steps/hidden.ts";
import { postedRecently } from "./steps/duplicate.ts";
import type { Job, LedgerRider } from "./pipeline.ts";
import {
  verbRequest,
  type ActionOptions,
  type ActionParts,
  type DmRef,
  type LayerActionOptions,
  type PostRef,
  type UserRef,
} from "./verbs.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./mechanics/retry-policy.ts";
import { checkWithService } from "./mechanics/service-check.ts";

/** What the process-wide action system is built on. */
export interface ActionSystemOptions {
  /** The state store (ledger, budget windows, reply cooldowns, hidden posts, posted texts). */
  store: Store;
  clock: Clock;
  logger?: Logger;
  /**
   * `--dry-run`: nothing is sent; actions are logged and counted against a simulated budget
   * and ledger that start from the real state (read: what was sent already is a duplicate, a
   * window spent is spent) and are kept in memory, so a dry run leaves the real state untouched.
   */
  dryRun?: boolean;
  retry?: Partial<RetryPolicy>;
  ledger?: LedgerOptions;
  /** Receives every outcome, wait for budget and answer of the service (metrics plug in here). */
  observe?: ActionObserver;
  /**
   * Budget windows shared with the other processes of the deployment (the state on Redis:
   * `RedisWindows`), so they together never exceed a limit. Absent: counted in this process.
   * Never used by a dry run (its budget is simulated).
   */
  sharedWindows?: SharedWindows;
}

export type { ActionOptions, DmRef, LayerActionOptions, PostRef, UserRef } from "./verbs.ts";
export { DM_GROUP_ENDPOINT } from "./verbs.ts";

/** What one bot's layer needs: its account, its executor, and its bot file's rules. */
export interface BotActionsOptions {
  bot: string;
  account: { appId: string; userId: string; plan: Plan };
  /** Sends an action (the runtime plugs the API client in); it returns the answer's headers too. */
  executor: Executor;
  /**
   * Sends a described read ({@link ActionLayer.fetch}) through the bot's client, as it is,
   * dry run or not (hosting plugs the bare client in, outside the bot's hold: a read changes
   * nothing). Default: the executor.
   */
  reader?: Executor;
  /**
   * The bot's logger, bound to it already (hosting gives the one its runtime and plugins log
   * with). Default: a child of the system's logger naming the bot. (A pino child is a few
   * hundred bytes, and a process runs thousands of bots: one per bot is enough.)
   */
  log?: Logger;
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
  /** The service refused the bot's token (401, code 89): the runtime pauses the bot. */
  onRevoked?: (error: unknown) => void;
  /**
   * When the actions an earlier holder of the bot left `pending` may be checked with the
   * service (a bot taken over from a process that stopped answering: ./holding.ts).
   */
  settledAt?: () => number | undefined;
}

/** A described read's arguments as the reader sends them: path parameters and query. */
interface ReadArgs {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
}

/** Options of a budgeted read ({@link ActionLayer.read}). */
export interface ReadOptions {
  priority?: number;
  /** Give up when no slot was free within this many ms. */
  ttlMs?: number;
  signal?: AbortSignal;
  /** What the read is, for logs (default: the endpoint). */
  label?: string;
  /** Posts the answer delivered, for the monthly cap (default for capped endpoints: `meta.result_count`). */
  postsDelivered?: (result: unknown) => number;
}

/** Why {@link ActionLayer.read} could not return an answer. */
export class ReadError extends Error {
  override name = "ReadError";
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

/** One bot's actions, reads and budget, for the runtime. Performing never throws for refusals, drops or failures. */
export interface ActionLayer {
  readonly bot: string;
  /**
   * The store the bot's ledger is kept in (a dry run's keeps its writes in memory): what rides with
   * an action's record ({@link LayerActionOptions.rider}) must be set here to be written with it.
   */
  readonly store: Store;
  /**
   * Replies to a post (`POST /2/posts` with `reply.in_reply_to_post_id`), keyed by the post:
   * a post is answered once. The text may be a {@link WriteText} instead: written when the
   * reply goes, once per key, and recorded in the ledger before it is sent (a model's reply;
   * see ./steps/text-writer.ts).
   */
  reply(to: PostRef, text: string | WriteText, options?: LayerActionOptions): Promise<ActionOutcome<"reply">>;
  like(post: PostRef | string, options?: LayerActionOptions): Promise<ActionOutcome<"like">>;
  repost(post: PostRef | string, options?: LayerActionOptions): Promise<ActionOutcome<"repost">>;
  follow(user: string | UserRef, options?: LayerActionOptions): Promise<ActionOutcome<"follow">>;
  /**
   * Sends a direct message: to a user, or in answer to a message (`to` a {@link DmRef}). One
   * endpoint, `POST /2/dm_conversations/with/:participant_id/messages`, for every one-to-one
   * message (an answer goes to its sender), and one key scheme, `<bot>:dm:<target>` (see
   * {@link dmTarget}); only the answer in a group conversation, which has no one participant,
   * goes to `POST /2/dm_conversations/:dm_conversation_id/messages`. An answer is sent once
   * per message whatever its text, and reply safety refuses one to the bot itself or to
   * another bot of the process; its time-to-live counts from when it is asked for, not from
   * the message (a bot on basic sees a message up to a day after it came, and the person is
   * still waiting). A message to a user is keyed by the user and the text (the same text to
   * the same user is sent once: a welcome DM); a {@link WriteText} needs a `key`.
   */
  dm(
    to: string | UserRef | DmRef,
    text: string | WriteText,
    options?: LayerActionOptions,
  ): Promise<ActionOutcome<"dm">>;
  /** Hides (or with `hidden: false`, unhides) a reply to one of the bot's posts. */
  hide(post: PostRef | string, options?: LayerActionOptions & { hidden?: boolean }): Promise<ActionOutcome<"hide">>;
  /**
   * Posts. The key defaults to the text (the service refuses duplicate content anyway);
   * a scheduled post that repeats its text gives a key per run (`{ key: "morning:2026-01-02" }`).
   */
  post(text: string, options?: LayerActionOptions & { body?: Record<string, unknown> }): Promise<ActionOutcome<"post">>;
  /**
   * Mutes a user (`POST /2/users/:id/muting`): the bot's account no longer sees their posts
   * in its timelines. Muting twice leaves them muted.
   */
  mute(user: string | UserRef, options?: LayerActionOptions): Promise<ActionOutcome<"mute">>;
  /**
   * Whether the service would refuse this text from the bot as a duplicate now (the bot posted
   * it within the last 24 hours): what the duplicate guard refuses, asked beforehand.
   */
  repeatsText(text: string): boolean;
  /** The bot's budget (for the runtime and tests; plugins see `remaining` and `status`). */
  readonly budget: AccountBudget;
  /**
   * A budgeted read (the mentions poll, a check with the service): waits for a slot of
   * `endpoint`, retries on 429 and network errors, corrects the budget by the answer's
   * headers. Throws {@link ReadError} when it cannot get an answer.
   */
  read<R>(endpoint: EndpointKey, run: (signal: AbortSignal) => Promise<Executed<R>>, options?: ReadOptions): Promise<R>;
  /**
   * A budgeted read the layer sends itself, through the bot's client ({@link BotActionsOptions.reader}):
   * the request described (the endpoint and its arguments), not a function to call back, so
   * a trigger's poll or a plugin's `ctx.read` hands the layer data and gets the answer.
   * Budgeted, retried and corrected as {@link read}; throws {@link ReadError} likewise.
   */
  fetch<K extends EndpointKey>(
    endpoint: K,
    args: RequestArgs<K> | undefined,
    options?: ReadOptions,
  ): Promise<ResponseOf<K>>;
  /** Requests to an endpoint (or actions of a kind) that may be sent right now. */
  remaining(kind: ActionKind | EndpointKey): number;
  status(): BudgetStatus;
  /** Whether the bot has hidden the post (the hidden guard's record: nothing of the bot answers it). */
  hidden(postId: string): boolean;
  /** What of this bot waits for budget now, and until when. */
  waiting(): WaitingInfo[];
  /** How many of this bot's requests wait for budget now ({@link waiting} without the when: cheap). */
  waitingCount(): number;
  /**
   * Resumes what an earlier run left unfinished: queued actions are queued again, pending
   * ones are checked with the service first. Resolves once each has been decided.
   */
  recover(): Promise<Outcome[]>;
}

/** What the process's bots share. */
export interface ActionSystem {
  /** The store the ledger is kept in (a dry run's reads the real state and keeps its writes in memory). */
  readonly store: Store;
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
   * Stops: waiting actions end as `deferred` (the ledger keeps them for the next start), and
   * so do replies whose text still waits for its model's budget or request slot; requests in
   * flight finish. Await {@link idle} after it.
   */
  close(): void;
}

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
  const store = dryRun ? overlayStore(options.store) : options.store;
  const log = options.logger ?? silentLogger;
  const observe = safeObserver(options.observe, log);
  const book = new BudgetBook({
    store,
    clock: options.clock,
    logger: log,
    ...(options.sharedWindows && !dryRun ? { shared: options.sharedWindows } : {}),
  });
  const queue = new ActionQueue({ clock: options.clock, logger: log, observe });
  const ledger = new Ledger(store, options.clock, options.ledger);
  const botIds = new Set<string>();
  const running = new Set<Promise<unknown>>();
  /** Counts a performance as in flight until it ends. */
  const countInFlight = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    void p.finally(() => running.delete(p)).catch(() => undefined);
    return p;
  };
  const shared: Shared = {
    store,
    clock: options.clock,
    book,
    queue,
    ledger,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    dryRun,
    botIds,
    countInFlight,
    observe,
    stopping: new AbortController(),
  };
  return {
    store,
    book,
    queue,
    ledger,
    dryRun,
    botIds,
    bot: (bot) => {
      botIds.add(bot.account.userId);
      return createLayer(bot, shared, bot.log ?? log.child({ bot: bot.bot }));
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    inFlight: () => running.size,
    close: () => {
      shared.stopping.abort();
      queue.close();
    },
  };
}

/** What the process's bots share (each bot's layer has its own logger). */
interface Shared {
  store: Store;
  clock: Clock;
  book: BudgetBook;
  queue: ActionQueue;
  ledger: Ledger;
  retry: RetryPolicy;
  dryRun: boolean;
  botIds: ReadonlySet<string>;
  countInFlight: <T>(p: Promise<T>) => Promise<T>;
  observe: ActionObserver;
  /** Aborted by {@link ActionSystem.close}: text writers still waiting give up (`WriteText`'s `stopping`). */
  stopping: AbortController;
}

/**
 * One bot's layer inside: how its actions and reads are built and run through its pipelines.
 * A class, its methods on its prototype: with 10,000 bots, a closure per helper per bot was
 * memory (each named arrow costs a few hundred bytes once tsx has named it).
 */
class LayerCore {
  readonly bot: string;
  readonly userId: string;
  readonly budget: AccountBudget;
  readonly log: Logger;
  /**
   * The pipelines (a dozen closures and their tables each) are made at a bot's first action
   * or read: most of 10,000 bots act rarely, and making them all at start was garbage to
   * collect before the first one could act.
   */
  private made: ReturnType<typeof botPipelines> | undefined;

  constructor(
    readonly options: BotActionsOptions,
    readonly shared: Shared,
    log: Logger,
  ) {
    this.bot = options.bot;
    this.userId = options.account.userId;
    this.log = log;
    const { reserve, ...caps } = options.budget ?? {};
    this.budget = shared.book.account(
      { ...options.account, bot: options.bot },
      { reserve, caps, enrolmentDay: options.enrolmentDay },
    );
  }

  priorityOf(kind: ActionKind | typeof READ_KIND): number {
    return this.options.priorities?.[kind] ?? (kind === READ_KIND ? READ_PRIORITY : ACTION_KINDS[kind].priority);
  }

  /** The read as a job for the read pipeline: a synthetic action naming the endpoint, with its own request. */
  /**
   * The read as a job for the read pipeline: a synthetic action naming the endpoint, with its
   * arguments (sent by the reader) or its own request (`send`).
   */
  readJob<R>(
    endpoint: EndpointKey,
    request: ReadArgs | ((signal: AbortSignal) => Promise<Executed<R>>),
    opts: ReadOptions,
  ): Job {
    const counted = CAPPED_ENDPOINTS.includes(endpoint)
      ? (opts.postsDelivered ?? defaultPostsDelivered)
      : opts.postsDelivered;
    const now = this.shared.clock.now();
    return {
      action: {
        kind: READ_KIND,
        bot: this.bot,
        userId: this.userId,
        endpoint,
        target: opts.label ?? endpoint,
        path: typeof request === "function" ? {} : (request.params ?? {}),
        ...(typeof request !== "function" && request.query !== undefined ? { query: request.query } : {}),
        priority: opts.priority ?? this.priorityOf(READ_KIND),
        createdAt: now,
        ...(opts.ttlMs !== undefined ? { expiresAt: now + opts.ttlMs } : {}),
      },
      signal: opts.signal ?? new AbortController().signal,
      ...(typeof request === "function" ? { send: request } : {}),
      ...(counted ? { postsDelivered: counted } : {}),
    };
  }

  pipelines(): ReturnType<typeof botPipelines> {
    return (this.made ??= this.makePipelines());
  }

  async read<R>(
    endpoint: EndpointKey,
    request: ReadArgs | ((signal: AbortSignal) => Promise<Executed<R>>),
    opts: ReadOptions = {},
  ): Promise<R> {
    const outcome = await this.shared.countInFlight(this.pipelines().reads(this.readJob(endpoint, request, opts)));
    if (outcome.status === "sent" || outcome.status === "dry-run" || outcome.status === "duplicate")
      return outcome.result as R;
    throw new ReadError(outcome);
  }

  private makePipelines() {
    const { options, shared, log } = this;
    const parts: PipelineParts = {
      bot: this.bot,
      store: shared.store,
      clock: shared.clock,
      log,
      budget: this.budget,
      queue: shared.queue,
      ledger: shared.ledger,
      useLedger: options.ledger ?? true,
      retry: shared.retry,
      executor: shared.dryRun ? dryRunExecutor() : options.executor,
      reader: options.reader ?? options.executor,
      dryRun: shared.dryRun,
      replySafety: {
        selfId: this.userId,
        botIds: shared.botIds,
        ...(options.replyToBots !== undefined ? { replyToBots: options.replyToBots } : {}),
        ...(options.replyCooldownMs !== undefined ? { cooldownMs: options.replyCooldownMs } : {}),
      },
      check: checkWithService(
        options.verifiers ?? {},
        (verifier, action, signal) =>
          this.read(verifier.endpointFor?.(action) ?? verifier.endpoint, (s) => verifier.check(action, s), {
            priority: action.priority,
            signal,
            label: `check ${action.kind} ${action.target}`,
          }),
        log,
      ),
      observe: shared.observe,
      ...(options.onRevoked ? { onRevoked: options.onRevoked } : {}),
      ...(options.settledAt ? { settledAt: options.settledAt } : {}),
    };
    return botPipelines(parts);
  }

  /**
   * Runs an action through the bot's pipeline. Its outcome is typed by its kind `K` here, the
   * one place it is: the executor returns the service's answer to the kind's endpoint
   * ({@link ActionResults}), which the API client's types describe.
   */
  run<K extends ActionKind>(
    action: Action,
    signal: AbortSignal | undefined,
    rider?: LedgerRider,
    write?: WriteText,
  ): Promise<ActionOutcome<K>> {
    const { log, shared } = this;
    // A written text is reported with the outcome, as a given one is.
    let written: string | undefined;
    const job = {
      action,
      signal: signal ?? new AbortController().signal,
      stopping: shared.stopping.signal,
      ...(rider ? { rider } : {}),
      ...(write
        ? {
            write: async (s: AbortSignal, recorded?: Promise<void>, expiresAt?: number, stopping?: AbortSignal) =>
              (written = await write(s, recorded, expiresAt, stopping)),
          }
        : {}),
      ...(write?.check ? { check: write.check } : {}),
    };
    return shared.countInFlight(
      this.pipelines()
        .actions(job)
        .then(({ headers: _answered, ...step }) => {
          const outcome = (action.key && !step.key ? { ...step, key: action.key } : step) as ActionOutcome<K>;
          const shown =
            written === undefined ? action : { ...action, body: { ...(action.body as object), text: written } };
          reportOutcome(log, shared.observe, shown, outcome);
          return outcome;
        }),
    );
  }

  /** A verb of `kind` called with `args`: its action built (./verbs.ts) and run through the pipeline. */
  perform(kind: ActionKind, args: readonly unknown[]): Promise<Outcome> {
    const { target, parts, write, options } = verbRequest(kind, this.userId, args);
    return this.run(this.build(kind, target, parts, options), options?.signal, options?.rider, write);
  }

  status(): BudgetStatus {
    const { budget } = this;
    const actions = Object.fromEntries(
      (Object.keys(ACTION_KINDS) as ActionKind[]).map((kind) => [
        kind,
        budget.describe(ACTION_KINDS[kind].endpoint, kind),
      ]),
    ) as Record<ActionKind, EndpointBudget>;
    const monthly = budget.monthlyUsage();
    return { bot: this.bot, plan: this.options.account.plan, actions, ...(monthly ? { monthly } : {}) };
  }

  /** See {@link ActionLayer.recover}. */
  recover(): Promise<Outcome[]> {
    const { shared, options, log, bot } = this;
    const { clock } = shared;
    // An action still waiting for its text (a model's reply a crash stopped before it was
    // recorded), or for its recorded text's check, is left to its event, which waits in the
    // inbox and writes the text again, or checks the recorded one.
    const unfinished = shared.ledger
      .unfinished(bot)
      .filter(([, e]) => e.action && !awaitsText(e.action) && !awaitsCheck(e.action));
    if (unfinished.length > 0) {
      const pending = unfinished.filter(([, e]) => e.state === "pending").length;
      const wait = pending > 0 ? (options.settledAt?.() ?? 0) - clock.now() : 0;
      log.info(
        { queued: unfinished.length - pending, pending, ...(wait > 0 ? { check_in_ms: wait } : {}) },
        `resuming ${unfinished.length} unfinished actions (${pending} to check with the service first${wait > 0 ? `, in ${Math.ceil(wait / 1000)} s, once no request of the process that ran the bot before can still arrive` : ""})`,
      );
    }
    return Promise.all(unfinished.map(([, e]) => this.run(e.action!, undefined)));
  }

  /**
   * An action of `kind` on `target`, with its key, endpoint, priority and time-to-live.
   * `endpoint` replaces the kind's own (a DM answer in a group conversation).
   */
  build(kind: ActionKind, target: string, parts: ActionParts, opts: ActionOptions = {}): Action {
    const { bot } = this;
    const now = this.shared.clock.now();
    const origin = Math.min(parts.origin ?? now, now);
    const action: Action = {
      key: actionKey(bot, kind, opts.key ?? target),
      kind,
      bot,
      userId: this.userId,
      endpoint: parts.endpoint ?? ACTION_KINDS[kind].endpoint,
      target,
      path: parts.path ?? {},
      priority: opts.priority ?? this.priorityOf(kind),
      createdAt: now,
      expiresAt: origin + (opts.ttlMs ?? this.options.ttlMs?.[kind] ?? ACTION_KINDS[kind].ttlMs),
    };
    if (parts.body !== undefined) action.body = parts.body;
    if (parts.context) action.context = parts.context;
    return action;
  }
}

/**
 * A bot's action layer. Its verbs and methods are getters of the prototype, each answering a
 * function that closes over the bot's {@link LayerCore} when it is asked for: a verb taken
 * off the layer (`const { reply } = layer`) still works, and a bot that does not act makes
 * none. (A literal of twenty functions made for every bot, most of which act rarely, was a
 * kilobyte or two of each running bot's memory.) The verbs are made from the action kinds
 * table (./kinds.ts), one per kind, each building its request as its kind's `verb` says
 * (./verbs.ts).
 */
class BotLayer {
  readonly bot: string;
  readonly budget: AccountBudget;
  readonly store: Store;

  constructor(readonly core: LayerCore) {
    this.bot = core.bot;
    this.budget = core.budget;
    this.store = core.shared.store;
  }

  get read(): ActionLayer["read"] {
    const { core } = this;
    return (endpoint, fetch, opts) => core.read(endpoint, fetch, opts);
  }
  get fetch(): ActionLayer["fetch"] {
    const { core } = this;
    return (endpoint, args, opts) => core.read(endpoint, (args ?? {}) as ReadArgs, opts);
  }
  get remaining(): ActionLayer["remaining"] {
    const { budget } = this;
    return (kind) =>
      isActionKind(kind) ? budget.remaining(ACTION_KINDS[kind].endpoint, kind) : budget.remaining(kind);
  }
  get status(): ActionLayer["status"] {
    const { core } = this;
    return () => core.status();
  }
  get hidden(): ActionLayer["hidden"] {
    const { store, bot } = this;
    return (postId) => isHidden(store, bot, postId);
  }
  get repeatsText(): ActionLayer["repeatsText"] {
    const { store, bot } = this;
    const { clock } = this.core.shared;
    return (text) => postedRecently(store, bot, text, clock.now());
  }
  get waiting(): ActionLayer["waiting"] {
    const { bot } = this;
    const { queue } = this.core.shared;
    return () => queue.list(bot);
  }
  get waitingCount(): ActionLayer["waitingCount"] {
    const { bot } = this;
    const { queue } = this.core.shared;
    return () => queue.count(bot);
  }
  get recover(): ActionLayer["recover"] {
    const { core } = this;
    return () => core.recover();
  }
}

// One verb per kind, a getter of the prototype (see BotLayer).
for (const kind of Object.keys(ACTION_KINDS) as ActionKind[])
  Object.defineProperty(BotLayer.prototype, kind, {
    get(this: BotLayer) {
      const { core } = this;
      return (...args: unknown[]) => core.perform(kind, args);
    },
    configurable: true,
  });

function createLayer(options: BotActionsOptions, shared: Shared, log: Logger): ActionLayer {
  const layer: Omit<ActionLayer, ActionKind> = new BotLayer(new LayerCore(options, shared, log));
  // The verbs are the prototype's (defined above), typed by ActionLayer; each kind's shape in ./verbs.ts reads them so.
  return layer as ActionLayer;
}
