/**
 * A Redis URL (`--state redis://HOST:PORT/DB`, `unix:///PATH?db=DB`,
 * `redis+cluster://HOST:PORT,HOST:PORT,...`, or `POSTBOT_STATE`) read and checked, apart from
 * the client that connects to it (./connect.ts): `bot start` and `bot status` check the
 * setting without loading ioredis when the state is a directory.
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
  /**
   * A Redis Cluster's seed nodes (`redis+cluster://`): the client asks them for the others
   * and for which serves each slot. `host` and `port` are the first of them, `db` is 0 (a
   * cluster has only database 0).
   */
  cluster?: Array<{ host: string; port: number }>;
}

/** Whether a `--state` value means Redis rather than a directory. */
export function isRedisUrl(value: string): boolean {
  return /^(rediss?|redis\+unix|redis\+cluster|unix):\/\//i.test(value.trim());
}

/**
 * Parses a `redis://` URL. `source` names where it came from (`--state`, `POSTBOT_STATE`) so
 * the error can say which setting to fix. The password never appears in an error.
 */
export function parseRedisUrl(url: string, source = "--state"): RedisTarget {
  const example = "redis://HOST:PORT/DB, e.g. redis://127.0.0.1:6379/0";
  if (/^redis\+cluster:\/\//i.test(url.trim())) return parseClusterUrl(url, source);
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

/**
 * A `redis+cluster://[[USER]:PASSWORD@]HOST:PORT,HOST:PORT[,...][/]` URL: the seed nodes of
 * a Redis Cluster (see {@link RedisTarget.cluster}). Parsed by hand: a list of hosts is not a
 * URL the WHATWG parser takes.
 */
function parseClusterUrl(url: string, source: string): RedisTarget {
  const example =
    "redis+cluster://HOST:PORT,HOST:PORT,HOST:PORT, e.g. redis+cluster://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379";
  const shown = redactRedisUrl(url);
  const bad = (why: string) => new UserError(`${source}: "${shown}" ${why}; give ${example}`, { exitCode: 2 });
  let rest = url.trim().replace(/^redis\+cluster:\/\//i, "");
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf("@");
  if (at >= 0) {
    const user = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = user.indexOf(":");
    const name = colon >= 0 ? user.slice(0, colon) : user;
    const secret = colon >= 0 ? user.slice(colon + 1) : "";
    try {
      username = name ? decodeURIComponent(name) : undefined;
      password = secret ? decodeURIComponent(secret) : undefined;
    } catch {
      throw bad("has a user or password that is not URL-encoded");
    }
  }
  if (/[?#]/.test(rest)) throw bad('has options after "?" or "#", which are not understood');
  const slash = rest.indexOf("/");
  const hosts = slash >= 0 ? rest.slice(0, slash) : rest;
  const path = slash >= 0 ? rest.slice(slash) : "";
  if (path !== "" && path !== "/")
    throw bad(`names a database ("${path}"): a Redis Cluster has only database 0, so the URL ends after its nodes`);
  if (hosts === "") throw bad("names no node");
  const nodes = hosts.split(",").map((text) => {
    const m = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(text.trim());
    if (!m) throw bad(`has "${text}" where a node's HOST:PORT goes (every node needs its port)`);
    const port = Number(m[2]);
    if (port < 1 || port > 65_535) throw bad(`has the port ${m[2]}, which is not between 1 and 65535`);
    return { host: m[1]!.replace(/^\[(.*)\]$/, "$1"), port };
  });
  const display = `redis+cluster://${nodes.map((n) => `${n.host.includes(":") ? `[${n.host}]` : n.host}:${n.port}`).join(",")}`;
  const first = nodes[0]!;
  return { host: first.host, port: first.port, db: 0, username, password, display, cluster: nodes };
}

/** A URL with any user and password removed, for messages (works on text that is not a URL too). */
export function redactRedisUrl(url: string): string {
  return url
    .trim()
    .replace(/^([\w+]+:\/\/)[^@/]*@/, "$1")
    .replace(/([?&])password=[^&#]*&?/i, "$1")
    .replace(/[?&]$/, "");
}
