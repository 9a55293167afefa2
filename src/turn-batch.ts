/**
 * Calls made during one turn of the event loop, answered together by one call for all of
 * them. A process starting thousands of bots starts 64 at a time, and each of them asks Redis
 * for the same few things one after another (its state, its handoff stream, its directory
 * entry): sent one command a bot, each was a write to the socket and a reply read, most of the
 * CPU of a start. The 64 bots reach each of those questions in the same turn (they started
 * together, and the answers to the question before came in one reply), so batched here each
 * question costs one pipeline or one command for all of them.
 *
 * The batch runs on `setImmediate`, after everything the turn's answers set going has
 * asked: a call waits less than a turn, never for the clock.
 */
export class TurnBatch<K, R> {
  private waiting: Array<{ key: K; resolve: (result: R) => void; reject: (err: unknown) => void }> = [];

  /**
   * `run` answers every key of a batch, in order (a rejection fails the whole batch's calls).
   * `max`: a batch this large runs at once, not at the end of the turn.
   */
  constructor(
    private readonly run: (keys: K[]) => Promise<R[]>,
    private readonly max = 1_000,
  ) {}

  /** `key`'s answer, asked with whatever else is asked in this turn. */
  ask(key: K): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ key, resolve, reject });
      if (this.waiting.length >= this.max) this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    Promise.resolve(batch.map((b) => b.key))
      .then((keys) => this.run(keys))
      .then(
        (results) => {
          for (const [i, b] of batch.entries()) b.resolve(results[i]!);
        },
        (err: unknown) => {
          for (const b of batch) b.reject(err);
        },
      );
  }
}
