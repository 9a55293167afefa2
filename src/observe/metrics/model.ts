/**
 * The figures of the bots' language models (llm-reply): counters of tokens, request times and
 * refused texts, counted as the model observer reports them, and gauges of replies waiting for
 * budget or for a server's request slot, read from each bot's status at scrape time.
 */
import { Counter, Gauge, Histogram } from "prom-client";
import type { ModelObserver } from "../../llm/writer.ts";
import type { CurrentReading, Registers } from "./reading.ts";

/** Registers the model's counters and returns the observer that counts into them. */
export function modelCounters(registers: Registers): ModelObserver {
  const llmTokens = new Counter({
    name: "postbot_llm_tokens_total",
    help: "Tokens a bot's language model used (llm-reply), from each answer's usage, by bot and kind (prompt, completion).",
    labelNames: ["bot", "kind"] as const,
    registers,
  });
  const llmSeconds = new Histogram({
    name: "postbot_llm_request_seconds",
    help: "Time each request to a bot's language model took, on the runtime's clock, by bot and outcome (ok, or why it failed: timeout, rate-limited, server-error...).",
    labelNames: ["bot", "outcome"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const llmRefused = new Counter({
    name: "postbot_llm_refused_total",
    help: "Texts a bot's language model wrote that were not posted, by bot and what refused them (classifier, judge, empty).",
    labelNames: ["bot", "by"] as const,
    registers,
  });
  return {
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
  };
}

/** A bot's use of its model servers' request slots (`llm-reply`'s `parallel`), read from its status. */
function modelSlotGauge(
  registers: Registers,
  reading: CurrentReading,
  name: string,
  help: string,
  key: "inFlight" | "waiting",
) {
  return new Gauge({
    name,
    help,
    labelNames: ["bot", "server"] as const,
    registers,
    collect() {
      this.reset();
      for (const b of reading()?.bots ?? [])
        for (const m of b.models ?? []) this.set({ bot: b.bot, server: m.server }, m[key]);
    },
  });
}

/** Registers the gauges of replies waiting for a bot's `budget.llm` and for its servers' slots. */
export function modelGauges(registers: Registers, reading: CurrentReading): void {
  new Gauge({
    name: "postbot_llm_budget_waiting",
    help: "Replies of a bot waiting for its file's budget.llm (tokens or requests per window, or a 429's pause), as bot status shows them; bots with none are left out.",
    labelNames: ["bot"] as const,
    registers,
    collect() {
      this.reset();
      for (const [bot, n] of reading()?.llmWaiting ?? []) this.set({ bot }, n);
    },
  });
  modelSlotGauge(
    registers,
    reading,
    "postbot_llm_requests_in_flight",
    "Requests a bot has in flight to a model server (llm-reply), each held until its answer is recorded, by bot and server; at most the server's parallel over the process's bots. Bots with none are left out.",
    "inFlight",
  );
  modelSlotGauge(
    registers,
    reading,
    "postbot_llm_slot_waiting",
    "Replies of a bot waiting for a request slot of its model server (llm-reply's parallel), by bot and server. Bots with none are left out.",
    "waiting",
  );
}
