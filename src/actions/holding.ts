/**
 * Requests sent only while this process holds the bot. When several processes share their
 * bots through Redis, a bot's lease says which process runs it; fencing refuses a stale
 * holder's writes, but not a request already on its way to the service. A process that hung
 * past its lease (stopped, paused by the machine) could otherwise have a reply or DM land
 * after the process that took the bot over checked with the service, found nothing and sent
 * it again. So:
 *
 * - each of a held bot's requests leaves only while the lease is held with time to spare, and
 *   is cut when the lease runs out unrenewed (a little before it expires in Redis): none of
 *   them is on its way any more when another process can claim the bot
 *   ({@link heldExecutor});
 * - the process that takes a bot over from one that stopped answering (its lease ran out,
 *   never given back) checks the actions left `pending` only once any request that process
 *   may still have had on its way can no longer arrive ({@link Holding.settledAt}, read by the
 *   ledger step).
 */
import { LeaseLapsedError } from "../fencing.ts";
import type { Executor } from "./action.ts";

/** Whether, and how long, this process may send for a bot (implemented by the bot claims, src/redis/bot-claims.ts). */
export interface Holding {
  /**
   * Resolves once a request of `bot` may leave (its lease held, renewed recently enough) with
   * a signal that aborts, with a {@link LeaseLapsedError}, when the lease runs out unrenewed.
   * Rejects with a `NotHeldError` (../fencing.ts) when the bot is no longer this process's, and
   * with `signal`'s reason when it aborts first.
   */
  hold(bot: string, signal: AbortSignal): Promise<AbortSignal>;
  /**
   * When this process took `bot` over from one whose lease ran out (never given back): the
   * time (ms on the clock) from which the actions it left `pending` may be checked with the
   * service, none of its requests being able to arrive after it. Undefined otherwise.
   */
  settledAt(bot: string): number | undefined;
}

/**
 * The bot's executor, each request inside the bot's hold: sent once the hold allows, cut when
 * it lapses. A request cut so throws {@link LeaseLapsedError} (it may have arrived: the retry
 * step checks with the service before sending it again, if this process still holds the bot).
 */
export function heldExecutor(bot: string, executor: Executor, holding: Holding): Executor {
  return async (action, signal) => {
    const lapse = await holding.hold(bot, signal);
    const both = new AbortController();
    const abort = () => both.abort(signal.aborted ? signal.reason : lapse.reason);
    if (signal.aborted || lapse.aborted) abort();
    signal.addEventListener("abort", abort, { once: true });
    lapse.addEventListener("abort", abort, { once: true });
    try {
      return await executor(action, both.signal);
    } catch (err) {
      if (lapse.aborted && !signal.aborted) throw new LeaseLapsedError(bot);
      throw err;
    } finally {
      signal.removeEventListener("abort", abort);
      lapse.removeEventListener("abort", abort);
    }
  };
}
