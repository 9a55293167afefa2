/**
 * Nonces seen within the timestamp window (RFC 5849 3.3): a signed request is refused when
 * its nonce was already used with the same consumer key and token. A nonce only needs to be
 * remembered while its timestamp is still accepted; after that the timestamp check refuses
 * the replay, so entries expire and memory stays bounded by the request rate.
 */
export class NonceCache {
  private seen = new Map<string, number>();
  private nextSweep = 0;

  constructor(private readonly windowMs: number) {}

  /**
   * Records a nonce; returns false when it was already seen and has not expired. `timestampMs`
   * is the request's own timestamp, so the entry lives exactly as long as it could be replayed.
   */
  use(key: string, timestampMs: number, now: number): boolean {
    if (now >= this.nextSweep) this.sweep(now);
    const expires = this.seen.get(key);
    if (expires !== undefined && expires > now) return false;
    this.seen.set(key, timestampMs + this.windowMs);
    return true;
  }

  private sweep(now: number): void {
    for (const [k, expires] of this.seen) if (expires <= now) this.seen.delete(k);
    this.nextSweep = now + this.windowMs;
  }

  get size(): number {
    return this.seen.size;
  }
}
