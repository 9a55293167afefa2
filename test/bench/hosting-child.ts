/**
 * The process `hosting.bench.ts` measures: `bot start`'s runtime hosting the bots its
 * parent provisioned on a sandbox in a third process, so its RSS is the runtime's alone.
 *
 * `tsx hosting-child.ts CONFIG.json DATA_DIR COUNT [stored|file]` starts COUNT bots (each
 * answering its mentions), prints `READY {started_ms, rss_mb}` once every bot started and the
 * app's stream is connected, then answers stdin lines: `report` prints `REPORT {...}` (mentions
 * handled, twice-handled, reply latencies), `profile` starts a CPU profile and `profile-to FILE`
 * writes it (`BENCH_PROFILE`), `heap` and `heap-to FILE` the same for a sampling heap profile
 * of what is allocated meanwhile (`BENCH_HEAP_PROFILE`), `stop` stops and exits.
 *
 * `stored` (the default): the accounts are in the state store as `bot auth login` leaves them
 * (token, user id and username; saved before the clock starts when DATA_DIR has none), and the
 * bots name them, as a user's would: `bot start` reads them with the environment's app
 * (`resolveService`). `file`: each bot's token is given as a bot file's `account: {token,
 * token_secret}` would, so who the account is must be asked (`GET /2/users/me`) at a first start.
 */
import { createInterface } from "node:readline";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { startRuntime } from "../../src/hosting/runtime.ts";
import type { HostedBot } from "../../src/hosting/types.ts";
import { resolveService } from "../../src/hosting/service.ts";
import { getAccount, saveAccount } from "../../src/credentials/accounts.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { testBotConfig } from "../../src/testing.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { constants as perf, PerformanceObserver } from "node:perf_hooks";

export interface ChildConfig {
  baseUrl: string;
  app: { id: string; key: string; secret: string };
  bots: Array<{ name: string; userId: string; token: string; secret: string }>;
  /** Stream rules each bot has (the drop bench), instead of mentions. */
  rule?: string;
}

const [configPath, dataDir, countArg, accounts = "stored"] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configPath!, "utf8")) as ChildConfig;
const count = Number(countArg ?? config.bots.length);

const handled = new Map<string, number>();
const latencies: number[] = [];
/** When each answered mention was made (ms since the epoch), beside its latency: the timeline. */
const mentionedAt: number[] = [];
/** From the mention's making to its handler starting (the stream's delivery and the dispatch), beside each latency. */
const toHandler: number[] = [];
const answer = definePlugin({
  name: "answer",
  setup(bot) {
    bot.on("mention", async (ctx) => {
      const reached = Date.now();
      handled.set(ctx.post.id, (handled.get(ctx.post.id) ?? 0) + 1);
      const outcome = await ctx.reply(`@${ctx.author.username} thanks (${ctx.post.id})`);
      if (outcome.status === "sent") {
        const at = Date.parse(ctx.post.created_at);
        latencies.push(Date.now() - at);
        mentionedAt.push(at);
        toHandler.push(reached - at);
      }
    });
    bot.on("post", (ctx) => void handled.set(ctx.post.id, (handled.get(ctx.post.id) ?? 0) + 1));
  },
});

/**
 * Where the main thread stopped: garbage collections (when, how long, which kind) and stalls
 * of the event loop (a 10 ms timer that fired late by more than 10 ms: something held the
 * thread), by the epoch ms they began, so the timeline can say what each window's tail sat on.
 */
const gcs: Array<{ at: number; ms: number; major: boolean }> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
    gcs.push({
      at: performance.timeOrigin + e.startTime,
      ms: e.duration,
      major: (kind & (perf.NODE_PERFORMANCE_GC_MAJOR | perf.NODE_PERFORMANCE_GC_INCREMENTAL)) !== 0,
    });
  }
}).observe({ entryTypes: ["gc"] });
const stalls: Array<{ at: number; ms: number }> = [];
const TICK_MS = 10;
let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = now - lastTick - TICK_MS;
  if (late > 10) stalls.push({ at: performance.timeOrigin + lastTick + TICK_MS, ms: late });
  lastTick = now;
}, TICK_MS).unref();

const botConfig = (name: string) =>
  testBotConfig(
    {
      name,
      plan: "pro",
      triggers: config.rule ? { stream: [{ value: config.rule }] } : { mentions: {} },
      plugins: { answer: {} },
    },
    { answer },
  );
const bots = config.bots.slice(0, count);
if (accounts === "stored") {
  // `bot auth login --account NAME` for each, before the start is timed.
  const signIn = await openFileStore(dataDir!);
  for (const b of bots) {
    if (getAccount(signIn, b.name)) continue;
    const oauth1 = { token: b.token, secret: b.secret, consumer_key: config.app.key };
    saveAccount(signIn, {
      name: b.name,
      base_url: config.baseUrl,
      user_id: b.userId,
      username: b.name,
      oauth1,
      updated_at: new Date().toISOString(),
    });
  }
  await signIn.close();
}

const started = performance.now();
const store = await openFileStore(dataDir!);
const clock = createClock();
const hosted: HostedBot[] =
  accounts === "stored"
    ? resolveService(
        {
          POSTBOT_BASE_URL: config.baseUrl,
          POSTBOT_CONSUMER_KEY: config.app.key,
          POSTBOT_CONSUMER_SECRET: config.app.secret,
        },
        ".env",
        bots.map((b) => botConfig(b.name)),
        store,
      ).bots
    : bots.map((b) => ({
        config: botConfig(b.name),
        app: { ...config.app, plan: "pro" },
        token: { token: b.token, secret: b.secret },
      }));
const runtime = await startRuntime({ baseUrl: config.baseUrl, bots: hosted, store, clock, logger: silentLogger });
const startedMs = performance.now() - started;
while (runtime.apps().some((a) => a.stream && a.stream.state !== "connected"))
  await new Promise((r) => setTimeout(r, 20));
process.stdout.write(
  `READY ${JSON.stringify({ started_ms: Math.round(startedMs), rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20) })}\n`,
);

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Latencies by when the mention was made, in buckets of `everyMs` from the first: is the tail everywhere, or at one time? */
const timeline = (everyMs: number) => {
  const first = Math.min(...mentionedAt);
  const buckets = new Map<number, number[]>();
  mentionedAt.forEach((at, i) => {
    const b = Math.floor((at - first) / everyMs);
    buckets.set(b, [...(buckets.get(b) ?? []), i]);
  });
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([b, is]) => {
      const xs = is.map((i) => latencies[i]!);
      const hs = is.map((i) => toHandler[i]!);
      const from = first + b * everyMs;
      const within = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at >= from && x.at < from + everyMs);
      const st = within(stalls);
      const gc = within(gcs);
      const major = gc.filter((g) => g.major);
      return {
        from_s: (b * everyMs) / 1000,
        n: xs.length,
        p50: quantile(xs, 0.5),
        p99: quantile(xs, 0.99),
        max: Math.max(...xs),
        handler_p50: quantile(hs, 0.5),
        handler_p99: quantile(hs, 0.99),
        stalls: st.length,
        stall_max: Math.round(Math.max(0, ...st.map((s) => s.ms))),
        stall_ms: Math.round(st.reduce((sum, s) => sum + s.ms, 0)),
        gc_major: major.length,
        gc_major_max: Math.round(Math.max(0, ...major.map((g) => g.ms))),
        gc_ms: Math.round(gc.reduce((sum, g) => sum + g.ms, 0)),
        gc_n: gc.length,
      };
    });
};

let profiler: Session | undefined;
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "report") {
    const twice = [...handled.values()].filter((n) => n > 1).length;
    const stream = runtime.apps()[0]?.stream;
    process.stdout.write(
      `REPORT ${JSON.stringify({
        handled: handled.size,
        twice,
        replies: latencies.length,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        ids: [...handled.keys()],
        timeline: timeline(5_000),
        catch_up: runtime.apps()[0]?.catchUp,
        gaps: stream?.gaps,
        reconnects: stream?.reconnects,
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      })}\n`,
    );
  } else if (line === "profile") {
    profiler ??= new Session();
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
    process.stdout.write("PROFILING {}\n");
  } else if (line.startsWith("profile-to ")) {
    const { profile } = await profiler!.post("Profiler.stop");
    writeFileSync(line.slice("profile-to ".length), JSON.stringify(profile));
    profiler!.disconnect();
    process.stdout.write("PROFILED {}\n");
  } else if (line === "heap") {
    // Sampled allocations, those collected since too: what the window allocated, by where.
    profiler ??= new Session();
    profiler.connect();
    await profiler.post("HeapProfiler.enable");
    await profiler.post("HeapProfiler.startSampling", {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    process.stdout.write("HEAP {}\n");
  } else if (line.startsWith("heap-to ")) {
    const { profile } = await profiler!.post("HeapProfiler.stopSampling");
    writeFileSync(line.slice("heap-to ".length), JSON.stringify(profile));
    profiler!.disconnect();
    process.stdout.write("HEAPED {}\n");
  } else if (line === "stop") {
    await runtime.stop();
    await store.close();
    process.exit(0);
  }
}
