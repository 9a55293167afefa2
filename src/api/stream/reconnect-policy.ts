/**
 * How long a stream waits before reconnecting, by why it stopped: the documented policy of
 * the service family (wire-facts 5.2, docs "handling disconnections"):
 *
 * - an established connection dropped (closed, reset, stalled, or ended by an in-stream error
 *   message): reconnect at once;
 * - a network error while connecting: back off linearly, 250 ms more each time, up to 16 s;
 * - an HTTP error status when connecting: back off exponentially from 5 s, doubling, up to 320 s;
 * - HTTP 429: back off exponentially from 60 s, doubling. The documents give no ceiling; this
 *   one stops at 15 minutes, the length of the stream's rate window (50 connects per 15
 *   minutes), beyond which waiting longer cannot help.
 *
 * The counters reset once a connection is established (HTTP 200), as tweepy does. Pure
 * arithmetic, so tests assert the delays directly.
 */

/** Why a stream (re)connects. */
export type ReconnectCause = "drop" | "stall" | "stream-error" | "network" | "http" | "rate-limit";

export const NETWORK_STEP_MS = 250;
export const NETWORK_MAX_MS = 16_000;
export const HTTP_START_MS = 5_000;
export const HTTP_MAX_MS = 320_000;
export const RATE_LIMIT_START_MS = 60_000;
export const RATE_LIMIT_MAX_MS = 15 * 60_000;

/** The delays of one stream's reconnects. */
export class ReconnectPolicy {
  private network = 0;
  private http = 0;
  private rateLimit = 0;
  /** Failed or dropped attempts since the last established connection. */
  attempts = 0;

  /** The delay before the next attempt after a stop of this cause. */
  next(cause: ReconnectCause): number {
    this.attempts++;
    switch (cause) {
      case "drop":
      case "stall":
      case "stream-error":
        return 0;
      case "network":
        this.network++;
        return Math.min(NETWORK_STEP_MS * this.network, NETWORK_MAX_MS);
      case "http":
        this.http++;
        return Math.min(HTTP_START_MS * 2 ** (this.http - 1), HTTP_MAX_MS);
      case "rate-limit":
        this.rateLimit++;
        return Math.min(RATE_LIMIT_START_MS * 2 ** (this.rateLimit - 1), RATE_LIMIT_MAX_MS);
    }
  }

  /** A connection was established: the next failure starts each back-off from the beginning. */
  connected(): void {
    this.network = 0;
    this.http = 0;
    this.rateLimit = 0;
    this.attempts = 0;
  }
}
