/**
 * Where an app's stream is, for `bot status`, the metrics and the liveness figures: one
 * record the hub's parts write as they go (the connection its state and failures, routing
 * its posts, the gap searches what they recovered), handed out as a copy on every change so
 * no reader holds the hub's own.
 */
import type { ReconnectCause } from "../../api/stream/reconnect-policy.ts";
import type { Clock } from "../../clock.ts";

/** Where an app's stream is, for `bot status` and the metrics. */
export interface StreamStatus {
  /** `starting` (syncing rules, connecting), `connected`, `reconnecting` (waiting to try again), `stopped`. */
  state: "starting" | "connected" | "reconnecting" | "stopped";
  /** When it entered this state (clock ms). */
  since: number;
  /** The last failure, whatever it was; kept after a later success so `bot status` can show it. */
  lastError?: { message: string; cause: ReconnectCause; at: number };
  /** When the next attempt is due, while `reconnecting`. */
  retryAt?: number;
  /** Connections established since start. */
  connects: number;
  /** Attempts that failed or connections that ended, since start. */
  reconnects: number;
  lastPostAt?: number;
  /** Posts delivered since start (from the stream and from gap recovery). */
  posts: number;
  /** The app's rules as synced: the bots' own, and the packed mention rules. */
  rules: { own: number; mentions: number };
  /** Bots whose mentions come through the stream. */
  mentionBots: number;
  /**
   * Gaps closed, at start (since an earlier run's stream) and after reconnects: how many, the
   * last one's length, posts recovered in all, and the part of the last gap too old for recent
   * search (its posts could not be recovered), if any.
   */
  gaps: { count: number; lastMs?: number; recovered: number; unrecovered?: { from: number; to: number } };
}

/** The hub's one status record and who hears of its changes; see the module comment. */
export class HubStatus {
  /** The record itself, written by the hub's parts. */
  readonly current: StreamStatus;

  constructor(
    private readonly clock: Clock,
    private readonly onStatus?: (status: StreamStatus) => void,
  ) {
    this.current = {
      state: "starting",
      since: clock.now(),
      connects: 0,
      reconnects: 0,
      posts: 0,
      rules: { own: 0, mentions: 0 },
      mentionBots: 0,
      gaps: { count: 0, recovered: 0 },
    };
  }

  /** A copy, for whoever asks. */
  snapshot(): StreamStatus {
    return structuredClone(this.current);
  }

  /** Tells the listener what the record is now (after a change it did not make through {@link enter}). */
  changed(): void {
    this.onStatus?.(structuredClone(this.current));
  }

  /** The stream enters `state` now. */
  enter(state: StreamStatus["state"]): void {
    const status = this.current;
    status.state = state;
    status.since = this.clock.now();
    if (state !== "reconnecting") delete status.retryAt;
    this.changed();
  }

  /** Whether the stream is connected now. */
  connected(): boolean {
    return this.current.state === "connected";
  }

  /** A post was delivered (from the stream, or a gap's search). */
  posted(): void {
    this.current.posts++;
    this.current.lastPostAt = this.clock.now();
  }
}
