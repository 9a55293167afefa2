/**
 * A process's bot claims as the Redis tests build them, and waiting for one of its renewals.
 * Most tests want the same process: no wait before its first claim, nothing to start or stop
 * for a bot, its leases over its own connection; each test names only what it is about.
 */
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { BotClaims, DEFAULT_RENEW_EVERY_MS, type BotClaimsOptions } from "../../src/redis/bot-claims.ts";
import { Leases } from "../../src/redis/leases.ts";
import { until } from "./until.ts";

/**
 * Claims of `bots` by `owner` over `redis`. Defaults: its leases on `redis` under `prefix`
 * (the deployment's own when none), a frozen clock at 0 (it renews only when a test moves it),
 * no settle before the first claim, and `host`/`unhost` that do nothing.
 */
export function claimsOf(
  options: Partial<BotClaimsOptions> & Pick<BotClaimsOptions, "redis" | "owner" | "bots"> & { prefix?: string },
): BotClaims {
  const { prefix, ...given } = options;
  return new BotClaims({
    leases: new Leases(given.redis, prefix === undefined ? {} : { prefix }),
    clock: createClock({ frozen: true, start: 0 }),
    settleMs: 0,
    host: async () => {},
    unhost: async () => {},
    ...given,
  });
}

/**
 * Moves `clock` to the next renewal of `claims` (every `everyMs`, default 3 s) and waits for it
 * ({@link renewed}).
 */
export async function renewal(
  claims: BotClaims,
  clock: AdjustableClock,
  everyMs = DEFAULT_RENEW_EVERY_MS,
): Promise<void> {
  await clock.advance(everyMs);
  await renewed(claims, clock);
}

/**
 * Waits until `claims` sent the renewal due at `clock`'s time and its look for free bots (if
 * any) is over: real Redis work, so bounded by a hang guard of 10 s real time, not a speed check.
 */
export async function renewed(claims: BotClaims, clock: AdjustableClock): Promise<void> {
  await until(
    "the renewal sent and its look for free bots over",
    () => claims["renewedAt"] === clock.now() && claims["claiming"] === undefined,
    10_000,
    5,
  );
}
