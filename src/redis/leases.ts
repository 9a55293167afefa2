/**
 * Leases with fencing tokens in Redis: how several `bot start` processes agree who runs a
 * bot (lease `bot:<name>`) or holds an app's stream (lease `stream:<app>`).
 *
 * A bot's lease is a claim with no expiry of its own, live while its owner's heartbeat in the
 * bot's slot bucket is (./bot-leases.ts): a process renews one key a bucket, not one a bot.
 * What follows is said of an app's stream lease, and holds for a bot's lease with "its
 * owner's heartbeat" for "its key's TTL" (without the last holder's grace below: a bot's
 * claim outlives its heartbeat, so its holder finds it still its own when the heartbeat is back).
 *
 * A stream lease is a Redis key that expires by Redis's own TTL: a holder renews it every few
 * seconds; a holder that dies, even by `kill -9`, simply stops renewing and the key vanishes
 * `ttl` later, with nobody having to notice. Expiry is judged by Redis's clock alone, so
 * machines whose clocks disagree still agree on who holds what.
 *
 * Expiry alone cannot stop a holder that *thinks* it still holds a lease (paused by GC, cut
 * off from Redis while its lease ran out, then back). So every claim takes a new **fencing
 * token** from a counter that only grows (`INCR`), and writes that matter go through
 * {@link Leases.fenced}: a Lua script that applies them only if the lease key still holds
 * exactly this claim, all in one atomic step. A stale holder's write is refused with
 * {@link FencedError} and nothing of it is applied.
 *
 * A lease can also run out while its holder is alive and well: Redis hung (stopped, a stalled
 * host) for longer than the lease had left, so no renewal could reach it, and on waking Redis
 * finds the key past its expiry. Whoever asks first would then take it, and the bot (or the
 * stream) would move for nothing. So a lease that ran out stays its last holder's to claim
 * again while that holder is a live member of the deployment (`<prefix>members`, refreshed by
 * every process at each renewal: ./bot-claims.ts): others are refused until the holder claims
 * it again, gives it back, or is itself gone from the members (dead: its entry expires with
 * the same ttl, so a dead holder's leases are free as soon as they would have been). The
 * holder's new claim takes a new token all the same: what it wrote with the old one is fenced off.
 * The members are read just before a claim and handed to its script (on a Redis Cluster they
 * are a key of the deployment's slot, the lease one of its bot's or app's: ./keys.ts); a
 * holder that has not renewed since is judged by when its membership ran out, as before.
 *
 * @example
 * ```ts
 * const leases = new Leases(redis);
 * const lease = await leases.claim("stream:app-1", ownerId, 10_000);
 * if (lease) {
 *   await leases.renew(lease, 10_000);                       // every few seconds
 *   await leases.fenced(lease, [["SET", "postbot:stream:app-1:since", "123"]]);
 *   await leases.release(lease);
 * }
 * ```
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "./connect.ts";
import { FENCE_CHECK_LUA, FencedError, isFenced, type Lease } from "../fencing.ts";
import { BotLeases, ownerOf } from "./bot-leases.ts";
import { bySlot, getMany, redisKeys, type RedisKeys } from "./keys.ts";
import { RedisScript } from "./script.ts";

/** Who holds a lease now, as Redis sees it. */
export interface LeaseHolder {
  owner: string;
  token: number;
  /** How long until it expires unless renewed (ms). */
  ttlMs: number;
}

/**
 * A claim just made: the lease, and whether it was taken over from another owner whose claim
 * ran out without being given back (a process that died or stopped answering, which may
 * have had requests on their way: src/actions/holding.ts).
 */
export interface ClaimedLease extends Lease {
  readonly tookOver: boolean;
}

/** One Redis command for {@link Leases.fenced}: `["HSET", key, field, value]`. */
export type RedisOp = readonly [command: string, ...args: Array<string | number>];

/**
 * Claims one or many leases in one call. KEYS: for each lease its key, its fence counter and
 * its last holder (three keys a lease); ARGV: the owner, the ttl, then each member of the
 * deployment and the time (Redis's, ms) its membership runs out, as read just before (the
 * members are a key of their own, in another slot on a cluster, so they come as arguments).
 * A lease is refused while another holds it, or while it ran out and its last holder is still
 * a live member (see the module comment). Returns two numbers a lease: its new token (0:
 * refused) and, claimed, 1 when it was taken over from another owner whose claim ran out
 * without being given back (its last holder is still named), 0 otherwise; refused, how long
 * (ms, Redis's clock) until it may be free: the holder's claim or the last holder's
 * membership runs out then unless renewed (0: not known).
 */
const CLAIM = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner = ARGV[1]
local out = {}
for i = 1, #KEYS, 3 do
  local current = redis.call('GET', KEYS[i])
  local last = redis.call('GET', KEYS[i + 2])
  local refused = current and string.sub(current, string.find(current, '|', 1, true) + 1) ~= owner
  if not refused and not current and last and last ~= owner then
    for j = 3, #ARGV - 1, 2 do
      if ARGV[j] == last and tonumber(ARGV[j + 1]) > now then refused = true end
    end
  end
  if refused then
    local wait = 0
    if current then
      wait = math.max(0, redis.call('PTTL', KEYS[i]))
    else
      for j = 3, #ARGV - 1, 2 do
        if ARGV[j] == last then wait = math.max(wait, tonumber(ARGV[j + 1]) - now) end
      end
    end
    out[#out + 1] = 0
    out[#out + 1] = wait
  else
    local token = redis.call('INCR', KEYS[i + 1])
    redis.call('SET', KEYS[i], token .. '|' .. owner, 'PX', ARGV[2])
    redis.call('SET', KEYS[i + 2], owner)
    out[#out + 1] = token
    out[#out + 1] = (last and last ~= owner) and 1 or 0
  end
end
return out`);

const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`);

/** Leases claimed by one script run of {@link Leases.claimAll}: one round trip each, short enough not to hold Redis up. */
const RENEW_BATCH = 500;

/** KEYS: the lease, its last holder; ARGV: the claim's value, its owner. A lease that ran out is given up too. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`);

/** KEYS[1]: the lease, KEYS[2] its holder's heartbeat; the other KEYS are those the commands write (declared, as a cluster wants). */
const FENCED = new RedisScript(`${FENCE_CHECK_LUA}
local ops = cjson.decode(ARGV[2])
local results = {}
for i, op in ipairs(ops) do results[i] = redis.call(unpack(op)) end
return results`);

/**
 * KEYS[1]: the members; ARGV[1]: this owner. How many of them have not run out (Redis's
 * clock), and how long (ms) until the soonest other's entry runs out unless renewed (-1: none).
 */
const LIVE_MEMBERS = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
local soonest = -1
for i = 1, #live, 2 do
  if live[i] ~= ARGV[1] then
    soonest = tonumber(live[i + 1]) - now
    break
  end
end
return {#live / 2, soonest}`);

/** A name for this process as a lease owner: host, pid and a random part (pids are reused). */
export function processOwnerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

/** Claims, renews, releases and fenced writes; see the module comment. */
export class Leases {
  /** Every key this module writes starts with it (default `postbot:`). */
  readonly prefix: string;
  /** The deployment's key names (./keys.ts): a bot's lease in its bot's slot, an app's stream lease in its app's. */
  readonly keys: RedisKeys;
  /** The bots' claims and this deployment's processes' heartbeats (./bot-leases.ts). */
  readonly bots: BotLeases;

  constructor(
    readonly redis: Redis,
    options: { prefix?: string } = {},
  ) {
    this.keys = redisKeys(redis, options.prefix);
    this.prefix = this.keys.prefix;
    this.bots = new BotLeases(redis, this.keys);
  }

  /** A key of lease `name`: a bot's (`bot:<bot>`) with the bot's keys, an app's stream (`stream:<app>`) with the app's. */
  private keyOf(name: string, kind: string): string {
    if (name.startsWith("bot:")) return this.keys.bot(name.slice(4), `${kind}:${name}`);
    if (name.startsWith("stream:")) return this.keys.app(name.slice(7), `${kind}:${name}`);
    return this.keys.bot(name, `${kind}:${name}`);
  }

  /** The Redis key of lease `name` (KEYS[1] for {@link FENCE_CHECK_LUA}). */
  key(name: string): string {
    return this.keyOf(name, "lease");
  }

  /**
   * The key whose presence says the holder of `lease` is alive (KEYS[2] for
   * {@link FENCE_CHECK_LUA}): its owner's heartbeat in the bot's bucket for a bot's lease, the
   * lease key itself (its own TTL) for a stream's.
   */
  heartbeatKey(lease: Pick<Lease, "name" | "owner">): string {
    const bot = botOf(lease.name);
    return bot === undefined ? this.key(lease.name) : this.bots.heartbeatKey(bot, lease.owner);
  }

  /** Who last claimed lease `name` (kept after it runs out, until given back: see the module comment). */
  private lastKey(name: string): string {
    return this.keyOf(name, "lease-last");
  }

  /** The deployment's live processes, each scored with the time (Redis's, ms) its membership runs out (./bot-claims.ts). */
  get membersKey(): string {
    return this.keys.deployment("members");
  }

  /**
   * Counts the bots given back for the others to claim (a process above its share, a bot that
   * could not start): each process's heartbeat reads it (./membership.ts), and a change makes
   * its next renewal look for free bots (./bot-claims.ts). In the deployment's slot, with the members.
   */
  get releasedKey(): string {
    return this.keys.deployment("released");
  }

  /**
   * Each live process's count of the bots it holds (a hash by owner), said at each of its
   * renewals (./membership.ts): while they add up to every bot, none is free. In the
   * deployment's slot, with the members.
   */
  get heldKey(): string {
    return this.keys.deployment("held");
  }

  /** Tells the other processes that bots were given back for them to claim ({@link releasedKey}). */
  async announceReleased(): Promise<void> {
    await this.redis.incr(this.releasedKey);
  }

  /**
   * The deployment's members and when each membership runs out, for {@link claim} (read once
   * for many claims): `[owner, until, owner, until, ...]`.
   */
  async members(): Promise<string[]> {
    return await this.redis.zrange(this.membersKey, 0, -1, "WITHSCORES");
  }

  /**
   * How many processes are live members of the deployment now (their entries not run out,
   * Redis's clock; 0 when none announced itself), read afresh: a member that just died leaves
   * the count here before the next heartbeat of the bot claims says so. With how long (ms)
   * until the soonest entry of a member other than `owner` runs out unless renewed (a dead
   * one's leaves the count then), when there is one.
   */
  async liveMembers(owner: string): Promise<{ live: number; othersRunOutInMs?: number }> {
    const [live, soonest] = await LIVE_MEMBERS.run<[number, number]>(this.redis, [this.membersKey], [owner]);
    return soonest >= 0 ? { live, othersRunOutInMs: soonest } : { live };
  }

  /** What the lease key holds while `lease` is the current claim (ARGV[1] for {@link FENCE_CHECK_LUA}). */
  value(lease: Lease): string {
    return `${lease.token}|${lease.owner}`;
  }

  /**
   * Claims lease `name` for `owner` for `ttlMs`, unless someone else holds it, or it ran out
   * and its last holder, another live member, may still claim it again (then `undefined`).
   * Claiming a lease `owner` already holds makes a new claim with a larger token, so any older
   * handle of it is fenced off from then on. `members` ({@link members}) when read already
   * for several claims; otherwise read now. A bot's lease (`bot:<name>`) is claimed as
   * ./bot-leases.ts says: `ttlMs` is then that of `owner`'s heartbeat in the bot's bucket,
   * which every claim of `owner` there shares (the bot claims renew it, ./bot-claims.ts).
   */
  async claim(
    name: string,
    owner: string,
    ttlMs: number,
    members?: readonly string[],
  ): Promise<ClaimedLease | undefined> {
    return (await this.claimAll([name], owner, ttlMs, members))[0];
  }

  /**
   * {@link claim} of a lease that is not a bot's; refused, how long (ms) until it may be free
   * (its holder's claim, or its last holder's membership, runs out then unless renewed; 0 when
   * not known): a process waiting to take over a dead holder's lease looks again then, not
   * at its next renewal.
   */
  async claimOrWait(name: string, owner: string, ttlMs: number): Promise<ClaimedLease | { freeInMs: number }> {
    const waits = new Map<string, number>();
    return (await this.claimAll([name], owner, ttlMs, undefined, waits))[0] ?? { freeInMs: waits.get(name) ?? 0 };
  }

  /**
   * {@link claim} for many leases at once, in order: a process starting with its share of
   * 25,000 bots claimed them one round trip each (64 at a time, a second of its CPU per
   * 10,000); here a script claims up to 500 of them (one slot's on a cluster) in one. `waits`:
   * where to say, of each lease refused that is not a bot's, how long until it may be free.
   */
  async claimAll(
    names: readonly string[],
    owner: string,
    ttlMs: number,
    members?: readonly string[],
    waits?: Map<string, number>,
  ): Promise<Array<ClaimedLease | undefined>> {
    if (owner.includes("|")) throw new RangeError(`lease owner "${owner}" must not contain "|"`);
    if (names.length === 0) return [];
    const claimed = new Map<string, ClaimedLease | undefined>();
    const bots = [...new Set(names.flatMap((n) => botOf(n) ?? []))];
    const batches: Array<Promise<void>> = [];
    if (bots.length > 0) batches.push(this.claimBots(bots, owner, ttlMs, claimed));
    const others = [...new Set(names.filter((n) => botOf(n) === undefined))];
    const live = others.length === 0 ? [] : (members ?? (await this.members()));
    for (const group of bySlot(this.keys, others, (n) => this.key(n))) {
      for (let i = 0; i < group.length; i += RENEW_BATCH) {
        const some = group.slice(i, i + RENEW_BATCH);
        const keys = some.flatMap((n) => [this.key(n), this.keyOf(n, "fence"), this.lastKey(n)]);
        batches.push(
          CLAIM.run<number[]>(this.redis, keys, [owner, Math.ceil(ttlMs), ...live]).then((out) => {
            for (const [j, name] of some.entries()) {
              const token = out[2 * j]!;
              claimed.set(name, token > 0 ? { name, owner, token, tookOver: out[2 * j + 1] === 1 } : undefined);
              if (token === 0) waits?.set(name, out[2 * j + 1]!);
            }
          }),
        );
      }
    }
    await Promise.all(batches);
    return names.map((n) => claimed.get(n));
  }

  /** {@link claimAll} of bots' leases: `owner`'s heartbeats in their buckets set to `ttlMs`, then the free bots claimed (./bot-leases.ts). */
  private async claimBots(
    bots: readonly string[],
    owner: string,
    ttlMs: number,
    into: Map<string, ClaimedLease | undefined>,
  ): Promise<void> {
    await this.bots.beat([...new Set(bots.map((b) => this.bots.heartbeatKey(b, owner)))], owner, ttlMs);
    const { seen } = await this.bots.holders(bots);
    const won = await this.bots.claimBots(bots, owner, seen);
    for (const [i, bot] of bots.entries()) into.set(`bot:${bot}`, won[i]);
  }

  /** Extends the lease to `ttlMs` from now if it is still this claim; false when it was lost. */
  async renew(lease: Lease, ttlMs: number): Promise<boolean> {
    if (botOf(lease.name) !== undefined) return (await this.renewAll([lease], ttlMs))[0]!;
    return (await RENEW.run<number>(this.redis, [this.key(lease.name)], [this.value(lease), Math.ceil(ttlMs)])) === 1;
  }

  /**
   * {@link renew} for many leases at once: bots' leases by their owners' heartbeats, one
   * command a slot bucket, and a read of their claims. Resolves with whether each is still
   * held, in order.
   */
  async renewAll(leases: readonly Lease[], ttlMs: number): Promise<boolean[]> {
    const held = new Map<Lease, boolean>();
    const batches: Array<Promise<void>> = [this.renewBots(leases, ttlMs, held)];
    // Stream leases, one an app, one by one.
    for (const l of leases)
      if (botOf(l.name) === undefined) batches.push(this.renew(l, ttlMs).then((r) => void held.set(l, r)));
    await Promise.all(batches);
    return leases.map((l) => held.get(l) ?? false);
  }

  /**
   * {@link renewAll} of bots' leases: their owners' heartbeats renewed, one a bucket, and
   * held are those whose claims are still exactly so (read: a caller that knows its claims
   * unchanged while its heartbeat lived, as ./bot-claims.ts does, beats alone, ./bot-leases.ts).
   */
  private async renewBots(leases: readonly Lease[], ttlMs: number, into: Map<Lease, boolean>): Promise<void> {
    const byBeat = new Map<string, Lease[]>();
    for (const l of leases) {
      if (botOf(l.name) === undefined) continue;
      const key = this.heartbeatKey(l);
      const group = byBeat.get(key);
      if (group) group.push(l);
      else byBeat.set(key, [l]);
    }
    await Promise.all(
      [...byBeat].map(async ([key, group]) => {
        await this.bots.beat([key], group[0]!.owner, ttlMs);
        const claims = await this.bots.claimsOf(group.map((l) => botOf(l.name)!));
        for (const [i, l] of group.entries()) into.set(l, claims[i] === this.value(l));
      }),
    );
  }

  /**
   * Gives the lease up if it is still this claim, or if it ran out with this owner its last
   * holder (another process may claim it at once). True when the claim was still current.
   */
  async release(lease: Lease): Promise<boolean> {
    const bot = botOf(lease.name);
    if (bot !== undefined) return await this.bots.release(bot, this.value(lease));
    return (
      (await RELEASE.run<number>(
        this.redis,
        [this.key(lease.name), this.lastKey(lease.name)],
        [this.value(lease), lease.owner],
      )) === 1
    );
  }

  /** Who holds lease `name` now, if anyone. */
  async holder(name: string): Promise<LeaseHolder | undefined> {
    const bot = botOf(name);
    if (bot !== undefined) {
      const [claim] = await getMany(this.redis, this.keys, [this.key(name)]);
      if (!claim) return undefined;
      const owner = ownerOf(claim);
      const ttlMs = await this.redis.pttl(this.bots.heartbeatKey(bot, owner));
      // -2: no heartbeat (0: it has less than a millisecond left, still there).
      return ttlMs === -2 ? undefined : { token: Number(claim.slice(0, claim.indexOf("|"))), owner, ttlMs };
    }
    const [value, ttl] = (await this.redis.multi().get(this.key(name)).pttl(this.key(name)).exec()) ?? [];
    const text = value?.[1] as string | null | undefined;
    if (!text) return undefined;
    const bar = text.indexOf("|");
    return { token: Number(text.slice(0, bar)), owner: text.slice(bar + 1), ttlMs: Number(ttl?.[1] ?? 0) };
  }

  /**
   * Runs `ops` in one atomic step if `lease` is still the current claim, and resolves to
   * their replies in order; otherwise applies none of them and rejects with {@link FencedError}.
   */
  async fenced(lease: Lease, ops: readonly RedisOp[]): Promise<unknown[]> {
    const encoded = JSON.stringify(ops.map((op) => op.map(String)));
    // Every command postbot fences names its key first (HSET, HDEL, SET, XACK, XDEL).
    const written = [...new Set(ops.map((op) => String(op[1])))];
    try {
      return await FENCED.run<unknown[]>(
        this.redis,
        [this.key(lease.name), this.heartbeatKey(lease), ...written],
        [this.value(lease), encoded],
      );
    } catch (err) {
      if (isFenced(err)) throw new FencedError(lease);
      throw err;
    }
  }
}

/** The bot of a bot's lease name (`bot:<name>`), undefined for any other lease. */
function botOf(name: string): string | undefined {
  return name.startsWith("bot:") ? name.slice(4) : undefined;
}
