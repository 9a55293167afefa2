/**
 * The gauges of the budget: requests left and usable in each window of the plan and each cap
 * of a bot file, read from the bots' budget status at scrape time.
 */
import { Gauge } from "prom-client";
import { formatDuration } from "../../config/index.ts";
import type { WindowState } from "../../limits/budget.ts";
import type { CurrentReading, Registers } from "./reading.ts";

/**
 * Each window once, by its key: a user window of `POST /2/posts` counts replies and posts
 * alike, an app window is shared by every bot of the app, a cap belongs to one action of one
 * bot. Labelled so: `bot` is empty on app windows, `action` is set on caps only.
 */
function budgetGauge(
  registers: Registers,
  reading: CurrentReading,
  name: string,
  help: string,
  value: (w: WindowState) => number,
) {
  return new Gauge({
    name,
    help,
    labelNames: ["app", "bot", "endpoint", "action", "scope", "window"] as const,
    registers,
    collect() {
      this.reset();
      const now = reading();
      const seen = new Set<string>();
      for (const b of now?.bots ?? []) {
        const budget = now?.budgets.get(b.bot);
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
              window: formatDuration(w.windowMs),
            };
            this.set(labels, value(w));
          }
        }
      }
    },
  });
}

/** Registers the gauges of what is left of each window and what each lets postbot use. */
export function budgetGauges(registers: Registers, reading: CurrentReading): void {
  budgetGauge(
    registers,
    reading,
    "postbot_budget_remaining",
    "Requests left now in each window of the plan (scope user: the bot's account; app: shared by the app's bots) and each cap of a bot file (scope cap, with its action).",
    (w) => Math.max(0, w.usable - w.used),
  );
  budgetGauge(
    registers,
    reading,
    "postbot_budget_limit",
    "What a window lets postbot use: the plan's maximum (or the bot file's cap) less the bot file's reserve.",
    (w) => w.usable,
  );
}
