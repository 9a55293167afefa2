/**
 * Hosting many bots in one process (issue 9, "Figures"): the sandbox runs in its own process
 * (`bot sandbox`, real clock), the runtime in another (./hosting-child.ts), so each figure is
 * the runtime's own.
 *
 * - start to "all bots started" (and the app's stream connected), 1,000 and 10,000 pro bots of
 *   one app: the first start and a restart of accounts signed in with `bot auth login` (who
 *   each is stored with its token), and the first start of bots whose files give their tokens
 *   (who each is must be asked once, `GET /2/users/me`);
 * - RSS of the runtime with 1,000 and 10,000 bots;
 * - mention → reply through the stream, 10,000 bots, 100 mentions/s (BENCH_FLOOD_SECONDS,
 *   default 60): p50/p99 from the mention's creation to the reply's answer, lost and answered
 *   twice;
 * - dispatch through a no-op plugin (in-process, events handed to one bot's inbox);
 * - a stream drop in the middle of a flood of matching posts: posts lost after recovery.
 *
 * `BENCH_BOTS` (default 10000) shrinks the large runs on a small machine. `BENCH_CHILD_ARGS`
 * (say `--cpu-prof --cpu-prof-dir=/tmp/prof`) are given to node for the runtime children;
 * `BENCH_PROFILE=FILE.cpuprofile` writes a CPU profile of the runtime during the flood;
 * `BENCH_HEAP_PROFILE=PREFIX` writes sampling heap profiles of what the runtime allocated in the
 * flood's windows (PREFIX-0: 0-6 s, -1: 6-13 s, -2: 13-21 s, `.heapprofile`, for Chrome's
 * DevTools); `BENCH_SANDBOX_ARGS` are given to node for the sandbox. `BENCH_HOSTING_ONLY=flood` runs only
 * what the flood needs (the signed-in first start and restart of all the bots, then the
 * flood), for working on its latency.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { definePlugin } from "../../src/plugins/plugin.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { createTestBed } from "../../src/testing.ts";
import { startChild, type Bench, type BenchRow } from "./harness.ts";
import type { ChildConfig } from "./hosting-child.ts";

const BOT = new URL("../../bin/bot.js", import.meta.url).pathname;
const CHILD = new URL("./hosting-child.ts", import.meta.url).pathname;
const BOTS = Number(process.env.BENCH_BOTS ?? 10_000);
const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 60);
const FLOOD_RATE = 100;
const CHILD_ARGS = (process.env.BENCH_CHILD_ARGS ?? "").split(" ").filter(Boolean);
const PROFILE = process.env.BENCH_PROFILE;
const SANDBOX_ARGS = (process.env.BENCH_SANDBOX_ARGS ?? "").split(" ").filter(Boolean);
const FLOOD_ONLY = process.env.BENCH_HOSTING_ONLY === "flood";
const HEAP_PROFILE = process.env.BENCH_HEAP_PROFILE;
/** Where the flood's heap profiles end (seconds in): its first 5 s after the restart, a quiet window, a status round's. */
const HEAP_WINDOWS_S = [6, 13, 21];

const verdict = (value: number, aim: number, lowerIsBetter = true) =>
  Number.isNaN(value) ? "missed" : (lowerIsBetter ? value <= aim : value >= aim) ? "met" : "missed";
const say = (what: string) => process.stderr.write(`  hosting: ${what}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A runtime child: waits for READY, then answers `report`. */
async function runChild(configPath: string, dataDir: string, count: number, accounts: "stored" | "file" = "stored") {
  const child: ChildProcess = spawn(
    process.execPath,
    [...CHILD_ARGS, "--import", "tsx", CHILD, configPath, dataDir, String(count), accounts],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  const next = (prefix: string) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the runtime child exited (${code}) before ${prefix}`)));
      waiting.push((line) =>
        line.startsWith(prefix)
          ? resolve(JSON.parse(line.slice(prefix.length + 1)))
          : reject(new Error(`unexpected: ${line}`)),
      );
    });
  const ready = await next("READY");
  return {
    ready,
    report: () => {
      const r = next("REPORT");
      child.stdin!.write("report\n");
      return r;
    },
    profile: (to?: string) => {
      const r = next(to ? "PROFILED" : "PROFILING");
      child.stdin!.write(to ? `profile-to ${to}\n` : "profile\n");
      return r;
    },
    heap: (to?: string) => {
      const r = next(to ? "HEAPED" : "HEAP");
      child.stdin!.write(to ? `heap-to ${to}\n` : "heap\n");
      return r;
    },
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.stdin!.write("stop\n");
        setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
      }),
  };
}

async function dispatchRate(): Promise<number> {
  let seen = 0;
  const noop = definePlugin({ name: "noop", setup: (bot) => bot.on("schedule", () => void seen++) });
  const bed = await createTestBed({ bots: [{ name: "idle", plan: "pro", plugins: { noop: {} } }], plugins: { noop } });
  try {
    const bot = bed.runtime.bots.get("idle")!;
    const N = 50_000;
    const events: BotEvent[] = Array.from({ length: N }, (_, i) => ({
      kind: "schedule",
      id: `bench:${i}`,
      schedule: { name: "bench", cron: "* * * * *", at: i },
    }));
    const start = performance.now();
    // In batches, keeping the inbox below its bound (10,000 waiting events).
    for (let i = 0; i < N; i += 1000) {
      while (i - seen > 4_000) await new Promise((r) => setImmediate(r));
      bot.deliver(events.slice(i, i + 1000), false);
    }
    while (seen < N) await new Promise((r) => setImmediate(r));
    return (N / (performance.now() - start)) * 1000;
  } finally {
    await bed.close();
  }
}

const bench: Bench = {
  name: "hosting: many bots in one process",
  async run() {
    const rows: BenchRow[] = [];
    const adminToken = randomBytes(16).toString("hex");
    const sandbox = await startChild(
      process.execPath,
      [...SANDBOX_ARGS, BOT, "sandbox", "--port", "0", "--admin-token", adminToken, "--plan", "pro"],
      /listening on (http:\/\/[\d.:]+)/,
      { POSTBOT_LOG_LEVEL: "warn" },
    );
    const url = sandbox.match[1]!;
    const dir = await mkdtemp(join(tmpdir(), "postbot-hosting-bench-"));
    try {
      const admin = async (path: string, body: unknown) => {
        const res = await fetch(url + path, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as Record<string, string>;
      };
      const app = await admin("/_sandbox/apps", { name: "postbot-pro", plan: "pro" });
      const users: Array<{ name: string; id: string; token: string; secret: string }> = new Array(BOTS);
      let made = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (made < BOTS) {
            const i = made++;
            const name = `u${String(i).padStart(5, "0")}`;
            const user = await admin("/_sandbox/users", { username: name });
            const token = await admin("/_sandbox/tokens", { consumer_key: app.consumer_key, user_id: user.id });
            users[i] = { name, id: user.id!, token: token.token!, secret: token.token_secret! };
          }
        }),
      );
      say(`${BOTS} accounts provisioned`);
      const crowd = await admin("/_sandbox/users", { username: "crowd" });
      const config: ChildConfig = {
        baseUrl: url,
        app: { id: app.id!, key: app.consumer_key!, secret: app.consumer_secret! },
        bots: users.map((u) => ({ name: u.name, userId: u.id, token: u.token, secret: u.secret })),
      };
      const configPath = join(dir, "bots.json");
      await writeFile(configPath, JSON.stringify(config));

      // Start and memory: 1,000 bots, then all of them; the first start, and a restart.
      for (const count of FLOOD_ONLY ? [BOTS] : [...new Set([Math.min(1_000, BOTS), BOTS])]) {
        const n = count.toLocaleString("en-US");
        const startAim = {
          aim: count === 10_000 ? "≤ 5,000 ms" : "",
          verdict: (ms: number) => (count === 10_000 ? verdict(ms, 5_000) : ""),
        };
        if (!FLOOD_ONLY) {
          say(`starting ${count} bots whose files give their tokens`);
          const fromFiles = await runChild(configPath, join(dir, `data-${count}-file`), count, "file");
          say(`started: ${JSON.stringify(fromFiles.ready)}`);
          await fromFiles.stop();
          rows.push({
            bench: `start ${n} bots, first start, tokens in the bot files (identities asked)`,
            value: `${fromFiles.ready.started_ms} ms`,
            aim: "",
            verdict: "",
          });
        }
        const data = join(dir, `data-${count}`);
        say(`starting ${count} bots of signed-in accounts`);
        const first = await runChild(configPath, data, count);
        say(`started: ${JSON.stringify(first.ready)}`);
        await first.stop();
        const again = await runChild(configPath, data, count);
        say(`restarted: ${JSON.stringify(again.ready)}`);
        rows.push({
          bench: `start ${n} bots, first start, signed-in accounts (identities stored)`,
          value: `${first.ready.started_ms} ms`,
          aim: startAim.aim,
          verdict: startAim.verdict(first.ready.started_ms),
        });
        rows.push({
          bench: `start ${n} bots, restart`,
          value: `${again.ready.started_ms} ms`,
          aim: startAim.aim,
          verdict: startAim.verdict(again.ready.started_ms),
        });
        const aimMb = count <= 1_000 ? 250 : 1_024;
        rows.push({
          bench: `RSS with ${count.toLocaleString("en-US")} bots`,
          value: `${again.ready.rss_mb} MB`,
          aim: `≤ ${aimMb} MB`,
          verdict: verdict(again.ready.rss_mb, aimMb),
        });
        if (count !== BOTS) {
          await again.stop();
          continue;
        }
        // The flood: 100 mentions a second to random bots, each answered through the stream.
        say(`flooding (catch-up polls at the start of the flood: ${JSON.stringify((await again.report()).catch_up)})`);
        if (PROFILE) await again.profile();
        if (HEAP_PROFILE) await again.heap();
        const posted: string[] = [];
        const total = FLOOD_SECONDS * FLOOD_RATE;
        const t0 = Date.now();
        for (let i = 0; i < total; i++) {
          const window = HEAP_WINDOWS_S.indexOf(i / FLOOD_RATE);
          if (HEAP_PROFILE && window >= 0) {
            await again.heap(`${HEAP_PROFILE}-${window}.heapprofile`);
            if (window < HEAP_WINDOWS_S.length - 1) await again.heap();
          }
          const due = t0 + (i * 1000) / FLOOD_RATE;
          if (due > Date.now()) await sleep(due - Date.now());
          const target = users[Math.floor(Math.random() * users.length)]!;
          posted.push(
            (await admin("/_sandbox/posts", { author_id: crowd.id, text: `@${target.name} question ${i}` })).id!,
          );
        }
        let report = await again.report();
        for (let waited = 0; report.replies < total && waited < 60_000; waited += 1_000) {
          await sleep(1_000);
          report = await again.report();
        }
        if (PROFILE) await again.profile(PROFILE);
        say(`catch-up polls at the end: ${JSON.stringify(report.catch_up)}`);
        for (const t of report.timeline as Array<Record<string, number>>)
          say(
            `  mentions made ${t.from_s} s in: ${t.n} answered, p50 ${t.p50} ms, p99 ${t.p99} ms, max ${t.max} ms; to the handler p50 ${t.handler_p50} ms, p99 ${t.handler_p99} ms; loop stalls > 10 ms: ${t.stalls} (max ${t.stall_max} ms, ${t.stall_ms} ms in all); GC ${t.gc_ms} ms in all (${t.gc_n}), ${t.gc_major} major (max ${t.gc_major_max} ms)`,
          );
        const lost = posted.filter((id) => !(report.ids as string[]).includes(id)).length;
        rows.push({
          bench: `mention → reply, ${count.toLocaleString("en-US")} bots, ${FLOOD_RATE}/s for ${FLOOD_SECONDS} s: p50`,
          value: `${report.p50} ms`,
          aim: "≤ 20 ms",
          verdict: verdict(report.p50, 20),
        });
        rows.push({ bench: "  p99", value: `${report.p99} ms`, aim: "≤ 100 ms", verdict: verdict(report.p99, 100) });
        rows.push({ bench: "  lost", value: lost, aim: "0", verdict: verdict(lost, 0) });
        rows.push({ bench: "  answered twice", value: report.twice, aim: "0", verdict: verdict(report.twice, 0) });
        rows.push({
          bench: "  RSS after the flood",
          value: `${report.rss_mb} MB`,
          aim: `≤ ${aimMb} MB`,
          verdict: verdict(report.rss_mb, aimMb),
        });
        await again.stop();
      }
      if (FLOOD_ONLY) return rows;

      // A stream drop in a flood: a second app with one bot whose rule every post matches.
      const floodApp = await admin("/_sandbox/apps", { name: "flood", plan: "pro" });
      const fan = await admin("/_sandbox/users", { username: "fan" });
      const fanToken = await admin("/_sandbox/tokens", { consumer_key: floodApp.consumer_key, user_id: fan.id });
      const dropPath = join(dir, "drop.json");
      await writeFile(
        dropPath,
        JSON.stringify({
          baseUrl: url,
          app: { id: floodApp.id, key: floodApp.consumer_key, secret: floodApp.consumer_secret },
          bots: [{ name: "fan", userId: fan.id, token: fanToken.token, secret: fanToken.token_secret }],
          rule: "#flood",
        } satisfies ChildConfig),
      );
      say("stream drop");
      const FLOOD = 1_000;
      await admin("/_sandbox/faults", {
        route: "GET /2/posts/search/stream",
        count: 1,
        kind: "drop",
        after_messages: 300,
      });
      const dropper = await runChild(dropPath, join(dir, "data-drop"), 1);
      const flood: string[] = [];
      for (let i = 0; i < FLOOD; i++)
        flood.push((await admin("/_sandbox/posts", { author_id: crowd.id, text: `#flood number ${i}` })).id!);
      let report = await dropper.report();
      for (let waited = 0; report.handled < FLOOD && waited < 60_000; waited += 500) {
        await sleep(500);
        report = await dropper.report();
      }
      const lost = flood.filter((id) => !(report.ids as string[]).includes(id)).length;
      rows.push({
        bench: `stream drop after 300 of ${FLOOD.toLocaleString("en-US")} matching posts: lost after recovery`,
        value: `${lost} (${report.gaps?.recovered ?? 0} recovered by search, ${report.twice} twice)`,
        aim: "0",
        verdict: verdict(lost + report.twice, 0),
      });
      await dropper.stop();
    } finally {
      await sandbox.stop();
      await rm(dir, { recursive: true, force: true });
    }
    if (FLOOD_ONLY) return rows;
    say("dispatch");
    const rate = await dispatchRate();
    rows.push({
      bench: "dispatch through a no-op plugin",
      value: `${Math.round(rate).toLocaleString("en-US")} events/s`,
      aim: "≥ 50,000 events/s",
      verdict: verdict(rate, 50_000, false),
    });
    return rows;
  },
};

export default bench;
