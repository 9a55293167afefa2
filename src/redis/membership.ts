/**
 * A process's entry in the deployment's members (`<prefix>members`, a sorted set scored by
 * when each entry runs out, Redis's clock): how the processes sharing one Redis count each
 * other, for their fair shares of the bots (./bot-claims.ts), to learn soon that one died,
 * and for whose expired stream leases stay theirs (./leases.ts). Whether a process's bots
 * are still its own is not said here but by its heartbeats in the bots' slots (./bot-leases.ts),
 * which a fenced write checks in the same script as the bot's claim.
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

/**
 * KEYS: the members, the count of bots given back (./leases.ts's `releasedKey`), each
 * member's count of bots held (./leases.ts's `heldKey`); ARGV: this owner, its entry's ttl
 * (0: leave), its count of bots held ('': not said). Returns the live members, how long (ms,
 * Redis's clock) until the soonest other entry runs out unrenewed (-1: none), the count of
 * bots given back, and the bots held by the live members as they last said.
 */
const HEARTBEAT = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[2] == '0' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
end
local soonest = -1
local first = redis.call('ZRANGE', KEYS[1], 0, 1, 'WITHSCORES')
for i = 1, #first, 2 do
  if first[i] ~= ARGV[1] then
    soonest = tonumber(first[i + 1]) - now
    break
  end
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
local held = 0
if #live > 0 then
  for _, n in ipairs(redis.call('HMGET', KEYS[3], unpack(live))) do held = held + (tonumber(n) or 0) end
end
if redis.call('HLEN', KEYS[3]) > #live then
  local alive = {}
  for _, who in ipairs(live) do alive[who] = true end
  for _, who in ipairs(redis.call('HKEYS', KEYS[3])) do
    if not alive[who] then redis.call('HDEL', KEYS[3], who) end
  end
end
return {#live, soonest, tonumber(redis.call('GET', KEYS[2]) or '0'), held}`);

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
  /** {@link othersRunOutInMs} as of the last beat. */
  private soonest: number | undefined;
  private released = 0;
  private heldByAll = 0;

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

  /**
   * Renews the entry (the bot claims' renewals, which keep it alive from then on), saying how
   * many bots this process holds ({@link heldByMembers}); the number of live members.
   */
  async renew(held?: number): Promise<number> {
    this.done = true;
    this.stopKeepAlive();
    return await this.beat(held);
  }

  /** Removes the entry: the others no longer count this process. */
  async leave(): Promise<void> {
    this.done = true;
    this.stopKeepAlive();
    const { redis, leases, owner } = this.options;
    await HEARTBEAT.run(redis, [leases.membersKey, leases.releasedKey, leases.heldKey], [owner, "0", ""]);
  }

  /**
   * How long (ms, from the last beat) until another member's entry runs out unless it is
   * renewed meanwhile: a process that died is gone from the members then, and its bots' leases
   * with it (./bot-claims.ts looks for them at that moment). `undefined`: no other member.
   */
  get othersRunOutInMs(): number | undefined {
    return this.soonest;
  }

  /** How many times bots were given back for the others to claim, as of the last beat (./leases.ts's `releasedKey`). */
  get releases(): number {
    return this.released;
  }

  /**
   * How many bots the live members hold, as each said at its last renewal (one that said
   * nothing yet counts none), as of the last beat: when it is every bot, none is free, and
   * the claims need not look for free bots by reading every bot's claim (./bot-claims.ts).
   */
  get heldByMembers(): number {
    return this.heldByAll;
  }

  private async beat(held?: number): Promise<number> {
    const { redis, leases, owner, ttlMs } = this.options;
    const [members, soonest, released, heldByAll] = await HEARTBEAT.run<[number, number, number, number]>(
      redis,
      [leases.membersKey, leases.releasedKey, leases.heldKey],
      [owner, ttlMs, held ?? ""],
    );
    this.soonest = soonest >= 0 ? soonest : undefined;
    this.released = released;
    this.heldByAll = heldByAll;
    return Math.max(1, members);
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
