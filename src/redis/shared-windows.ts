/**
 * The budget's windows in Redis, so N `bot start` processes of one app together never send
 * more than a limit allows and together can use all of it.
 *
 * Each window (`<endpoint>|a:<app>|15m`, `<endpoint>|u:<user>|24h`, a bot's cap) is a sorted
 * set of the times its events were counted (score = the injected clock's ms; member = a
 * unique slot id). Checking and taking is one Lua script over every window and pause of the
 * endpoint: Redis runs a script alone, so two processes can never both take the last slot,
 * and a refusal says when the earliest room comes, the same way the in-process
 * `SlidingWindow.nextFreeAt` does. Pauses (a reported `remaining: 0`) are keys holding the
 * time they end. The same script may apply a staged write of the state store with the slot
 * (the ledger's mark of the request, fenced by its bot's lease: src/store/staged-write.ts):
 * both or neither, in one round trip.
 *
 * Times come from the callers' clocks, not Redis's: tests move an injected clock, and
 * processes on several machines are expected to keep their clocks in sync (NTP), as the
 * service's own windows assume. Keys expire a window's length (plus at most a minute) after
 * their last event, so windows of bots no longer hosted do not stay for ever.
 *
 * The monthly read cap's count is a counter per app and period
 * (`<prefix>budget:m:<app>:<period start>`), added to with INCRBY: the processes' reads add
 * up, whatever their order. It expires a day after its period ends; {@link readMonthlyCounts}
 * reads them for `bot status`.
 *
 * On a Redis Cluster each window lives in its owner's slot (./keys.ts): an app's windows and
 * pauses in the app's, an account's in the account's, a bot's caps with the bot's lease and
 * state. A script touches one slot, so a take is one script per slot: first those of the slots
 * without the staged write (at once, side by side), then the one with it, the write's fence
 * and the bot's caps; a slot that has no room gives back what the others took. The write
 * goes last so that it is applied only with every slot taken. On one Redis it is one script.
 *
 * A take that applies a staged write goes on the state store's connection, in order with the
 * store's other writes of its bot; everything else (takes without a write, give-backs, moves,
 * corrections, pauses, counts) may go on a connection of its own (`apart`), so a start's
 * thousands of store commands do not hold the budget's answers back.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "./connect.ts";
import { FencedError, isFenced } from "../fencing.ts";
import { getMany, redisKeys, type RedisKeys } from "./keys.ts";
import { scanKeys } from "./scan.ts";
import type { StagedWrite } from "../store/staged-write.ts";
import { RedisScript } from "./script.ts";
import type { SharedTake, SharedWindows, WindowClaim } from "../limits/shared-windows.ts";

/**
 * Lua: moves counted slots to the time their answer came. ARGV from index `i` holds how many,
 * then `to, member` for each, whose window is KEYS[k0], KEYS[k0 + 1]...; a slot no longer
 * counted (given back meanwhile) stays gone (`ZADD XX` only updates a member that is there).
 * Returns the index after them. Flat arguments rather than JSON: no cjson in the script, no
 * JSON.stringify in node.
 */
const APPLY_MOVES = `local function applyMoves(i, k0)
  local count = tonumber(ARGV[i])
  for k = 1, count do
    local at = i + 2 * k - 1
    redis.call('ZADD', KEYS[k0 + k - 1], 'XX', ARGV[at], ARGV[at + 1])
  end
  return i + 1 + 2 * count
end`;

/** KEYS: the windows of the moves; ARGV: the moves, as {@link APPLY_MOVES} takes them. */
const MOVES = new RedisScript(`${APPLY_MOVES}
applyMoves(1, 1)
return 1`);

/** KEYS: windows; ARGV[1]: the member to take out of each (a take given back: another slot had no room). */
const GIVE_BACK = new RedisScript(`
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 1`);

/** How long a slot's move to its answer's time may wait to go with a take (or with other moves). */
const MOVE_BATCH_MS = 25;

/**
 * How much longer than its window a window's key is kept, so a process extends its expiry at
 * most once per this time rather than with every take (see {@link RedisWindows.take}).
 */
const EXPIRY_SLACK_MS = 60_000;

/**
 * KEYS: the windows, then the pause keys, then (with a fence) the lease key and its holder's
 * heartbeat, then the windows
 * of the moves, then the keys the commands write (declared, as a cluster wants). ARGV: now,
 * member, number of windows, then windowMs, allowed and extend (1: set the key's expiry to
 * windowMs + extend's slack, 0: the key's expiry is recent enough) for each window, number of
 * pauses, the fence's lease value ('' for none), the commands to apply with the slot (how
 * many, then for each its length and its words), the slots to move first ({@link APPLY_MOVES}).
 * Refuses everything (a FENCED error) when the lease key does not hold the fence's value or
 * the holder's heartbeat is gone.
 * Returns {1, now} when taken (and the commands applied), {0, readyAt, index of the key
 * holding it back} when not (readyAt -1: never).
 *
 * Few calls, since each costs Redis several microseconds when it runs cold between two takes
 * (the usual case at 100 actions a second): the pauses and the fence are one MGET; a window is
 * counted with ZCARD and trimmed of old events only when it looks full (what is counted is
 * then never less than what is in the window, so a take is never granted wrongly, and a window
 * never holds more than it allows); the expiry is extended only when the caller says so (or
 * the key is new).
 */
const TAKE = new RedisScript(`
${APPLY_MOVES}
local now = tonumber(ARGV[1])
local member = ARGV[2]
local n = tonumber(ARGV[3])
local pauses = tonumber(ARGV[4 + 3 * n])
local fence = ARGV[5 + 3 * n]
local opsAt = 6 + 3 * n
local nops = tonumber(ARGV[opsAt])
local movesAt = opsAt + 1
for k = 1, nops do movesAt = movesAt + 1 + tonumber(ARGV[movesAt]) end
local checks = pauses + (fence ~= '' and 2 or 0)
applyMoves(movesAt, n + checks + 1)
local held = {}
if checks > 0 then held = redis.call('MGET', unpack(KEYS, n + 1, n + checks)) end
if fence ~= '' and (held[checks - 1] ~= fence or not held[checks]) then
  return redis.error_reply('FENCED lease is not held by this claim')
end
local readyAt = now
local binding = 0
local cards = {}
for i = 1, n do
  local ms = tonumber(ARGV[1 + 3 * i])
  local allowed = tonumber(ARGV[2 + 3 * i])
  local card = redis.call('ZCARD', KEYS[i])
  if card + 1 > allowed then
    card = card - redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - ms)
    local over = card + 1 - allowed
    if over > 0 then
      if allowed <= 0 then return {0, -1, i} end
      local e = redis.call('ZRANGE', KEYS[i], over - 1, over - 1, 'WITHSCORES')
      local at = tonumber(e[2]) + ms
      if at > readyAt then readyAt = at; binding = i end
    end
  end
  cards[i] = card
end
for j = 1, pauses do
  local until_ = tonumber(held[j] or '0')
  if until_ > readyAt then readyAt = until_; binding = n + j end
end
if readyAt > now then return {0, readyAt, binding} end
for i = 1, n do
  redis.call('ZADD', KEYS[i], now, member)
  local extend = tonumber(ARGV[3 + 3 * i])
  if extend > 0 or cards[i] == 0 then redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1 + 3 * i]) + ${EXPIRY_SLACK_MS}) end
end
local at = opsAt + 1
for k = 1, nops do
  local len = tonumber(ARGV[at])
  redis.call(unpack(ARGV, at + 1, at + len))
  at = at + 1 + len
end
return {1, now}
`);

/** KEYS[1]: the window. ARGV: now, windowMs, max, remaining, member prefix. Returns the events added. */
const CORRECT = new RedisScript(`
local now = tonumber(ARGV[1])
local ms = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ms)
local missing = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
for k = 1, missing do redis.call('ZADD', KEYS[1], now, ARGV[5] .. ':' .. k) end
if missing > 0 then redis.call('PEXPIRE', KEYS[1], ms) end
return math.max(missing, 0)
`);

/**
 * KEYS[1]: the window. ARGV: from, to (empty: forget), member (may be empty). Moves (or
 * removes) the member when it is still counted at \`from\`, else any one event counted then.
 */
const MOVE = new RedisScript(`
local from = tonumber(ARGV[1])
local member = ARGV[3]
local score = member ~= '' and redis.call('ZSCORE', KEYS[1], member)
if not score or tonumber(score) ~= from then
  member = redis.call('ZRANGEBYSCORE', KEYS[1], from, from, 'LIMIT', 0, 1)[1]
end
if not member then return 0 end
if ARGV[2] == '' then redis.call('ZREM', KEYS[1], member)
else redis.call('ZADD', KEYS[1], ARGV[2], member) end
return 1
`);

/** KEYS[1]: the pause. ARGV: until, now. Keeps the later of the two ends. */
const PAUSE = new RedisScript(`
local untilv = tonumber(ARGV[1])
if untilv > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', math.max(1, untilv - tonumber(ARGV[2])))
end
return 1
`);

/** KEYS[1]: the counter. ARGV: n, how long it is kept from now (ms). Returns the total. */
const COUNT = new RedisScript(`
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return total
`);

/** How long a period's read count outlives the period (for `bot status` just after the reset). */
const COUNT_KEPT_MS = 24 * 3_600_000;

/** One slot's part of a take: its windows, pauses and maybe the staged write. */
interface Part {
  windows: WindowClaim[];
  pauses: string[];
  write?: StagedWrite;
  /** The slot's tag (./keys.ts), for the moves that go with it. */
  slot: string;
}

/** A part's answer: taken (its windows' keys, for a give-back), or when its first room comes and which claim holds it back. */
type PartTake = { ok: true; keys: string[] } | { ok: false; readyAt: number; binding: string };

/** {@link SharedWindows} in one Redis or a Redis Cluster; see the module comment. */
export class RedisWindows implements SharedWindows {
  private readonly keys: RedisKeys;
  private readonly process = randomUUID().slice(0, 8);
  private seq = 0;
  /** Slots to move to their answer's time, waiting to go with the next script ({@link retime}). */
  private moves: Array<{ move: [string, number, string]; resolve(): void; reject(err: unknown): void }> = [];
  private moveTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the oldest of {@link moves} was queued (performance.now()). */
  private movesSince = 0;
  /** When this process last set each window key's expiry (its clock's ms): see {@link take}. */
  private readonly extendedAt = new Map<string, number>();

  /** The connection for what writes nothing of the state store (see the module comment). */
  private readonly free: Redis;

  /**
   * `redis`: the state store's connection. `prefix`: the deployment's key prefix (default
   * `postbot:`); the windows are `<prefix>budget:w:<window>`. `apart`: a connection of the
   * same Redis for what carries no staged write (default: `redis`).
   */
  constructor(
    private readonly redis: Redis,
    options: { prefix?: string; apart?: Redis } = {},
  ) {
    this.keys = redisKeys(redis, options.prefix);
    this.free = options.apart ?? redis;
  }

  private window(key: string) {
    return budgetKey(this.keys, key, `budget:w:${key}`);
  }

  private held(key: string) {
    return budgetKey(this.keys, key, `budget:p:${key}`);
  }

  /**
   * See {@link SharedWindows.take}. A window's key is given an expiry of its length plus
   * {@link EXPIRY_SLACK_MS} when it is new, or when this process last extended it
   * {@link EXPIRY_SLACK_MS} ago or more (by its clock): every event counted here is then
   * kept at least its window's length, without an expiry call in every take.
   */
  async take(
    windows: readonly WindowClaim[],
    pauses: readonly string[],
    now: number,
    write?: StagedWrite,
  ): Promise<SharedTake> {
    const member = `${now}:${this.process}:${++this.seq}`;
    const parts = this.parts(windows, pauses, write);
    const first = parts.filter((p) => !p.write);
    const last = parts.find((p) => p.write);
    const taken = await Promise.allSettled(first.map((p) => this.takePart(p, member, now)));
    const refusal = firstRefusal(taken);
    const kept = taken.flatMap((t) => (t.status === "fulfilled" && t.value.ok ? [t.value.keys] : []));
    if (refusal || !last) {
      if (refusal) {
        write?.done(refusal.status === "rejected" ? refusal.reason : "not run");
        await this.giveBack(kept, member);
      }
      if (refusal?.status === "rejected") throw refusal.reason;
      return refusal?.status === "fulfilled" && !refusal.value.ok ? refusal.value : { ok: true, at: now, member };
    }
    let answer: PartTake;
    try {
      answer = await this.takePart(last, member, now);
    } catch (err) {
      await this.giveBack(kept, member);
      throw err;
    }
    if (!answer.ok) {
      await this.giveBack(kept, member);
      return answer;
    }
    return { ok: true, at: now, member };
  }

  /** The take's parts, one per slot (one on one Redis); see the module comment. */
  private parts(windows: readonly WindowClaim[], pauses: readonly string[], write?: StagedWrite): Part[] {
    const bySlotOf = new Map<string, Part>();
    const part = (key: string) => {
      const slot = this.keys.slotOf(key);
      let p = bySlotOf.get(slot);
      if (!p) bySlotOf.set(slot, (p = { windows: [], pauses: [], slot }));
      return p;
    };
    for (const claim of windows) part(this.window(claim.key)).windows.push(claim);
    for (const key of pauses) part(this.held(key)).pauses.push(key);
    if (write) {
      const anchor = write.fence?.key ?? write.ops[0]?.[1];
      (anchor === undefined ? (bySlotOf.values().next().value ?? part("")) : part(anchor)).write = write;
    }
    if (bySlotOf.size === 0) part("");
    return [...bySlotOf.values()];
  }

  /** Runs the take script for one part; see {@link TAKE}. A part with the write tells it (`done`) whether it was applied. */
  private async takePart(part: Part, member: string, now: number): Promise<PartTake> {
    const { write } = part;
    const keys: string[] = [];
    const args: Array<string | number> = [now, member, part.windows.length];
    const extended: string[] = [];
    for (const claim of part.windows) {
      const key = this.window(claim.key);
      keys.push(key);
      const last = this.extendedAt.get(key);
      const extend = last === undefined || now - last >= EXPIRY_SLACK_MS || now < last;
      if (extend) extended.push(key);
      args.push(claim.windowMs, claim.allowed, extend ? 1 : 0);
    }
    for (const p of part.pauses) keys.push(this.held(p));
    if (write?.fence) keys.push(write.fence.key, write.fence.heartbeat);
    args.push(part.pauses.length, write?.fence?.value ?? "", write?.ops.length ?? 0);
    for (const op of write?.ops ?? []) args.push(op.length, ...op);
    const moves = this.takeMoves(part.slot);
    keys.push(...moves.keys);
    args.push(...moves.args);
    keys.push(...new Set((write?.ops ?? []).map((op) => op[1]).filter((k): k is string => k !== undefined)));
    let answer: [number, number, number?];
    try {
      answer = await TAKE.run<[number, number, number?]>(write ? this.redis : this.free, keys, args);
    } catch (err) {
      const failure = write?.fence && isFenced(err) ? new FencedError(write.fence.lease) : err;
      write?.done(failure);
      // Refused by the fence, the script ran (its moves were applied); else they were not.
      moves.settle(failure instanceof FencedError ? undefined : err);
      throw failure;
    }
    moves.settle();
    const [taken, at, index] = answer;
    write?.done(taken === 1 ? undefined : "not run");
    if (taken === 1) {
      this.noteExtended(extended, now);
      return { ok: true, keys: keys.slice(0, part.windows.length) };
    }
    const i = (index ?? 1) - 1;
    return {
      ok: false,
      readyAt: at < 0 ? Infinity : at,
      binding: i < part.windows.length ? part.windows[i]!.key : part.pauses[i - part.windows.length]!,
    };
  }

  /** Takes a member back out of the windows of parts taken, when another part had no room (one script per slot). */
  private async giveBack(parts: string[][], member: string): Promise<void> {
    await Promise.all(parts.filter((k) => k.length > 0).map((keys) => GIVE_BACK.run(this.free, keys, [member])));
  }

  async correct(key: string, windowMs: number, max: number, remaining: number, now: number): Promise<number> {
    return Number(
      await CORRECT.run(
        this.free,
        [this.window(key)],
        [now, windowMs, max, Math.max(0, remaining), `${now}:${this.process}:c${++this.seq}`],
      ),
    );
  }

  /**
   * A slot named by its member waits up to {@link MOVE_BATCH_MS} to go with the next take
   * (or with the other moves waiting): one round trip fewer per request. It only ever moves
   * later, so meanwhile its window frees no earlier than the service's.
   */
  async retime(key: string, from: number, to: number, member?: string): Promise<void> {
    if (!(to > from)) return;
    if (!member) return void (await MOVE.run(this.free, [this.window(key)], [from, to, ""]));
    await new Promise<void>((resolve, reject) => {
      if (this.moves.length === 0) this.movesSince = performance.now();
      this.moves.push({ move: [this.window(key), to, member], resolve, reject });
      this.armMoves(MOVE_BATCH_MS);
    });
  }

  private armMoves(ms: number): void {
    if (this.moveTimer) return;
    this.moveTimer = setTimeout(() => void this.sendMoves(), ms);
    this.moveTimer.unref();
  }

  /** Remembers when this process last extended the keys' expiry (forgetting the old ones now and then). */
  private noteExtended(keys: readonly string[], now: number): void {
    if (keys.length === 0) return;
    if (this.extendedAt.size >= 50_000) {
      for (const [key, at] of this.extendedAt) if (now - at >= EXPIRY_SLACK_MS || now < at) this.extendedAt.delete(key);
    }
    for (const key of keys) this.extendedAt.set(key, now);
  }

  /**
   * The moves waiting whose windows are in `slot` (all of them on one Redis), for a script to
   * apply (as {@link APPLY_MOVES} reads them); `settle` once it is known whether it did. The
   * batch timer is left to run out: a timer set and cleared for every request costs more than
   * its one empty wake-up.
   */
  private takeMoves(slot: string): { keys: string[]; args: Array<string | number>; settle(err?: unknown): void } {
    const batch = this.keys.cluster ? this.moves.filter((m) => this.keys.slotOf(m.move[0]) === slot) : this.moves;
    this.moves = this.keys.cluster ? this.moves.filter((m) => !batch.includes(m)) : [];
    const args: Array<string | number> = [batch.length];
    for (const m of batch) args.push(m.move[1], m.move[2]);
    return {
      keys: batch.map((m) => m.move[0]),
      args,
      settle: (err) => {
        for (const m of batch) err === undefined ? m.resolve() : m.reject(err);
      },
    };
  }

  /** The batch timer ran out: sends the moves that have waited {@link MOVE_BATCH_MS} (one script per slot), or waits for the rest of it. */
  private async sendMoves(): Promise<void> {
    this.moveTimer = undefined;
    if (this.moves.length === 0) return;
    const waited = performance.now() - this.movesSince;
    if (waited < MOVE_BATCH_MS) return this.armMoves(MOVE_BATCH_MS - waited);
    const slots = new Set(this.moves.map((m) => this.keys.slotOf(m.move[0])));
    await Promise.all(
      [...slots].map((slot) => {
        const moves = this.takeMoves(slot);
        return MOVES.run(this.free, moves.keys, moves.args).then(
          () => moves.settle(),
          (err: unknown) => moves.settle(err),
        );
      }),
    );
  }

  async forget(key: string, at: number, member?: string): Promise<void> {
    await MOVE.run(this.free, [this.window(key)], [at, "", member ?? ""]);
  }

  async pause(key: string, until: number, now: number): Promise<void> {
    await PAUSE.run(this.free, [this.held(key)], [until, now]);
  }

  async used(key: string, windowMs: number, now: number): Promise<number> {
    return await this.free.zcount(this.window(key), `(${now - windowMs}`, "+inf");
  }

  async countReads(appId: string, period: { start: number; end: number }, n: number, now: number): Promise<number> {
    const keepMs = Math.max(1, Math.round(period.end - now + COUNT_KEPT_MS));
    return Number(
      await COUNT.run(
        this.free,
        [this.keys.app(appId, `budget:m:${appId}:${period.start}`)],
        [Math.max(0, Math.round(n)), keepMs],
      ),
    );
  }
}

/** The parts' refusal that decides a take: a failure first, else the latest room. */
function firstRefusal(
  taken: ReadonlyArray<PromiseSettledResult<PartTake>>,
): PromiseRejectedResult | PromiseFulfilledResult<PartTake & { ok: false }> | undefined {
  const failed = taken.find((t): t is PromiseRejectedResult => t.status === "rejected");
  if (failed) return failed;
  let latest: PromiseFulfilledResult<PartTake & { ok: false }> | undefined;
  for (const t of taken)
    if (t.status === "fulfilled" && !t.value.ok && (!latest || t.value.readyAt > latest.value.readyAt))
      latest = t as PromiseFulfilledResult<PartTake & { ok: false }>;
  return latest;
}

/** A budget key in its owner's slot: a cap's (`cap|<bot>|...`) its bot's, an account's (`...|u:<id>|...`) or an app's (`...|a:<id>...`). */
function budgetKey(keys: RedisKeys, window: string, name: string): string {
  const parts = window.split("|");
  if (parts[0] === "cap" && parts[1]) return keys.bot(parts[1], name);
  for (const part of parts) {
    if (part.startsWith("u:")) return keys.user(part.slice(2), name);
    if (part.startsWith("a:")) return keys.app(part.slice(2), name);
  }
  return keys.deployment(name);
}

/**
 * The monthly read counts in Redis, per app: its latest period's start and posts read (what
 * the budget book keeps in `budget.usage` when it counts alone), for `bot status`.
 */
export async function readMonthlyCounts(
  redis: Redis,
  prefix?: string,
): Promise<Map<string, { periodStart: number; posts: number }>> {
  const layout = redisKeys(redis, prefix);
  const keys = await scanKeys(redis, layout.pattern("budget:m:*"));
  const values = await getMany(redis, layout, keys);
  const out = new Map<string, { periodStart: number; posts: number }>();
  for (const [i, key] of keys.entries()) {
    const rest = (layout.nameOf(key) ?? "").slice("budget:m:".length);
    const cut = rest.lastIndexOf(":");
    const appId = rest.slice(0, cut);
    const periodStart = Number(rest.slice(cut + 1));
    const posts = Number(values[i] ?? 0);
    if (!appId || !Number.isFinite(periodStart) || (out.get(appId)?.periodStart ?? -Infinity) > periodStart) continue;
    out.set(appId, { periodStart, posts });
  }
  return out;
}
