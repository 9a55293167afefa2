/**
 * Fencing: what a write carries so that only the current holder of a lease can make it, and
 * how it is refused otherwise. Several `bot start` processes sharing one Redis agree who runs
 * a bot by lease (src/redis/leases.ts); every claim takes a fencing token that only grows,
 * and writes that matter are applied only while the lease key still holds that exact claim.
 *
 * The store (a staged write carries its lease), the budget (a slot taken with the ledger's
 * mark) and Redis's own modules all speak of leases and refusals, so the vocabulary lives
 * here, below all of them, and knows nothing of Redis's client.
 *
 * A fence refuses writes, not requests already sent to the service. So a bot's requests also
 * leave only while its lease is held, and are cut when it runs out unrenewed
 * ({@link LeaseLapsedError}; src/actions/holding.ts), before another process can take the bot.
 */

/** One claim of a lease: its name, who claimed it, and the fencing token of this claim. */
export interface Lease {
  readonly name: string;
  readonly owner: string;
  /** Grows with every claim of this name, by anyone: a larger token is a later claim. */
  readonly token: number;
}

/** A write refused because the lease it carried is no longer the current claim. */
export class FencedError extends Error {
  override name = "FencedError";
  constructor(readonly lease: Lease) {
    super(`lease "${lease.name}" (token ${lease.token}) is no longer held by ${lease.owner}: the write was refused`);
  }
}

/**
 * The Lua lines that refuse a script's writes unless KEYS[1] (the lease key) still holds
 * ARGV[1] (the claim's value, `Leases.value` in src/redis/leases.ts) and KEYS[2] (the
 * holder's heartbeat, `Leases.heartbeatKey`: a bot's claim is live only while its owner's
 * heartbeat is there) exists. Start a script of your own with them to fence writes that
 * `Leases.fenced`'s plain command list cannot express.
 */
export const FENCE_CHECK_LUA = `if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then return redis.error_reply('FENCED lease is not held by this claim') end`;

/** Whether a Redis error is the refusal of {@link FENCE_CHECK_LUA} (for scripts of your own). */
export function isFenced(err: unknown): boolean {
  return /^FENCED\b/.test(String((err as Error)?.message ?? ""));
}

/**
 * A request cut on its way because this process's hold on the bot ran out: its lease was not
 * renewed in time (the process stalled, or Redis was away), and past it another process may
 * run the bot and check with the service what this one sent. The request may or may not have
 * reached the service; it was cut so that it cannot arrive later than that.
 */
export class LeaseLapsedError extends Error {
  override name = "LeaseLapsedError";
  constructor(readonly bot: string) {
    super(`bot ${bot}: this process's lease on it ran out unrenewed while the request was on its way; it was cut`);
  }
}

/** Nothing was sent: the bot's lease is no longer this process's (another runs it, or it was given back). */
export class NotHeldError extends Error {
  override name = "NotHeldError";
  constructor(readonly bot: string) {
    super(`bot ${bot} no longer runs in this process: its lease is another's now`);
  }
}
