// Preloaded into each `bot start` of the 100,000 bench (node --import), and loaded by the bench
// itself (the sandbox's process): where the main thread stopped, for the flood row's timeline
// (./scale100k-tail.ts). Each garbage collection (when it began, epoch ms; how long; major or
// not) and each stall of the event loop (a 10 ms timer that fired more than 10 ms late:
// something held the thread, with the process's CPU time over it: a stall that used little
// CPU waited for a core, one that used it all ran) is appended, once a second, as a JSON line to
// `$BENCH_PROBE_DIR/<pid>.jsonl`. Nothing is written without BENCH_PROBE_DIR. While the file
// `$BENCH_PROBE_DIR/paused` is there (the idle row: a 10 ms timer is a hundred wakeups a second,
// ~1.5 % of a core a process), the stall timer stops, within a second.
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";

const dir = process.env.BENCH_PROBE_DIR;
if (dir) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.jsonl`);
  // The monotonic clock (µs, as a --cpu-prof profile's timestamps) against the epoch, to line a profile up.
  let lines = [
    JSON.stringify({ hr: Number(process.hrtime.bigint() / 1000n), at: performance.timeOrigin + performance.now() }),
  ];
  const MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR | constants.NODE_PERFORMANCE_GC_INCREMENTAL;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = e.detail?.kind ?? 0;
      const at = Math.round(performance.timeOrigin + e.startTime);
      // flags: V8's callback flags (the memory reducer's collections carry ALL_EXTERNAL_MEMORY, 32).
      const flags = e.detail?.flags ?? 0;
      lines.push(JSON.stringify({ gc: Math.round(e.duration * 10) / 10, at, major: (kind & MAJOR) !== 0, flags }));
    }
  }).observe({ entryTypes: ["gc"] });
  const TICK_MS = 10;
  let last = performance.now();
  let cpu = process.cpuUsage();
  const tick = () => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    const used = process.cpuUsage(cpu);
    if (late > 10) {
      const at = Math.round(performance.timeOrigin + last + TICK_MS);
      lines.push(JSON.stringify({ stall: Math.round(late), at, cpu: Math.round((used.user + used.system) / 1000) }));
    }
    cpu = process.cpuUsage();
    last = now;
  };
  let ticking;
  const pauseOrGo = () => {
    const paused = existsSync(join(dir, "paused"));
    if (paused && ticking) {
      clearInterval(ticking);
      ticking = undefined;
    } else if (!paused && !ticking) {
      last = performance.now();
      cpu = process.cpuUsage();
      ticking = setInterval(tick, TICK_MS).unref();
    }
  };
  pauseOrGo();
  const flush = () => {
    pauseOrGo();
    // The process's CPU so far (ms), once a second: where a start's CPU went, by the clock.
    const used = process.cpuUsage();
    lines.push(JSON.stringify({ cpuMs: Math.round((used.user + used.system) / 1000), at: Date.now() }));
    if (lines.length === 0) return;
    const out = `${lines.join("\n")}\n`;
    lines = [];
    try {
      appendFileSync(file, out);
    } catch {
      // The bench removed its directory: it is closing.
    }
  };
  setInterval(flush, 1_000).unref();
  process.once("exit", flush);
}
