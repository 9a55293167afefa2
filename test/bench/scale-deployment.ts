/**
 * A deployment for the scaling benches: real `bot start --state redis://…` processes (three
 * by default) sharing one redis-server, answering mentions of pro bots through the app's
 * stream, against a sandbox in the bench process on real time. The bench creates mentions
 * and reads the replies from the sandbox's world: a reply's latency is its `created_at` less
 * its mention's, both stamped by the sandbox's clock.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fingerprint } from "../../src/api/auth/fingerprint.ts";
import { createClock } from "../../src/clock.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { testBotConfig } from "../../src/testing.ts";
import { handoffState } from "../../src/redis/stream-handoff.ts";
import { lineReader, spawnBot, type BotChild } from "../helpers/cli.ts";
import type { RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Process {
  child: BotChild;
  out: ReturnType<typeof lineReader>;
  err: ReturnType<typeof lineReader>;
}

export interface Deployment {
  sandbox: Sandbox;
  redis: Redis;
  names: string[];
  appId: string;
  processes: Process[];
  /** Starts one more `bot start` process (resolves once it logged "all bots started"). */
  start(): Promise<Process>;
  /** Mentions `bot` as the crowd; resolves with the post id. */
  mention(bot: string, text: string): Promise<string>;
  /** The bots' replies: mention id → the bots that answered it, with the reply's created_at. */
  replies(): Map<string, Array<{ bot: string; at: number }>>;
  /** When a post was created (sandbox clock, ms). */
  createdAt(id: string): number;
  /** Which process (pid) holds each bot now. */
  owners(): Promise<Map<string, number | undefined>>;
  close(): Promise<void>;
}

/** Provisions `bots` pro bots in a fresh sandbox, writes their files and starts `processes` processes. */
export async function deploy(
  server: RedisServer,
  bots: number,
  processes: number,
  say: (what: string) => void,
): Promise<Deployment> {
  const sandbox = await createSandbox({ clock: createClock() });
  const names = Array.from({ length: bots }, (_, i) => `sb${i}`);
  const hosted = await provisionBots(
    sandbox,
    names.map((name) => testBotConfig({ name, plan: "pro", triggers: { mentions: {} }, plugins: {} }, {})),
  );
  const dir = await mkdtemp(join(tmpdir(), "postbot-scale-bench-"));
  await mkdir(join(dir, "bots"));
  // Tokens in the .env next to the bots directory (10,000 bots' tokens do not fit a process's environment).
  const env = hosted
    .map(
      (h) =>
        `${h.config.name.toUpperCase()}_TOKEN=${h.token.token}\n${h.config.name.toUpperCase()}_SECRET=${h.token.secret}\n`,
    )
    .join("");
  await writeFile(join(dir, ".env"), env);
  await chmod(join(dir, ".env"), 0o600);
  for (const h of hosted) {
    const up = h.config.name.toUpperCase();
    await writeFile(
      join(dir, "bots", `${h.config.name}.yaml`),
      `name: ${h.config.name}\nplan: pro\naccount:\n  token: \${${up}_TOKEN}\n  token_secret: \${${up}_SECRET}\ntriggers: { mentions: {} }\nplugins: { reply: { text: "hi @{author.username}: {post.body}" } }\n`,
    );
  }
  say(`${bots} bots provisioned and written`);
  const redis = await connectRedis(server.url);
  // BENCH_SCALE_LOG_LEVEL (default warn): what the processes log (debug traces the handoff).
  // BENCH_PROFILE=DIR: each process writes a CPU profile there when it stops (see close()).
  const nodeArgs = process.env.BENCH_PROFILE
    ? ["--cpu-prof", "--cpu-prof-interval=1000", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const childEnv = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: hosted[0]!.app.key,
    POSTBOT_CONSUMER_SECRET: hosted[0]!.app.secret,
    POSTBOT_STATE: server.url,
    POSTBOT_LOG_LEVEL: process.env.BENCH_SCALE_LOG_LEVEL ?? "warn",
  };
  const procs: Process[] = [];
  const start = async () => {
    const child = spawnBot(["start", "--bots", join(dir, "bots"), "--plugins", "plugins"], { env: childEnv, nodeArgs });
    const out = lineReader(child.stdout);
    const err = lineReader(child.stderr);
    procs.push({ child, out, err });
    return { child, out, err };
  };
  for (let i = 0; i < processes; i++) await start();
  const crowd = await sandbox.admin.createUser({ username: "crowd", name: "The Crowd" });
  const userIds = new Map(hosted.map((h) => [h.user.id, h.config.name]));
  const world = () => sandbox.context.data.world;
  const owners = () => leaseHolders(redis, names);
  // The processes name the app of POSTBOT_CONSUMER_KEY as the runtime does.
  const appId = fingerprint(hosted[0]!.app.key);
  // Every bot held, every bot in the app's directory, and the app's stream connected after its last restart.
  await until(
    "every bot held by a process",
    async () => [...(await owners()).values()].every((pid) => pid !== undefined),
    600_000,
    200,
  );
  await until(
    "every bot in the app's stream directory",
    async () => (await redis.hlen(`postbot:handoff:${appId}:bots`)) === names.length,
    600_000,
    200,
  );
  await sleep(18_000);
  await until(
    "the app's stream connected",
    async () => (await handoffState(redis, appId)) === "connected",
    120_000,
    200,
  );
  say(`${processes} processes run the ${bots} bots; the stream is connected`);
  return {
    sandbox,
    redis,
    names,
    appId,
    processes: procs,
    start: async () => {
      const p = await start();
      await p.out.waitFor(/all bots started/).catch(() => undefined);
      return p;
    },
    mention: async (bot, text) => (await sandbox.admin.createPost({ author_id: crowd.id, text: `@${bot} ${text}` })).id,
    replies: () => repliesByBot(world().posts, userIds),
    createdAt: (id) => world().posts[id]!.created_at,
    owners,
    async close() {
      // BENCH_SCALE_LOG=DIR keeps what the processes logged (warnings and errors), one file each.
      // The logs are a side output: one that cannot be written (a full disk) never keeps the
      // processes below from being stopped (it left them running once, after the bench ended).
      if (process.env.BENCH_SCALE_LOG) {
        try {
          // Made when missing: a directory not made beforehand lost the whole row (ENOENT) at its end.
          await mkdir(process.env.BENCH_SCALE_LOG, { recursive: true });
          for (const [i, p] of procs.entries())
            await writeFile(
              join(process.env.BENCH_SCALE_LOG, `process-${p.child.pid ?? i}.log`),
              `${p.out.lines.join("\n")}\n${p.err.lines.join("\n")}\n`,
            );
        } catch (err) {
          process.stderr.write(`  scaling out: the processes' logs not kept (${(err as Error).message})\n`);
        }
      }
      const running = (p: Process) => p.child.exitCode === null && p.child.signalCode === null;
      // A profiled process writes its profile only when it exits by itself: stop it (bounded) first.
      if (process.env.BENCH_PROFILE) {
        for (const p of procs) if (running(p)) p.child.kill("SIGTERM");
        await until("the profiled processes stopped", () => procs.every((p) => !running(p)), 120_000, 200).catch(
          () => undefined,
        );
      }
      for (const p of procs) if (running(p)) p.child.kill("SIGKILL");
      await Promise.all(
        procs.map((p) =>
          p.child.exitCode !== null || p.child.signalCode !== null
            ? undefined
            : new Promise((r) => p.child.once("exit", r)),
        ),
      );
      redis.disconnect();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Mentions random bots at `rate` per second for `seconds`; `at(second)` runs at each whole second. Resolves with the mentions (id, bot). */
export async function flood(
  d: Deployment,
  rate: number,
  seconds: number,
  at?: (second: number) => Promise<void> | void,
): Promise<Array<{ id: string; bot: string }>> {
  const made: Array<{ id: string; bot: string }> = [];
  const started = Date.now();
  for (let i = 0; i < rate * seconds; i++) {
    if (i % rate === 0) await at?.(i / rate);
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await sleep(wait);
    const bot = d.names[Math.floor(Math.random() * d.names.length)]!;
    made.push({ id: await d.mention(bot, `question ${i}`), bot });
  }
  return made;
}

/**
 * BENCH_PROFILE=DIR: profiles this process (the sandbox, the bench's clients) from now until
 * the returned stop, writing `DIR/bench-<pid>.cpuprofile` and `DIR/window-<pid>.json` (the
 * times of `marks`, in the profiles' clock: microseconds of CLOCK_MONOTONIC, as the
 * processes' own `--cpu-prof` profiles, so their samples can be cut to the same window).
 */
export async function profileBench(
  redis: Redis,
  say: (what: string) => void,
): Promise<{ mark(name: string): void; stop(): Promise<void> }> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return { mark() {}, async stop() {} };
  // Redis's side: calls and time per command over the same window.
  const commandStats = async () => {
    const stats = new Map<string, { calls: number; usec: number }>();
    for (const line of (await redis.info("commandstats")).split("\n")) {
      const m = /^cmdstat_(\w+):calls=(\d+),usec=(\d+)/.exec(line.trim());
      if (m) stats.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
    }
    return stats;
  };
  const before = await commandStats();
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 1000 });
  await session.post("Profiler.start");
  const marks: Record<string, number> = {};
  const mark = (name: string) => void (marks[name] = Number(process.hrtime.bigint() / 1000n));
  mark("start");
  return {
    mark,
    async stop() {
      mark("stop");
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      await writeFile(join(dir, `bench-${process.pid}.cpuprofile`), JSON.stringify(profile));
      await writeFile(join(dir, `window-${process.pid}.json`), JSON.stringify(marks));
      const after = await commandStats();
      const seconds = (marks.stop! - marks.start!) / 1e6;
      const used = [...after]
        .map(([cmd, a]) => ({
          cmd,
          calls: a.calls - (before.get(cmd)?.calls ?? 0),
          usec: a.usec - (before.get(cmd)?.usec ?? 0),
        }))
        .filter((c) => c.calls > 0)
        .sort((a, b) => b.usec - a.usec);
      say(
        `Redis over the ${seconds.toFixed(0)} s profiled: ${used
          .slice(0, 12)
          .map((c) => `${c.cmd} ${c.calls} calls ${(c.usec / 1000).toFixed(0)} ms`)
          .join(
            ", ",
          )}; busy ${((used.reduce((t, c) => t + c.usec, 0) / 1e6 / seconds) * 100).toFixed(0)}% of one core in commands`,
      );
    },
  };
}

/**
 * Where each answered mention's time went, from what Redis kept: created (the sandbox) →
 * handed over (the first bell the hub rang for its bot after it, i.e. its XADD) → its reply
 * action created (the ledger entry's `createdAt`: the bot's handler ran) → the reply posted
 * (the sandbox). The p50 / p99 / max of each stage (ms), to say what the tail is made of.
 */
export async function stages(d: Deployment, mentions: Array<{ id: string; bot: string }>): Promise<string> {
  const replies = d.replies();
  const bell = (await d.redis.xrange(`postbot:handoff:${d.appId}:bell`, "-", "+")) as Array<[string, string[]]>;
  const rang = new Map<string, number[]>();
  for (const [id, f] of bell)
    if (f[0] === "bot") rang.set(f[1]!, [...(rang.get(f[1]!) ?? []), Number(id.split("-")[0])]);
  const parts: Record<string, number[]> = { "to the handoff": [], "handoff to handler": [], "handler to reply": [] };
  for (const m of mentions) {
    const reply = replies.get(m.id)?.[0];
    if (!reply) continue;
    const created = d.createdAt(m.id);
    const handed = (rang.get(m.bot) ?? []).find((t) => t >= created - 5);
    const raw = await d.redis.hget(`postbot:state:bots/${m.bot}`, `ledger\u0000${m.bot}:reply:${m.id}`);
    const acted = raw ? (JSON.parse(raw) as [number, { createdAt: number }])[1].createdAt : undefined;
    if (handed === undefined || acted === undefined) continue;
    parts["to the handoff"]!.push(handed - created);
    parts["handoff to handler"]!.push(acted - handed);
    parts["handler to reply"]!.push(reply.at - acted);
  }
  const q = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
  return Object.entries(parts)
    .map(([name, xs]) => `${name} p50 ${q(xs, 50)} p99 ${q(xs, 99)} max ${Math.max(...xs)} ms (${xs.length})`)
    .join("; ");
}

/** Each bot's lease as Redis holds it now (`token|owner`, null: free), read 1,000 keys at a time. */
export async function leaseValues(d: Deployment): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (let i = 0; i < d.names.length; i += 1_000) {
    const some = d.names.slice(i, i + 1_000);
    const values = await d.redis.mget(some.map((n) => `postbot:lease:bot:${n}`));
    some.forEach((n, j) => out.set(n, values[j] ?? null));
  }
  return out;
}

/**
 * What became of each mention never answered, for the bench's report: the bot's lease now (its
 * fencing token counts the claims since the deployment started, `leasesAtStart`), the bells
 * the hub rang for the bot (when it handed posts over), the bot's handoff stream (entries left,
 * pending ones and their consumer), its state in Redis (inbox, cursor, ledger lines naming the
 * mention) and what the processes logged about the bot.
 */
export async function traceUnanswered(
  d: Deployment,
  mentions: Array<{ id: string; bot: string }>,
  leasesAtStart: Map<string, string | null>,
  floodStart: number,
): Promise<string[]> {
  const replies = d.replies();
  const out: string[] = [];
  const bell = (await d.redis.xrange(`postbot:handoff:${d.appId}:bell`, "-", "+")) as Array<[string, string[]]>;
  const controls = bell
    .filter(([, f]) => f[0] === "control")
    .map(([id, f]) => `${f[1]}@${Number(id.split("-")[0]) - floodStart}ms`);
  out.push(`hub controls on the bell (ms after the flood started): ${controls.join(", ") || "none"}`);
  const leasesNow = await leaseValues(d);
  const moved = d.names.filter((n) => leasesNow.get(n)?.split("|")[0] !== leasesAtStart.get(n)?.split("|")[0]).length;
  out.push(`bots whose lease changed hands (or was claimed again) since the flood started: ${moved}`);
  const stats = d.sandbox.context.data.meter.stats;
  out.push(
    `sandbox requests: ${JSON.stringify(Object.fromEntries(Object.entries(stats).filter(([r]) => /mentions|POST \/2\/posts$|stream/.test(r))))}`,
  );
  for (const m of mentions.filter((x) => !replies.has(x.id))) {
    const at = d.createdAt(m.id) - floodStart;
    const key = `postbot:handoff:${d.appId}:bot:${m.bot}`;
    const lease = leasesNow.get(m.bot);
    const rang = bell
      .filter(([, f]) => f[0] === "bot" && f[1] === m.bot)
      .map(([id]) => Number(id.split("-")[0]) - floodStart);
    const entries = (await d.redis.xrange(key, "-", "+")) as Array<[string, string[]]>;
    const pending = await d.redis.xpending(key, "handlers", "-", "+", 100).catch((e: Error) => e.message);
    const groups = await d.redis.xinfo("GROUPS", key).catch((e: Error) => e.message);
    const state = await d.redis.hgetall(`postbot:state:bots/${m.bot}`);
    const fields = Object.entries(state).filter(
      ([f, v]) => f.includes(m.id) || v.includes(m.id) || f.startsWith("cursors"),
    );
    const others = mentions
      .filter((x) => x.bot === m.bot && x.id !== m.id)
      .map((x) => `${x.id}@${d.createdAt(x.id) - floodStart}ms${replies.has(x.id) ? " answered" : " unanswered"}`);
    out.push(`mention ${m.id} of ${m.bot} at ${at} ms: not answered`);
    out.push(`  lease at start ${leasesAtStart.get(m.bot)} now ${lease}`);
    out.push(
      `  bells for ${m.bot} at ${rang.join(", ") || "none"} ms; other mentions of it: ${others.join(", ") || "none"}`,
    );
    out.push(
      `  stream entries ${JSON.stringify(entries.map(([id, f]) => [id, (f[1] ?? "").slice(0, 120)]))}; pending ${JSON.stringify(pending)}; groups ${JSON.stringify(groups)}`,
    );
    out.push(`  state ${JSON.stringify(fields).slice(0, 1500)}`);
    for (const p of d.processes) {
      const said = [...p.out.lines, ...p.err.lines].filter(
        (l) => l.includes(`"${m.bot}"`) || l.includes(` ${m.bot} `) || l.includes(m.id),
      );
      if (said.length > 0) out.push(`  process ${p.child.pid}: ${said.slice(0, 20).join("\n    ")}`);
    }
  }
  return out;
}

/** Each post the hosted bots answered → who answered it and when; `userIds` maps a bot's user id to its name. */
export function repliesByBot(
  posts: Record<string, { author_id: string; in_reply_to_post_id?: string; created_at: number }>,
  userIds: ReadonlyMap<string, string>,
): Map<string, Array<{ bot: string; at: number }>> {
  const by = new Map<string, Array<{ bot: string; at: number }>>();
  for (const p of Object.values(posts)) {
    const bot = userIds.get(p.author_id);
    if (!bot || !p.in_reply_to_post_id) continue;
    by.set(p.in_reply_to_post_id, [...(by.get(p.in_reply_to_post_id) ?? []), { bot, at: p.created_at }]);
  }
  return by;
}

/** Lost (never answered), answered twice or more, and by a wrong bot, once the answers stop coming (bounded). */
export async function tally(
  d: Pick<Deployment, "replies">,
  mentions: Array<{ id: string; bot: string }>,
  boundMs = 60_000,
): Promise<{ lost: number; twice: number; wrong: number }> {
  const deadline = Date.now() + boundMs;
  let last = -1;
  for (;;) {
    const replies = d.replies();
    const answered = mentions.filter((m) => replies.has(m.id)).length;
    if (answered === mentions.length || Date.now() > deadline) break;
    if (answered === last) await sleep(1_000);
    last = answered;
    await sleep(500);
  }
  await sleep(3_000); // a late second answer would show now
  const replies = d.replies();
  return {
    lost: mentions.filter((m) => !replies.has(m.id)).length,
    twice: mentions.filter((m) => (replies.get(m.id)?.length ?? 0) > 1).length,
    wrong: mentions.filter((m) => (replies.get(m.id) ?? []).some((r) => r.bot !== m.bot)).length,
  };
}

/** A mention answered later than this after it was made waited for the take-over of its bot (a flood's p99 is tens of ms). */
export const HELD_MS = 2_000;

/**
 * When the bots of a process killed at `killedAt` answer again: the last answer to a mention of
 * theirs made after the kill that waited over {@link HELD_MS} for it (0: none waited). Not each
 * bot's first answer after the kill: a bot mentioned first 13 s after the kill, running again
 * since 8 s, would read as 13 s (with 10 mentions a second over 30 bots, the last of 10 bots is
 * first mentioned ~9 s after the kill on average). `after`: its bots' mentions made after the
 * kill; `lastMade`: the last of them, ms after the kill.
 */
export function answeringAgain(
  d: Pick<Deployment, "replies" | "createdAt">,
  mentions: ReadonlyArray<{ id: string; bot: string }>,
  victimBots: ReadonlySet<string>,
  killedAt: number,
): { slowest: number; held: number; after: number; lastMade: number } {
  const replies = d.replies();
  const after = mentions
    .filter((m) => victimBots.has(m.bot) && d.createdAt(m.id) >= killedAt)
    .map((m) => ({ made: d.createdAt(m.id), answered: replies.get(m.id)?.[0]?.at ?? Number.POSITIVE_INFINITY }));
  const held = after.filter((m) => m.answered - m.made > HELD_MS);
  return {
    slowest: held.length === 0 ? 0 : Math.max(...held.map((m) => m.answered - killedAt)),
    held: held.length,
    after: after.length,
    lastMade: Math.max(...after.map((m) => m.made - killedAt)),
  };
}
