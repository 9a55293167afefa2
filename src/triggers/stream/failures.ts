/**
 * What stopped a stream attempt, read the way the hub acts on it: the service's error behind
 * the action layer's wrapping, the cause the reconnect policy counts (each cause has its own
 * documented back-off), and the one refusal that another process's connection will end soon
 * (the app's one connection is taken).
 */
import { ApiError, BearerTooFrequentError, NetworkError, RateLimitError } from "../../api/errors.ts";
import type { ReconnectCause } from "../../api/stream/reconnect-policy.ts";

/** The service's error behind a failure (the action layer wraps what it could not send). */
export function apiErrorOf(err: unknown): ApiError | undefined {
  for (let e = err, i = 0; e && i < 5; i++) {
    if (e instanceof ApiError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether the service refused a connection because the app's one stream connection is taken (429, TooManyConnections). */
export function tooManyConnections(failure: unknown): boolean {
  const err = apiErrorOf(failure) ?? failure;
  return (
    err instanceof RateLimitError &&
    (err.problem as { connection_issue?: unknown } | undefined)?.connection_issue === "TooManyConnections"
  );
}

/** Why an attempt failed, as the reconnect policy counts it. */
export function causeOf(failure: unknown): ReconnectCause {
  const err = apiErrorOf(failure) ?? failure;
  if (err instanceof NetworkError) return "network";
  if (err instanceof BearerTooFrequentError) return "http";
  if (err instanceof ApiError && err.status === 429) return "rate-limit";
  return "http";
}

/** The message of whatever was thrown, for a log line. */
export const messageOf = (err: unknown): string => (err as Error)?.message ?? String(err);
