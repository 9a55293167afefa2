/**
 * Opening a connection to the Redis that several `bot start` processes share
 * (`--state redis://HOST:PORT/DB` or `POSTBOT_STATE`).
 *
 * The client is ioredis: it queues commands while the connection is down and reconnects by
 * itself, which is exactly the behaviour postbot wants when Redis goes away for a while
 * (actions wait for their ledger entry instead of failing). So once the first connection is
 * made, the client reconnects for ever; only the *first* connection fails fast, with a
 * message that names the URL (never its password) and says what to do.
 *
 * A Redis on the same machine can be reached through its unix socket instead
 * (`unix:///run/redis/redis.sock?db=0`, or `redis+unix://`): the same Redis, the same keys,
 * with each round trip a little cheaper than over TCP loopback (about 60-90 µs less per
 * command on the bench machine), which is most of what a budget take costs an action.
 *
 * A Redis Cluster (`redis+cluster://HOST:PORT,HOST:PORT,...`, the seed nodes) gets ioredis's
 * cluster client: it learns the other nodes and which serves each slot from the seeds,
 * follows a slot that moves (`MOVED`, `ASK`), and when a master fails it waits for the
 * replica the cluster promotes, however long that takes, with the commands queued as for one
 * Redis. postbot names its keys so that each bot's, and each app's, live in one slot
 * (./keys.ts); the connection is the same object to the rest of postbot.
 *
 * @example
 * ```ts
 * const redis = await connectRedis("redis://127.0.0.1:6379/0");
 * await redis.set("postbot:hello", "1");
 * await redis.quit();
 * ```
 */
import type { Cluster, Redis as SingleRedis } from "ioredis";
import { UserError } from "../errors.ts";
import { parseRedisUrl, type RedisTarget } from "./url.ts";

/** A connection to the state's Redis: one server, or a Redis Cluster (`redis+cluster://`). */
export type Redis = SingleRedis | Cluster;
export type { Cluster, SingleRedis };
export { isRedisUrl, parseRedisUrl, redactRedisUrl, type RedisTarget } from "./url.ts";

export interface ConnectOptions {
  /** Where the URL came from, for messages (default `--state`). */
  source?: string;
  /** How long the first connection may take before it is given up (default 5 s). */
  connectTimeoutMs?: number;
  /** Shown in Redis's `CLIENT LIST`, so an operator sees which process a connection is. */
  name?: string;
}

/**
 * Connects to the Redis a URL names and checks it answers (`PING`). Rejects with a
 * {@link UserError} naming the URL (without password) and what to do when the URL is bad,
 * nothing listens there, it does not answer in time, or it wants a password that was not
 * given or was wrong. Once connected the client reconnects by itself for ever and queues
 * commands meanwhile; callers that must notice an outage listen for its `close`/`ready` events.
 */
export async function connectRedis(url: string, options: ConnectOptions = {}): Promise<Redis> {
  const source = options.source ?? "--state";
  const target = parseRedisUrl(url, source);
  const timeout = options.connectTimeoutMs ?? 5_000;
  if (target.cluster) return await connectCluster(target, source, timeout, options.name);
  // Loaded here, on the first connection: a process whose state is a directory never loads
  // the client (about 0.1 s of CPU at start-up; this module is imported by every `bot start`).
  const { Redis: Client } = await import("ioredis");
  const redis = new Client({
    ...(target.path !== undefined ? { path: target.path } : { host: target.host, port: target.port }),
    db: target.db,
    username: target.username,
    password: target.password,
    connectionName: options.name,
    lazyConnect: true,
    connectTimeout: timeout,
    // Commands wait in the client's queue while Redis is away, however long; the caller
    // decides when waiting is too long (a lease's deadline), never the client.
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  let lastError: Error | undefined;
  const onError = (err: Error) => {
    lastError = err;
  };
  redis.on("error", onError);
  try {
    await withTimeout(redis.connect(), timeout);
    // ioredis selects the database on every (re)connect but only reports a bad one as an
    // event; selecting it once here turns "no such database" into an answer.
    await withTimeout(redis.select(target.db), timeout);
    await withTimeout(redis.ping(), timeout);
  } catch (err) {
    redis.disconnect();
    throw unreachable(target, source, (lastError ?? err) as Error);
  } finally {
    redis.off("error", onError);
  }
  // Errors while reconnecting show as waiting commands and `close`/`ready` events; without
  // a listener ioredis would print each failed attempt to stderr.
  redis.on("error", () => undefined);
  return redis;
}

/**
 * Connects to a Redis Cluster through its seed nodes and checks it serves every slot. Commands
 * wait (queued, retried every 100 ms to 1 s) while a node is away or a failover runs: never a
 * "too many redirections" error, since the caller decides when waiting is too long.
 */
async function connectCluster(target: RedisTarget, source: string, timeout: number, name?: string): Promise<Cluster> {
  const { Cluster: Client } = await import("ioredis");
  const cluster = new Client(target.cluster!, {
    lazyConnect: true,
    redisOptions: {
      username: target.username,
      password: target.password,
      connectionName: name,
      connectTimeout: timeout,
      maxRetriesPerRequest: null,
    },
    clusterRetryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    maxRedirections: Number.POSITIVE_INFINITY,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: timeout,
    // No automatic pipelining: a pipeline whose commands meet a moved slot (a failover, a
    // resharding) is sent again only when all of them failed alike, so some of its commands
    // would fail with MOVED instead of following the slot, as a command alone does.
  });
  let lastError: Error | undefined;
  // A node's own error (refused, unknown host) says more than the cluster's "Failed to refresh slots cache".
  const onError = (err: Error) => {
    const cause = (err as Error & { lastNodeError?: Error }).lastNodeError ?? err;
    if (!(lastError as NodeJS.ErrnoException | undefined)?.code) lastError = cause;
  };
  cluster.on("error", onError);
  cluster.on("node error", onError);
  try {
    await withTimeout(cluster.connect(), timeout);
    const info = await withTimeout(cluster.cluster("INFO") as Promise<string>, timeout);
    if (!/cluster_state:ok/.test(info)) throw new Error(CLUSTER_NOT_OK);
  } catch (err) {
    cluster.disconnect();
    throw unreachable(
      target,
      source,
      (err as Error).message === CLUSTER_NOT_OK ? (err as Error) : (lastError ?? (err as Error)),
    );
  } finally {
    cluster.off("error", onError);
    cluster.off("node error", onError);
  }
  cluster.on("error", () => undefined);
  cluster.on("node error", () => undefined);
  return cluster;
}

const CLUSTER_NOT_OK = "cluster_state is not ok";

/** The message for a first connection that failed, by what failed. */
function unreachable(target: RedisTarget, source: string, err: Error): UserError {
  const code = (err as NodeJS.ErrnoException).code;
  const text = err.message ?? String(err);
  const where = `Redis at ${target.display} (${source})`;
  if (target.cluster) {
    const clusterWhy = clusterProblem(text);
    if (clusterWhy) return new UserError(`${where}: ${clusterWhy}`, { cause: err });
  }
  if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(text)) {
    const withPassword =
      target.path !== undefined
        ? `unix://${target.path}?db=${target.db}&password=PASSWORD`
        : `redis://:PASSWORD@${target.host}:${target.port}/${target.db}`;
    return new UserError(
      `${where} refused the password: put the right one in the URL (${withPassword}), or check the user`,
      { cause: err },
    );
  }
  if (/DB index is out of range|invalid DB index/i.test(text)) {
    return new UserError(
      `${where}: database ${target.db} does not exist there; use a number below that Redis's "databases" setting (16 by default)`,
      { cause: err },
    );
  }
  const why =
    code === "ECONNREFUSED" || code === "ENOENT"
      ? "nothing listens there"
      : code === "EACCES"
        ? "this user may not open the socket (its file's permissions: Redis's unixsocketperm)"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
          ? `the host "${target.host}" is not known`
          : code === "ETIMEDOUT" || text === TIMEOUT
            ? "it did not answer in time"
            : text;
  const start = target.cluster
    ? "Start the cluster's nodes there (`redis-server --cluster-enabled yes`, joined once with `redis-cli --cluster create`)"
    : `Start Redis there (e.g. \`${target.path !== undefined ? `redis-server --unixsocket ${target.path}` : `redis-server --port ${target.port}`}\`)`;
  return new UserError(
    `cannot reach ${where}: ${why}. ${start}, or fix the URL; without --state, postbot keeps its state in .postbot/`,
    { cause: err },
  );
}

/** What a cluster's first connection found wrong with the cluster itself, if that is it. */
function clusterProblem(text: string): string | undefined {
  if (/Connection is closed|None of startup nodes|Failed to refresh slots cache/.test(text))
    return "none of its nodes answered (nothing listens there, or they hang up): start the cluster's nodes there (`redis-server --cluster-enabled yes`, joined once with `redis-cli --cluster create`), or fix the URL; without --state, postbot keeps its state in .postbot/";
  if (text === CLUSTER_NOT_OK || /CLUSTERDOWN/.test(text))
    return "the cluster is not serving every slot (cluster_state is not ok): check `redis-cli -p PORT cluster info` on its nodes, and that every slot is assigned (`redis-cli --cluster check HOST:PORT`)";
  if (/cluster support disabled|This instance has cluster support disabled/i.test(text))
    return "that server is not a cluster node (cluster support disabled): give its redis:// URL instead, or start the nodes with --cluster-enabled yes";
  return undefined;
}

const TIMEOUT = "timed out";

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(TIMEOUT)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Ends a connection for good and fails every command waiting in it, whatever it is doing
 * (a process stopping without an unreachable Redis must not wait for it). ioredis's
 * `disconnect()` alone fails nothing while it waits to reconnect (ioredis#2169): so nothing
 * reconnects any more, the attempt that is due fails the waiting commands, and an attempt on
 * its way (or a connection that came back, or one to a Redis that hangs) is ended. Resolves
 * once the connection is closed.
 */
export async function endConnection(redis: Redis): Promise<void> {
  if (redis.isCluster) return await endCluster(redis as Cluster);
  const single = redis as SingleRedis;
  single.options.retryStrategy = () => null;
  while (single.status !== "end") {
    if (single.status !== "reconnecting") {
      single.disconnect();
      // A hung Redis never answers the goodbye, and ioredis would wait its `disconnectTimeout`
      // (2 s) for it: the socket is destroyed at once instead.
      single.stream?.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * {@link endConnection} for a cluster: nothing reconnects, every node's connection is ended.
 * Resolves on the cluster's `end` (its status may turn back to `close` after it, as a command
 * it failed is retried and refused).
 */
async function endCluster(cluster: Cluster): Promise<void> {
  cluster.options.clusterRetryStrategy = () => null;
  if (cluster.status === "end" || cluster.status === "wait") {
    cluster.disconnect();
    return;
  }
  const ended = new Promise<void>((resolve) => cluster.once("end", () => resolve()));
  const nodes = cluster.nodes();
  cluster.disconnect();
  await Promise.all(nodes.map((node) => endConnection(node)));
  // A cluster already closed (every node gone, waiting to reconnect) has no `end` to come.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  clearTimeout(timer);
}
