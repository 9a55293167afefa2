/**
 * 100,000 accounts: four `bot start --state redis://…` processes, four apps, one Redis
 * (./scale100k-deployment.ts; the sandbox in this process on real time). The processes run
 * the compiled postbot, what users deploy (the package's build/, built once at the bench's
 * start by scripts/build.ts's `buildCode`), not the checkout's TypeScript under tsx, which
 * costs each process a second or so more CPU before its first claim. Each app's bots are
 * spread over the processes by the leases; their mentions come through their own app's
 * stream, handed to the bot's process through Redis.
 *
 * - start: from the last process's start until every bot is held by a process and running there
 *   and every app's stream is connected with every bot's mention rule (aim ≤ 10 s), then a probe of mentions
 *   answered; each process's RSS and Redis's `used_memory` (aim ≤ 4 GB in all);
 * - idle: CPU of the four processes (and of Redis) with no traffic (aim < 10 % of one core in
 *   all), Redis commands and bytes per idle bot per minute; measured once the start's one-off
 *   (V8's memory reducer giving its heap back) is over, which is a row of its own;
 * - flood: mention → reply at `BENCH_100K_RATE` (100) mentions/s for `BENCH_100K_SECONDS` (60)
 *   over random bots (aim p50 ≤ 20 ms, p99 ≤ 100 ms, 0 lost, 0 twice), Redis commands and
 *   bytes per mention answered, and this process's CPU (the sandbox's: what limits the bench
 *   when it is the sandbox); and what the tail sat on (./scale100k-tail.ts): per 5 s, the
 *   answers' p50/p99/max before and after the handoff, each process's loop stalls (with the
 *   CPU it had over them) and garbage collections (./loop-probe.mjs), Redis's slow commands,
 *   and each answer over 100 ms put down to what overlapped its slow stage most;
 * - kill: kill -9 of one process 10 s into a 30 s flood of 10 mentions/s (aim: its bots
 *   answering again ≤ 15 s after the kill, 0 lost, 0 twice);
 * - dialog: `BENCH_100K_DIALOGS` (10,000) open dialogs written into bots' hashes by the Redis
 *   store: Redis's memory, commands and bytes per open dialog.
 *
 * Sizes from the environment, so it runs smaller: `BENCH_100K_ACCOUNTS` (100000),
 * `BENCH_100K_PROCESSES` (4), `BENCH_100K_APPS` (4), `BENCH_100K_RATE`, `BENCH_100K_SECONDS`,
 * `BENCH_100K_IDLE_SECONDS` (30), `BENCH_100K_SETTLE_SECONDS` (420: the longest wait, before the
 * idle row, for the start's one-off to pass, ./scale100k-settle.ts; 0: none), `BENCH_100K_READY_SECONDS` (900: the wait for every bot
 * answering, after which the row says what each process, Redis and the sandbox used),
 * `BENCH_100K_ONLY` (start,idle,flood,kill,dialog: the rows to run; start always runs),
 * `BENCH_100K_KILL=streams` (the kill row kills the process running the most apps' streams,
 * not the first started), `BENCH_100K_REDIS=cluster` (a Redis Cluster of three masters instead of one redis-server),
 * `BENCH_100K_NODE_ARGS` (node's arguments for each process: `--heap-growing-percent=0` gives
 * V8's own heap growth back, which `bot start` otherwise fixes: src/cli/heap-growth.ts).
 * The sizing table of docs/operations.md is computed from these rows.
 */
import type { Lease } from "../../src/fencing.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { DEFAULT_LEASE_TTL_MS, DEFAULT_RENEW_EVERY_MS } from "../../src/redis/bot-claims.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { startRedisCluster } from "../helpers/redis-cluster.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import { buildCode } from "../../scripts/build.ts";
import { until } from "../helpers/until.ts";
import type { Bench, BenchRow } from "./harness.ts";
import { cpuMs, deployBig, redisFigures, rssMb, type BigDeployment } from "./scale100k-deployment.ts";
import { answeringAgain, HELD_MS, tally as countAnswers } from "./scale-deployment.ts";
import { tailReport, watchRedis, type Answered } from "./scale100k-tail.ts";
import { settle, settledLine } from "./scale100k-settle.ts";

const ACCOUNTS = Number(process.env.BENCH_100K_ACCOUNTS ?? 100_000);
const PROCESSES = Number(process.env.BENCH_100K_PROCESSES ?? 4);
const APPS = Number(process.env.BENCH_100K_APPS ?? 4);
const RATE = Number(process.env.BENCH_100K_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_100K_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.BENCH_100K_IDLE_SECONDS ?? 30);
const DIALOGS = Number(process.env.BENCH_100K_DIALOGS ?? 10_000);
/** The longest wait after the start before the idle row (./scale100k-settle.ts); 0: none. */
const SETTLE_SECONDS = Number(process.env.BENCH_100K_SETTLE_SECONDS ?? 420);
/** How long the bench waits for every bot to answer before it reports what each part used (`BENCH_100K_READY_SECONDS`). */
const READY_SECONDS = Number(process.env.BENCH_100K_READY_SECONDS ?? 900);
const only = (row: string) => !process.env.BENCH_100K_ONLY || process.env.BENCH_100K_ONLY.split(",").includes(row);

const say = (what: string) => process.stderr.write(`  scale100k: ${what}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const verdict = (met: boolean) => (met ? "met" : "missed");
const n = (x: number) => x.toLocaleString("en-US");
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const live = (d: BigDeployment) => d.processes.filter((p) => p.child.exitCode === null && !p.child.signalCode);

/** Redis commands by name between two readings, per `unit` (those of at least 0.05), most first. */
function commandsPer(before: Map<string, number>, after: Map<string, number>, unit: number): string {
  return [...after]
    .map(([c, k]) => [c, (k - (before.get(c) ?? 0)) / unit] as const)
    .filter(([, k]) => k >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([c, k]) => `${c} ${k.toFixed(2)}`)
    .join(", ");
}

/** The machine's load (1-minute average) and cores: what else ran beside the bench. */
const machine = () => `load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`;

/** Mentions made so far: each text differs (the service refuses a post that repeats its author's). */
let asked = 0;

/** Mentions random bots at `rate`/s for `seconds`; `at(second)` runs at each whole second. */
async function flood(d: BigDeployment, rate: number, seconds: number, at?: (second: number) => void) {
  const made: Array<{ id: string; bot: string }> = [];
  const started = Date.now();
  for (let i = 0; i < rate * seconds; i++) {
    if (i % rate === 0) at?.(i / rate);
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    const bot = d.names[Math.floor(Math.random() * d.names.length)]!;
    made.push({ id: await d.mention(bot, `question ${++asked}`), bot });
  }
  return made;
}

/** Lost, answered twice and by a wrong bot (./scale-deployment.ts's tally), and the latencies of the first answers. */
async function tally(d: BigDeployment, mentions: Array<{ id: string; bot: string }>) {
  const counts = await countAnswers(d, mentions);
  const replies = d.replies();
  return {
    ...counts,
    latencies: mentions.flatMap((m) => {
      const first = replies.get(m.id)?.[0];
      return first ? [first.at - d.createdAt(m.id)] : [];
    }),
  };
}

/** What each part of the deployment had used at one moment: each live process's CPU, Redis's and this process's (the sandbox's). */
interface CpuReading {
  /** When (Date.now()). */
  at: number;
  /** CPU-ms of each live `bot start`, by pid. */
  processes: Map<number, number>;
  redisS: number;
  /** Redis's commands so far, by name. */
  commands: Map<string, number>;
  own: NodeJS.CpuUsage;
}

async function readCpu(d: BigDeployment): Promise<CpuReading> {
  const at = Date.now();
  const processes = new Map(live(d).map((p) => [p.child.pid!, cpuMs(p.child.pid!)] as const));
  const redis = await redisFigures(d.redis);
  return { at, processes, redisS: redis.cpuS, commands: redis.commands, own: process.cpuUsage() };
}

/**
 * What each part of the deployment used between two readings, against what the machine had:
 * when a row misses its aim, which resource ran out is the figure the bench owes (CPU of each
 * `bot start` alive at the end, counted from its start when it started later, of Redis and of
 * this process, which holds the sandbox; each one's memory now).
 */
async function whatEachUsed(d: BigDeployment, from: CpuReading, to: CpuReading, window: string): Promise<string> {
  const wallS = (to.at - from.at) / 1000;
  const used = [...to.processes].map(([pid, ms]) => (ms - (from.processes.get(pid) ?? 0)) / 1000);
  const parts = [...to.processes.keys()].map((pid, i) => `${used[i]!.toFixed(0)} CPU-s, ${rssMb(pid).toFixed(0)} MB`);
  const redis = await redisFigures(d.redis);
  const redisS = to.redisS - from.redisS;
  const ownS = (to.own.user - from.own.user + to.own.system - from.own.system) / 1e6;
  const all = used.reduce((a, b) => a + b, 0) + redisS + ownS;
  const had = wallS * cpus().length;
  return (
    `in the ${wallS.toFixed(0)} s ${window}, the ${cpus().length} cores had ` +
    `${had.toFixed(0)} CPU-s and ${all.toFixed(0)} were used (${((all / had) * 100).toFixed(0)} %): ` +
    `bot start ${parts.join("; ")} (its memory now); Redis ${redisS.toFixed(0)} CPU-s, ` +
    `${redis.usedMb.toFixed(0)} MB; this process (the sandbox) ${ownS.toFixed(0)} CPU-s, ` +
    `${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MB`
  );
}

/** {@link whatEachUsed} from the processes' start (`before`: read just before it) until now, timed from the last one's start. */
async function usedSince(d: BigDeployment, lastStart: number, before: CpuReading): Promise<string> {
  return await whatEachUsed(d, { ...before, at: lastStart }, await readCpu(d), "since the last process started");
}

/** Starts the processes; the time from the last one's start until every bot answers, their RSS and Redis's memory. */
async function startRows(d: BigDeployment): Promise<BenchRow[]> {
  const before = await readCpu(d);
  for (let i = 0; i < PROCESSES; i++) d.start();
  const lastStart = Math.max(...d.processes.map((p) => p.startedAt));
  let last: string | undefined;
  let saidAt = Date.now();
  let checks = 0;
  let nextCheck = 0;
  await until(
    "every bot answering",
    async () => {
      // Each check reads every bot's claim (and more) from Redis: at 100,000 bots ~0.12 CPU-s
      // of this process, which the row counts as the sandbox's, and Redis's, on the cores the
      // processes are starting on. Every 0.5 s early on; later every 5 % of the time since
      // the last start (at most 2 s apart), which is how precise the row's time then is.
      if (Date.now() < nextCheck) return false;
      checks++;
      last = await d.missing();
      nextCheck = Date.now() + Math.min(1_500, Math.max(0, (Date.now() - lastStart) * 0.05 - 500));
      if (last !== undefined && Date.now() - saidAt >= 10_000) {
        saidAt = Date.now();
        say(`${((saidAt - lastStart) / 1000).toFixed(0)} s after the last process started: ${last}`);
        d.keepLogs();
      }
      return last === undefined;
    },
    READY_SECONDS * 1000,
    500,
  ).catch(async (err: Error) => {
    throw new Error(`${err.message} (${last}); ${await usedSince(d, lastStart, before)}`);
  });
  const readyMs = Date.now() - lastStart;
  const used = await usedSince(d, lastStart, before);
  say(
    `every bot running and in its app's stream rules ${(readyMs / 1000).toFixed(1)} s after the last process started`,
  );
  const probe = await flood(d, 20, 5);
  const answered = await tally(d, probe);
  const rss = d.processes.map((p) => rssMb(p.child.pid!));
  const redis = await redisFigures(d.redis);
  const totalMb = rss.reduce((a, b) => a + b, 0) + redis.usedMb;
  return [
    {
      bench: `${n(ACCOUNTS)} accounts, ${PROCESSES} processes, ${APPS} apps: every bot answering, after the last process started`,
      measured: `${(readyMs / 1000).toFixed(1)} s (checked ${checks} times); a probe of ${probe.length} mentions: ${answered.lost} lost, p50 ${percentile(answered.latencies, 50).toFixed(0)} ms; ${used}`,
      figure: `${(readyMs / 1000).toFixed(1)} s`,
      aim: "≤ 10 s",
      verdict: verdict(readyMs <= 10_000 && answered.lost === 0),
    },
    {
      bench: `${n(ACCOUNTS)} accounts: memory (RSS of each process, Redis used_memory)`,
      measured: `processes ${rss.map((mb) => `${mb.toFixed(0)} MB`).join(", ")}; Redis ${redis.usedMb.toFixed(0)} MB (${((redis.usedMb * 1024) / ACCOUNTS).toFixed(1)} KB per account); the sandbox (this process) grew ${d.provisioned.rssMb.toFixed(0)} MB provisioning them in ${(d.provisioned.ms / 1000).toFixed(0)} s`,
      figure: `${(totalMb / 1024).toFixed(2)} GB in all`,
      aim: "≤ 4 GB",
      verdict: verdict(totalMb <= 4096),
    },
  ];
}

/**
 * No traffic: first the wait until the start's one-off is over (./scale100k-settle.ts: V8's
 * memory reducer giving the start's heap back), a row of its own; then for IDLE_SECONDS the
 * processes' CPU, Redis's, and Redis's commands and bytes per bot per minute.
 */
async function idleRows(d: BigDeployment): Promise<BenchRow[]> {
  // The loop probes' 10 ms timers (./loop-probe.mjs) are not the processes' idle: paused meanwhile.
  const paused = join(d.probeDir, "paused");
  writeFileSync(paused, "");
  try {
    const settled = SETTLE_SECONDS > 0 ? [await settleRow(d)] : [];
    return [...settled, await idleFigures(d)];
  } finally {
    rmSync(paused, { force: true });
    await sleep(1_500); // the probes ticking again
  }
}

/** The wait before the idle row until every process settled after the start (`BENCH_100K_SETTLE_SECONDS`: its cap). */
async function settleRow(d: BigDeployment): Promise<BenchRow> {
  const since = Date.now();
  const s = await settle({
    pids: live(d).map((p) => p.child.pid!),
    probeDir: d.probeDir,
    since,
    quietMs: 5_000,
    noneMs: 110_000,
    capMs: SETTLE_SECONDS * 1000,
  });
  return {
    bench: `${n(ACCOUNTS)} accounts after the start, before the idle: the start's one-off (the memory reducer's full collections), waited out`,
    measured: settledLine(s, since),
    figure: `${(s.waitedMs / 1000).toFixed(0)} s, ${(s.processes.reduce((t, p) => t + p.cpuMs, 0) / 1000).toFixed(1)} CPU-s`,
  };
}

/** {@link idleRows}' measure. */
async function idleFigures(d: BigDeployment): Promise<BenchRow> {
  await sleep(5_000); // the probe's answers settled (and the loop probes paused)
  const pids = live(d).map((p) => p.child.pid!);
  const before = { cpu: pids.map(cpuMs), redis: await redisFigures(d.redis), at: performance.now() };
  const windows = await idleWindows(pids, IDLE_SECONDS * 1000);
  const seconds = (performance.now() - before.at) / 1000;
  const cpu = pids.map((pid, i) => (cpuMs(pid) - before.cpu[i]!) / 10 / seconds);
  const redis = await redisFigures(d.redis);
  const commands = [...redis.commands].reduce((t, [c, k]) => t + k - (before.redis.commands.get(c) ?? 0), 0);
  const perBotMinute = (x: number) => (x / ACCOUNTS / seconds) * 60;
  const byName = commandsPer(before.redis.commands, redis.commands, seconds);
  const redisCpu = ((redis.cpuS - before.redis.cpuS) / seconds) * 100;
  const all = cpu.reduce((a, b) => a + b, 0);
  return {
    bench: `${n(ACCOUNTS)} accounts idle (no traffic for ${IDLE_SECONDS} s): CPU of the ${PROCESSES} processes`,
    measured: `${cpu.map((c) => `${c.toFixed(1)} %`).join(", ")} of one core; Redis ${redisCpu.toFixed(1)} % (${machine()}); the ${PROCESSES} in all per ${IDLE_WINDOW_MS / 1000} s: ${windows}; Redis commands a second in all ${(commands / seconds).toFixed(1)} (${byName}); per idle bot per minute: ${perBotMinute(commands).toFixed(2)} Redis commands, ${perBotMinute(redis.bytesIn - before.redis.bytesIn).toFixed(0)} bytes in, ${perBotMinute(redis.bytesOut - before.redis.bytesOut).toFixed(0)} bytes out`,
    figure: `${all.toFixed(1)} % of one core`,
    aim: "< 10 %",
    verdict: verdict(all < 10),
  };
}

/** The idle row's windows: what a one-off (a collection after the start) costs shows apart from the steady use. */
const IDLE_WINDOW_MS = 10_000;

/**
 * Sleeps `ms`, reading the processes' CPU every {@link IDLE_WINDOW_MS}: their use in all per
 * window, as `min / median / max %` and the list, so a full collection V8's memory reducer runs
 * once after the start (seconds of CPU in one window) is told from the steady idle.
 */
async function idleWindows(pids: number[], ms: number): Promise<string> {
  const shares: number[] = [];
  const end = performance.now() + ms;
  let last = { cpu: pids.map(cpuMs).reduce((a, b) => a + b, 0), at: performance.now() };
  // A last window under a second says nothing: its time is slept, not read.
  while (end - performance.now() >= 1_000) {
    await sleep(Math.min(IDLE_WINDOW_MS, end - performance.now()));
    const now = { cpu: pids.map(cpuMs).reduce((a, b) => a + b, 0), at: performance.now() };
    shares.push(((now.cpu - last.cpu) / (now.at - last.at)) * 100);
    last = now;
  }
  await sleep(Math.max(0, end - performance.now()));
  const sorted = [...shares].sort((a, b) => a - b);
  const pct = (x: number | undefined) => (x ?? 0).toFixed(1);
  return `min ${pct(sorted[0])}, median ${pct(sorted[Math.floor(sorted.length / 2)])}, max ${pct(sorted.at(-1))} % (${shares.map(pct).join(", ")})`;
}

/** Mention → reply at RATE/s for SECONDS over random bots. */
async function floodRow(d: BigDeployment): Promise<BenchRow> {
  const pids = live(d).map((p) => p.child.pid!);
  await watchRedis(d.redis);
  const before = { redis: await redisFigures(d.redis), cpu: process.cpuUsage(), pids: pids.map(cpuMs) };
  const t0 = performance.now();
  const start = Date.now();
  const mentions = await flood(d, RATE, SECONDS);
  const { lost, twice, wrong, latencies } = await tally(d, mentions);
  const tail = await floodTail(d, mentions, start);
  const sandboxCpu = process.cpuUsage(before.cpu);
  const elapsedMs = performance.now() - t0;
  const sandboxShare = ((sandboxCpu.user + sandboxCpu.system) / 1000 / elapsedMs) * 100;
  const processShares = pids.map((pid, i) => ((cpuMs(pid) - before.pids[i]!) / elapsedMs) * 100);
  const redis = await redisFigures(d.redis);
  const redisShare = ((redis.cpuS - before.redis.cpuS) * 1000 * 100) / elapsedMs;
  const commands = [...redis.commands].reduce((t, [c, k]) => t + k - (before.redis.commands.get(c) ?? 0), 0);
  const per = (x: number) => (x / mentions.length).toFixed(1);
  const byName = commandsPer(before.redis.commands, redis.commands, mentions.length);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  return {
    bench: `${n(ACCOUNTS)} accounts, mention → reply through the apps' streams (${RATE}/s for ${SECONDS} s over all bots)`,
    measured: `p50 ${p50.toFixed(0)} ms; ${mentions.length} mentions: ${lost} lost, ${twice} answered twice, ${wrong} by a wrong bot; ${tail}; per mention answered: ${per(commands)} Redis commands (${byName}), ${per(redis.bytesIn - before.redis.bytesIn)} bytes in, ${per(redis.bytesOut - before.redis.bytesOut)} bytes out; CPU (% of one core, from the flood's start until its answers were in): the processes ${processShares.map((c) => c.toFixed(0)).join(", ")}, Redis ${redisShare.toFixed(0)}, the sandbox (this process) ${sandboxShare.toFixed(0)} (${machine()})`,
    figure: `p99 ${p99.toFixed(0)} ms`,
    aim: "p50 ≤ 20 ms, p99 ≤ 100 ms, 0 lost, 0 twice",
    verdict: verdict(p50 <= 20 && p99 <= 100 && lost === 0 && twice === 0 && wrong === 0),
  };
}

/**
 * What the flood's tail sat on (./scale100k-tail.ts): its timeline per window of 5 s printed
 * (and kept in `BENCH_100K_LOG`'s folder as flood-tail.txt), a summary for the row.
 */
async function floodTail(d: BigDeployment, mentions: Array<{ id: string; bot: string }>, start: number) {
  await sleep(1_500); // the probes' last lines written
  const replies = d.replies();
  const owners = await d.owners();
  const { handed, hubOf } = await d.handoffs(start - 1_000);
  const answers: Answered[] = mentions.flatMap((m) => {
    const answered = replies.get(m.id)?.[0]?.at;
    if (answered === undefined) return [];
    const made = d.createdAt(m.id);
    // The bot's handoff for this mention: its first bell at or after the mention was made.
    const at = handed.get(m.bot)?.find((t) => t >= made - 1 && t <= answered);
    return [{ made, answered, handed: at, hub: hubOf.get(m.bot), owner: owners.get(m.bot) }];
  });
  const { lines, summary, slow } = await tailReport({
    redis: d.redis,
    probeDir: d.probeDir,
    sandboxPid: process.pid,
    start,
    answers,
    aimMs: 100,
  });
  say(`the flood's timeline (each process by pid; hubs ${[...new Set(hubOf.values())].join(", ")}):`);
  for (const line of lines) say(`  ${line}`);
  if (process.env.BENCH_100K_LOG) {
    mkdirSync(process.env.BENCH_100K_LOG, { recursive: true });
    writeFileSync(
      join(process.env.BENCH_100K_LOG, "flood-tail.txt"),
      [`the flood from ${start} to ${start + SECONDS * 1000} (epoch ms)`, ...lines, summary].join("\n"),
    );
    writeFileSync(join(process.env.BENCH_100K_LOG, "flood-slowlog.txt"), slow.join("\n"));
  }
  return summary;
}

/** kill -9 of one process 10 s into a 30 s flood of 10 mentions/s. */
async function killRow(d: BigDeployment): Promise<BenchRow> {
  const victim = await victimOf(d);
  let killedAt = 0;
  let victimBots = new Set<string>();
  // What each part had used at each second from the kill on: the take-over's window is known only after it.
  const readings: Array<Promise<CpuReading>> = [];
  let reading: NodeJS.Timeout | undefined;
  // Which apps' streams it ran: their mentions then wait for another process to run the hub and
  // search the gap, whichever process runs their bots (the row says so).
  const apps = d.processAppIds;
  const streamLeases = new Leases(d.redis);
  let streams = 0;
  const mentions = await flood(d, 10, 30, (second) => {
    if (second !== 10) return;
    void Promise.all(apps.map((app) => d.redis.get(streamLeases.key(`stream:${app}`)))).then((held) => {
      streams = held.filter((v) => v?.split(":").at(-2) === String(victim.child.pid)).length;
    });
    readings.push(readCpu(d));
    reading = setInterval(() => readings.push(readCpu(d)), 1_000).unref();
    void d.owners().then((held) => {
      victimBots = new Set([...held].filter(([, pid]) => pid === victim.child.pid).map(([bot]) => bot));
    });
    killedAt = Date.now();
    victim.child.kill("SIGKILL");
    say(`killed process ${victim.child.pid} at ${new Date(killedAt).toISOString()} (${killedAt})`);
  });
  const { lost, twice, wrong } = await tally(d, mentions);
  clearInterval(reading);
  // The last answer that waited for the take-over (./scale-deployment.ts). (The answer to the
  // last mention of the flood, 20 s after the kill, says nothing of the take-over.)
  const { slowest, held, after, lastMade } = answeringAgain(d, mentions, victimBots, killedAt);
  const seen = await Promise.all(readings);
  const end = seen.find((r) => r.at >= killedAt + slowest) ?? seen.at(-1)!;
  const used = await whatEachUsed(d, seen[0]!, end, "from the kill until its bots answered again (the survivors)");
  const total = [...end.commands].reduce((t, [c, k]) => t + k - (seen[0]!.commands.get(c) ?? 0), 0);
  const perBot = `${(total / Math.max(1, victimBots.size)).toFixed(1)} Redis commands per bot taken over (${commandsPer(seen[0]!.commands, end.commands, Math.max(1, victimBots.size))}, the flood's included)`;
  return {
    bench: `kill -9 of one of ${PROCESSES} processes (${n(victimBots.size)} bots; it ran the streams of ${streams} of the ${apps.length} apps) during a flood of mentions (10/s for 30 s, kill at 10 s)`,
    measured: `${mentions.length} mentions: ${lost} lost, ${twice} answered twice, ${wrong} by a wrong bot; its bots answering again ${(slowest / 1000).toFixed(1)} s after the kill (the last answer of the ${held} of its ${after} mentions made after the kill that waited over ${HELD_MS / 1000} s for it; the last made ${(lastMade / 1000).toFixed(1)} s after the kill); ${used}; ${perBot}`,
    figure: `${lost} lost, ${twice} twice, ${(slowest / 1000).toFixed(1)} s`,
    aim: "0 lost, 0 twice, answering again ≤ 15 s",
    verdict: verdict(lost === 0 && twice === 0 && wrong === 0 && slowest <= 15_000),
  };
}

/**
 * The process the kill row kills: the first started, or with `BENCH_100K_KILL=streams` the one
 * running the most apps' streams (the worst case: their mentions wait for the hub's take-over too).
 */
async function victimOf(d: BigDeployment): Promise<BigDeployment["processes"][number]> {
  const procs = live(d);
  if (process.env.BENCH_100K_KILL !== "streams") return procs[0]!;
  const leases = new Leases(d.redis);
  const held = await Promise.all(d.processAppIds.map((app) => d.redis.get(leases.key(`stream:${app}`))));
  const count = (pid: number | undefined) => held.filter((v) => v?.split(":").at(-2) === String(pid)).length;
  return procs.reduce((most, p) => (count(p.child.pid) > count(most.child.pid) ? p : most));
}

/**
 * How late the heartbeats' renewals came at worst over the whole run (processes starting,
 * busy, flooded): the least time left on each live process's heartbeat when it was renewed.
 * A ttl (which is what a take-over waits, after a death) shorter than the longest gap between
 * two renewals would have moved a live process's bots.
 */
function heartbeatRow(d: BigDeployment): BenchRow {
  const pids = new Set(live(d).map((p) => String(p.child.pid)));
  const lows = [...d.heartbeatLows()].filter(([owner]) => pids.has(owner.split(":").at(-2)!));
  const least = Math.min(...lows.map(([, ms]) => ms));
  const s = (ms: number) => (ms / 1000).toFixed(1);
  return {
    bench: `heartbeats of the live processes over the run (ttl ${s(DEFAULT_LEASE_TTL_MS)} s, renewed every ${s(DEFAULT_RENEW_EVERY_MS)} s)`,
    measured:
      lows.length === 0
        ? "not looked at (a Redis Cluster)"
        : `the least time left on each when renewed: ${lows.map(([, ms]) => `${s(ms)} s`).join(", ")}; the longest gap between two renewals ${s(DEFAULT_LEASE_TTL_MS - least)} s (looked at every 0.25 s)`,
    figure: lows.length === 0 ? "-" : `${s(DEFAULT_LEASE_TTL_MS - least)} s longest gap`,
  };
}

/**
 * Open dialogs in Redis: `DIALOGS` of them over 100 bots, each what the dialog engine keeps
 * while it waits for the user's answer (its record in the bot's `conv:` namespace, the user's
 * session of the plugin: the quiz's after its first answer), written by the Redis store as a
 * question's fenced write carries them. Redis's memory, commands and bytes per open dialog.
 */
async function dialogRow(url: string): Promise<BenchRow> {
  const redis = await connectRedis(url);
  const leases = new Leases(redis);
  const held = new Map<string, Lease>();
  const store = await openRedisStore({
    redis,
    fencing: { leases, current: async (bot) => held.get(bot), refused: () => {} },
  });
  try {
    const bots = Array.from({ length: 100 }, (_, i) => `dialog-bot-${i}`);
    for (const bot of bots) held.set(bot, (await leases.claim(`bot:${bot}`, "bench", 600_000))!);
    for (const bot of bots) await store.hold(bot);
    const before = await redisFigures(redis);
    const now = Date.now();
    for (let i = 0; i < DIALOGS; i++) {
      const bot = bots[i % bots.length]!;
      const user = { id: String(1_900_000_000_000_000_000n + BigInt(i)), username: `user_${i}`, name: `User ${i}` };
      const place = String(2_000_000_000_000_000_000n + BigInt(i));
      store.set(`conv:${bot}`, `${user.id}:thread`, {
        id: `${bot}:${user.id}:${now}`,
        plugin: "dialog",
        name: "quiz",
        user,
        channel: "thread",
        place,
        replyTo: { id: place, author_id: user.id },
        lastBotPost: String(2_100_000_000_000_000_000n + BigInt(i)),
        step: "colour",
        turns: 2,
        attempts: 0,
        deadline: now + 600_000,
        startedAt: now,
      });
      store.set(`session:${bot}`, user.id, {
        v: { dialog: { answers: { name: `User ${i}` } } },
        by: `mention:${place}`,
        was: null,
        at: now,
      });
      await store.flushFor(`session:${bot}`, user.id);
    }
    const after = await redisFigures(redis);
    const commands = [...after.commands].reduce((t, [c, k]) => t + k - (before.commands.get(c) ?? 0), 0);
    const per = (x: number) => x / DIALOGS;
    const bytes = per((after.usedMb - before.usedMb) * 1024 * 1024);
    return {
      bench: `${n(DIALOGS)} open dialogs in Redis (over 100 bots): each one's record and its user's session, written as its question's write carries them`,
      measured: `per open dialog: ${bytes.toFixed(0)} bytes of Redis used_memory; written with ${per(commands).toFixed(2)} Redis commands, ${per(after.bytesIn - before.bytesIn).toFixed(0)} bytes in, ${per(after.bytesOut - before.bytesOut).toFixed(0)} bytes out`,
      figure: `${bytes.toFixed(0)} bytes each`,
    };
  } finally {
    await store.close();
    redis.disconnect();
  }
}

const bench: Bench = {
  name: "100,000 accounts: four processes, four apps, one Redis",
  async run() {
    const built = performance.now();
    await buildCode();
    say(`postbot compiled into build/ in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    const server = process.env.BENCH_100K_REDIS === "cluster" ? await startRedisCluster() : await startRedisServer();
    let d: BigDeployment | undefined;
    try {
      d = await deployBig(server.url, ACCOUNTS, APPS, say);
      // The sandbox's own collections and loop stalls, beside the processes' (the flood's timeline).
      process.env.BENCH_PROBE_DIR = d.probeDir;
      await import(new URL("./loop-probe.mjs", import.meta.url).href);
      const rows = await startRows(d);
      if (only("idle")) rows.push(...(await idleRows(d)));
      if (only("flood")) rows.push(await floodRow(d));
      if (only("kill")) rows.push(await killRow(d));
      rows.push(heartbeatRow(d));
      await d.close();
      d = undefined;
      if (only("dialog")) rows.push(await dialogRow(server.url));
      return rows;
    } finally {
      await d?.close();
      await server.close();
    }
  },
};

export default bench;
