/**
 * The contract between the sandbox's HTTP platform (server, authentication, limits, admin)
 * and its endpoint handlers. The platform parses and authenticates a request, checks it
 * against the plan's limits, then calls the handler registered for its endpoint with a
 * {@link RouteRequest}; the handler returns JSON or a stream, or throws an {@link ApiProblem}.
 */
import type { EventEmitter } from "node:events";
import type { AuthMethod, Endpoint, EndpointKey, Scope } from "../api/endpoints.ts";
import type { Clock } from "../clock.ts";
import type { SandboxApp, SandboxData, SandboxPost, SandboxUser } from "./model/index.ts";

/** Things that happen in the sandbox that others (streams, the crowd) react to. */
export interface SandboxEventMap {
  /** A post was created (through the API, the admin API or the crowd). */
  "post:created": [post: SandboxPost];
  "post:deleted": [post: SandboxPost];
}

/** What every part of one sandbox shares: its state, its clock and its event bus. */
export interface SandboxContext {
  data: SandboxData;
  clock: Clock;
  events: EventEmitter<SandboxEventMap>;
  /**
   * The base URL the sandbox listens on (`http://127.0.0.1:41234`), once it does: answers
   * that hand out URLs of the sandbox itself (compliance jobs' upload and download URLs)
   * build them from it.
   */
  url?: string;
}

/** Who is calling, as the authentication layer established it. */
export interface Caller {
  method: AuthMethod;
  app: SandboxApp;
  /** The user of a user-context token (OAuth 1.0a or PKCE); absent for app-only. */
  user?: SandboxUser;
  /** PKCE scopes granted (PKCE only). */
  scopes?: readonly Scope[];
}

export interface RouteRequest {
  sandbox: SandboxContext;
  endpoint: Endpoint;
  /** Path parameters by the template's names (`:id` is `params.id`), percent-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
  caller: Caller;
  /**
   * Counts posts delivered through a capped endpoint (recent search, filtered stream)
   * against the app's monthly cap (spec part 8.1 rule 5). The platform refuses requests
   * once the cap is spent; handlers only report what they delivered.
   */
  countPostsRead(n: number): void;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** A JSON answer. */
export interface JsonResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A long-lived answer of newline-delimited JSON (wire-facts 2.8). The platform writes the
 * 200 head, sends a keep-alive `\r\n` every 20 s of sandbox clock while nothing else is
 * sent, applies injected stream faults, and calls the returned function when the connection
 * ends for any reason.
 */
export interface StreamResult {
  stream: (sink: StreamSink) => () => void;
}

export interface StreamSink {
  /** Writes one message as a JSON line ended by `\r\n`. */
  send(message: unknown): void;
  /** Ends the response (after an in-stream error message, say). */
  end(): void;
}

export type RouteResult = JsonResult | StreamResult;

export type RouteHandler = (req: RouteRequest) => RouteResult | Promise<RouteResult>;

/** Handlers by endpoint key. */
export type RouteTable = Partial<Record<EndpointKey, RouteHandler>>;

/** A request to the admin API (`/_sandbox/...`), already checked for the admin token. */
export interface AdminRequest {
  sandbox: SandboxContext;
  query: URLSearchParams;
  body: unknown;
}

/** Admin handlers by `"METHOD /_sandbox/path"`. */
export type AdminRouteTable = Record<string, (req: AdminRequest) => JsonResult | Promise<JsonResult>>;

export const isStream = (r: RouteResult): r is StreamResult => "stream" in r;

export type { SandboxUser };
