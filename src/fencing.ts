/**
 * Fencing: what a write carries so that only the current holder of a lease can make it, and
 * how it is refused otherwise. Several `bot start` processes sharing one Redis agree who runs
 * a bot by lease (src/redis/leases.ts); every claim takes a fencing token that only grows,
 * and writes that matter are applied only while the lease key still holds that exact claim.
 *
 * The store (a staged write carries its lease), the budget (a slot taken with the ledger's
 * mark) and Redis's own modules all speak of leases and refusals, so the vocabulary lives
 * here, below all of them, and knows nothing of Redis's client.
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
 * ARGV[1] (the claim's value, `Leases.value` in src/redis/leases.ts). Start a script of your
 * own with them to fence writes that `Leases.fenced`'s plain command list cannot express.
 */
export const FENCE_CHECK_LUA = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('FENCED lease is not held by this claim') end`;

/** Whether a Redis error is the refusal of {@link FENCE_CHECK_LUA} (for scripts of your own). */
export function isFenced(err: unknown): boolean {
  return /^FENCED\b/.test(String((err as Error)?.message ?? ""));
}
