/**
 * A real Redis Cluster for tests: Debian's `redis-server --cluster-enabled yes` nodes on free
 * loopback ports (each in a temp directory of its own, no snapshots, no append-only file),
 * joined by `redis-cli --cluster create ... --cluster-yes`: `masters` masters (3 by default)
 * sharing the 16,384 slots, each with `replicas` replicas (0 by default).
 *
 * The nodes judge a node failed after `nodeTimeoutMs` (2 s here; Redis's default is 15 s), so a
 * master killed with {@link RedisCluster.killMaster} has its replica promoted within a few
 * seconds. Like test/helpers/redis-server.ts, no node outlives the test process: `close()` in
 * `afterAll`/`finally`, and every node still running is killed when the process exits.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster({ replicas: 1 });
 * afterAll(() => cluster.close());
 * const redis = await connectRedis(cluster.url); // redis+cluster://127.0.0.1:P1,...
 * await cluster.killMaster(await cluster.masterOf("postbot:{a:app}:lease:stream:app"));
 * ```
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cluster, Redis, SingleRedis } from "../../src/redis/connect.ts";
import { freePort, requireRedisServer, spawnRedisServer, waitExit } from "./redis-server.ts";

/** Empties a Redis (one server's database, or every master of a cluster) between tests. */
export async function flushAll(redis: Redis): Promise<void> {
  const nodes = redis.isCluster ? (redis as Cluster).nodes("master") : [redis as SingleRedis];
  await Promise.all(nodes.map((node) => node.flushdb()));
}

export interface ClusterNode {
  port: number;
  /** Whether its process runs. */
  running(): boolean;
}

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,...`: every master as a seed node. */
  url: string;
  nodes: ClusterNode[];
  /** The node serving `key`'s slot as master now. */
  masterOf(key: string): Promise<ClusterNode>;
  /**
   * Kills `master` with SIGKILL (what it had not passed to its replica is lost) and resolves
   * once the cluster is whole again, its replica promoted, with the ms that took.
   */
  killMaster(master: ClusterNode): Promise<number>;
  /** Stops every node and removes their directories. */
  close(): Promise<void>;
}

interface Node extends ClusterNode {
  dir: string;
  proc?: ChildProcess;
}

/** `redis-cli -p PORT ARGS...`'s output (throws when it fails). */
function cli(port: number, ...args: string[]): string {
  const run = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", timeout: 30_000 });
  if (run.error || run.status !== 0)
    throw new Error(`redis-cli -p ${port} ${args.join(" ")}: ${run.stderr || run.error}`);
  return run.stdout;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every running node says the cluster is ok and agrees on which nodes serve slots. */
async function whole(nodes: Node[], masters: number, timeoutMs: number, without?: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    try {
      const up = nodes.filter((n) => n.running());
      const views = up.map((n) => cli(n.port, "CLUSTER", "INFO"));
      const ok = views.every((v) => /cluster_state:ok/.test(v) && new RegExp(`cluster_size:${masters}\\b`).test(v));
      if (ok) {
        // Every node agrees on which master serves which slots.
        const shards = up.map((n) => servingPorts(n.port).join(","));
        const serving = shards[0]!.split(",").map((s) => s.split(":")[0]);
        if (shards.every((s) => s === shards[0]) && serving.length === masters && !serving.includes(String(without)))
          return;
        last = `nodes disagree on the masters: ${shards.join(" | ")}`;
      } else last = views.join("\n");
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) throw new Error(`the Redis Cluster was not whole within ${timeoutMs} ms:\n${last}`);
    await sleep(100);
  }
}

/** The masters that serve slots, as node `port` sees them: `port:ranges` each, sorted. */
function servingPorts(port: number): string[] {
  return cli(port, "CLUSTER", "NODES")
    .split("\n")
    .map((line) => line.trim().split(" "))
    .filter((words) => /\bmaster\b/.test(words[2] ?? "") && !/\bfail\b/.test(words[2] ?? "") && words.length > 8)
    .map((words) => `${/:(\d+)@/.exec(words[1]!)![1]}:${words.slice(8).join(" ")}`)
    .sort();
}

/** Starts a cluster of `masters` masters, each with `replicas` replicas; see the module comment. */
export async function startRedisCluster(
  options: { masters?: number; replicas?: number; nodeTimeoutMs?: number; timeoutMs?: number } = {},
): Promise<RedisCluster> {
  requireRedisServer();
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const nodes: Node[] = [];
  const close = async () => {
    for (const n of nodes) {
      if (n.proc && n.running()) {
        n.proc.kill("SIGKILL");
        await waitExit(n.proc);
      }
      await rm(n.dir, { recursive: true, force: true });
    }
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const dir = await mkdtemp(join(tmpdir(), "postbot-redis-cluster-"));
      const node: Node = {
        port: 0,
        dir,
        running: () => !!node.proc && node.proc.exitCode === null && node.proc.signalCode === null,
      };
      nodes.push(node);
      // A free port may be taken between the probe and the bind: try a few.
      for (let attempt = 1; ; attempt++) {
        node.port = await freePort();
        const bus = await freePort();
        const args = [
          ...["--port", String(node.port), "--bind", "127.0.0.1", "--dir", dir],
          ...[
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            join(dir, "nodes.conf"),
            "--cluster-port",
            String(bus),
          ],
          ...[
            "--cluster-node-timeout",
            String(options.nodeTimeoutMs ?? 2_000),
            "--cluster-replica-validity-factor",
            "0",
          ],
          ...["--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes"],
          ...["--loglevel", "notice", "--logfile", ""],
        ];
        try {
          node.proc = await spawnRedisServer(args, `cluster node on port ${node.port}`, 15_000);
          break;
        } catch (err) {
          if (attempt >= 5 || !/Address already in use/i.test(String(err))) throw err;
        }
      }
    }
    cli(
      nodes[0]!.port,
      "--cluster",
      "create",
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    );
    await whole(nodes, masters, timeoutMs);
  } catch (err) {
    await close();
    throw err;
  }
  const byPort = (port: number) => nodes.find((n) => n.port === port)!;
  const anyUp = () => nodes.find((n) => n.running())!;
  const seeds = servingPorts(nodes[0]!.port).map((s) => Number(s.split(":")[0]));
  return {
    url: `redis+cluster://${seeds.map((p) => `127.0.0.1:${p}`).join(",")}`,
    nodes,
    async masterOf(key) {
      const slot = Number(cli(anyUp().port, "CLUSTER", "KEYSLOT", key).trim());
      for (const line of cli(anyUp().port, "CLUSTER", "NODES").split("\n")) {
        const words = line.trim().split(" ");
        if (!/\bmaster\b/.test(words[2] ?? "") || /\bfail\b/.test(words[2] ?? "")) continue;
        for (const range of words.slice(8)) {
          const [from, to] = range.split("-").map(Number);
          if (slot >= from! && slot <= (to ?? from)!) return byPort(Number(/:(\d+)@/.exec(words[1]!)![1]));
        }
      }
      throw new Error(`no master serves slot ${slot} (of ${key})`);
    },
    async killMaster(master) {
      const node = nodes.find((n) => n === master)!;
      const started = Date.now();
      node.proc!.kill("SIGKILL");
      await waitExit(node.proc!);
      await whole(nodes, masters, timeoutMs, node.port);
      return Date.now() - started;
    },
    close,
  };
}
