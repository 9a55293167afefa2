/**
 * What can go wrong when talking to the service, as classes a caller can tell apart with
 * `instanceof`: the action layer pauses a key on {@link RateLimitError}, the runtime pauses an
 * account on {@link InvalidTokenError}, a plugin reads {@link ProblemError.kind}.
 *
 * Every error names the request's method and path (never its query string or headers, which
 * may carry tokens), so a log line says which call failed without leaking a secret.
 */
import { UserError } from "../errors.ts";
import { AUTH_METHOD_NAMES, type AuthMethod, type EndpointKey } from "./endpoints.ts";
import { problemKind, type Problem } from "./types.ts";

/** Where a failed call went: enough to find it in a log, nothing secret. */
export interface RequestInfo {
  /** HTTP method. */
  method: string;
  /** The concrete path, without the query string (`/2/posts/123`). */
  path: string;
  /** The endpoint key when the path is a v2 endpoint (`GET /2/posts/:id`). */
  endpoint?: EndpointKey;
}

/** The base of every error that comes from a request to the service (or the attempt to make one). */
export class ApiError extends Error {
  override name = "ApiError";
  readonly method: string;
  readonly path: string;
  readonly endpoint?: EndpointKey;
  /** The HTTP status, when a response arrived. */
  readonly status?: number;
  /** The response's rate-limit headers (`x-rate-limit-*`, `x-*-limit-24hour-*`), when one arrived: the action layer's budget corrects itself by them. */
  headers?: Record<string, string | string[] | undefined>;

  constructor(request: RequestInfo, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(`${request.method} ${request.path}: ${message}`, { cause: options.cause });
    this.method = request.method;
    this.path = request.path;
    if (request.endpoint) this.endpoint = request.endpoint;
    if (options.status !== undefined) this.status = options.status;
  }
}

/**
 * No usable response: the connection was refused, reset, timed out or aborted, or the body
 * was cut off. Safe to retry for reads; for writes the action layer must first check whether
 * the write happened.
 */
export class NetworkError extends ApiError {
  override name = "NetworkError";
  /** The low-level code (`ECONNREFUSED`, `UND_ERR_SOCKET`, `ABORT_ERR`...), when known. */
  readonly code?: string;
  /** True when the caller's own signal aborted the call (not a failure of the service). */
  readonly aborted: boolean;

  constructor(
    request: RequestInfo,
    message: string,
    options: { cause?: unknown; code?: string; aborted?: boolean } = {},
  ) {
    super(request, message, { cause: options.cause });
    if (options.code) this.code = options.code;
    this.aborted = options.aborted ?? false;
  }
}

/**
 * A response the client cannot use: not JSON where JSON was due, a truncated JSON document,
 * an unexpected status with a body of no known error shape, a required header missing.
 */
export class ResponseError extends ApiError {
  override name = "ResponseError";
}

/**
 * A v2 problem (wire-facts 3.1): the service refused the request and said why. `kind` is the
 * last segment of the type URI (`resource-not-found`, `unsupported-authentication`...), so
 * code does not depend on the URI's host.
 */
export class ProblemError extends ApiError {
  override name = "ProblemError";
  readonly type: string;
  readonly kind: string;
  readonly title: string;
  readonly detail?: string;
  /** The whole problem object, type-specific members included. */
  readonly problem: Problem;

  constructor(request: RequestInfo, status: number, problem: Problem, hint = "") {
    super(
      request,
      `${status} ${problem.title}${problem.detail && problem.detail !== problem.title ? `: ${problem.detail}` : ""}${hint}`,
      { status },
    );
    this.type = problem.type;
    this.kind = problemKind(problem);
    this.title = problem.title;
    if (problem.detail !== undefined) this.detail = problem.detail;
    this.problem = problem;
  }
}

/** The rate-limit state a response reported (spec 8.1 rule 3, wire-facts 5.1). */
export interface RateLimitWindow {
  limit?: number;
  remaining?: number;
  /** When the window resets, in ms since the epoch (the header carries epoch seconds). */
  resetAt?: number;
}

/**
 * HTTP 429 for a rate limit (not a usage cap): pause this endpoint for this credential until
 * {@link resetAt}. When the service sent no `x-rate-limit-reset`, `resetAt` is undefined and
 * the caller should back off exponentially (spec part 7 rule 1).
 */
export class RateLimitError extends ApiError {
  override name = "RateLimitError";
  /** Epoch ms when the window resets, from `x-rate-limit-reset`. */
  readonly resetAt?: number;
  readonly limit?: number;
  readonly remaining?: number;
  /** The body's problem when it was one (the filtered stream's TooManyConnections is). */
  readonly problem?: Problem;

  constructor(request: RequestInfo, window: RateLimitWindow, problem?: Problem) {
    const when =
      window.resetAt !== undefined
        ? `the window resets at ${new Date(window.resetAt).toISOString()}; wait until then`
        : "the response had no x-rate-limit-reset header; back off exponentially";
    const what = problem?.detail && problem.detail !== problem.title ? ` (${problem.detail})` : "";
    super(request, `429 rate limit exceeded${what}; ${when}`, { status: 429 });
    if (window.resetAt !== undefined) this.resetAt = window.resetAt;
    if (window.limit !== undefined) this.limit = window.limit;
    if (window.remaining !== undefined) this.remaining = window.remaining;
    if (problem) this.problem = problem;
  }
}

/**
 * HTTP 429 `usage-capped`: the plan's monthly (or daily) read cap is spent (spec 8.1 rule 5).
 * Unlike a rate limit it does not clear at `x-rate-limit-reset`; hold reads until the
 * enrolment day.
 */
export class UsageCappedError extends ProblemError {
  override name = "UsageCappedError";
  /** `Monthly` or `Daily`, as the problem says. */
  readonly period?: string;
  /** `Product` or `Account`, as the problem says. */
  readonly scope?: string;

  constructor(request: RequestInfo, problem: Problem) {
    super(
      request,
      429,
      problem,
      "; the usage cap is spent: hold these reads until the cap resets (the enrolment day of the month)",
    );
    if (typeof problem.period === "string") this.period = problem.period;
    if (typeof problem.scope === "string") this.scope = problem.scope;
  }
}

/**
 * A v1.1-style error (`{"errors":[{"code":32,"message":"..."}]}`), as the OAuth endpoints
 * and the authentication layer send them (wire-facts 3.3).
 */
export class OAuthError extends ApiError {
  override name = "OAuthError";
  readonly code: number;

  constructor(request: RequestInfo, status: number, code: number, serviceMessage: string, hint = "") {
    super(request, `${status} code ${code}: ${serviceMessage}${hint}`, { status });
    this.code = code;
  }
}

/**
 * 401 with code 89 (spec part 7): the access token was invalidated or has expired. Retrying
 * cannot help; the account must be authorized again (`bot auth login`).
 */
export class InvalidTokenError extends OAuthError {
  override name = "InvalidTokenError";

  constructor(request: RequestInfo, serviceMessage = "Invalid or expired token.") {
    super(
      request,
      401,
      89,
      serviceMessage,
      "; the access token was revoked or has expired: authorize the account again (bot auth login)",
    );
  }
}

/**
 * 403 with code 99 from `/oauth2/token`: the app asked for its bearer token too often. The
 * client caches the token per app so this should not happen; if it does, wait before asking
 * again.
 */
export class BearerTooFrequentError extends OAuthError {
  override name = "BearerTooFrequentError";

  constructor(request: RequestInfo, serviceMessage = "Unable to verify your credentials") {
    super(
      request,
      403,
      99,
      serviceMessage,
      "; the bearer token was requested too often: reuse the cached token and wait before asking again",
    );
  }
}

/**
 * An RFC 6749 error from the OAuth 2.0 token or revoke endpoint
 * (`{"error":"invalid_grant","error_description":"..."}`).
 */
export class OAuth2Error extends ApiError {
  override name = "OAuth2Error";
  readonly error: string;
  readonly description?: string;

  constructor(request: RequestInfo, status: number, error: string, description?: string) {
    super(request, `${status} ${error}${description ? `: ${description}` : ""}`, { status });
    this.error = error;
    if (description !== undefined) this.description = description;
  }
}

/**
 * The call asked for (or the client holds only) an authentication method the endpoint does
 * not accept (spec part 5). Raised before any request is sent, naming the methods that work.
 */
export class AuthMethodError extends UserError {
  override name = "AuthMethodError";
  readonly endpoint: EndpointKey;
  /** The methods the endpoint accepts. */
  readonly accepted: readonly AuthMethod[];

  constructor(endpoint: EndpointKey, accepted: readonly AuthMethod[], problem: string) {
    const names = accepted.map((m) => `${m} (${AUTH_METHOD_NAMES[m]})`).join(" or ");
    super(`${endpoint}: ${problem}; this endpoint accepts ${names}`);
    this.endpoint = endpoint;
    this.accepted = accepted;
  }
}

/**
 * A call that cannot be made as written: a missing path parameter, a value of the wrong kind.
 * Raised before any request; the message names the parameter.
 */
export class ClientInputError extends UserError {
  override name = "ClientInputError";
}
