/**
 * The world of the multi-process tests: one real redis-server for the file, a sandbox on a
 * frozen clock with provisioned bots, and "processes" (runtimes in this test process, each
 * with its own Redis connection, state store and lease renewals) sharing that Redis. Calling
 * `scaleWorld()` at a test file's top level installs its hooks: the server starts before the
 * file's tests and stops after them; after each test every process is stopped (bounded: one
 * whose Redis is gone cannot save), the sandbox closed and the database flushed.
 *
 * Lease renewals run on each process's own clock (a running one by default), and lease expiry
 * is Redis's real TTL, kept short: waits for them go through `until` (real time, bounded).
 * With `redis: "cluster"` the processes share a Redis Cluster of three masters instead
 * (test/helpers/redis-cluster.ts).
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { createClock, type AdjustableClock, type Clock } from "../../src/clock.ts";
import type { Plugin } from "../../src/plugins/index.ts";
import { provisionBots, type ProvisionedBot } from "../../src/hosting/provision.ts";
import { startRuntime } from "../../src/hosting/runtime.ts";
import type { Runtime } from "../../src/hosting/types.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { openSharedState, type SharedState } from "../../src/redis/shared-state.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { testBotConfig } from "../../src/testing.ts";
import { captureLogs } from "./log.ts";
import { flushAll, startRedisCluster, type RedisCluster } from "./redis-cluster.ts";
import { startRedisServer, type RedisServer } from "./redis-server.ts";

export { until } from "./until.ts";

/** Lease TTL and renewal period of the processes (short, so takeovers happen within a test). */
export const TTL = 1_500;
export const EVERY = 400;

export interface ScaleWorldOptions {
  /** The bots' names. */
  names: string[];
  /** The one plugin every bot runs (with `{}` options). */
  plugin: Plugin;
  /** How mentions reach the bots: polling per bot, or the app's stream handed off through Redis. */
  mentions: "poll" | "stream";
  /** A stream rule every bot has (its matches come through the app's stream, handed off through Redis). */
  rule?: string;
  /** One redis-server (default), or a Redis Cluster of three masters. */
  redis?: "server" | "cluster";
  /** How many apps the bots are spread over, by turns (default one: every bot of the pro plan's app). */
  apps?: number;
}

export interface ScaleProc {
  name: string;
  shared: SharedState;
  runtime: Runtime;
  /** What it logged (info and up). */
  lines: Array<Record<string, unknown>>;
  /** Its connections to Redis cut, the main one and the renewals' (as kill -9 leaves them): it stops renewing. */
  die(): void;
}

export interface ScaleWorld {
  /** The redis-server (with `redis: "server"`, the default). */
  readonly redis: RedisServer;
  /** The Redis the processes share: the server's URL, or the cluster's. */
  readonly url: string;
  readonly sandbox: Sandbox;
  readonly clock: AdjustableClock;
  readonly hosted: ProvisionedBot[];
  /** The processes still to stop after the test (remove one the test stops itself). */
  readonly procs: ScaleProc[];
  /** A fresh sandbox on a frozen clock with the bots provisioned (pro plan). */
  start(): Promise<void>;
  /** Starts a process: `claimsClock` drives its lease renewals (a frozen one never renews). */
  proc(
    name: string,
    options?: { claimsClock?: Clock; settleMs?: number; hostConcurrency?: number },
  ): Promise<ScaleProc>;
  /** The bots running in `ps`, with repeats. */
  running(ps: ScaleProc[]): string[];
  /** Every bot runs in exactly one of `ps` (and each runs `perProcess` when given). */
  balanced(ps: ScaleProc[], perProcess?: number): boolean;
  /** Twice over, every process's runtime idle. */
  settle(ps: ScaleProc[]): Promise<void>;
  /** The posts `bot` replied to, oldest first. */
  repliesOf(bot: string): string[];
  /** Alice mentions every bot once; the post id by bot. */
  mentionEach(text: string): Promise<Map<string, string>>;
}

/** Installs the hooks and returns the world (its fields are set once `start()` ran). */
export function scaleWorld(options: ScaleWorldOptions): ScaleWorld {
  const { names, plugin, mentions, rule } = options;
  const streams = mentions === "stream" || rule !== undefined;
  let redis: RedisServer;
  let cluster: RedisCluster | undefined;
  let sandbox: Sandbox | undefined;
  let clock: AdjustableClock;
  let hosted: ProvisionedBot[] = [];
  const procs: ScaleProc[] = [];

  beforeAll(async () => {
    if (options.redis === "cluster") cluster = await startRedisCluster();
    else redis = await startRedisServer();
  }, 60_000);
  afterAll(async () => {
    await redis?.close();
    await cluster?.close();
  });
  afterEach(async () => {
    for (const p of procs.splice(0))
      await Promise.race([p.shared.stop().catch(() => p.die()), new Promise((r) => setTimeout(r, 5_000))]);
    await sandbox?.close();
    sandbox = undefined;
    if (redis && !redis.running()) await redis.restart();
    const admin = await connectRedis(url());
    await flushAll(admin);
    admin.disconnect();
  });

  const url = () => cluster?.url ?? redis.url;
  const running = (ps: ScaleProc[]) => ps.flatMap((p) => [...p.runtime.bots.keys()]);
  const users = () => Object.values(sandbox!.context.data.world.users);

  return {
    get redis() {
      return redis;
    },
    get url() {
      return url();
    },
    get sandbox() {
      return sandbox!;
    },
    get clock() {
      return clock;
    },
    get hosted() {
      return hosted;
    },
    procs,
    async start() {
      clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
      sandbox = await createSandbox({ clock });
      // pro: with "stream", mentions come through the app's stream (no polling but the catch-up polls).
      const triggers = {
        mentions: mentions === "poll" ? { via: "poll" as const } : {},
        ...(rule !== undefined ? { stream: [{ value: rule }] } : {}),
      };
      const apps = options.apps ?? 1;
      const appOf = (i: number) => (apps > 1 ? { app: { consumer_key: `app-${i % apps}`, consumer_secret: "-" } } : {});
      hosted = await provisionBots(
        sandbox,
        names.map((name, i) =>
          testBotConfig(
            { name, plan: "pro", ...appOf(i), triggers, plugins: { [plugin.name]: {} } },
            { [plugin.name]: plugin },
          ),
        ),
      );
    },
    async proc(name, o = {}) {
      const { lines, logger } = captureLogs("info");
      const leaseClock = o.claimsClock ?? createClock();
      const shared = await openSharedState({
        url: url(),
        bots: names,
        clock: leaseClock,
        logger,
        ttlMs: TTL,
        everyMs: EVERY,
        ...(o.settleMs !== undefined ? { settleMs: o.settleMs } : {}),
        ...(o.hostConcurrency ? { hostConcurrency: o.hostConcurrency } : {}),
      });
      const runtime = await startRuntime({
        baseUrl: sandbox!.url,
        bots: hosted,
        store: shared.store,
        clock,
        logger,
        hosting: "claimed",
        ...(streams
          ? {
              shared: {
                redis: shared.redis,
                leases: shared.leases,
                owner: shared.owner,
                clock: leaseClock,
                ttlMs: TTL,
                everyMs: EVERY,
                leaseOf: (bot: string) => shared.claims.current(bot),
              },
            }
          : {}),
        drainMs: 500,
      });
      await shared.run(runtime);
      const die = () => {
        shared.redis.disconnect();
        shared.renewals.redis.disconnect();
      };
      const p = { name, shared, runtime, lines, die };
      procs.push(p);
      return p;
    },
    running,
    balanced(ps, perProcess) {
      const all = running(ps);
      return (
        all.length === names.length &&
        new Set(all).size === names.length &&
        (perProcess === undefined || ps.every((p) => p.runtime.bots.size === perProcess))
      );
    },
    async settle(ps) {
      for (let i = 0; i < 2; i++) for (const p of ps) await p.runtime.idle();
    },
    repliesOf(bot) {
      const user = users().find((u) => u.username === bot);
      return Object.values(sandbox!.context.data.world.posts)
        .filter((p) => p.author_id === user?.id)
        .sort((a, b) => compareIds(a.id, b.id))
        .map((p) => p.in_reply_to_post_id ?? "");
    },
    async mentionEach(text) {
      const alice =
        users().find((u) => u.username === "alice") ??
        (await sandbox!.admin.createUser({ username: "alice", name: "alice" }));
      const ids = new Map<string, string>();
      for (const bot of names)
        ids.set(bot, (await sandbox!.admin.createPost({ author_id: alice.id, text: `@${bot} ${text}` })).id);
      return ids;
    },
  };
}
