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
import { Redis } from "ioredis";
import { UserError } from "../errors.ts";

export type { Redis } from "ioredis";

/**
 * Where a Redis is, parsed from a `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` URL, or from a
 * `unix:///PATH[?db=DB][&password=PASSWORD]` one (`redis+unix://` too) for its unix socket.
 */
export interface RedisTarget {
  /** The host (empty for a unix socket). */
  host: string;
  /** The port (0 for a unix socket). */
  port: number;
  /** The unix socket's path, when the URL names one. */
  path?: string;
  db: number;
  username?: string;
  password?: string;
  /** The URL without any user or password: the only form of it that may be logged. */
  display: string;
}

/** Whether a `--state` value means Redis rather than a directory. */
export function isRedisUrl(value: string): boolean {
  return /^(rediss?|redis\+unix|unix):\/\//i.test(value.trim());
}

/**
 * Parses a `redis://` URL. `source` names where it came from (`--state`, `POSTBOT_STATE`) so
 * the error can say which setting to fix. The password never appears in an error.
 */
export function parseRedisUrl(url: string, source = "--state"): RedisTarget {
  const example = "redis://HOST:PORT/DB, e.g. redis://127.0.0.1:6379/0";
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new UserError(`${source}: "${redactRedisUrl(url)}" is not a URL; give ${example}`, { exitCode: 2 });
  }
  if (parsed.protocol === "unix:" || parsed.protocol === "redis+unix:") return parseSocketUrl(url, parsed, source);
  if (parsed.protocol !== "redis:") {
    const hint =
      parsed.protocol === "rediss:"
        ? " (TLS, rediss://, is not supported; reach Redis over a private network or a tunnel)"
        : "";
    throw new UserError(`${source}: "${redactRedisUrl(url)}" is not a redis:// URL${hint}; give ${example}`, {
      exitCode: 2,
    });
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!host) throw new UserError(`${source}: "${redactRedisUrl(url)}" names no host; give ${example}`, { exitCode: 2 });
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  const dbText = parsed.pathname.replace(/^\//, "");
  if (dbText !== "" && !/^\d+$/.test(dbText)) {
    throw new UserError(
      `${source}: "${redactRedisUrl(url)}": the database "/${dbText}" must be a number (0 to 15 on a default Redis); give ${example}`,
      { exitCode: 2 },
    );
  }
  if (parsed.search || parsed.hash) {
    throw new UserError(
      `${source}: "${redactRedisUrl(url)}": options after "?" or "#" are not understood; give ${example}`,
      { exitCode: 2 },
    );
  }
  const db = dbText === "" ? 0 : Number(dbText);
  const username = parsed.username ? decodeURIComponent(parsed.username) : undefined;
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return { host, port, db, username, password, display: `redis://${hostPart}:${port}/${db}` };
}

/** A `unix:///PATH[?db=DB][&password=PASSWORD]` URL (see {@link RedisTarget}). */
function parseSocketUrl(url: string, parsed: URL, source: string): RedisTarget {
  const example = "unix:///PATH/TO/redis.sock?db=DB, e.g. unix:///run/redis/redis.sock?db=0";
  const shown = redactRedisUrl(url);
  if (parsed.hostname) {
    throw new UserError(
      `${source}: "${shown}" names a host ("${parsed.hostname}"); a unix socket URL names a path after three slashes: give ${example}`,
      { exitCode: 2 },
    );
  }
  const path = decodeURIComponent(parsed.pathname);
  if (!path || path === "/")
    throw new UserError(`${source}: "${shown}" names no socket path; give ${example}`, { exitCode: 2 });
  if (parsed.hash)
    throw new UserError(`${source}: "${shown}": "#" is not understood; give ${example}`, { exitCode: 2 });
  let db = 0;
  let password: string | undefined;
  for (const [name, value] of parsed.searchParams) {
    if (name === "db") {
      if (!/^\d+$/.test(value))
        throw new UserError(
          `${source}: "${shown}": the database "db=${value}" must be a number (0 to 15 on a default Redis); give ${example}`,
          { exitCode: 2 },
        );
      db = Number(value);
    } else if (name === "password") password = value;
    else
      throw new UserError(
        `${source}: "${shown}": the option "${name}" is not understood (only db and password are); give ${example}`,
        { exitCode: 2 },
      );
  }
  return { host: "", port: 0, path, db, password, display: `unix://${path}?db=${db}` };
}

/** A URL with any user and password removed, for messages (works on text that is not a URL too). */
export function redactRedisUrl(url: string): string {
  return url
    .trim()
    .replace(/^([\w+]+:\/\/)[^@/]*@/, "$1")
    .replace(/([?&])password=[^&#]*&?/i, "$1")
    .replace(/[?&]$/, "");
}

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
  const redis = new Redis({
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
