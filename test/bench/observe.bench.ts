/**
 * `bot start --http` with 1,000 bots: what one Prometheus scrape and one status page fetch
 * cost (the runtime with the sandbox in-process, frozen clock, every bot polled once).
 */
import { z } from "zod";
import { createClock } from "../../src/clock.ts";
import { definePlugin } from "../../src/index.ts";
import { runtimeSource, startObserveServer } from "../../src/observe/index.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createTestBed } from "../../src/testing.ts";
import type { Bench, BenchRow } from "./harness.ts";

const BOTS = 1_000;
const ROUNDS = 5;

const quiet = definePlugin({ name: "quiet", options: z.object({}), setup() {} });

/** Median wall time of `ROUNDS` runs of `fn`, in ms, and what the last one returned. */
async function median<T>(fn: () => Promise<T>): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last!: T;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    last = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, last };
}

const verdict = (ms: number, aim: number) => (ms <= aim ? "met" : "missed");

const bench: Bench = {
  name: "observe: /metrics and the status page with 1,000 bots",
  async run(): Promise<BenchRow[]> {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const sandbox = await createSandbox({ clock });
    const server = await startObserveServer({ host: "127.0.0.1", port: 0, clock });
    const bots = Array.from({ length: BOTS }, (_, i) => ({
      name: `bot-${i}`,
      plan: "pro" as const,
      triggers: { mentions: {} },
      plugins: { quiet: {} },
    }));
    const bed = await createTestBed({ bots, plugins: { quiet }, sandbox, runtime: { observer: server.observer } });
    try {
      server.attach(runtimeSource(bed.runtime, clock));
      const text = (path: string) => async () => (await fetch(`${server.url}${path}`)).text();
      const metrics = await median(text("/metrics"));
      const page = await median(text("/api/status"));
      const search = await median(text("/api/status?q=bot-99"));
      const kb = (s: string) => Math.round(Buffer.byteLength(s) / 1024);
      return [
        {
          bench: `GET /metrics, ${BOTS} bots`,
          "median ms": metrics.ms,
          KB: kb(metrics.last),
          aim: "≤ 500 ms",
          verdict: verdict(metrics.ms, 500),
        },
        {
          bench: "GET /api/status (page of 50)",
          "median ms": page.ms,
          KB: kb(page.last),
          aim: "≤ 50 ms",
          verdict: verdict(page.ms, 50),
        },
        {
          bench: "GET /api/status?q=bot-99",
          "median ms": search.ms,
          KB: kb(search.last),
          aim: "≤ 50 ms",
          verdict: verdict(search.ms, 50),
        },
      ];
    } finally {
      await server.close();
      await bed.close();
      await sandbox.close();
    }
  },
};

export default bench;
