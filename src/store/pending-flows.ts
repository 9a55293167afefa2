/**
 * Sign-ins in progress through the web (accounts connecting themselves, `bot start --http`):
 * what a flow must remember between sending the browser to the service and its coming back
 * (the request token's secret, which template, who signed in), for a few minutes, read once.
 *
 * {@link PendingFlows.take} is the whole protection against a replayed callback: a record is
 * handed out once, so the same `oauth_token` coming back a second time finds nothing, and a
 * callback for a flow nobody started finds nothing either. Records expire on the injected
 * clock (the service's request tokens do too), whatever the backing store.
 *
 * Where they live decides who can finish a flow: {@link memoryPendingFlows} keeps them in this
 * process (with the state in a directory, one process serves every page); with the state in
 * Redis, `src/redis/pending-flows.ts` keeps them there, so a callback that a load balancer
 * sends to another process than the one that started the flow is finished all the same.
 */
import type { Clock } from "../clock.ts";

/** Records kept for a short while and handed out once; see the module comment. */
export interface PendingFlows<T> {
  /** Keeps `value` under `key` until it is taken or the clock reaches `expiresAt`. */
  put(key: string, value: T, expiresAt: number): Promise<void>;
  /** The value under `key`, removed: a second take, or one after it expired, finds nothing. */
  take(key: string): Promise<T | undefined>;
}

/** How many flows one process keeps at most: past it the oldest go (each one cost a request to the service). */
export const MAX_PENDING_FLOWS = 10_000;

/** {@link PendingFlows} in this process's memory. */
export function memoryPendingFlows<T>(clock: Clock, max = MAX_PENDING_FLOWS): PendingFlows<T> {
  const held = new Map<string, { value: T; expiresAt: number }>();
  return {
    async put(key, value, expiresAt) {
      const now = clock.now();
      for (const [k, r] of held) if (r.expiresAt <= now) held.delete(k);
      held.delete(key);
      held.set(key, { value, expiresAt });
      for (const k of held.keys()) {
        if (held.size <= max) break;
        held.delete(k);
      }
    },
    async take(key) {
      const record = held.get(key);
      held.delete(key);
      return record && record.expiresAt > clock.now() ? record.value : undefined;
    },
  };
}
