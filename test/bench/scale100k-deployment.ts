/**
 * The deployment of the 100,000-account bench (./scale100k.bench.ts): signed-in accounts on
 * several apps of one sandbox (in the bench's process, real time), real `bot start --state …`
 * processes of the compiled postbot (build/, which the bench builds first) sharing one Redis (or a Redis Cluster), each bot a file naming its app and
 * answering its mentions (which come through its app's stream), and what the bench reads of
 * them: which process holds each bot, whether every app's stream carries every bot's rule,
 * each process's RSS and CPU time, Redis's memory, commands and bytes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fingerprint } from "../../src/api/auth/fingerprint.ts";
import { createClock } from "../../src/clock.ts";
import { saveAccount } from "../../src/credentials/accounts.ts";
import { provisionBots, type ProvisionedBot } from "../../src/hosting/provision.ts";
import { connectRedis, type Cluster, type Redis } from "../../src/redis/connect.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { Leases } from "../../src/redis/leases.ts";
import { bySlot, redisKeys } from "../../src/redis/keys.ts";
import { handoffKeys, handoffState } from "../../src/redis/stream-handoff.ts";
import { rulesOf } from "../../src/sandbox/domain/rules.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { repliesByBot } from "./scale-deployment.ts";
import { testBotConfig } from "../../src/testing.ts";
import { lineReader, spawnBot, type BotChild } from "../helpers/cli.ts";
import { leaseHolders } from "../helpers/lease-holders.ts";

export interface BigProcess {
  child: BotChild;
  out: ReturnType<typeof lineReader>;
  err: ReturnType<typeof lineReader>;
  /** When it was started (Date.now()). */
  startedAt: number;
}

export interface BigDeployment {
  sandbox: Sandbox;
  redis: Redis;
  names: string[];
  /** Each bot's app id. */
  appOf: Map<string, string>;
  /** The apps' ids as the processes name them (their keys' fingerprints: their stream leases, handoff keys). */
  processAppIds: string[];
  processes: BigProcess[];
  /** How long provisioning the accounts took, and what the sandbox's process grew by (MB). */
  provisioned: { ms: number; rssMb: number };
  start(): BigProcess;
  /**
   * Every bot held by a live process and running there, every app's stream connected with
   * every bot's rule: the missing, or none.
   */
  missing(): Promise<string | undefined>;
  mention(bot: string, text: string): Promise<string>;
  /** The bots' replies: mention id → the bots that answered it, with the reply's created_at. */
  replies(): Map<string, Array<{ bot: string; at: number }>>;
  createdAt(id: string): number;
  owners(): Promise<Map<string, number | undefined>>;
  /** With `BENCH_100K_LOG=DIR`: what each process printed so far, in `DIR/process-N.log`. */
  keepLogs(): void;
  /** Where each process's ./loop-probe.mjs writes its collections and loop stalls (`<pid>.jsonl`). */
  probeDir: string;
  /**
   * When the apps' hubs handed each bot a post since `from` (epoch ms: the ids of the bell
   * entries, Redis's clock, which is this machine's), by bot; and the pid of the process
   * whose hub has each app's stream connection open, by bot.
   */
  handoffs(from: number): Promise<{ handed: Map<string, number[]>; hubOf: Map<string, number | undefined> }>;
  /**
   * The least time (ms) left on each process's heartbeat (../../src/redis/bot-leases.ts) seen
   * so far, by owner, looked at every 250 ms from the processes' start (one Redis only: on a
   * cluster a process has one a slot bucket, none looked at): the ttl less the longest time
   * between two of its renewals, how late they came at worst. A heartbeat that ran out
   * shows 0 (a process killed, too).
   */
  heartbeatLows(): Map<string, number>;
  close(): Promise<void>;
}

/** ./loop-probe.mjs, preloaded into each process. */
const LOOP_PROBE = fileURLToPath(new URL("./loop-probe.mjs", import.meta.url));

/** `bot` names: `u000000`..., short (the app's mention rules pack ~90 of them in each). */
const nameOf = (i: number) => `u${String(i).padStart(6, "0")}`;

/** Provisions `bots` signed-in accounts over `apps` apps and writes their files; starts no process. */
export async function deployBig(
  url: string,
  bots: number,
  apps: number,
  say: (what: string) => void,
): Promise<BigDeployment> {
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const sandbox = await createSandbox({ clock: createClock() });
  const names = Array.from({ length: bots }, (_, i) => nameOf(i));
  const hosted = await provisionBots(
    sandbox,
    names.map((name, i) =>
      testBotConfig(
        {
          name,
          plan: "pro",
          app: { consumer_key: `scale100k-${i % apps}`, consumer_secret: "-" },
          triggers: { mentions: {} },
          plugins: {},
        },
        {},
      ),
    ),
  );
  const provisioned = { ms: performance.now() - t0, rssMb: (process.memoryUsage().rss - rss0) / 1e6 };
  say(`${bots} accounts over ${apps} apps provisioned in ${(provisioned.ms / 1000).toFixed(1)} s`);
  const redis = await connectRedis(url);
  await signIn(redis, sandbox.url, hosted);
  say(`${bots} accounts signed in (in Redis, as bot auth login --state leaves them)`);
  const dir = await writeBots(hosted, apps);
  // Kept with the logs when there are any (BENCH_100K_LOG), to be read with a CPU profile after the run.
  const probeDir = process.env.BENCH_100K_LOG ? join(process.env.BENCH_100K_LOG, "probe") : join(dir, "probe");
  const env = { ...childEnv(hosted, apps, sandbox.url, url), BENCH_PROBE_DIR: probeDir };
  const appOf = new Map(hosted.map((h) => [h.config.name, h.app.id]));
  const appIds = [...new Set(appOf.values())];
  const keyOf = new Map(hosted.map((h) => [h.app.id, h.app.key]));
  const processes: BigProcess[] = [];
  // BENCH_PROFILE=DIR: each process writes a CPU profile there when it stops (close() stops them with SIGTERM first).
  const nodeArgs = process.env.BENCH_PROFILE
    ? ["--cpu-prof", "--cpu-prof-interval=1000", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  nodeArgs.push("--import", LOOP_PROBE);
  // BENCH_100K_NODE_ARGS: more of node's arguments for each process (a V8 flag being measured).
  nodeArgs.push(...(process.env.BENCH_100K_NODE_ARGS ?? "").split(" ").filter(Boolean));
  // BENCH_HEAP=DIR: SIGUSR2 makes a process write a heap snapshot there.
  if (process.env.BENCH_HEAP)
    nodeArgs.push("--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${process.env.BENCH_HEAP}`);
  const userIds = new Map(hosted.map((h) => [h.user.id, h.config.name]));
  const world = () => sandbox.context.data.world;
  let crowd: { id: string } | undefined;
  const owners = () => leaseHolders(redis, names);
  /** With `BENCH_100K_LOG=DIR`: what each process printed so far, in `DIR/process-N.log`. */
  const keepLogs = () => {
    const logDir = process.env.BENCH_100K_LOG;
    if (!logDir) return;
    mkdirSync(logDir, { recursive: true });
    for (const [i, p] of processes.entries())
      writeFileSync(join(logDir, `process-${i}.log`), [...p.out.lines, ...p.err.lines].join("\n"));
  };
  const lows = new Map<string, number>();
  const leases = new Leases(redis);
  let looking = false;
  const watch = setInterval(() => {
    if (looking || redis.isCluster || processes.length === 0) return;
    looking = true;
    void (async () => {
      const owners = (await leases.members()).filter((_, i) => i % 2 === 0);
      const left = await Promise.all(owners.map((o) => redis.pttl(leases.bots.heartbeatKey(names[0]!, o))));
      for (const [i, owner] of owners.entries())
        if (left[i]! !== -2 || lows.has(owner))
          lows.set(owner, Math.min(lows.get(owner) ?? Infinity, Math.max(0, left[i]!)));
    })()
      .catch(() => undefined)
      .finally(() => (looking = false));
  }, 250).unref();
  return {
    sandbox,
    redis,
    names,
    appOf,
    processAppIds: [...keyOf.values()].map(appIdOf),
    processes,
    provisioned,
    heartbeatLows: () => new Map(lows),
    probeDir,
    async handoffs(from) {
      const handed = new Map<string, number[]>();
      const hubPid = new Map<string, number | undefined>();
      for (const appId of appIds) {
        const keys = handoffKeys(appIdOf(keyOf.get(appId)!), redisKeys(redis));
        const hub = await redis.get(keys.connection);
        hubPid.set(appId, hub ? Number(hub.split(":").at(-2)) : undefined);
        const entries = await redis.xrange(keys.bell, String(from), "+");
        for (const [id, fields] of entries) {
          if (fields[0] !== "bot") continue;
          handed.set(fields[1]!, [...(handed.get(fields[1]!) ?? []), Number(id.split("-")[0])]);
        }
      }
      return { handed, hubOf: new Map(names.map((n) => [n, hubPid.get(appOf.get(n)!)])) };
    },
    start() {
      const child = spawnBot(["start", "--bots", join(dir, "bots"), "--plugins", "plugins"], {
        env,
        cwd: dir,
        nodeArgs,
        compiled: true,
      });
      const p = { child, out: lineReader(child.stdout), err: lineReader(child.stderr), startedAt: Date.now() };
      processes.push(p);
      return p;
    },
    async missing() {
      const live = new Set(
        processes.filter((p) => p.child.exitCode === null && !p.child.signalCode).map((p) => p.child.pid),
      );
      const dead = processes.find((p) => p.child.exitCode !== null && p.child.signalCode === null);
      if (dead)
        throw new Error(
          `bot start (pid ${dead.child.pid}) exited with ${dead.child.exitCode}; its last lines: ${[...dead.out.lines, ...dead.err.lines].slice(-20).join(" | ")}`,
        );
      const held = await owners();
      const free = names.filter((n) => !live.has(held.get(n)));
      if (free.length > 0) return `${free.length} bots not held by a live process`;
      // Held is not yet running: the process starts its bots after it claims them, and the
      // stream's rules may cover a bot before (its process holding the app's stream describes
      // every bot whose account it knows). A bot running reads its handoff stream, which makes it.
      const starting = await notRunning(redis, names, appOf, keyOf);
      if (starting > 0) return `${starting} bots held but not running yet`;
      for (const appId of appIds) {
        // The processes name an app by its key's fingerprint; the sandbox by its own id.
        const named = appIdOf(keyOf.get(appId)!);
        if ((await handoffState(redis, named)) !== "connected") return `the stream of app ${named} not connected`;
        const ruled = new Set<string>();
        for (const r of rulesOf(sandbox.context, appId)) for (const m of r.value.matchAll(/@(\w+)/g)) ruled.add(m[1]!);
        const without = names.filter((n) => appOf.get(n) === appId && !ruled.has(n)).length;
        if (without > 0) return `${without} bots of app ${appId} without their mention rule`;
      }
      return undefined;
    },
    async mention(bot, text) {
      crowd ??= await sandbox.admin.createUser({ username: "crowd", name: "The Crowd" });
      return (await sandbox.admin.createPost({ author_id: crowd.id, text: `@${bot} ${text}` })).id;
    },
    replies: () => repliesByBot(world().posts, userIds),
    createdAt: (id) => world().posts[id]!.created_at,
    owners,
    keepLogs,
    async close() {
      clearInterval(watch);
      keepLogs();
      const running = () => processes.filter((p) => p.child.exitCode === null && !p.child.signalCode);
      if (process.env.BENCH_PROFILE) {
        // A profile is written only by a process that exits by itself: stop them as a service manager does.
        for (const p of running()) p.child.kill("SIGTERM");
        await Promise.race([
          Promise.all(running().map((p) => new Promise((r) => p.child.once("exit", r)))),
          new Promise((r) => setTimeout(r, 15_000)),
        ]);
      }
      for (const p of running()) p.child.kill("SIGKILL");
      await Promise.all(
        processes.map((p) =>
          p.child.exitCode !== null || p.child.signalCode ? undefined : new Promise((r) => p.child.once("exit", r)),
        ),
      );
      redis.disconnect();
      await sandbox.close();
      // The bench's own probe may be writing its last lines into probe/ meanwhile.
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/**
 * How many of the bots have no handoff stream yet (../../src/redis/stream-handoff.ts): the
 * process running a bot makes it (its consumer group) when the bot starts there, and nothing
 * else does before the first mention is routed to the bot (none is, before every bot answers).
 */
async function notRunning(
  redis: Redis,
  names: readonly string[],
  appOf: ReadonlyMap<string, string>,
  keyOf: ReadonlyMap<string, string>,
): Promise<number> {
  const keys = redisKeys(redis);
  const streams = names.map((n) => handoffKeys(appIdOf(keyOf.get(appOf.get(n)!)!), keys).bot(n));
  const counts: Array<Promise<number>> = [];
  for (const group of bySlot(keys, streams, (k) => k))
    for (let i = 0; i < group.length; i += 1_000) counts.push(redis.exists(...group.slice(i, i + 1_000)));
  return names.length - (await Promise.all(counts)).reduce((a, b) => a + b, 0);
}

/** What `bot auth login --account NAME --state URL` leaves for each account: its token in Redis's credentials. */
async function signIn(redis: Redis, baseUrl: string, hosted: readonly ProvisionedBot[]): Promise<void> {
  const store = await openRedisStore({ redis, closeConnection: false, loadBots: false });
  const updated = new Date().toISOString();
  for (const h of hosted)
    saveAccount(store, {
      name: h.config.name,
      base_url: baseUrl,
      user_id: h.user.id,
      username: h.user.username,
      oauth1: { token: h.token.token, secret: h.token.secret, consumer_key: h.app.key },
      updated_at: updated,
    });
  await store.close();
}

/** One file per bot naming its app by the environment's `APP<k>_KEY`; no token (signed in). */
async function writeBots(hosted: readonly ProvisionedBot[], apps: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-scale100k-"));
  await mkdir(join(dir, "bots"));
  const appIndex = new Map<string, number>();
  for (const h of hosted) if (!appIndex.has(h.app.id)) appIndex.set(h.app.id, appIndex.size);
  for (let i = 0; i < hosted.length; i += 500)
    await Promise.all(
      hosted.slice(i, i + 500).map((h) => {
        const k = appIndex.get(h.app.id)! % apps;
        return writeFile(
          join(dir, "bots", `${h.config.name}.yaml`),
          `name: ${h.config.name}\nplan: pro\napp:\n  consumer_key: \${APP${k}_KEY}\n  consumer_secret: \${APP${k}_SECRET}\ntriggers: { mentions: {} }\nplugins: { reply: { text: "hi @{author.username}: {post.body}" } }\n`,
        );
      }),
    );
  await chmod(dir, 0o700);
  return dir;
}

/** The processes' environment: the service, the apps' keys, the state. */
function childEnv(
  hosted: readonly ProvisionedBot[],
  apps: number,
  baseUrl: string,
  url: string,
): Record<string, string> {
  const byApp = [...new Map(hosted.map((h) => [h.app.id, h.app])).values()];
  const env: Record<string, string> = {
    POSTBOT_BASE_URL: baseUrl,
    POSTBOT_CONSUMER_KEY: byApp[0]!.key,
    POSTBOT_CONSUMER_SECRET: byApp[0]!.secret,
    POSTBOT_STATE: url,
    POSTBOT_LOG_LEVEL: process.env.BENCH_SCALE_LOG_LEVEL ?? "warn",
  };
  for (const [k, app] of byApp.slice(0, apps).entries()) {
    env[`APP${k}_KEY`] = app.key;
    env[`APP${k}_SECRET`] = app.secret;
  }
  return env;
}

/** The apps' ids as the processes name them (from the keys). */
export const appIdOf = (key: string) => fingerprint(key);

/** A process's CPU time so far (ms of user and system), from /proc. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** A process's resident memory now (MB), from /proc. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

/** Redis's figures, summed over a cluster's masters: memory, CPU (s), commands by name, bytes in and out. */
export async function redisFigures(redis: Redis): Promise<{
  usedMb: number;
  cpuS: number;
  commands: Map<string, number>;
  bytesIn: number;
  bytesOut: number;
}> {
  const nodes = redis.isCluster ? (redis as Cluster).nodes("master") : [redis];
  const out = { usedMb: 0, cpuS: 0, commands: new Map<string, number>(), bytesIn: 0, bytesOut: 0 };
  for (const node of nodes) {
    // INFO without a section leaves the commands' counts out.
    const info = `${await node.info()}\n${await node.info("commandstats")}`;
    const num = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? 0);
    out.usedMb += num("used_memory") / 1024 / 1024;
    out.cpuS += num("used_cpu_sys") + num("used_cpu_user");
    out.bytesIn += num("total_net_input_bytes");
    out.bytesOut += num("total_net_output_bytes");
    for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm))
      out.commands.set(m[1]!, (out.commands.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return out;
}
