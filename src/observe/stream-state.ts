/**
 * Each app's stream connection as the status page and `/metrics` show it, read from the
 * runtime's own record of its apps (`runtime.apps()`, the same one `bot status` prints), so
 * the page, the metrics and `bot status` never disagree about a stream.
 */
import type { AppStatus } from "../runtime/types.ts";

/** One app's stream, as the page lists it. */
export interface StreamState {
  app: string;
  /** `starting`, `connected`, `reconnecting` (waiting to try again) or `stopped`. */
  state: "starting" | "connected" | "reconnecting" | "stopped";
  /** When it entered this state (ms). */
  since: number;
  /** Attempts that failed or connections that ended since start. */
  reconnects: number;
  /** Posts it delivered since start. */
  posts: number;
  /** Why the last failure happened (`stall`, `http-429`...), while reconnecting. */
  cause?: string;
  /** The last failure's message, kept after a later success. */
  lastError?: string;
  /** When the next attempt is due, while reconnecting. */
  retryAt?: number;
}

/** The streams of the apps that have one (apps whose bots have no stream are left out). */
export function streamStates(apps: readonly AppStatus[]): StreamState[] {
  const out: StreamState[] = [];
  for (const { appId, stream: s } of apps) {
    if (!s) continue;
    out.push({
      app: appId,
      state: s.state,
      since: s.since,
      reconnects: s.reconnects,
      posts: s.posts,
      ...(s.state === "reconnecting" && s.lastError ? { cause: s.lastError.cause } : {}),
      ...(s.lastError ? { lastError: s.lastError.message } : {}),
      ...(s.retryAt !== undefined ? { retryAt: s.retryAt } : {}),
    });
  }
  return out;
}
