/**
 * The sandbox's HTTP platform: one node:http server that answers the whole service on
 * loopback, built around the endpoint handlers (`routes`). For every request it parses the
 * target, routes it (v2 catalog, OAuth endpoints, admin API), reads the body with a cap,
 * authenticates, checks methods, scopes and plan, meters the limits, calls the handler and
 * writes JSON or a stream. Nothing a client sends can crash it: every failure is an answer.
 * This file is the wiring (state, platform, server, saving, closing); the ways a request
 * takes are in `serve/` (`dispatch.ts` picks one by the path).
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
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createClock, type AdjustableClock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Plan } from "../limits/types.ts";
import { createAdminApi, type SandboxAdmin } from "./admin/in-process.ts";
import { createAdminRoutes } from "./admin/routes.ts";
import { NonceCache } from "./auth/nonces.ts";
import { flows } from "./auth/state.ts";
import { TIMESTAMP_WINDOW_MS } from "./auth/verify-oauth1.ts";
import { FaultRegistry } from "./faults.ts";
import type { OpenStream } from "./http/stream.ts";
import { WindowBook } from "./meter/windows.ts";
import { createData } from "./model/index.ts";
import type { Platform } from "./platform.ts";
import type { SandboxContext, SandboxEventMap } from "./route.ts";
import { dispatch } from "./serve/dispatch.ts";
import { errorReply, send, type Serving } from "./serve/serving.ts";
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
/** How often (real time) the state is saved while running, so a crash loses at most this much. */
const AUTOSAVE_MS = 30_000;

/**
 * Creates and starts a sandbox: its state (loaded or new), the platform its parts share, the
 * HTTP server that hands every request to `serve/dispatch.ts`, and its saving and closing.
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? createClock();
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? "127.0.0.1";
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
  const closing = new AbortController();
  const s: Serving = {
    p,
    bodyLimits: {
      maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
      timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      clock,
    },
    adminTable: createAdminRoutes(p),
    streams: new Set<OpenStream>(),
    closing: closing.signal,
    hostHeader: host,
    chatCompletionsKey: options.chatCompletionsKey,
  };
  const server = httpServer(s, options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS);
  const port = await listen(server, options.port ?? 0, host);
  const hostPart = host.includes(":") ? `[${host}]` : host;
  s.hostHeader = `${hostPart}:${port}`;
  const url = `http://${hostPart}:${port}`;
  context.url = url;
  const { save, close } = keeping(s, server, closing, options.stateFile);
  logger.debug({ url, plan: p.defaultPlan, stateFile: options.stateFile }, "sandbox listening");
  return { url, adminToken, context, clock, admin: createAdminApi(s.adminTable, context), save, close };
}

/**
 * The node:http server: its bounds on headers and their time, every request to
 * {@link dispatch} (timed in the debug log), and whatever escapes answered, never thrown.
 */
function httpServer(s: Serving, headersTimeout: number): Server {
  const { logger } = s.p;
  /** The last line of defence: whatever escaped the handlers is answered, never thrown. */
  const fail = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    if (s.closing.aborted) return void res.destroy();
    send(s, res, errorReply(s, err, `${req.method} ${req.url}`));
  };
  const debug = logger.isLevelEnabled("debug");
  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout,
    // Node refuses a request timeout shorter than the headers timeout; 0 would switch it off.
    requestTimeout: Math.max(headersTimeout, 300_000),
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeout),
  };
  const server = createServer(serverOptions, (req, res) => {
    if (!debug) return void dispatch(s, req, res).catch((err) => fail(req, res, err));
    const started = performance.now();
    dispatch(s, req, res)
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
  return server;
}

/** Listens on `host:port` (0: any free port) and returns the port. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * The sandbox's saving (the live windows written back, the state to `stateFile` now and every
 * {@link AUTOSAVE_MS}, one save at a time) and its close (once: streams ended, server closed,
 * state saved).
 */
function keeping(
  s: Serving,
  server: Server,
  closing: AbortController,
  stateFile: string | undefined,
): Pick<Sandbox, "save" | "close"> {
  const { clock, logger, context, windows } = s.p;
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    windows.flush(clock.now());
    if (!stateFile) return Promise.resolve();
    saving = saving
      .then(() => saveState(stateFile, context.data))
      .catch((err) => logger.error({ err, file: stateFile }, "could not save the sandbox state"));
    return saving;
  };
  const autosave = stateFile ? setInterval(() => void save(), AUTOSAVE_MS).unref() : undefined;

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      closing.abort(new Error("sandbox closed"));
      if (autosave) clearInterval(autosave);
      for (const open of [...s.streams]) open.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await save();
    })());
  return { save, close };
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
