/**
 * Sign-ins in progress (../store/pending-flows.ts) in the Redis that processes share: a
 * callback reaching any of them finishes the flow another started. One key per flow,
 * `<prefix>connect:pending:<key>`, holding the value and its expiry on the injected clock;
 * Redis drops it on its own after that long (`PX`, real time, a little later), and `GETDEL`
 * hands it out once, atomically, whichever process asks first.
 */
import type { Redis } from "./connect.ts";
import type { Clock } from "../clock.ts";
import { redisKeys } from "./keys.ts";
import type { PendingFlows } from "../store/pending-flows.ts";

/** How long Redis keeps a flow past its expiry on the clock (a clock moved by hand may run ahead). */
const GRACE_MS = 60_000;

/** {@link PendingFlows} in Redis, under the deployment's key prefix (default `postbot:`). */
export function redisPendingFlows<T>(redis: Redis, clock: Clock, prefix = "postbot:"): PendingFlows<T> {
  const keys = redisKeys(redis, prefix);
  const keyOf = (key: string) => keys.deployment(`connect:pending:${key}`);
  return {
    async put(key, value, expiresAt) {
      const ttl = Math.max(1, expiresAt - clock.now()) + GRACE_MS;
      await redis.set(keyOf(key), JSON.stringify({ value, expiresAt }), "PX", ttl);
    },
    async take(key) {
      const json = await redis.getdel(keyOf(key));
      if (json === null) return undefined;
      const record = JSON.parse(json) as { value: T; expiresAt: number };
      return record.expiresAt > clock.now() ? record.value : undefined;
    },
  };
}
