/**
 * A process's entry in the deployment's members (`<prefix>members`, a sorted set scored by
 * when each entry runs out, Redis's clock): how the processes sharing one Redis count each
 * other, for their fair shares of the bots (./bot-claims.ts) and for whose expired leases
 * stay theirs (./leases.ts).
 *
 * A process announces itself as soon as it is connected, before the slow part of its start
 * (loading thousands of bot files takes seconds): processes started together then count each
 * other when the first of them claims, whatever their spread in loading. Until the bot claims'
 * renewals take over ({@link Membership.renew}), the entry is kept alive every `everyMs` on
 * the clock; a process that cannot start {@link Membership.leave}s at once, so the others do
 * not wait for its share.
 *
 * @example
 * ```ts
 * const membership = new Membership({ redis, leases, owner, clock, ttlMs: 9_000, everyMs: 3_000 });
 * await membership.announce(); // counted by the others from now on
 * // ... the bots loaded; the claims renew it at every renewal from here:
 * const processes = await membership.renew();
 * await membership.leave();
 * ```
 */
import type { Clock } from "../clock.ts";
import type { Redis } from "./connect.ts";
import type { Leases } from "./leases.ts";
import { RedisScript } from "./script.ts";

const HEARTBEAT = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[2] == '0' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) end
return redis.call('ZCARD', KEYS[1])`);

export interface MembershipOptions {
  redis: Redis;
  leases: Leases;
  /** This process's name as a lease owner (./leases.ts's `processOwnerId`). */
  owner: string;
  clock: Clock;
  /** How long the entry lasts unrenewed (the leases' ttl). */
  ttlMs: number;
  /** How often it is renewed until the claims' renewals take over. */
  everyMs: number;
}

/** This process's entry in the members; see the module comment. */
export class Membership {
  private cancelKeepAlive?: () => void;
  /** Left, or renewed by the claims: no keep-alive from here on. */
  private done = false;

  constructor(private readonly options: MembershipOptions) {}

  /**
   * Adds (or renews) the entry and keeps it alive every `everyMs` until {@link renew} or
   * {@link leave}. Resolves with the number of live members, this one counted.
   */
  async announce(): Promise<number> {
    const members = await this.beat();
    if (!this.done && !this.cancelKeepAlive) this.keepAlive();
    return members;
  }

  /** Renews the entry (the bot claims' renewals, which keep it alive from then on); the number of live members. */
  async renew(): Promise<number> {
    this.done = true;
    this.stopKeepAlive();
    return await this.beat();
  }

  /** Removes the entry: the others no longer count this process. */
  async leave(): Promise<void> {
    this.done = true;
    this.stopKeepAlive();
    const { redis, leases, owner } = this.options;
    await HEARTBEAT.run(redis, [leases.membersKey], [owner, "0"]);
  }

  private async beat(): Promise<number> {
    const { redis, leases, owner, ttlMs } = this.options;
    return Math.max(1, await HEARTBEAT.run<number>(redis, [leases.membersKey], [owner, ttlMs]));
  }

  private keepAlive(): void {
    this.cancelKeepAlive = this.options.clock.setTimeout(() => {
      this.cancelKeepAlive = undefined;
      if (this.done) return;
      const next = () => {
        if (!this.done && !this.cancelKeepAlive) this.keepAlive();
      };
      // A missed beat is made up by the next (the entry lasts two of them): nothing to say.
      void this.beat().then(next, next);
    }, this.options.everyMs);
  }

  private stopKeepAlive(): void {
    this.cancelKeepAlive?.();
    this.cancelKeepAlive = undefined;
  }
}
