/**
 * Where each app's stream left off (../triggers/stream/marks.ts), shared by the processes on
 * one Redis: whichever process takes the app's stream next (its holder died, or Redis was
 * away and the lease went elsewhere, or the hub restarted for a changed directory) starts its
 * gap search there. One key per app, `<prefix>stream-mark:<app>`, written only by the holder
 * of the app's stream lease (fenced: a holder that lost the lease cannot move it back).
 *
 * A mark is written after the handoff of the posts it covers (same connection, so Redis
 * applies it after them), one write at a time per app: a mark that moves while one is on its
 * way waits for it and only the newest is written then (a busy stream costs one write per
 * round trip, not one per post).
 */
import type { Redis } from "./connect.ts";
import { FencedError, type Lease } from "../fencing.ts";
import type { Logger } from "../log.ts";
import type { StreamMark } from "../triggers/stream/marks.ts";
import { keyLayout, redisKeys, type RedisKeys } from "./keys.ts";
import type { Leases } from "./leases.ts";

/** The Redis key of an app's mark (in the app's slot on a cluster); a prefix alone names one Redis's. */
export const streamMarkKey = (keys: string | RedisKeys, appId: string) =>
  (typeof keys === "string" ? keyLayout(false, keys) : keys).app(appId, `stream-mark:${appId}`);

/** The app's mark as last written, if its stream ever ran (a value that is not a mark counts as none, and is said). */
export async function readStreamMark(
  redis: Redis,
  prefix: string,
  appId: string,
  log: Logger,
): Promise<StreamMark | undefined> {
  const key = streamMarkKey(redisKeys(redis, prefix), appId);
  const text = await redis.get(key);
  if (text === null) return undefined;
  try {
    const mark = JSON.parse(text) as StreamMark;
    if (
      typeof mark.at === "number" &&
      typeof mark.until === "number" &&
      (mark.id === undefined || typeof mark.id === "string")
    )
      return mark;
  } catch {
    // said below
  }
  log.error(
    { key },
    `Redis key ${key} is not a stream mark; the stream starts without searching the gap before it (it is written anew as posts come)`,
  );
  return undefined;
}

/**
 * Writes one app's mark, fenced by the lease `lease()` gives (none: not written), one write
 * at a time; {@link retire} once its hub stopped, after which nothing more is written.
 */
export class StreamMarkWriter {
  private pending: StreamMark | undefined;
  private writing = false;
  private retired = false;
  private draining: Promise<void> = Promise.resolve();

  constructor(
    private readonly leases: Leases,
    private readonly key: string,
    private readonly lease: () => Lease | undefined,
    private readonly log: Logger,
  ) {}

  /** Writes `mark` (or, with a write on its way, the newest mark once it is done). */
  save(mark: StreamMark): void {
    if (this.retired) return;
    this.pending = mark;
    if (!this.writing) this.draining = this.drain();
  }

  /** Resolves once what was asked so far is written or refused (a test's way to wait for it). */
  settled(): Promise<void> {
    return this.draining;
  }

  /** The hub stopped: what was asked before is still written, nothing after. */
  retire(): void {
    this.retired = true;
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending) {
        const mark = this.pending;
        this.pending = undefined;
        const lease = this.lease();
        if (!lease) return;
        await this.leases.fenced(lease, [["SET", this.key, JSON.stringify(mark)]]).catch((err: unknown) => {
          // Refused: another process holds the stream now and keeps the mark. Else Redis is away: the next move writes it.
          if (!(err instanceof FencedError))
            this.log.warn(
              { err: (err as Error)?.message },
              `could not save where the stream is: ${(err as Error)?.message ?? String(err)}`,
            );
        });
      }
    } finally {
      this.writing = false;
    }
  }
}
