/**
 * `/metrics`: postbot's figures in the Prometheus text format, with prom-client (the
 * de facto Node client: its exposition format, escaping and default process metrics are what
 * scrapers expect, and nothing of it is worth writing again).
 *
 * Two kinds of figures. Counters of what happens (actions by outcome, events handled, error
 * answers of the service, stream reconnects, waits for budget, each request's time in the
 * queue) are counted as the runtime reports them through the {@link RuntimeObserver}. States
 * (budget left per window, queue depth, poll lag, paused bots, stream connected) are read
 * from status snapshots at scrape time (streams from `runtime.apps()`, as `bot status` shows
 * them; a bot's requests to its model servers from its status), so they are never stale and
 * cost nothing between scrapes.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { BudgetStatus } from "../actions/index.ts";
import { formatDuration } from "../config/index.ts";
import type { WindowState } from "../limits/budget.ts";
import { moderationTallies, type Tally } from "../moderation/index.ts";
import type { AppStatus, BotStatus } from "../runtime/types.ts";
import type { RuntimeObserver } from "../hosting/observer.ts";
import type { StatusSource } from "./source.ts";

export interface Metrics {
  readonly registry: Registry;
  /** Counts what the runtime reports; pass it (fanned out) as the runtime's observer. */
  readonly observer: RuntimeObserver;
  /** The exposition text of every metric, and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  /** The running runtime's status, or undefined while it starts (states are then left out). */
  source: () => StatusSource | undefined;
}

/** The windows a budget is counted in, as a label: `15m`, `24h`, `1s`. */
const windowLabel = (ms: number) => formatDuration(ms);

/** Seconds between `then` and `now` (ms). */
const seconds = (ms: number) => Math.max(0, ms) / 1000;

/** One reading of the runtime's state, shared by every gauge of a scrape so they agree. */
interface Reading {
  now: number;
  bots: BotStatus[];
  budgets: Map<string, BudgetStatus>;
  /** Replies waiting for their bot's `budget.llm`, by bot (bots with none left out). */
  llmWaiting: Map<string, number>;
  queueDepth: number;
  apps: AppStatus[];
}

function read(source: StatusSource): Reading {
  const bots = source.bots();
  const budgets = new Map<string, BudgetStatus>();
  const llmWaiting = new Map<string, number>();
  for (const b of bots) {
    const budget = source.budget(b.bot);
    if (budget) budgets.set(b.bot, budget);
    const waiting = source.llm?.(b.bot)?.waiting ?? 0;
    if (waiting > 0) llmWaiting.set(b.bot, waiting);
  }
  return { now: source.now(), bots, budgets, llmWaiting, queueDepth: source.queueDepth(), apps: source.apps() };
}

/** Creates the registry and its metrics; see the module comment. */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  const reg = [registry];

  const actions = new Counter({
    name: "postbot_actions_total",
    help: "Actions performed, by bot, kind (reply, like, ...) and outcome (sent, duplicate, refused, dropped, failed, deferred, dry-run).",
    labelNames: ["bot", "kind", "outcome"] as const,
    registers: reg,
  });
  const waited = new Histogram({
    name: "postbot_action_wait_seconds",
    help: "Time from a plugin asking for an action to its outcome, on the runtime's clock: the wait in the budget queue plus the request.",
    labelNames: ["kind"] as const,
    buckets: [0.1, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 86_400],
    registers: reg,
  });
  const events = new Counter({
    name: "postbot_events_handled_total",
    help: "Events handled by a bot's plugins, by bot and kind (mention, reply, post, schedule, follow).",
    labelNames: ["bot", "kind"] as const,
    registers: reg,
  });
  const serviceErrors = new Counter({
    name: "postbot_service_errors_total",
    help: "Error answers of the service (status 400 and up; 429 is rate limited), by app, bot (empty for app-only calls), endpoint and status.",
    labelNames: ["app", "bot", "endpoint", "status"] as const,
    registers: reg,
  });
  const reconnects = new Counter({
    name: "postbot_stream_reconnects_total",
    help: "Reconnects of an app's filtered stream, by app and cause.",
    labelNames: ["app", "cause"] as const,
    registers: reg,
  });

  const fleetChanges = new Counter({
    name: "postbot_fleet_changes_total",
    help: "Changes of the fleet while the process runs (bots added, replaced, removed, paused, resumed), by change.",
    labelNames: ["change"] as const,
    registers: reg,
  });
  const budgetWaits = new Counter({
    name: "postbot_budget_waits_total",
    help: "Times work of a bot (an action, a budgeted read) started waiting for budget, by bot and endpoint: counted once per wait, when it begins.",
    labelNames: ["bot", "endpoint"] as const,
    registers: reg,
  });
  const queued = new Histogram({
    name: "postbot_queue_wait_seconds",
    help: "Time each request waited in the budget queue before it was sent, on the runtime's clock, by endpoint.",
    labelNames: ["endpoint"] as const,
    buckets: [0.01, 0.1, 1, 5, 15, 60, 300, 900, 3600, 86_400],
    registers: reg,
  });

  // Moderation's counts (src/moderation/tallies.ts: the plugin and the judges count as they
  // go, this side reads them when scraped).
  const tallied = <L extends string>(name: string, help: string, tally: Tally<L>) =>
    new Counter({
      name,
      help,
      labelNames: tally.labelNames,
      registers: reg,
      collect() {
        this.reset();
        for (const { labels, n } of tally.entries()) this.inc(labels as never, n);
      },
    });
  tallied(
    "postbot_moderation_verdicts_total",
    "Replies moderated, by bot, verdict (hidden; not-hidden: abusive where the bot cannot hide it; would-hide, with hide: never; kept) and source (built-in, judge, review: what decided).",
    moderationTallies.verdicts,
  );
  tallied(
    "postbot_moderation_reviews_total",
    "Decisions a person made in a review (bot review, /review), by bot and decision (hide, unhide, keep).",
    moderationTallies.reviews,
  );
  tallied(
    "postbot_moderation_judge_failures_total",
    "Replies a moderation judge gave no opinion on (the built-in classifier's verdict stood), by judge and reason (timeout, rate-limited, server-error, refused, unreachable, busy, bad-answer).",
    moderationTallies.judgeFailures,
  );

  const llmTokens = new Counter({
    name: "postbot_llm_tokens_total",
    help: "Tokens a bot's language model used (llm-reply), from each answer's usage, by bot and kind (prompt, completion).",
    labelNames: ["bot", "kind"] as const,
    registers: reg,
  });
  const llmSeconds = new Histogram({
    name: "postbot_llm_request_seconds",
    help: "Time each request to a bot's language model took, on the runtime's clock, by bot and outcome (ok, or why it failed: timeout, rate-limited, server-error...).",
    labelNames: ["bot", "outcome"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: reg,
  });
  const llmRefused = new Counter({
    name: "postbot_llm_refused_total",
    help: "Texts a bot's language model wrote that were not posted, by bot and what refused them (classifier, judge, empty).",
    labelNames: ["bot", "by"] as const,
    registers: reg,
  });

  /** Set for the length of a scrape; the gauges read it. */
  let reading: Reading | undefined;

  new Gauge({
    name: "postbot_stream_connected",
    help: "1 while the app's filtered stream is connected, 0 while it starts, reconnects or is stopped (apps whose bots have no stream are left out).",
    labelNames: ["app"] as const,
    registers: reg,
    collect() {
      this.reset();
      for (const a of reading?.apps ?? [])
        if (a.stream) this.set({ app: a.appId }, a.stream.state === "connected" ? 1 : 0);
    },
  });
  new Gauge({
    name: "postbot_bots",
    help: "Bots of this process by state (running, paused).",
    labelNames: ["state"] as const,
    registers: reg,
    collect() {
      this.reset();
      const bots = reading?.bots;
      if (!bots) return;
      const paused = bots.filter((b) => b.paused).length;
      this.set({ state: "running" }, bots.length - paused);
      this.set({ state: "paused" }, paused);
    },
  });
  new Gauge({
    name: "postbot_bot_paused",
    help: "1 when the bot is paused (its account was refused; see the status page or bot status for why).",
    labelNames: ["bot"] as const,
    registers: reg,
    collect() {
      this.reset();
      for (const b of reading?.bots ?? []) this.set({ bot: b.bot }, b.paused ? 1 : 0);
    },
  });
  new Gauge({
    name: "postbot_inbox_events",
    help: "Events a bot fetched and has not finished handling.",
    labelNames: ["bot"] as const,
    registers: reg,
    collect() {
      this.reset();
      for (const b of reading?.bots ?? []) this.set({ bot: b.bot }, b.inbox);
    },
  });
  new Gauge({
    name: "postbot_queue_depth",
    help: "Actions and budgeted reads waiting for budget, process-wide.",
    registers: reg,
    collect() {
      this.set(reading?.queueDepth ?? 0);
    },
  });
  new Gauge({
    name: "postbot_poll_lag_seconds",
    help: "Seconds since a polling trigger (mentions, followers, dms) last asked the service; grows past its interval when polls are late or stuck.",
    labelNames: ["bot", "trigger"] as const,
    registers: reg,
    collect() {
      this.reset();
      if (!reading) return;
      for (const b of reading.bots) {
        if (b.paused) continue;
        for (const trigger of ["mentions", "followers", "dms"] as const) {
          const at = b.triggers[trigger]?.lastCheckAt;
          if (at !== undefined) this.set({ bot: b.bot, trigger }, seconds(reading.now - at));
        }
      }
    },
  });
  new Gauge({
    name: "postbot_dialogs_open",
    help: "Dialogs a bot holds open now (waiting for a user's next message, in a thread or by DM); only bots whose plugins define dialogs.",
    labelNames: ["bot"] as const,
    registers: reg,
    collect() {
      this.reset();
      for (const b of reading?.bots ?? [])
        if (b.dialogs) this.set({ bot: b.bot }, b.dialogs.open.thread + b.dialogs.open.dm);
    },
  });
  new Gauge({
    name: "postbot_llm_budget_waiting",
    help: "Replies of a bot waiting for its file's budget.llm (tokens or requests per window, or a 429's pause), as bot status shows them; bots with none are left out.",
    labelNames: ["bot"] as const,
    registers: reg,
    collect() {
      this.reset();
      for (const [bot, n] of reading?.llmWaiting ?? []) this.set({ bot }, n);
    },
  });
  /** A bot's use of its model servers' request slots (`llm-reply`'s `parallel`), read from its status. */
  const modelSlotGauge = (name: string, help: string, key: "inFlight" | "waiting") =>
    new Gauge({
      name,
      help,
      labelNames: ["bot", "server"] as const,
      registers: reg,
      collect() {
        this.reset();
        for (const b of reading?.bots ?? [])
          for (const m of b.models ?? []) this.set({ bot: b.bot, server: m.server }, m[key]);
      },
    });
  modelSlotGauge(
    "postbot_llm_requests_in_flight",
    "Requests a bot has in flight to a model server (llm-reply), each held until its answer is recorded, by bot and server; at most the server's parallel over the process's bots. Bots with none are left out.",
    "inFlight",
  );
  modelSlotGauge(
    "postbot_llm_slot_waiting",
    "Replies of a bot waiting for a request slot of its model server (llm-reply's parallel), by bot and server. Bots with none are left out.",
    "waiting",
  );
  /** A bot's dialog counts since the process started, as counters read at scrape time. */
  const dialogCounter = (name: string, help: string, key: "started" | "steps" | "timeouts") =>
    new Counter({
      name,
      help,
      labelNames: ["bot"] as const,
      registers: reg,
      collect() {
        this.reset();
        for (const b of reading?.bots ?? []) if (b.dialogs) this.inc({ bot: b.bot }, b.dialogs[key]);
      },
    });
  dialogCounter("postbot_dialogs_started_total", "Dialogs a bot opened, by bot.", "started");
  dialogCounter(
    "postbot_dialog_steps_total",
    "Steps of dialogs taken: answers of users handled by the dialog waiting for them, by bot.",
    "steps",
  );
  dialogCounter(
    "postbot_dialog_timeouts_total",
    "Waits of dialogs whose time ran out before the user answered, by bot.",
    "timeouts",
  );
  /**
   * Each window once, by its key: a user window of `POST /2/posts` counts replies and posts
   * alike, an app window is shared by every bot of the app, a cap belongs to one action of one
   * bot. Labelled so: `bot` is empty on app windows, `action` is set on caps only.
   */
  const budgetGauge = (name: string, help: string, value: (w: WindowState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["app", "bot", "endpoint", "action", "scope", "window"] as const,
      registers: reg,
      collect() {
        this.reset();
        const seen = new Set<string>();
        for (const b of reading?.bots ?? []) {
          const budget = reading?.budgets.get(b.bot);
          for (const [kind, e] of Object.entries(budget?.actions ?? {})) {
            for (const w of e.windows) {
              if (seen.has(w.key)) continue;
              seen.add(w.key);
              const labels = {
                app: b.appId,
                bot: w.scope === "app" ? "" : b.bot,
                endpoint: e.endpoint,
                action: w.scope === "cap" ? kind : "",
                scope: w.scope,
                window: windowLabel(w.windowMs),
              };
              this.set(labels, value(w));
            }
          }
        }
      },
    });
  budgetGauge(
    "postbot_budget_remaining",
    "Requests left now in each window of the plan (scope user: the bot's account; app: shared by the app's bots) and each cap of a bot file (scope cap, with its action).",
    (w) => Math.max(0, w.usable - w.used),
  );
  budgetGauge(
    "postbot_budget_limit",
    "What a window lets postbot use: the plan's maximum (or the bot file's cap) less the bot file's reserve.",
    (w) => w.usable,
  );
  // Node's process metrics after postbot's own, so `curl /metrics | head` shows what postbot does.
  collectDefaultMetrics({ register: registry });

  const observer: RuntimeObserver = {
    action(seen) {
      actions.inc({ bot: seen.bot, kind: seen.kind, outcome: seen.status });
      waited.observe({ kind: seen.kind }, seconds(seen.tookMs));
    },
    event(seen) {
      events.inc({ bot: seen.bot, kind: seen.kind });
    },
    serviceError(seen) {
      serviceErrors.inc({ app: seen.app, bot: seen.bot ?? "", endpoint: seen.endpoint, status: String(seen.status) });
    },
    stream(seen) {
      if (seen.type === "reconnecting") reconnects.inc({ app: seen.app, cause: seen.cause ?? "unknown" });
    },
    waiting(seen) {
      budgetWaits.inc({ bot: seen.bot, endpoint: seen.endpoint });
    },
    response(seen) {
      queued.observe({ endpoint: seen.endpoint }, seconds(seen.waitedMs));
    },
    paused() {
      // A state: postbot_bot_paused reads it at scrape time.
    },
    model: {
      request(seen) {
        llmSeconds.observe({ bot: seen.bot, outcome: seen.outcome }, seen.seconds);
      },
      tokens(seen) {
        llmTokens.inc({ bot: seen.bot, kind: "prompt" }, seen.prompt);
        llmTokens.inc({ bot: seen.bot, kind: "completion" }, seen.completion);
      },
      refused(seen) {
        llmRefused.inc({ bot: seen.bot, by: seen.by });
      },
    },
    fleet(seen) {
      fleetChanges.inc({ change: seen.change });
    },
  };

  return {
    registry,
    observer,
    async scrape() {
      const source = options.source();
      const mine = source ? read(source) : undefined;
      reading = mine;
      try {
        return { contentType: registry.contentType, body: await registry.metrics() };
      } finally {
        if (reading === mine) reading = undefined;
      }
    },
  };
}
