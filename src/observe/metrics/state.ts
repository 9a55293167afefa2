/**
 * The gauges of the fleet's state now (streams connected, bots running or paused, work
 * waiting, how late polls are), read from the scrape's status reading rather than counted, so
 * they are never stale and cost nothing between scrapes.
 */
import { Gauge } from "prom-client";
import { type CurrentReading, type Registers, seconds } from "./reading.ts";

/** Whether each app's filtered stream is connected (apps whose bots have no stream left out). */
function streamGauge(registers: Registers, reading: CurrentReading): void {
  new Gauge({
    name: "postbot_stream_connected",
    help: "1 while the app's filtered stream is connected, 0 while it starts, reconnects or is stopped (apps whose bots have no stream are left out).",
    labelNames: ["app"] as const,
    registers,
    collect() {
      this.reset();
      for (const a of reading()?.apps ?? [])
        if (a.stream) this.set({ app: a.appId }, a.stream.state === "connected" ? 1 : 0);
    },
  });
}

/** How many bots run and which are paused. */
function botGauges(registers: Registers, reading: CurrentReading): void {
  new Gauge({
    name: "postbot_bots",
    help: "Bots of this process by state (running, paused).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      this.reset();
      const bots = reading()?.bots;
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
    registers,
    collect() {
      this.reset();
      for (const b of reading()?.bots ?? []) this.set({ bot: b.bot }, b.paused ? 1 : 0);
    },
  });
}

/** Work not done yet: events in a bot's inbox, requests waiting for budget, time since a poll. */
function backlogGauges(registers: Registers, reading: CurrentReading): void {
  new Gauge({
    name: "postbot_inbox_events",
    help: "Events a bot fetched and has not finished handling.",
    labelNames: ["bot"] as const,
    registers,
    collect() {
      this.reset();
      for (const b of reading()?.bots ?? []) this.set({ bot: b.bot }, b.inbox);
    },
  });
  new Gauge({
    name: "postbot_queue_depth",
    help: "Actions and budgeted reads waiting for budget, process-wide.",
    registers,
    collect() {
      this.set(reading()?.queueDepth ?? 0);
    },
  });
  new Gauge({
    name: "postbot_poll_lag_seconds",
    help: "Seconds since a polling trigger (mentions, followers, dms) last asked the service; grows past its interval when polls are late or stuck.",
    labelNames: ["bot", "trigger"] as const,
    registers,
    collect() {
      this.reset();
      const now = reading();
      if (!now) return;
      for (const b of now.bots) {
        if (b.paused) continue;
        for (const trigger of ["mentions", "followers", "dms"] as const) {
          const at = b.triggers[trigger]?.lastCheckAt;
          if (at !== undefined) this.set({ bot: b.bot, trigger }, seconds(now.now - at));
        }
      }
    },
  });
}

/** Registers the gauges of the fleet's state: streams, bots, and work waiting. */
export function stateGauges(registers: Registers, reading: CurrentReading): void {
  streamGauge(registers, reading);
  botGauges(registers, reading);
  backlogGauges(registers, reading);
}
