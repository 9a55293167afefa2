/**
 * The sandbox's HTTP platform: one node:http server that answers the whole service on
 * loopback, built around the endpoint handlers (`routes`). For every request it parses the
 * target, routes it (v2 catalog, OAuth endpoints, admin API), reads the body with a cap,
 * authenticates, checks methods, scopes and plan, meters the limits, calls the handler and
 * writes JSON or a stream. Nothing a client sends can crash it: every failure is an answer.
 *
 * The sandbox serves plain HTTP. The spec requires HTTPS for every OAuth step; postbot's
 * client allows plain HTTP only to loopback addresses, which is where the sandbox listens,
 * and the sandbox answers OAuth steps over plain HTTP only to loopback (`auth/transport.ts`).
 *
 * @example
 * ```ts
 * const sandbox = await createSandbox({ clock: createClock({ frozen: true }) });
 * const app = await sandbox.admin.createApp({ plan: "basic" });
 * // ... requests to sandbox.url ...
 * await sandbox.close();
 * ```
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { matchEndpoint, type Endpoint } from "../api/endpoints.ts";
import { createClock, type AdjustableClock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Plan } from "../limits/types.ts";
import { createAdminApi, type SandboxAdmin } from "./admin/in-process.ts";
import { adminHandler, createAdminRoutes } from "./admin/routes.ts";
import { checkAccess } from "./auth/access.ts";
import { authenticate } from "./auth/authenticate.ts";
import { sameSecret } from "./auth/credentials.ts";
import { NonceCache } from "./auth/nonces.ts";
import { flows } from "./auth/state.ts";
import { baseStringUri } from "./auth/oauth1.ts";
import { matchOAuthRoute, meterOAuth, OAUTH_ROUTES } from "./auth/routes.ts";
import { parseCookies } from "../cookies.ts";
import { refusePlainHttp } from "./auth/transport.ts";
import { TIMESTAMP_WINDOW_MS } from "./auth/verify-oauth1.ts";
import { FaultRegistry } from "./faults.ts";
import { jsonReply, problemReply, replyOf, ReplyError, textReply, type Reply } from "./http/reply.ts";
import {
  ClientGone,
  formBody,
  hasBody,
  jsonBody,
  NO_BODY,
  parseTarget,
  readBody,
  tokenRequestFields,
  type Target,
} from "./http/request.ts";
import { PlatformRequest } from "./http/route-request.ts";
import { writeStream, type OpenStream } from "./http/stream.ts";
import { checkCap } from "./meter/cap.ts";
import { meterRequest } from "./meter/limits.ts";
import { WindowBook } from "./meter/windows.ts";
import { countRequest } from "./meter/stats.ts";
import { createData } from "./model/index.ts";
import type { Incoming, Platform } from "./platform.ts";
import { ApiProblem, httpProblem, notFound } from "./problems.ts";
import { isStream, type SandboxContext, type SandboxEventMap } from "./route.ts";
import { CHAT_COMPLETIONS_PATH, chatCompletions } from "./routes/chat-completions.ts";
import { fileRoute } from "./routes/files.ts";
import { routes } from "./routes/index.ts";
import { loadState, saveState } from "./state.ts";

export interface SandboxOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** The sandbox's clock (default: a running clock). Tests pass a frozen one and move it. */
  clock?: AdjustableClock;
  /** The admin API's token (default: a random one, see `sandbox.adminToken`). */
  adminToken?: string;
  /** Plan of apps created without one (default `pro`). */
  plan?: Plan;
  /** Load state from this file at start (when it exists) and save it there on close. */
  stateFile?: string;
  logger?: Logger;
  /** Largest request body accepted; larger ones get 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * The API key the chat-completions stand-in (`POST /v1/chat/completions`) asks for as
   * `Authorization: Bearer KEY`. Without one, the stand-in takes any key or none.
   */
  chatCompletionsKey?: string;
  /**
   * Time (on the sandbox's clock) a request body may take to arrive once its headers are in;
   * a body that stalls longer gets 408 and the connection is closed (default 30 s).
   */
  bodyTimeoutMs?: number;
  /**
   * Real time a client may take to send a request line and headers; a slower one (a
   * slowloris) gets 408 and the connection is closed (default 30 s). Node's own default
   * (60 s, checked every 30 s) cut one only after up to 90 s.
   */
  headersTimeoutMs?: number;
}

export interface Sandbox {
  /** Base URL of the service, e.g. `http://127.0.0.1:41234`. */
  url: string;
  adminToken: string;
  /** State, clock and event bus, as the endpoint handlers see them. */
  context: SandboxContext;
  clock: AdjustableClock;
  /** The admin API, in-process. */
  admin: SandboxAdmin;
  /**
   * Writes the live rate-limit windows back into `context.data` and saves the state to
   * `stateFile` (when there is one).
   */
  save(): Promise<void>;
  /** Ends open streams, stops timers, closes the server, and saves the state. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 30_000;
/** How often, at most, Node checks connections for the headers timeout (it is cut this much late at worst). */
const TIMEOUT_CHECK_MS = 1_000;
/**
 * The request line and headers Node reads (its default is 16 KiB); past it the answer is 431
 * with a problem body. The service's own bound is not published; 16 KiB is common.
 */
const MAX_HEADER_BYTES = 16 * 1024;
/** Status counted for a request whose client hung up mid-body (nginx's "client closed request"). */
const CLIENT_GONE = 499;
const NO_COOKIES: ReadonlyMap<string, string> = new Map();
/** How often (real time) the state is saved while running, so a crash loses at most this much. */
const AUTOSAVE_MS = 30_000;

/** Creates and starts a sandbox. */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? createClock();
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? "127.0.0.1";
  const bodyLimits = {
    maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    clock,
  };
  const adminToken = options.adminToken ?? randomBytes(24).toString("base64url");
  const data = (options.stateFile && (await loadState(options.stateFile))) || createData();
  const context: SandboxContext = { data, clock, events: new EventEmitter<SandboxEventMap>() };
  const p: Platform = {
    context,
    clock,
    logger,
    nonces: new NonceCache(TIMESTAMP_WINDOW_MS, () => flows(data).nonces),
    faults: new FaultRegistry(),
    windows: new WindowBook(data),
    defaultPlan: options.plan ?? "pro",
    adminToken,
  };
  const adminTable = createAdminRoutes(p);
  const streams = new Set<OpenStream>();
  const closing = new AbortController();
  let hostHeader = host;

  const send = (res: ServerResponse, reply: Reply) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(reply.status, {
      // The service's own time, as a client reads it to sign with (Node's default Date is the host's).
      date: new Date(clock.now()).toUTCString(),
      ...reply.headers,
      "content-length": String(Buffer.byteLength(reply.body)),
    });
    res.end(reply.body);
  };

  /** Any thrown value as an answer; a bug is logged and answered with a 500 problem. */
  const errorReply = (err: unknown, where: string): Reply => {
    if (err instanceof ApiProblem) return replyOf(err);
    if (err instanceof ReplyError) return err.reply;
    if (err instanceof ClientGone) {
      logger.debug({ where }, "client closed the connection mid-body");
      return { status: CLIENT_GONE, headers: {}, body: "" };
    }
    logger.error({ err, where }, "sandbox handler failed");
    return problemReply(500, {
      title: "Internal Server Error",
      detail: `The sandbox failed while handling ${where}; the error is in its log.`,
      type: "about:blank",
      status: 500,
    });
  };

  /** The request as the platform's parts read it; cookies only where pages use them. */
  const incoming = (req: IncomingMessage, target: Target, body: Buffer, withCookies = false): Incoming => ({
    req,
    method: req.method ?? "GET",
    target,
    body,
    form: formBody(req, body),
    uri: baseStringUri("http", req.headers.host ?? hostHeader, target.pathname),
    cookies: withCookies ? parseCookies(req.headers.cookie) : NO_COOKIES,
  });

  /** Applies a request-phase fault; true when it answered (or killed) the request. */
  const requestFault = async (route: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const fault = p.faults.take(route, "request");
    if (!fault) return false;
    if (fault.kind === "delay") {
      // A client that hangs up during the delay is gone: its request is not handled (a
      // stream would take the app's one connection for nobody).
      const gone = new AbortController();
      const leave = () => gone.abort();
      res.once("close", leave);
      try {
        await clock.sleep(fault.delay_ms, AbortSignal.any([closing.signal, gone.signal]));
      } catch (err) {
        if (closing.signal.aborted) throw err;
        countRequest(data, route, CLIENT_GONE);
        return true;
      } finally {
        res.off("close", leave);
      }
      return false;
    }
    if (fault.kind === "reset") {
      req.socket.destroy();
      return true;
    }
    if (fault.kind === "error") {
      const body =
        fault.body === undefined
          ? {
              title: STATUS_CODES[fault.status] ?? "Error",
              detail: STATUS_CODES[fault.status] ?? "Error",
              type: "about:blank",
              status: fault.status,
            }
          : fault.body;
      const reply = typeof body === "string" ? textReply(fault.status, body) : jsonReply(fault.status, body);
      send(res, { ...reply, headers: { ...reply.headers, ...fault.headers } });
      countRequest(data, route, fault.status);
      return true;
    }
    return false;
  };

  async function serveV2(
    req: IncomingMessage,
    res: ServerResponse,
    target: Target,
    endpoint: Endpoint,
    params: Record<string, string>,
  ) {
    const route = endpoint.key;
    if (p.faults.has(route) && (await requestFault(route, req, res))) return;
    let headers: Record<string, string> = {};
    let status = 500;
    try {
      const body = hasBody(req) ? await readBody(req, bodyLimits) : NO_BODY;
      const inc = incoming(req, target, body);
      const { caller, userKey, access } = authenticate(p, inc);
      checkAccess(endpoint, caller, access);
      const now = clock.now();
      checkCap(data, route, caller.app, now);
      headers = meterRequest(p.windows, route, caller.app, userKey, now);
      const json = jsonBody(req, body);
      const handler = routes[route];
      if (!handler) throw notFound(`${route} has no handler in this sandbox yet.`);
      const rr = new PlatformRequest(context, endpoint, params, target.query, json, caller, res);
      const answer = handler(rr);
      const result = answer instanceof Promise ? await answer : answer;
      if (isStream(result)) {
        status = 200;
        // The stream may end before writeStream returns (a drop fault at message 0), so
        // onEnd must not need what it returns.
        let open: OpenStream | undefined;
        open = writeStream({
          res,
          clock,
          logger,
          result,
          headers,
          fault: p.faults.take(route, "stream"),
          onEnd: () => {
            if (open) streams.delete(open);
            rr.leave();
          },
        });
        if (!res.writableEnded) streams.add(open);
        return;
      }
      status = result.status;
      send(res, {
        status,
        headers: { "content-type": "application/json; charset=utf-8", ...headers, ...result.headers },
        body: result.body === undefined ? "" : JSON.stringify(result.body),
      });
    } catch (err) {
      const reply = errorReply(err, route);
      status = reply.status;
      send(res, { ...reply, headers: { ...headers, ...reply.headers } });
    } finally {
      countRequest(data, route, status);
    }
  }

  async function serveOAuth(req: IncomingMessage, res: ServerResponse, target: Target, route: string) {
    if (p.faults.has(route) && (await requestFault(route, req, res))) return;
    let reply: Reply;
    try {
      const body = await readBody(req, bodyLimits);
      const inc = incoming(req, target, body, true);
      if (route.startsWith("POST /2/oauth2/")) inc.form = tokenRequestFields(req, body);
      refusePlainHttp(req);
      meterOAuth(p, route, req.socket.remoteAddress ?? "unknown");
      reply = OAUTH_ROUTES[route]!(p, inc);
    } catch (err) {
      reply = errorReply(err, route);
    }
    countRequest(data, route, reply.status);
    send(res, reply);
  }

  async function serveAdmin(req: IncomingMessage, res: ServerResponse, target: Target) {
    const key = `${req.method} ${target.pathname}`;
    let reply: Reply;
    try {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
      if (!given || !sameSecret(given, adminToken)) {
        throw httpProblem(
          401,
          "Unauthorized",
          "The admin API needs Authorization: Bearer <admin token> (printed by `bot sandbox` at start).",
        );
      }
      const handler = adminHandler(adminTable, key);
      if (!handler) throw notFound(`${key} is not an admin route.`);
      const body = await readBody(req, bodyLimits);
      const result = await handler({ sandbox: context, query: target.query, body: jsonBody(req, body) });
      reply = jsonReply(result.status, result.body, result.headers);
    } catch (err) {
      reply = errorReply(err, key);
    }
    send(res, reply);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? "GET";
    let target: Target;
    try {
      target = parseTarget(req.url ?? "/");
    } catch (err) {
      return send(res, errorReply(err, "the request target"));
    }
    const path = target.pathname;
    if (path === "/_sandbox" || path.startsWith("/_sandbox/")) return serveAdmin(req, res, target);
    // Compliance jobs' pre-signed upload and download URLs: outside the v2 API, no credentials.
    const file = fileRoute(method, path);
    if (file)
      return send(
        res,
        await file({ sandbox: context, req, query: target.query, limits: bodyLimits }).catch((err) =>
          errorReply(err, path),
        ),
      );
    // The language-model stand-in of the demo: not part of the service, outside every plan.
    if (path === CHAT_COMPLETIONS_PATH) {
      const reply = await chatCompletions({
        req,
        clock,
        limits: bodyLimits,
        key: options.chatCompletionsKey,
        nextAnswer: () => (data.meter.stand_in_answers = (data.meter.stand_in_answers ?? 0) + 1),
      }).catch((err) => errorReply(err, path));
      countRequest(data, `${method} ${path}`, reply.status);
      return send(res, reply);
    }
    const oauth = matchOAuthRoute(method, path);
    if (oauth) return serveOAuth(req, res, target, oauth);
    let match: ReturnType<typeof matchEndpoint>;
    try {
      match = matchEndpoint(method, path);
    } catch {
      return send(res, errorReply(notFound(), path));
    }
    if (!match) {
      return send(
        res,
        replyOf(notFound(`No route matches ${method} ${path}. The service's endpoints are listed in spec part 4.`)),
      );
    }
    return serveV2(req, res, target, match.endpoint, match.params);
  }

  /** The last line of defence: whatever escaped the handlers is answered, never thrown. */
  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    if (closing.signal.aborted) return void res.destroy();
    send(res, errorReply(err, `${req.method} ${req.url}`));
  };
  const debug = logger.isLevelEnabled("debug");
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout,
    // Node refuses a request timeout shorter than the headers timeout; 0 would switch it off.
    requestTimeout: Math.max(headersTimeout, 300_000),
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeout),
  };
  const server = createServer(serverOptions, (req, res) => {
    if (!debug) return void handle(req, res).catch((err) => fail(req, res, err));
    const started = performance.now();
    handle(req, res)
      .catch((err) => fail(req, res, err))
      .finally(() => {
        logger.debug(
          {
            method: req.method,
            url: req.url?.split("?")[0],
            status: res.statusCode,
            ms: +(performance.now() - started).toFixed(2),
          },
          "request",
        );
      });
  });
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    socket.end(rawProblemResponse(clientErrorProblem(err.code)));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = host.includes(":") ? `[${host}]` : host;
  hostHeader = `${hostPart}:${port}`;
  const url = `http://${hostPart}:${port}`;
  context.url = url;

  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    p.windows.flush(clock.now());
    const file = options.stateFile;
    if (!file) return Promise.resolve();
    saving = saving
      .then(() => saveState(file, data))
      .catch((err) => logger.error({ err, file }, "could not save the sandbox state"));
    return saving;
  };
  const autosave = options.stateFile ? setInterval(() => void save(), AUTOSAVE_MS).unref() : undefined;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      closing.abort(new Error("sandbox closed"));
      if (autosave) clearInterval(autosave);
      for (const s of [...streams]) s.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await save();
    })());

  logger.debug({ url, plan: p.defaultPlan, stateFile: options.stateFile }, "sandbox listening");
  return { url, adminToken, context, clock, admin: createAdminApi(adminTable, context), save, close };
}

/** The problem for a request Node's parser refused before any handler saw it. */
function clientErrorProblem(code: string | undefined): { status: number; title: string; detail: string } {
  if (code === "HPE_HEADER_OVERFLOW") {
    return {
      status: 431,
      title: "Request Header Fields Too Large",
      detail: `The request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KiB. Send long queries in fewer, shorter parameters.`,
    };
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return { status: 408, title: "Request Timeout", detail: "The request did not arrive in time." };
  return { status: 400, title: "Bad Request", detail: "The request is not valid HTTP/1.1." };
}

/** A whole HTTP response with a problem body, for a socket no response object exists for. */
function rawProblemResponse(p: { status: number; title: string; detail: string }): string {
  const body = JSON.stringify({ title: p.title, detail: p.detail, type: "about:blank", status: p.status });
  return (
    `HTTP/1.1 ${p.status} ${STATUS_CODES[p.status] ?? p.title}\r\nconnection: close\r\ncontent-type: application/problem+json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
