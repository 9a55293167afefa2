/**
 * The retry policy, the mechanism behind the retry step (../steps/retry.ts): what to do when
 * sending an action fails: the error classes of the client sorted into what the layer does
 * next, and the back-off between attempts.
 *
 * Spec part 7 rule 1: on a 429, pause until `x-rate-limit-reset`, or back off exponentially
 * from a few seconds, doubling, up to a few minutes. postbot does both: the next attempt
 * waits until the reset and at least the back-off, so a reset that comes too early (clock
 * skew, a window the service counts differently) cannot turn into a burst of 429s.
 */
import {
  ApiError,
  InvalidTokenError,
  NetworkError,
  OAuthError,
  RateLimitError,
  ResponseError,
  UsageCappedError,
} from "../../api/errors.ts";
import { isTimestampRefused } from "../../api/responses.ts";
import { LeaseLapsedError, NotHeldError } from "../../fencing.ts";
import type { HeaderBag } from "../action.ts";

/** How hard to try: spec part 7 rule 1's "a few seconds, doubling, up to a few minutes". */
export interface RetryPolicy {
  /** The first back-off (default 5 s). */
  firstDelayMs: number;
  /** The longest back-off (default 5 min). */
  maxDelayMs: number;
  /** Attempts before an action is given up (default 8; with the defaults, about 10 minutes of back-off). */
  maxAttempts: number;
}

/** 5 s doubling to 5 min, eight attempts. */
export const DEFAULT_RETRY: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 300_000, maxAttempts: 8 };

/** The back-off before attempt `attempt + 1`, after `attempt` failures: 5 s, 10 s, 20 s... capped. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * A failure, sorted by what to do next:
 *
 * - `rate-limited`: a 429; wait until `resetAt` (and the back-off), then try again.
 * - `usage-capped`: the monthly read cap is spent; wait for the enrolment day.
 * - `transient`: no usable answer (network, 5xx, a garbled body). `maybeSent` when the
 *   request may have reached the service: a write must then be verified before it is sent again.
 * - `invalid-token`: the account's token is revoked; nothing helps until it is authorized again.
 * - `permanent`: the service refused this request (4xx); sending it again cannot help.
 * - `aborted`: our own signal stopped it (shutdown).
 * - `elsewhere`: not sent, the bot's lease is another process's now (../holding.ts); that
 *   process resumes the action from the ledger.
 */
export type Failure =
  | { kind: "rate-limited"; resetAt?: number }
  | { kind: "usage-capped" }
  | { kind: "transient"; maybeSent: boolean }
  | { kind: "invalid-token" }
  | { kind: "permanent"; status?: number }
  | { kind: "aborted" }
  | { kind: "elsewhere" };

/** Connection errors that mean the request never reached the service. */
const NEVER_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Whether an error (or what it wraps) is the service refusing the account's token (401: code
 * 89, revoked or expired; code 32, a token it does not know): the one test, used by the retry
 * step (which pauses the bot) and by the runtime's start.
 */
export function isRevoked(error: unknown): boolean {
  for (let e = error as { cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (e instanceof InvalidTokenError || (e instanceof OAuthError && e.code === 32)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/** Sorts an error thrown by an executor. Unknown errors count as transient and possibly sent. */
export function classifyFailure(error: unknown, signal?: AbortSignal): Failure {
  if (signal?.aborted) return { kind: "aborted" };
  if (error instanceof NotHeldError) return { kind: "elsewhere" };
  // Cut on its way when the lease ran out: it may have arrived.
  if (error instanceof LeaseLapsedError) return { kind: "transient", maybeSent: true };
  if (error instanceof UsageCappedError) return { kind: "usage-capped" };
  if (error instanceof RateLimitError)
    return error.resetAt !== undefined ? { kind: "rate-limited", resetAt: error.resetAt } : { kind: "rate-limited" };
  if (isRevoked(error)) return { kind: "invalid-token" };
  // Refused for its timestamp: nothing was done; the client signs with the service's time
  // once its answers told it, and a clock set right later lets it through.
  if (isTimestampRefused(error)) return { kind: "transient", maybeSent: false };
  if (error instanceof NetworkError) {
    if (error.aborted) return { kind: "aborted" };
    return { kind: "transient", maybeSent: !(error.code && NEVER_SENT.has(error.code)) };
  }
  if (error instanceof ResponseError) return { kind: "transient", maybeSent: true };
  if (error instanceof ApiError && error.status !== undefined) {
    if (error.status === 429) return { kind: "rate-limited" };
    if (error.status >= 500) return { kind: "transient", maybeSent: true };
    return { kind: "permanent", status: error.status };
  }
  return { kind: "transient", maybeSent: true };
}

/**
 * The response headers an error carries, when the client attached them (a 429's rate-limit
 * headers correct the budget as a success's do).
 */
export function headersOf(error: unknown): HeaderBag | undefined {
  const h = (error as { headers?: unknown } | undefined)?.headers;
  return h && typeof h === "object" && !Array.isArray(h) ? (h as HeaderBag) : undefined;
}

/** A short description of an error for a log line and an outcome's reason (never a stack). */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
