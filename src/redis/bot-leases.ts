/**
 * Bots' leases held by a process's heartbeat: what lets 100,000 bots share a few processes
 * without renewing 100,000 keys every few seconds.
 *
 * A bot's claim (`lease:bot:<name>`, in its bot's slot bucket: ./keys.ts) is `token|owner`
 * and has no expiry of its own. Its owner keeps one **heartbeat** key per slot bucket in which
 * it holds bots (`alive:<owner>`, in that bucket's slot: one key on a single Redis), with
 * Redis's TTL; the renewals renew the heartbeats, one command a bucket, whatever the number of
 * bots. A claim is live while its owner's heartbeat in its bucket is there:
 *
 * - a claim is made ({@link claimBots}) only on a bot whose claim is absent or whose owner's
 *   heartbeat in that bucket ran out, and only while the claimer's own heartbeat there is
 *   alive (so the claim is live from its first moment);
 * - a fenced write (../fencing.ts's `FENCE_CHECK_LUA`) needs the exact claim *and* its
 *   owner's heartbeat in the same script (one slot): a process that stalled past its
 *   heartbeat has its writes refused from that moment, before anyone claims its bots;
 * - a process that dies, even by `kill -9`, stops beating: its heartbeats run out by Redis's
 *   clock, and all its bots of a bucket are free together;
 * - a heartbeat found gone at a renewal is set again ({@link beat} says it was gone): the
 *   bots whose claims are still exactly this process's were touched by nobody meanwhile (a
 *   claim by another changes the value) and go on; the others are lost here.
 *
 * A process that leaves gives its bots back (their claims deleted if still its own) and
 * deletes its heartbeats, so the others claim at once.
 */
import type { Lease } from "../fencing.ts";
import type { Redis } from "./connect.ts";
import { bySlot, getMany, type RedisKeys } from "./keys.ts";
import { RedisScript } from "./script.ts";

/** A bot's lease just claimed; see ./leases.ts's `ClaimedLease`. */
export interface ClaimedBot extends Lease {
  readonly tookOver: boolean;
}

/**
 * KEYS: the claimer's heartbeat in the bucket, then for each bot its claim, its fence
 * counter and the heartbeat (in this bucket) of the claim's owner as seen (the claimer's own
 * when none); ARGV: the claimer, then each bot's claim as seen ('' for none). A bot is claimed
 * when its claim is still as seen and is absent, the claimer's own, or its owner's heartbeat
 * ran out; nothing is claimed while the claimer's own heartbeat is gone. Returns two numbers
 * a bot: its new token (0: refused), and 1 when it was taken from another owner whose
 * heartbeat ran out (it never gave it back).
 */
const CLAIM_BOTS = new RedisScript(`
local owner = ARGV[1]
local alive = redis.call('EXISTS', KEYS[1]) == 1
local out = {}
local j = 2
for i = 2, #KEYS, 3 do
  local current = redis.call('GET', KEYS[i]) or ''
  local holder = ''
  if current ~= '' then holder = string.sub(current, string.find(current, '|', 1, true) + 1) end
  local other = holder ~= '' and holder ~= owner
  if not alive or current ~= ARGV[j] or (other and redis.call('EXISTS', KEYS[i + 2]) == 1) then
    out[#out + 1] = 0
    out[#out + 1] = 0
  else
    local token = redis.call('INCR', KEYS[i + 1])
    redis.call('SET', KEYS[i], token .. '|' .. owner)
    out[#out + 1] = token
    out[#out + 1] = other and 1 or 0
  end
  j = j + 1
end
return out`);

/** KEYS: a bot's claim; ARGV: the claim's value. Deletes it if it is still that claim. */
const RELEASE_BOT = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1`);

/** Bots claimed by one script run: one round trip each, short enough not to hold Redis up. */
const CLAIM_BATCH = 500;

/** The owner in a claim's value (`token|owner`). */
export function ownerOf(claim: string): string {
  return claim.slice(claim.indexOf("|") + 1);
}

/** The claims and heartbeats of the bots of one deployment; see the module comment. */
export class BotLeases {
  constructor(
    readonly redis: Redis,
    readonly keys: RedisKeys,
  ) {}

  /** The claim key of `bot`. */
  claimKey(bot: string): string {
    return this.keys.bot(bot, `lease:bot:${bot}`);
  }

  /** The heartbeat of `owner` in `bot`'s slot bucket: its claim is live while this key is there. */
  heartbeatKey(bot: string, owner: string): string {
    return this.keys.bot(bot, `alive:${owner}`);
  }

  /**
   * Sets each heartbeat (`keys`, this owner's) to last `ttlMs` from now, one command a
   * bucket. Resolves, in order, with whether each was still there: one that was gone had
   * run out (the process stalled, or Redis was away), and the claims of its bucket must be
   * checked ({@link claimsOf}) before they are trusted again.
   */
  async beat(keys: readonly string[], owner: string, ttlMs: number): Promise<boolean[]> {
    const ms = Math.ceil(ttlMs);
    return await Promise.all(keys.map(async (key) => (await this.redis.set(key, owner, "PX", ms, "GET")) !== null));
  }

  /** Deletes heartbeats (this process leaves: its bots are free at once). */
  async stopBeating(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.redis.del(key)));
  }

  /** The claims of `bots` as they are (`token|owner`, or null), in order. */
  async claimsOf(bots: readonly string[]): Promise<Array<string | null>> {
    return await getMany(
      this.redis,
      this.keys,
      bots.map((b) => this.claimKey(b)),
    );
  }

  /**
   * The claims of `bots` as they are (`seen`, for {@link claimBots}) and those that are live
   * (`live`: null when absent or when its owner's heartbeat ran out, the bot then free).
   */
  async holders(bots: readonly string[]): Promise<{ seen: Array<string | null>; live: Array<string | null> }> {
    const seen = await this.claimsOf(bots);
    const beats = [...new Set(bots.flatMap((b, i) => (seen[i] ? [this.heartbeatKey(b, ownerOf(seen[i]!))] : [])))];
    const beating = await getMany(this.redis, this.keys, beats);
    const up = new Set(beats.filter((_, i) => beating[i] !== null));
    const live = bots.map((b, i) => (seen[i] && up.has(this.heartbeatKey(b, ownerOf(seen[i]!))) ? seen[i]! : null));
    return { seen, live };
  }

  /**
   * Claims `bots` for `owner` where their claims are still as `seen` ({@link holders}) and
   * free (absent, `owner`'s own, or their owner's heartbeat gone), in order (`undefined`:
   * refused). `owner`'s heartbeat must be alive in each bot's bucket ({@link beat} first).
   */
  async claimBots(
    bots: readonly string[],
    owner: string,
    seen: ReadonlyArray<string | null>,
  ): Promise<Array<ClaimedBot | undefined>> {
    if (owner.includes("|")) throw new RangeError(`lease owner "${owner}" must not contain "|"`);
    const seenOf = new Map(bots.map((b, i) => [b, seen[i] ?? null]));
    const claimed = new Map<string, ClaimedBot | undefined>();
    const batches: Array<Promise<void>> = [];
    for (const group of bySlot(this.keys, [...seenOf.keys()], (b) => this.claimKey(b))) {
      for (let i = 0; i < group.length; i += CLAIM_BATCH) {
        const some = group.slice(i, i + CLAIM_BATCH);
        const keys = [this.heartbeatKey(some[0]!, owner)];
        for (const b of some) {
          const was = seenOf.get(b);
          keys.push(
            this.claimKey(b),
            this.keys.bot(b, `fence:bot:${b}`),
            this.heartbeatKey(b, was ? ownerOf(was) : owner),
          );
        }
        const args = [owner, ...some.map((b) => seenOf.get(b) ?? "")];
        batches.push(
          CLAIM_BOTS.run<number[]>(this.redis, keys, args).then((out) => {
            for (const [j, bot] of some.entries()) {
              const token = out[2 * j]!;
              const name = `bot:${bot}`;
              claimed.set(bot, token > 0 ? { name, owner, token, tookOver: out[2 * j + 1] === 1 } : undefined);
            }
          }),
        );
      }
    }
    await Promise.all(batches);
    return bots.map((b) => claimed.get(b));
  }

  /** Deletes `bot`'s claim if it is still `value`; true when it was. */
  async release(bot: string, value: string): Promise<boolean> {
    return (await RELEASE_BOT.run<number>(this.redis, [this.claimKey(bot)], [value])) === 1;
  }
}
