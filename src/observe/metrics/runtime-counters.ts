/**
 * The counters of what the runtime does (actions, events, the service's error answers, stream
 * reconnects, fleet changes, waits for budget, time in the queue): counted as the runtime
 * reports them, so they live between scrapes, unlike the gauges read from status.
 */
import { Counter, Histogram } from "prom-client";
import type { RuntimeObserver } from "../../hosting/observer.ts";
import { type Registers, seconds } from "./reading.ts";

/** The part of the runtime's observer these counters answer (all of it but the model's). */
export type RuntimeCounting = Omit<RuntimeObserver, "model">;

/** Registers the runtime's counters and returns the observer that counts into them. */
export function runtimeCounters(registers: Registers): RuntimeCounting {
  const actions = new Counter({
    name: "postbot_actions_total",
    help: "Actions performed, by bot, kind (reply, like, ...) and outcome (sent, duplicate, refused, dropped, failed, deferred, dry-run).",
    labelNames: ["bot", "kind", "outcome"] as const,
    registers,
  });
  const waited = new Histogram({
    name: "postbot_action_wait_seconds",
    help: "Time from a plugin asking for an action to its outcome, on the runtime's clock: the wait in the budget queue plus the request.",
    labelNames: ["kind"] as const,
    buckets: [0.1, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 86_400],
    registers,
  });
  const events = new Counter({
    name: "postbot_events_handled_total",
    help: "Events handled by a bot's plugins, by bot and kind (mention, reply, post, schedule, follow).",
    labelNames: ["bot", "kind"] as const,
    registers,
  });
  const serviceErrors = new Counter({
    name: "postbot_service_errors_total",
    help: "Error answers of the service (status 400 and up; 429 is rate limited), by app, bot (empty for app-only calls), endpoint and status.",
    labelNames: ["app", "bot", "endpoint", "status"] as const,
    registers,
  });
  const reconnects = new Counter({
    name: "postbot_stream_reconnects_total",
    help: "Reconnects of an app's filtered stream, by app and cause.",
    labelNames: ["app", "cause"] as const,
    registers,
  });
  const fleetChanges = new Counter({
    name: "postbot_fleet_changes_total",
    help: "Changes of the fleet while the process runs (bots added, replaced, removed, paused, resumed), by change.",
    labelNames: ["change"] as const,
    registers,
  });
  const budgetWaits = new Counter({
    name: "postbot_budget_waits_total",
    help: "Times work of a bot (an action, a budgeted read) started waiting for budget, by bot and endpoint: counted once per wait, when it begins.",
    labelNames: ["bot", "endpoint"] as const,
    registers,
  });
  const queued = new Histogram({
    name: "postbot_queue_wait_seconds",
    help: "Time each request waited in the budget queue before it was sent, on the runtime's clock, by endpoint.",
    labelNames: ["endpoint"] as const,
    buckets: [0.01, 0.1, 1, 5, 15, 60, 300, 900, 3600, 86_400],
    registers,
  });
  return {
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
    fleet(seen) {
      fleetChanges.inc({ change: seen.change });
    },
  };
}
