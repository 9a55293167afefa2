/**
 * A Redis URL (`--state redis://HOST:PORT/DB`, `unix:///PATH?db=DB`, or `POSTBOT_STATE`) read
 * and checked, apart from the client that connects to it (./connect.ts): `bot start` and
 * `bot status` check the setting without loading ioredis when the state is a directory.
 */
import { UserError } from "../errors.ts";

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
