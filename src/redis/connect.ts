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
 * @example
 * ```ts
 * const redis = await connectRedis("redis://127.0.0.1:6379/0");
 * await redis.set("postbot:hello", "1");
 * await redis.quit();
 * ```
 */
import type { Redis } from "ioredis";
import { UserError } from "../errors.ts";
import { parseRedisUrl, type RedisTarget } from "./url.ts";

export type { Redis } from "ioredis";
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

/** The message for a first connection that failed, by what failed. */
function unreachable(target: RedisTarget, source: string, err: Error): UserError {
  const code = (err as NodeJS.ErrnoException).code;
  const text = err.message ?? String(err);
  const where = `Redis at ${target.display} (${source})`;
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
  const start =
    target.path !== undefined ? `redis-server --unixsocket ${target.path}` : `redis-server --port ${target.port}`;
  return new UserError(
    `cannot reach ${where}: ${why}. Start Redis there (e.g. \`${start}\`), or fix the URL; without --state, postbot keeps its state in .postbot/`,
    { cause: err },
  );
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
  redis.options.retryStrategy = () => null;
  while (redis.status !== "end") {
    if (redis.status !== "reconnecting") {
      redis.disconnect();
      // A hung Redis never answers the goodbye, and ioredis would wait its `disconnectTimeout`
      // (2 s) for it: the socket is destroyed at once instead.
      redis.stream?.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
