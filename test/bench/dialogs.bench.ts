/**
 * Dialogs and sessions, each with its aim beside it:
 *
 * - an answer → the next question, a dialog in a thread, pro, through the stream: the
 *   quiz of issue 22 (`dialog`) on an in-process sandbox on the real clock; from the sandbox
 *   creating the user's answer to it creating the bot's next question. That includes the
 *   service's part (the stream line to the bot, the question's request on loopback), so the
 *   runtime's own time is less than what is shown. A row beside it times a plain reply (a
 *   mention answered by `reply`, no dialog) on the same path, for comparison: the
 *   service's part and the reply path without the dialog;
 * - 10,000 open dialogs in one process: RSS (after a full GC) of 100 bots, each with
 *   100 users waiting for an answer (records in the file store, a timer each), against the
 *   same bots idle, in a process of its own (./dialogs-child.ts);
 * - a session's load and save per event, 10,000 bots' state: the scope of an event from a
 *   user reads the user's session from the store and sets the changed one back (what rides
 *   with the event's first action's write: no write of its own). File store: 10,000 bots with
 *   3 users' sessions each and their ledgers. Redis: the same in memory (the Redis store
 *   reads and writes its memory the same way), and a row with a write of its own per event
 *   (an event that sent nothing: one fenced round trip), which is not the common case.
 *
 * `BENCH_CONV_QUIZZES` (default 200) sets how many quizzes the latency row takes (two answers
 * each); `BENCH_CONV_EVENTS` (default 20,000) the events of the session rows.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import dialog from "../../plugins/dialog.ts";
import reply from "../../plugins/reply.ts";
import { createClock } from "../../src/clock.ts";
import { DurableScope } from "../../src/plugins/dialogs/durable-scope.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import type { SandboxPost } from "../../src/sandbox/model/index.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import type { Store } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { QUIZ } from "../fixtures/quiz-bot.ts";
import { startRedisServer } from "../helpers/redis-server.ts";
import type { Bench, BenchRow } from "./harness.ts";

const QUIZZES = Number(process.env.BENCH_CONV_QUIZZES ?? 200);
const EVENTS = Number(process.env.BENCH_CONV_EVENTS ?? 20_000);
const BOTS = 10_000;
const CHILD = new URL("./dialogs-child.ts", import.meta.url).pathname;

const verdict = (value: number, aim: number) => (Number.isFinite(value) && value <= aim ? "met" : "missed");
const say = (what: string) => process.stderr.write(`  dialogs: ${what}\n`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** When the next post of one of the bots is created (`performance.now()`), one wait at a time. */
async function botPosts(bed: TestBed, sandbox: Sandbox, names: readonly string[]) {
  const botIds = new Set(await Promise.all(names.map(async (n) => (await bed.user(n)).id)));
  let waiting: ((at: number) => void) | undefined;
  const onPost = (post: SandboxPost) => {
    if (botIds.has(post.author_id)) waiting?.(performance.now());
  };
  sandbox.context.events.on("post:created", onPost);
  return {
    next: () => new Promise<number>((resolve) => (waiting = resolve)),
    off: () => sandbox.context.events.off("post:created", onPost),
  };
}

/**
 * The quizzes of one bot in the latency row: its three posts each stay within the pro user
 * window of `POST /2/posts` (100 per 15 minutes), so no answer waits for the budget.
 */
const QUIZZES_PER_BOT = 10;

/** Answer → next question through the stream, in ms: the sandbox's creation times of the two posts. */
async function answerToQuestion(): Promise<BenchRow[]> {
  const sandbox = await createSandbox({ clock: createClock() });
  const botCount = Math.ceil(QUIZZES / QUIZZES_PER_BOT);
  const names = Array.from({ length: botCount }, (_, i) => `quiz${i}`);
  // Mentions only: the DMs poll has no part in a dialog in a thread.
  const bots = names.map((name) => ({ ...QUIZ, name, triggers: { mentions: {} } }));
  const bed = await createTestBed({ bots, plugins: { dialog }, sandbox });
  try {
    const { next, off } = await botPosts(bed, sandbox, names);
    const samples: number[] = [];
    for (let q = 0; q < QUIZZES; q++) {
      const name = names[q % botCount]!;
      const user = await bed.user(`taker${q}`);
      let asked = next();
      await bed.post(user, `@${name} quiz`);
      await asked;
      for (const answer of ["Ann", "blue"]) {
        asked = next();
        const sent = performance.now();
        await bed.answer(user, name, answer);
        samples.push((await asked) - sent);
      }
    }
    off();
    samples.sort((a, b) => a - b);
    const p50 = percentile(samples, 0.5);
    const p99 = percentile(samples, 0.99);
    return [
      {
        bench: `answer → next question, thread, pro, stream (${samples.length} answers, ${botCount} bots)`,
        value: `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
        aim: "p50 ≤ 10 ms, p99 ≤ 50 ms (service excluded)",
        verdict: p50 <= 10 && p99 <= 50 ? "met" : "missed",
      },
    ];
  } finally {
    await bed.close();
    await sandbox.close();
  }
}

/**
 * The same path for a plain reply (a mention answered by the `reply` plugin, no dialog):
 * what the service and the runtime's reply path take without the dialog; the latency row
 * minus this is the dialog's own share.
 */
async function plainReply(): Promise<BenchRow[]> {
  const sandbox = await createSandbox({ clock: createClock() });
  const botCount = Math.ceil((2 * QUIZZES) / (3 * QUIZZES_PER_BOT));
  const names = Array.from({ length: botCount }, (_, i) => `echo${i}`);
  const bots = names.map((name) => ({
    name,
    plan: "pro" as const,
    triggers: { mentions: {} },
    plugins: { reply: { text: "@{author.username} noted: {post.body}" } },
  }));
  const bed = await createTestBed({ bots, plugins: { reply }, sandbox });
  try {
    const { next, off } = await botPosts(bed, sandbox, names);
    const samples: number[] = [];
    for (let q = 0; q < 2 * QUIZZES; q++) {
      const user = await bed.user(`asker${q}`);
      const answered = next();
      const sent = performance.now();
      await bed.post(user, `@${names[q % botCount]} hello ${q}`);
      samples.push((await answered) - sent);
    }
    off();
    samples.sort((a, b) => a - b);
    return [
      {
        bench: `  for comparison: a plain reply on the same path, no dialog (${samples.length} mentions)`,
        value: `p50 ${percentile(samples, 0.5).toFixed(1)} ms, p99 ${percentile(samples, 0.99).toFixed(1)} ms`,
        aim: "(the service and the reply path; no aim)",
        verdict: "",
      },
    ];
  } finally {
    await bed.close();
    await sandbox.close();
  }
}

/** RSS of 10,000 open dialogs over the same bots idle, in a child process. */
async function openDialogs(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-bench-conv-"));
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", CHILD, dir, "100", "100"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let text = "";
      child.stdout.on("data", (d: Buffer) => (text += d.toString()));
      child.once("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited ${code}`))));
    });
    const { idleMb, openMb, open, timers } = JSON.parse(out.trim()) as {
      idleMb: number;
      openMb: number;
      open: number;
      timers: number;
    };
    const more = openMb - idleMb;
    return [
      {
        bench: `${open.toLocaleString("en-US")} open dialogs (100 bots × 100 users, ${timers.toLocaleString("en-US")} timers)`,
        value: `+${more.toFixed(1)} MB RSS (${idleMb.toFixed(0)} → ${openMb.toFixed(0)} MB)`,
        aim: "≤ 100 MB more than the same bots idle",
        verdict: verdict(more, 100),
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 10,000 bots' state: 3 users' sessions each, 5 finished ledger entries each. */
function populate(store: Store, now: number): void {
  for (let b = 0; b < BOTS; b++) {
    const bot = `bot-${b}`;
    for (let u = 0; u < 3; u++)
      store.set(`session:${bot}`, `u${u}`, {
        v: { dialog: { name: `User ${u}`, colour: "blue" }, counter: { visits: u } },
        by: `mention:${b}${u}`,
        was: null,
        at: now,
      });
    for (let l = 0; l < 5; l++)
      store.set("ledger", `${bot}:reply:${b}${l}`, {
        state: "done",
        kind: "reply",
        bot,
        target: `${b}${l}`,
        result: { data: { id: `${b}${l}` } },
        createdAt: now,
        updatedAt: now,
      });
  }
}

/** Load + change + save of one user's session per event, `events` times; µs per event. */
async function sessionEvents(store: Store, events: number, write?: (bot: string, user: string) => Promise<void>) {
  const clock = createClock({ frozen: true, start: Date.now() });
  const run = async (n: number, offset: number) => {
    for (let i = 0; i < n; i++) {
      const b = (i * 7919 + offset) % BOTS;
      const bot = `bot-${b}`;
      const user = `u${i % 3}`;
      const scope = new DurableScope({
        store,
        clock,
        bot,
        id: `mention:${offset}:${i}`,
        user,
        session: { maxBytes: 8192 },
      });
      const session = scope.session("counter");
      session.visits = ((session.visits as number | undefined) ?? 0) + 1;
      scope.finish();
      if (write) await write(bot, user);
    }
  };
  await run(Math.min(2_000, events), 1); // warm up
  const started = performance.now();
  await run(events, 2);
  return ((performance.now() - started) * 1000) / events;
}

async function sessionLoadSave(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = await mkdtemp(join(tmpdir(), "postbot-bench-sessions-"));
  try {
    const store = await openFileStore(dir);
    populate(store, Date.now());
    await store.flush();
    const before = store.bytesWritten;
    const us = await sessionEvents(store, EVENTS);
    await store.flush();
    const bytes = (store.bytesWritten - before) / EVENTS;
    rows.push({
      bench: "session load + save per event, 10,000 bots' state, file store",
      value: `${(us / 1000).toFixed(3)} ms (and ${Math.round(bytes)} bytes in the action's journal line)`,
      aim: "≤ 0.2 ms",
      verdict: verdict(us / 1000, 0.2),
    });
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const server = await startRedisServer();
  try {
    const redis = await connectRedis(server.url);
    const leases = new Leases(redis);
    const held = new Map<string, Awaited<ReturnType<Leases["claim"]>>>();
    const store = await openRedisStore({
      redis,
      fencing: { leases, current: async (bot) => held.get(bot), refused: () => {} },
    });
    // The bots this process holds: their leases, then their state, written once.
    for (let b = 0; b < BOTS; b++) held.set(`bot-${b}`, await leases.claim(`bot:bot-${b}`, "bench", 600_000));
    for (let b = 0; b < BOTS; b++) await store.hold(`bot-${b}`);
    populate(store, Date.now());
    await store.flush();
    const us = await sessionEvents(store, EVENTS);
    await store.flush();
    rows.push({
      bench: "session load + save per event, 10,000 bots' state, Redis",
      value: `${(us / 1000).toFixed(3)} ms (rides the action's fenced script)`,
      aim: "≤ 1 ms",
      verdict: verdict(us / 1000, 1),
    });
    const own = await sessionEvents(store, Math.min(EVENTS, 5_000), (bot, user) =>
      store.flushFor(`session:${bot}`, user),
    );
    rows.push({
      bench: "  the same, with a write of its own per event (an event that sent nothing)",
      value: `${(own / 1000).toFixed(3)} ms`,
      aim: "≤ 1 ms",
      verdict: verdict(own / 1000, 1),
    });
    await store.close();
  } finally {
    await server.close();
  }
  return rows;
}

const bench: Bench = {
  name: "dialogs",
  async run() {
    const rows: BenchRow[] = [];
    say("answer → next question through the stream...");
    rows.push(...(await answerToQuestion()));
    rows.push(...(await plainReply()));
    say("10,000 open dialogs...");
    rows.push(...(await openDialogs()));
    say("session load + save...");
    rows.push(...(await sessionLoadSave()));
    return rows;
  },
};
export default bench;
