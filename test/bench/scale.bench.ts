/**
 * Scaling out (issue 13, "Figures to reach"): several postbot processes sharing one Redis.
 * A real redis-server is started on a free loopback port for the run (test/helpers/redis-server.ts).
 *
 * - Budget use with 3 processes on one app: three action systems (each with its own state,
 *   its own budget book and queue and its own Redis connection, as three `bot start`
 *   processes have) flood the in-process sandbox with replies for a simulated day, its
 *   clock moved. Sent divided by what the plan allows (aim 1.00) and 429s (aim 0), with the
 *   windows shared on Redis, and for comparison each process counting alone (before).
 * - Budget overhead per action on Redis at 100 actions/s: likes through the whole action
 *   layer (no-op executor, memory store) paced at 100/s on a running clock, mean time per
 *   call with the windows on Redis less the same with the windows in memory.
 * - Stream handoff, 10,000 bots over 3 processes: posts handed by the hub's process to the
 *   process running each bot at 100/s, from XADD to the bot's handler (the handoff alone).
 *
 * Rows whose parts are not on main yet say "not measured" and why, never a figure.
 * `BENCH_SCALE_BOTS` (default 10,000) and `BENCH_SCALE_SECONDS` (default 10) shrink the handoff run.
 */
import { clientExecutor } from "../../src/actions/client.ts";
import { createActionSystem, type ActionSystem } from "../../src/actions/layer.ts";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import { createClock } from "../../src/clock.ts";
import { limitsFor, WINDOW_MS, type Plan } from "../../src/limits/index.ts";
import { RedisWindows } from "../../src/limits/redis-windows.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/runtime/events.ts";
import { connectRedis, type Redis } from "../../src/store/redis/connect.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { HandoffReader, HandoffWriter } from "../../src/triggers/stream-handoff.ts";
import { inFlightCounter } from "../actions/helpers.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { startSandbox } from "../helpers/sandbox.ts";
import type { Bench, BenchRow } from "./harness.ts";

const DAY = 86_400_000;
const REPLY = "POST /2/posts" as const;
const PROCESSES = 3;

const verdict = (met: boolean) => (met ? "met" : "missed");
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** What the plan allows a flood of replies in one day from `users` accounts of one app. */
function allowedInDay(plan: Plan, users: number): number {
  const limits = limitsFor(REPLY, plan);
  if (limits === "unavailable") return 0;
  return Math.min(...limits.map((l) => l.max * Math.ceil(DAY / WINDOW_MS[l.per]) * (l.scope === "user" ? users : 1)));
}

/**
 * One simulated day of 3 processes × `botsEach` bots of one app answering a flood; `shared`:
 * windows on Redis, else each process counting alone (what a second process did before).
 */
async function floodDay(server: RedisServer, plan: Plan, botsEach: number, shared: boolean, run: number): Promise<{ sent: number; tooMany: number; allowed: number }> {
  const t = await startSandbox();
  const first = await t.account({ plan });
  const accounts = [first];
  while (accounts.length < PROCESSES * botsEach) accounts.push(await t.account({ app: first.app }));
  const crowd = await t.account({ app: first.app });
  const allowed = allowedInDay(plan, accounts.length);
  const perBot = Math.ceil((allowed * 1.15) / accounts.length) + 2; // more than the day allows
  // Every bot answers each of these once (an answer's idempotency key is its bot and its target).
  const targets: string[] = [];
  for (let i = 0; i < perBot; i++) targets.push((await t.admin.createPost({ author_id: crowd.user.id, text: `question ${i} for every bot` })).id);
  const requests = inFlightCounter();
  const connections: Redis[] = [];
  const clients: ApiClient[] = [];
  const systems: ActionSystem[] = [];
  const outcomes: Array<Promise<unknown>> = [];
  for (let p = 0; p < PROCESSES; p++) {
    const redis = await connectRedis(server.url);
    connections.push(redis);
    const system = createActionSystem({
      store: createMemoryStore(),
      clock: t.clock,
      logger: silentLogger,
      ...(shared ? { sharedWindows: new RedisWindows(redis, { prefix: `bench${run}:` }) } : {}),
    });
    systems.push(system);
    for (const account of accounts.slice(p * botsEach, (p + 1) * botsEach)) {
      const client = createClient({
        baseUrl: t.url,
        clock: t.clock,
        logger: silentLogger,
        auth: { consumer: { key: account.consumer_key, secret: account.consumer_secret }, user: { token: account.token, secret: account.token_secret } },
      });
      clients.push(client);
      const bot = system.bot({
        bot: `bot-${account.user.username}`,
        account: { appId: account.app.id, userId: account.user.id, plan },
        executor: requests.executor(clientExecutor(client)),
        ttlMs: { reply: 2 * DAY },
        replyCooldownMs: 0,
      });
      for (const [i, id] of targets.entries()) outcomes.push(bot.reply({ id }, `answer ${i} from ${account.user.username}`));
    }
  }
  const settle = async () => {
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((r) => setTimeout(r, 2));
      quiet = requests.inFlight() === 0 && systems.every((s) => s.queue.claimsInFlight() === 0) ? quiet + 1 : 0;
    }
  };
  // The clock moves a second at a time through the first minute (the flood's burst), then an hour at a time.
  await settle();
  for (let at = 0; at < DAY; ) {
    const step = at < 60_000 ? 1_000 : 3_600_000;
    await t.clock.advance(Math.min(step, DAY - 1 - at));
    at += step;
    await settle();
  }
  const byStatus = (await t.admin.stats()).routes[REPLY] ?? {};
  for (const s of systems) s.close();
  await Promise.allSettled(outcomes);
  for (const c of clients) await c.close();
  for (const r of connections) r.disconnect();
  await t.close();
  return { sent: byStatus["201"] ?? 0, tooMany: byStatus["429"] ?? 0, allowed };
}

/** Mean ms per like through the whole action layer at `rate`/s, windows on Redis or in memory. */
async function perAction(server: RedisServer, shared: boolean, rate: number, seconds: number): Promise<number> {
  const clock = createClock();
  const redis = await connectRedis(server.url);
  const system = createActionSystem({
    store: createMemoryStore(),
    clock,
    logger: silentLogger,
    ...(shared ? { sharedWindows: new RedisWindows(redis, { prefix: `overhead${Date.now()}:` }) } : {}),
  });
  const bot = system.bot({
    bot: "bench",
    account: { appId: "bench-app", userId: "1", plan: "pro" },
    executor: async () => ({ result: { data: { liked: true } } }),
  });
  const times: number[] = [];
  const total = rate * seconds;
  const started = performance.now();
  const runs: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    runs.push(bot.like(`post-${i}`).then(() => void times.push(performance.now() - t0)));
  }
  await Promise.all(runs);
  system.close();
  redis.disconnect();
  return times.reduce((a, b) => a + b, 0) / times.length;
}

/** Posts handed to `bots` bots spread over 3 readers at `rate`/s for `seconds`: ms from XADD to the handler. */
async function handoff(server: RedisServer, bots: number, rate: number, seconds: number): Promise<{ p50: number; p99: number; lost: number; twice: number }> {
  const clock = createClock();
  const appId = `handoff${Date.now()}`;
  const sentAt = new Map<string, number>();
  const handled = new Map<string, number>();
  const latencies: number[] = [];
  const connections: Redis[] = [];
  const readers: HandoffReader[] = [];
  const names = Array.from({ length: bots }, (_, i) => `bot${i}`);
  for (let p = 0; p < PROCESSES; p++) {
    const redis = await connectRedis(server.url);
    connections.push(redis);
    const reader = new HandoffReader({
      redis,
      appId,
      consumer: `proc-${p}`,
      clock,
      log: silentLogger,
      handle: async (_bot, entry) => {
        for (const e of entry.events) {
          handled.set(e.id, (handled.get(e.id) ?? 0) + 1);
          const at = sentAt.get(e.id);
          if (at !== undefined && handled.get(e.id) === 1) latencies.push(performance.now() - at);
        }
      },
    });
    reader.start();
    await reader.own(names.filter((_, i) => i % PROCESSES === p));
    readers.push(reader);
  }
  const hub = await connectRedis(server.url);
  connections.push(hub);
  const writer = new HandoffWriter(hub, appId);
  await new Promise((r) => setTimeout(r, 1_500)); // the readers' bells are listening
  const total = rate * seconds;
  const started = performance.now();
  const sends: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const id = `mention:${i}`;
    const event = { kind: "mention", id, post: { id: String(i), text: "@bot hi", author_id: "9", created_at: new Date().toISOString(), conversation_id: String(i), edit_history_post_ids: [String(i)] }, author: { id: "9", name: "c", username: "c" } } as unknown as BotEvent;
    sentAt.set(id, performance.now());
    sends.push(writer.send(names[Math.floor(Math.random() * bots)]!, { kind: "mentions", events: [event] }));
  }
  await Promise.all(sends);
  const deadline = Date.now() + 30_000;
  while (handled.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const r of readers) await r.close();
  for (const c of connections) c.disconnect();
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), lost: total - handled.size, twice: [...handled.values()].filter((n) => n > 1).length };
}

const bench: Bench = {
  name: "scaling out (Redis)",
  async run() {
    const rows: BenchRow[] = [];
    const server = await startRedisServer();
    try {
      let run = 0;
      for (const [plan, botsEach] of [
        ["basic", 6],
        ["free", 1],
      ] as const) {
        for (const shared of [true, false]) {
          const { sent, tooMany, allowed } = await floodDay(server, plan, botsEach, shared, ++run);
          rows.push({
            bench: `3 processes, one app, a flood of replies (${plan}, ${PROCESSES * botsEach} bots, one day)`,
            windows: shared ? "shared on Redis" : "each process alone (before)",
            "plan allows": allowed,
            sent,
            "budget use": (sent / allowed).toFixed(2),
            "429s": tooMany,
            aim: "1.00 and 0",
            verdict: shared ? verdict(sent === allowed && tooMany === 0) : "",
          });
        }
      }

      const rate = 100;
      const seconds = Number(process.env.BENCH_SCALE_SECONDS ?? 10);
      const inMemory = await perAction(server, false, rate, seconds);
      const onRedis = await perAction(server, true, rate, seconds);
      rows.push({ bench: "budget overhead per action on Redis, 100 actions/s", measured: `${onRedis.toFixed(3)} ms per like with windows on Redis, ${inMemory.toFixed(3)} ms in memory`, figure: `${(onRedis - inMemory).toFixed(3)} ms`, aim: "≤ 1 ms for ledger and budget together", verdict: onRedis - inMemory <= 1 ? "met (budget part)" : "missed" });
      rows.push({ bench: "ledger + budget overhead per action on Redis, 100 actions/s", figure: "not measured: the Redis-backed state store (ledger on Redis) is not on main yet", aim: "≤ 1 ms", verdict: "" });

      const bots = Number(process.env.BENCH_SCALE_BOTS ?? 10_000);
      const h = await handoff(server, bots, rate, seconds);
      rows.push({
        bench: `stream handoff alone, ${bots.toLocaleString("en-US")} bots over 3 processes, ${rate} posts/s`,
        measured: `p50 ${h.p50.toFixed(1)} ms, lost ${h.lost}, handed twice ${h.twice}`,
        figure: `p99 ${h.p99.toFixed(1)} ms`,
        aim: "p99 ≤ 250 ms (whole mention → reply)",
        verdict: verdict(h.p99 <= 250 && h.lost === 0 && h.twice === 0),
      });
      rows.push({ bench: "10,000 bots over 3 processes, mention → reply through the stream", figure: "not measured: the runtime does not yet run the handoff across processes (bot leases not on main)", aim: "p99 ≤ 250 ms", verdict: "" });
      rows.push({ bench: "kill -9 of one of 3 processes during a flood of mentions", figure: "not measured: needs `bot start --state redis://` with bot leases and takeover (not on main yet)", aim: "0 lost, 0 twice, answering again ≤ 15 s", verdict: "" });
      rows.push({ bench: "Redis stopped for 10 s mid-flood", figure: "not measured: needs `bot start --state redis://` (not on main yet)", aim: "0 lost, 0 doubled, resumed ≤ 5 s after", verdict: "" });
    } finally {
      await server.close();
    }
    return rows;
  },
};

export default bench;
