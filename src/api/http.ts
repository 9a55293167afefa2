/**
 * The HTTP layer under the client: one pooled undici dispatcher per service origin, shared by
 * every client in the process, so all accounts talk over the same keep-alive connections;
 * and every failure below HTTP (refused, reset, timed out, aborted, cut off) becomes a
 * {@link NetworkError} that names the request. Nothing here knows about endpoints or
 * credentials.
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { lazyPackage } from "../lazy-package.ts";
import { NetworkError, type RequestInfo } from "./errors.ts";
import { secureBaseUrl } from "./secure-origin.ts";

const undici = lazyPackage<typeof import("undici")>("undici");

/** Timeouts in real milliseconds: they guard sockets, not schedules, so they do not follow the Clock. */
export interface HttpTimeouts {
  /** Connecting and waiting for the response head (default 30 s). */
  headersMs?: number;
  /** Silence between body chunks of an ordinary response (default 30 s). Streams use their own watchdog. */
  bodyMs?: number;
  /**
   * How long an idle keep-alive connection stays open (default 10 s). The origin's pool is
   * shared, so the first transport of the origin sets it for all.
   */
  keepAliveMs?: number;
}

/** The timeouts of a transport made without its own: a request waits at most `headersMs` for its answer to begin. */
export const DEFAULT_TIMEOUTS: Readonly<Required<HttpTimeouts>> = {
  headersMs: 30_000,
  bodyMs: 30_000,
  keepAliveMs: 10_000,
};

export interface HttpRequest extends RequestInfo {
  /** The encoded query string without `?`, or empty. */
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** A complete response. `text` is the whole body, decoded as UTF-8. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A response whose body is read as it arrives (streams). */
export interface HttpStreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/** The transport of one service origin. */
export interface HttpTransport {
  /** The service's base URL (checked: HTTPS, or HTTP to loopback). */
  readonly baseUrl: URL;
  /** The absolute URL of a path and encoded query on this service: what an OAuth 1.0a signature covers. */
  url(path: string, query?: string): string;
  /** Sends a request and reads the whole body. */
  send(request: HttpRequest): Promise<HttpResponse>;
  /** Sends a request and hands back the body unread (no body timeout: the caller watches it). */
  open(request: HttpRequest): Promise<HttpStreamResponse>;
  /** Lets go of the origin's pool; the last transport of the origin to close closes it (in-flight requests finish first). */
  close(): Promise<void>;
}

export interface TransportOptions {
  baseUrl: string | URL;
  /** A dispatcher of the caller's (the transport then never closes it); by default, the origin's shared pool. */
  dispatcher?: Dispatcher;
  timeouts?: HttpTimeouts;
  /** Sent as `User-Agent`. */
  userAgent?: string;
}

const USER_AGENT = "postbot/0.1";

/** Why undici failed, in words a user can act on. */
function describeFailure(err: unknown): { message: string; code?: string; aborted: boolean } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (e?.name === "AbortError" || code === "ABORT_ERR" || code === "UND_ERR_ABORTED") {
    return { message: "the request was aborted", code: code ?? "ABORT_ERR", aborted: true };
  }
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused: is the service (or the sandbox) running at this address?",
    ECONNRESET: "the connection was reset",
    ENOTFOUND: "the host name does not resolve",
    ETIMEDOUT: "connecting timed out",
    UND_ERR_CONNECT_TIMEOUT: "connecting timed out",
    UND_ERR_HEADERS_TIMEOUT: "no response head within the timeout",
    UND_ERR_BODY_TIMEOUT: "the response body stalled past the timeout",
    UND_ERR_SOCKET: "the connection closed before the response was complete (body cut off)",
    UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "the response body was shorter or longer than its Content-Length (truncated)",
    UND_ERR_CLOSED: "the client was closed",
    UND_ERR_DESTROYED: "the client was closed",
  };
  const message = (code && known[code]) ?? `network failure: ${e?.message ?? String(err)}`;
  return code ? { message, code, aborted: false } : { message, aborted: false };
}

/** Turns anything thrown below HTTP into a {@link NetworkError} that names the request. */
function networkError(info: RequestInfo, err: unknown): NetworkError {
  if (err instanceof NetworkError) return err;
  const { message, code, aborted } = describeFailure(err);
  return new NetworkError(info, message, { cause: err, aborted, ...(code ? { code } : {}) });
}

const infoOf = (r: HttpRequest): RequestInfo =>
  r.endpoint ? { method: r.method, path: r.path, endpoint: r.endpoint } : { method: r.method, path: r.path };

interface SharedPool {
  pool: import("undici").Pool;
  users: number;
}

/** The pools of this process, one per service origin, shared by every transport of that origin. */
const pools = new Map<string, SharedPool>();

/**
 * The origin's pool, created on first use and closed when its last transport closes: many
 * accounts of one process talk to the service over one set of keep-alive connections.
 */
function acquirePool(origin: string, keepAliveMs: number): { dispatcher: Dispatcher; release: () => Promise<void> } {
  let shared = pools.get(origin);
  if (!shared || shared.pool.closed || shared.pool.destroyed) {
    shared = {
      // The head and body timeouts go with each request (a stream's body has none).
      pool: new (undici().Pool)(origin, { keepAliveTimeout: keepAliveMs, connections: 64 }),
      users: 0,
    };
    pools.set(origin, shared);
  }
  const s = shared;
  s.users++;
  let released = false;
  return {
    dispatcher: s.pool,
    async release() {
      if (released) return;
      released = true;
      if (--s.users > 0) return;
      if (pools.get(origin) === s) pools.delete(origin);
      await s.pool.close().catch(() => {});
    },
  };
}

/** The base URL's path without its trailing slashes: the prefix of every request path. */
const basePath = (baseUrl: URL) => baseUrl.pathname.replace(/\/+$/, "");

/**
 * The absolute URL of a path (and encoded query) under a base URL, whatever path the base
 * URL has: what a transport requests, what an OAuth 1.0a signature covers, and where a person
 * is sent to authorize.
 */
export function serviceUrl(baseUrl: URL, path: string, query?: string): string {
  return `${baseUrl.origin}${basePath(baseUrl)}${path}${query ? `?${query}` : ""}`;
}

/** Where a transport's requests go, and how long they may take. */
interface Destination {
  dispatcher: Dispatcher;
  origin: string;
  prefix: string;
  userAgent: string;
  headersTimeout: number;
  bodyTimeout: number;
}

/**
 * One request through undici. (A function of the module, not a closure per transport: every
 * bot has a transport, and with 10,000 bots each closure tsx names costs a few hundred bytes.)
 */
function undiciRequest(to: Destination, r: HttpRequest, streaming: boolean) {
  return to.dispatcher.request({
    origin: to.origin,
    method: r.method as Dispatcher.HttpMethod,
    path: `${to.prefix}${r.path}${r.query ? `?${r.query}` : ""}`,
    headers: { "user-agent": to.userAgent, ...r.headers },
    body: r.body ?? null,
    signal: r.signal ?? null,
    headersTimeout: to.headersTimeout,
    bodyTimeout: streaming ? 0 : to.bodyTimeout,
  });
}

/**
 * Creates the transport of one origin. The base URL is checked here, so no request can go out
 * over plain HTTP to a remote host. Transports of the same origin share one pool.
 */
export function createTransport(options: TransportOptions): HttpTransport {
  const baseUrl = secureBaseUrl(options.baseUrl, "the service base URL");
  const t = options.timeouts ?? {};
  const headersTimeout = t.headersMs ?? DEFAULT_TIMEOUTS.headersMs;
  const bodyTimeout = t.bodyMs ?? DEFAULT_TIMEOUTS.bodyMs;
  const shared = options.dispatcher
    ? undefined
    : acquirePool(baseUrl.origin, t.keepAliveMs ?? DEFAULT_TIMEOUTS.keepAliveMs);
  const dispatcher = options.dispatcher ?? shared!.dispatcher;
  const to: Destination = {
    dispatcher,
    origin: baseUrl.origin,
    prefix: basePath(baseUrl),
    userAgent: options.userAgent ?? USER_AGENT,
    headersTimeout,
    bodyTimeout,
  };
  return {
    baseUrl,
    url(path, query) {
      return serviceUrl(baseUrl, path, query);
    },
    async send(r) {
      const info = infoOf(r);
      try {
        const res = await undiciRequest(to, r, false);
        const text = await res.body.text();
        return { status: res.statusCode, headers: res.headers, text };
      } catch (err) {
        throw networkError(info, err);
      }
    },
    async open(r) {
      try {
        const res = await undiciRequest(to, r, true);
        return { status: res.statusCode, headers: res.headers, body: res.body };
      } catch (err) {
        throw networkError(infoOf(r), err);
      }
    },
    async close() {
      await shared?.release();
    },
  };
}

/** A header's single value (undici gives repeated headers as arrays). */
export const headerValue = (headers: HttpResponse["headers"], name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};
