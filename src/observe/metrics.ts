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
import { collectDefaultMetrics, Registry } from "prom-client";
import type { RuntimeObserver } from "../hosting/observer.ts";
import { budgetGauges } from "./metrics/budget.ts";
import { dialogCounters, dialogsOpenGauge } from "./metrics/dialogs.ts";
import { modelCounters, modelGauges } from "./metrics/model.ts";
import { moderationCounters } from "./metrics/moderation.ts";
import { read, type Reading } from "./metrics/reading.ts";
import { runtimeCounters } from "./metrics/runtime-counters.ts";
import { stateGauges } from "./metrics/state.ts";
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

/**
 * Creates the registry and its metrics, family by family (src/observe/metrics/), in the order
 * `/metrics` lists them; see the module comment.
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  const registers = [registry];
  /** Set for the length of a scrape; the gauges read it. */
  let reading: Reading | undefined;
  const current = () => reading;

  const counting = runtimeCounters(registers);
  moderationCounters(registers);
  const model = modelCounters(registers);
  stateGauges(registers, current);
  dialogsOpenGauge(registers, current);
  modelGauges(registers, current);
  dialogCounters(registers, current);
  budgetGauges(registers, current);
  // Node's process metrics after postbot's own, so `curl /metrics | head` shows what postbot does.
  collectDefaultMetrics({ register: registry });

  return {
    registry,
    observer: { ...counting, model },
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
