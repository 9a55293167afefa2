/**
 * Nonces seen within the timestamp window (RFC 5849 3.3): a signed request is refused when
 * its nonce was already used with the same consumer key and token. A nonce only needs to be
 * remembered while its timestamp is still accepted; after that the timestamp check refuses
 * the replay, so entries expire and memory stays bounded by the request rate.
 *
 * The entries live in a table of the sandbox's state (`flows(data).nonces`), so they are
 * saved with it (`--state`) and a request replayed within the window after a restart is
 * still refused. Keys are hashed: the table never holds a token.
 */
import { createHash } from "node:crypto";

export class NonceCache {
  private nextSweep = 0;

  /** `table` answers the state's nonce table (asked each time: a reset may replace it). */
  constructor(
    private readonly windowMs: number,
    private readonly table: () => Record<string, number>,
  ) {}

  /**
   * Records a nonce; returns false when it was already seen and has not expired. `timestampMs`
   * is the request's own timestamp, so the entry lives exactly as long as it could be replayed.
   */
  use(key: string, timestampMs: number, now: number): boolean {
    const seen = this.table();
    if (now >= this.nextSweep) this.sweep(seen, now);
    const k = createHash("sha256").update(key).digest("base64url").slice(0, 22);
    const expires = seen[k];
    if (expires !== undefined && expires > now) return false;
    seen[k] = timestampMs + this.windowMs;
    return true;
  }

  private sweep(seen: Record<string, number>, now: number): void {
    for (const [k, expires] of Object.entries(seen)) if (expires <= now) delete seen[k];
    this.nextSweep = now + this.windowMs;
  }

  get size(): number {
    return Object.keys(this.table()).length;
  }
}
