/**
 * Calls made during one turn of the event loop, answered together by one call for all of
 * them. A process starting thousands of bots starts 64 at a time, and each of them asks Redis
 * for the same few things one after another (its state, its handoff stream, its directory
 * entry): sent one command a bot, each was a write to the socket and a reply read, most of the
 * CPU of a start. The 64 bots reach each of those questions in the same turn (they started
 * together, and the answers to the question before came in one reply), so batched here each
 * question costs one pipeline or one command for all of them.
 *
 * The gathering is DataLoader's (the GraphQL foundation's batcher), set here once: no cache (a
 * key asked again is asked again), and the batch runs on `setImmediate`, after everything the
 * turn's answers set going has asked: a call waits less than a turn, never for the clock.
 */
import DataLoader from "dataloader";

/**
 * A batcher whose `load(key)` is answered with whatever else is asked in this turn: `run`
 * answers every key of a batch, in order; an `Error` as a key's answer rejects that key's call
 * alone, a rejection of `run` every call of the batch. A batch of `max` keys runs at once.
 */
export function turnBatch<K, R>(
  run: (keys: readonly K[]) => Promise<ReadonlyArray<R | Error>>,
  max = 1_000,
): DataLoader<K, R> {
  return new DataLoader<K, R>(run, {
    cache: false,
    maxBatchSize: max,
    batchScheduleFn: (callback) => setImmediate(callback),
  });
}

/**
 * A batch's answers when `all` does the work for any set of keys: once for the whole batch,
 * and when that fails, once for each key alone, so that one key's failure (a bot's bad key in
 * Redis) fails that key's call alone.
 */
export async function allOrEachAlone<K>(
  keys: readonly K[],
  all: (keys: readonly K[]) => Promise<unknown>,
): Promise<Array<undefined | Error>> {
  if (
    keys.length > 1 &&
    (await all(keys).then(
      () => true,
      () => false,
    ))
  )
    return keys.map(() => undefined);
  return await Promise.all(
    keys.map((key) =>
      all([key]).then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(`failed: ${String(err)}`)),
      ),
    ),
  );
}
