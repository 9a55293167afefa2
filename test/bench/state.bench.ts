/**
 * State that scales (issue 9, "Figures"): the ledger + budget overhead per action with
 * 10,000 bots' state in the file store, at 100 actions/s, and what each durable write costs,
 * for the single file of earlier postbots ("before": every flush rewrites the whole state)
 * and today's store ("after": a flush appends what changed to the journal; the per-bot,
 * per-account and per-app files are brought up to date in the background).
 *
 * The state is what 10,000 hosted bots of one pro app leave: per bot its identity, status,
 * cursors, 5 finished ledger entries (50,000: the ledger's bound), its user window, a reply
 * cooldown mark, plugin data, and a stored account; the app's 24-hour window half full.
 * Actions are replies through the real action layer (ledger, budget, reply policy, queue)
 * with an executor that answers at once, so all the time spent is the layer's and the
 * store's: "CPU per action" is the process's CPU time over the run divided by the actions.
 * The overhead is that less the same run's on a memory store with the ledger off (the
 * queue, the reply policy and the budget's arithmetic): what the ledger and keeping the
 * state durable (the ledger's entries, the budget's windows) add to every action. Latency
 * includes the fsync the ledger awaits before every request, which is the disk's figure.
 *
 * `BENCH_STATE_BOTS=1000 npm run bench -- state` runs a smaller state;
 * `BENCH_STATE_LAYOUTS=after` skips the slow "before" row; `BENCH_STATE_RUNS=3` runs each
 * layout three times (alternating) and reports the medians, since one run's CPU per action
 * moves by +-0.3 ms on a shared machine; `BENCH_PROFILE=FILE.cpuprofile` first runs each layout once
 * more, not counted, with a CPU profile of its measured window in FILE-<layout>.cpuprofile
 * (open it in Chrome DevTools).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Executor } from "../../src/actions/action.ts";
import { createActionSystem, type ActionLayer } from "../../src/actions/layer.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { writeFileAtomic } from "../../src/store/atomic-file.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import type { Bench, BenchRow } from "./harness.ts";
import { mulberry32 } from "../helpers/random.ts";

const BOTS = Number(process.env.BENCH_STATE_BOTS ?? 10_000);
const RATE = 100; // actions per second
const SECONDS = Number(process.env.BENCH_STATE_SECONDS ?? 10);
const WARMUP = 200;
const AIM_CPU_MS = 1;
const RUNS = Math.max(1, Number(process.env.BENCH_STATE_RUNS ?? 1));
const PROFILE = process.env.BENCH_PROFILE;
const APP = "app1";

const botName = (i: number) => `bot-${i}`;
const userId = (i: number) => String(1_000_000 + i);

/** Fills a store with 10,000 bots' state, through the store's API (key formats as the callers write them). */
function populate(store: Store, now: number): void {
  const appDay: number[] = [];
  for (let j = 0; j < 5_000; j++) appDay.push(now - 86_000_000 + j * 17_000);
  store.set("budget.windows", `POST /2/posts|a:${APP}|24h`, appDay);
  for (let i = 0; i < BOTS; i++) {
    const bot = botName(i);
    const uid = userId(i);
    store.set("auth:accounts", bot, {
      name: bot,
      user_id: uid,
      username: bot,
      token: `${uid}-token-0123456789abcdef`,
      token_secret: "secret-0123456789abcdef0123456789",
      method: "oauth1",
    });
    store.set("identity", bot, { userId: uid, username: bot, token: "fp0123456789abcdef" });
    store.set("status", bot, {
      bot,
      appId: APP,
      userId: uid,
      username: bot,
      plan: "pro",
      triggers: { mentions: { lastCheckAt: now - 5_000, lastEventAt: now - 60_000, events: 12 } },
      inbox: 0,
      updatedAt: now,
    });
    store.set("cursors", `${bot}:mentions`, { since_id: String(1_460_000_000_000_000_000n + BigInt(i)) });
    store.set(
      "cursors",
      `${bot}:followers`,
      Array.from({ length: 20 }, (_, k) => String(2_000_000 + k)),
    );
    for (let k = 0; k < 5; k++) {
      const target = String(1_450_000_000_000_000_000n + BigInt(i * 10 + k));
      store.set("ledger", `${bot}:reply:${target}`, {
        state: "done",
        kind: "reply",
        bot,
        target,
        result: { data: { id: String(1_455_000_000_000_000_000n + BigInt(i * 10 + k)) } },
        createdAt: now - 3_600_000,
        updatedAt: now - 3_600_000,
      });
    }
    store.set("budget.windows", `POST /2/posts|u:${uid}|15m`, [now - 600_000, now - 300_000, now - 60_000]);
    store.set("replies.recent", `${bot}:c${i}`, { key: `${bot}:reply:${i}`, at: now - 60_000, until: now + 840_000 });
    store.set(`kv:${bot}`, "greeted", 17);
    store.set(`kv:${bot}`, "lastTopic", "the weather");
  }
}

/** What the bench needs of a store: the Store, and what its writes cost. */
interface BenchStore extends Store {
  readonly writes: number;
  readonly bytesWritten: number;
}

/**
 * "Before": the store of earlier postbots, rebuilt here from the same parts: the state in
 * memory, and every write replaces the whole state in one file (coalesced: one write covers
 * every change made before it; atomic and fsynced), as src/store/file-store.ts did until
 * issue 9.
 */
async function openSingleFileStore(dir: string): Promise<BenchStore> {
  const path = join(dir, "state.json");
  const memory = createMemoryStore();
  const names = new Set<string>();
  const text = await readFile(path, "utf8").catch(() => undefined);
  if (text) {
    const { namespaces } = JSON.parse(text) as { namespaces: Record<string, Array<[string, unknown]>> };
    for (const [ns, pairs] of Object.entries(namespaces)) for (const [k, v] of pairs) memory.set(ns, k, v);
    for (const ns of Object.keys(namespaces)) names.add(ns);
  }
  let version = 0;
  let written = 0;
  let writes = 0;
  let bytesWritten = 0;
  let writing: Promise<void> | undefined;
  const write = async () => {
    while (written < version) {
      const target = version;
      const namespaces: Record<string, unknown> = {};
      for (const ns of names) namespaces[ns] = memory.entries(ns);
      const json = JSON.stringify({ version: 1, namespaces });
      await writeFileAtomic(path, json);
      writes++;
      bytesWritten += Buffer.byteLength(json);
      written = target;
    }
  };
  const flush = async () => {
    const wanted = version;
    while (written < wanted) await (writing ??= write().finally(() => (writing = undefined)));
  };
  return {
    get writes() {
      return writes;
    },
    get bytesWritten() {
      return bytesWritten;
    },
    get: (ns, key) => memory.get(ns, key),
    entries: (ns) => memory.entries(ns),
    set(ns, key, value) {
      names.add(ns);
      memory.set(ns, key, value);
      version++;
    },
    delete(ns, key) {
      memory.delete(ns, key);
      version++;
    },
    retain(ns, retention) {
      memory.retain!(ns, retention);
      version++;
    },
    flush,
    close: flush,
  };
}

interface Run {
  cpuPerAction: number;
  p50: number;
  p99: number;
  writes: number;
  bytesPerWrite: number;
  flushMs: number;
  flushBytes: number;
  populateMs: number;
  openMs: number;
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

/** A memory store that counts nothing written: the baseline, with the ledger off. */
async function openMemoryStore(): Promise<BenchStore> {
  return Object.assign(createMemoryStore(), { writes: 0, bytesWritten: 0 });
}

type Layout = "baseline" | "before" | "after";

/** The files the first run of a layout left after populating, copied by its later runs (writing 10,000 files takes a minute). */
const templates = new Map<Layout, { dir: string; populateMs: number }>();

async function run(layout: Layout, profile?: string): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), `postbot-state-bench-${layout}-`));
  let memory: Promise<BenchStore> | undefined;
  const openStore = (): Promise<BenchStore> =>
    layout === "before"
      ? openSingleFileStore(dir)
      : layout === "after"
        ? openFileStore(dir)
        : (memory ??= openMemoryStore());
  try {
    const now = systemClock.now();
    let store: BenchStore;
    let t0 = performance.now();
    const template = templates.get(layout);
    let populateMs = template?.populateMs ?? 0;
    if (template) {
      await cp(template.dir, dir, { recursive: true }); // a later run of the same layout starts from the first's files
    } else {
      store = await openStore();
      populate(store, now);
      await store.close();
      populateMs = performance.now() - t0;
      if (layout !== "baseline") {
        const copy = await mkdtemp(join(tmpdir(), `postbot-state-bench-${layout}-template-`));
        await cp(dir, copy, { recursive: true });
        templates.set(layout, { dir: copy, populateMs });
      }
    }
    t0 = performance.now();
    store = await openStore();
    const openMs = performance.now() - t0;

    const system = createActionSystem({ store, clock: systemClock, logger: silentLogger });
    let id = 0;
    const executor: Executor = async () => ({ result: { data: { id: String(++id), text: "ok" } } });
    // The bots that will act, picked ahead and their layers made now, as `bot start` makes them all at start.
    const random = mulberry32(42);
    const picks = Array.from({ length: WARMUP + RATE * SECONDS }, () => Math.floor(random() * BOTS));
    const layers = new Map<number, ActionLayer>();
    for (const i of picks) {
      if (!layers.has(i))
        layers.set(
          i,
          system.bot({
            bot: botName(i),
            account: { appId: APP, userId: userId(i), plan: "pro" },
            executor,
            ledger: layout !== "baseline",
          }),
        );
    }
    let post = 0;
    const act = async (latencies?: number[]) => {
      const i = picks[post]!;
      const target = String(1_470_000_000_000_000_000n + BigInt(post++));
      const start = performance.now();
      const outcome = await layers.get(i)!.reply(
        {
          id: target,
          author_id: "99",
          conversation_id: target,
          created_at: new Date(systemClock.now()).toISOString(),
        },
        `thanks! (${target})`,
      );
      if (outcome.status !== "sent")
        throw new Error(
          `reply ${target} of ${botName(i)}: ${outcome.status}${"reason" in outcome ? `: ${outcome.reason}` : ""}`,
        );
      latencies?.push(performance.now() - start);
    };

    /** `count` actions at RATE per second, each started on time whatever the others do. */
    const paced = async (count: number, latencies?: number[]) => {
      const began = performance.now();
      const all: Array<Promise<void>> = [];
      for (let n = 0; n < count; n++) {
        const wait = began + (n * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        all.push(act(latencies));
      }
      await Promise.all(all);
    };

    await paced(WARMUP);
    const latencies: number[] = [];
    const before = { writes: store.writes, bytes: store.bytesWritten };
    const session = profile ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 200 });
      await session.post("Profiler.start");
    }
    const cpu = process.cpuUsage();
    await paced(RATE * SECONDS, latencies);
    const used = process.cpuUsage(cpu);
    if (session) {
      const { profile: taken } = await session.post("Profiler.stop");
      await writeFile(profile!, JSON.stringify(taken));
      session.disconnect();
    }
    const writes = store.writes - before.writes;
    const bytes = store.bytesWritten - before.bytes;

    // One durable write on its own: what the ledger's `begin` waits for when nothing else is going on.
    await system.idle();
    await store.flush();
    const flushes: number[] = [];
    const bytes0 = store.bytesWritten;
    for (let k = 0; k < 20; k++) {
      const bot = botName(Math.floor(random() * BOTS));
      store.set("ledger", `${bot}:like:${k}`, {
        state: "pending",
        kind: "like",
        bot,
        target: String(k),
        createdAt: now,
        updatedAt: now,
      });
      const t = performance.now();
      await store.flush();
      flushes.push(performance.now() - t);
    }
    const flushBytes = (store.bytesWritten - bytes0) / flushes.length;
    await store.close();
    return {
      cpuPerAction: (used.user + used.system) / 1000 / latencies.length,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      writes,
      bytesPerWrite: bytes / Math.max(1, writes),
      flushMs: quantile(flushes, 0.5),
      flushBytes,
      populateMs,
      openMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const LABELS: Record<Layout, string> = {
  baseline: "baseline: memory store, ledger off",
  before: "one state.json rewritten (before)",
  after: "journal + a file per bot/account/app (after)",
};

const LAYOUTS = (process.env.BENCH_STATE_LAYOUTS ?? "before,after")
  .split(",")
  .filter((l): l is "before" | "after" => l === "before" || l === "after");

/** The run whose CPU per action is the median of `runs` (their latencies go with it). */
const medianRun = (runs: Run[]): Run =>
  [...runs].sort((a, b) => a.cpuPerAction - b.cpuPerAction)[Math.floor((runs.length - 1) / 2)]!;

const bench: Bench = {
  name: "state that scales",
  async run() {
    const rows: BenchRow[] = [];
    const all: Record<Layout, Run[]> = { baseline: [], before: [], after: [] };
    try {
      // Alternated, so a change in the machine's load falls on every layout alike.
      // Profiled runs come first and do not count (the profiler costs CPU too).
      if (PROFILE)
        for (const layout of ["baseline", ...LAYOUTS] as const)
          await run(layout, PROFILE.replace(/(\.cpuprofile)?$/, `-${layout}.cpuprofile`));
      for (let k = 0; k < RUNS; k++) {
        all.baseline.push(await run("baseline"));
        for (const layout of LAYOUTS) all[layout].push(await run(layout));
      }
    } finally {
      for (const { dir } of templates.values()) await rm(dir, { recursive: true, force: true });
      templates.clear();
    }
    const of = (layout: Layout) =>
      RUNS > 1 ? ` (median of ${RUNS}: ${all[layout].map((r) => r.cpuPerAction.toFixed(2)).join(", ")})` : "";
    const base = medianRun(all.baseline);
    rows.push({
      bench: `${BOTS.toLocaleString("en-US")} bots' state, ${RATE} replies/s for ${SECONDS} s: ${LABELS.baseline}${of("baseline")}`,
      "CPU per action (ms)": base.cpuPerAction,
      "latency p50 / p99 (ms)": `${base.p50.toFixed(1)} / ${base.p99.toFixed(1)}`,
    });
    for (const layout of LAYOUTS) {
      const r = medianRun(all[layout]);
      const overhead = r.cpuPerAction - base.cpuPerAction;
      rows.push({
        bench: `${BOTS.toLocaleString("en-US")} bots' state, ${RATE} replies/s for ${SECONDS} s: ${LABELS[layout]}${of(layout)}`,
        "CPU per action (ms)": r.cpuPerAction,
        "ledger + state overhead (ms)": overhead,
        aim: `≤ ${AIM_CPU_MS}`,
        verdict: overhead <= AIM_CPU_MS ? "ok" : "missed",
        "latency p50 / p99 (ms)": `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)}`,
        "durable writes": r.writes,
        "KB per write": r.bytesPerWrite / 1024,
        "one flush alone (ms)": r.flushMs,
        "KB per flush alone": r.flushBytes / 1024,
        "open (ms)": r.openMs,
        "first save (ms)": r.populateMs,
      });
    }
    return rows;
  },
};

export default bench;
