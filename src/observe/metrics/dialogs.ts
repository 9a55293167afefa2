/**
 * The figures of dialogs (how many are open now, and how many started, stepped and timed out
 * since the process started), read from each bot's status at scrape time; bots whose plugins
 * define no dialogs are left out.
 */
import { Counter, Gauge } from "prom-client";
import type { CurrentReading, Registers } from "./reading.ts";

/** Registers the gauge of dialogs a bot holds open. */
export function dialogsOpenGauge(registers: Registers, reading: CurrentReading): void {
  new Gauge({
    name: "postbot_dialogs_open",
    help: "Dialogs a bot holds open now (waiting for a user's next message, in a thread or by DM); only bots whose plugins define dialogs.",
    labelNames: ["bot"] as const,
    registers,
    collect() {
      this.reset();
      for (const b of reading()?.bots ?? [])
        if (b.dialogs) this.set({ bot: b.bot }, b.dialogs.open.thread + b.dialogs.open.dm);
    },
  });
}

/** A bot's dialog count since the process started, as a counter read at scrape time. */
function dialogCounter(
  registers: Registers,
  reading: CurrentReading,
  name: string,
  help: string,
  key: "started" | "steps" | "timeouts",
) {
  return new Counter({
    name,
    help,
    labelNames: ["bot"] as const,
    registers,
    collect() {
      this.reset();
      for (const b of reading()?.bots ?? []) if (b.dialogs) this.inc({ bot: b.bot }, b.dialogs[key]);
    },
  });
}

/** Registers the counters of dialogs started, steps taken and waits timed out. */
export function dialogCounters(registers: Registers, reading: CurrentReading): void {
  dialogCounter(registers, reading, "postbot_dialogs_started_total", "Dialogs a bot opened, by bot.", "started");
  dialogCounter(
    registers,
    reading,
    "postbot_dialog_steps_total",
    "Steps of dialogs taken: answers of users handled by the dialog waiting for them, by bot.",
    "steps",
  );
  dialogCounter(
    registers,
    reading,
    "postbot_dialog_timeouts_total",
    "Waits of dialogs whose time ran out before the user answered, by bot.",
    "timeouts",
  );
}
