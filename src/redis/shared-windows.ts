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
 * (`<prefix>m:<app>:<period start>`), added to with INCRBY: the processes' reads add up,
 * whatever their order. It expires a day after its period ends; {@link readMonthlyCounts}
 * reads them for `bot status`.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { FencedError, isFenced } from "../fencing.ts";
import { scanKeys } from "./scan.ts";
import type { StagedWrite } from "../store/staged-write.ts";
import { RedisScript } from "./script.ts";
import type { SharedTake, SharedWindows, WindowClaim } from "../limits/shared-windows.ts";

/**
 * Lua: moves counted slots to the time their answer came. ARGV from index `i` holds how many,
 * then `window key, to, member` for each; a slot no longer counted (given back meanwhile)
 * stays gone (`ZADD XX` only updates a member that is there). Returns the index after them.
 * Flat arguments rather than JSON: no cjson in the script, no JSON.stringify in node.
 */
const APPLY_MOVES = `local function applyMoves(i)
  local count = tonumber(ARGV[i])
  for k = 1, count do
    local at = i + 3 * k - 2
    redis.call('ZADD', ARGV[at], 'XX', ARGV[at + 1], ARGV[at + 2])
  end
  return i + 1 + 3 * count
end`;

/** ARGV: the moves, as {@link APPLY_MOVES} takes them. */
const MOVES = new RedisScript(`${APPLY_MOVES}
applyMoves(1)
return 1`);

/** How long a slot's move to its answer's time may wait to go with a take (or with other moves). */
const MOVE_BATCH_MS = 25;

/**
 * How much longer than its window a window's key is kept, so a process extends its expiry at
 * most once per this time rather than with every take (see {@link RedisWindows.take}).
 */
const EXPIRY_SLACK_MS = 60_000;

/**
 * KEYS: the windows, then the pause keys, then (with a fence) the lease key. ARGV: now,
 * member, number of windows, then windowMs, allowed and extend (1: set the key's expiry to
 * windowMs + extend's slack, 0: the key's expiry is recent enough) for each window, number of
 * pauses, the fence's lease value ('' for none), the commands to apply with the slot (how
 * many, then for each its length and its words), the slots to move first ({@link APPLY_MOVES}).
 * Refuses everything (a FENCED error) when the lease key does not hold the fence's value.
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
applyMoves(movesAt)
local held = {}
local checks = pauses + (fence ~= '' and 1 or 0)
if checks > 0 then held = redis.call('MGET', unpack(KEYS, n + 1, n + checks)) end
if fence ~= '' and held[checks] ~= fence then
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

const DEFAULT_PREFIX = "postbot:budget:";

/** {@link SharedWindows} in one Redis; see the module comment. */
export class RedisWindows implements SharedWindows {
  private readonly prefix: string;
  private readonly process = randomUUID().slice(0, 8);
  private seq = 0;
  /** Slots to move to their answer's time, waiting to go with the next script ({@link retime}). */
  private moves: Array<{ move: [string, number, string]; resolve(): void; reject(err: unknown): void }> = [];
  private moveTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the oldest of {@link moves} was queued (performance.now()). */
  private movesSince = 0;
  /** When this process last set each window key's expiry (its clock's ms): see {@link take}. */
  private readonly extendedAt = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    options: { prefix?: string } = {},
  ) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
  }

  private window(key: string) {
    return `${this.prefix}w:${key}`;
  }

  private held(key: string) {
    return `${this.prefix}p:${key}`;
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
    const keys: string[] = [];
    const args: Array<string | number> = [now, member, windows.length];
    const extended: string[] = [];
    for (const w of windows) {
      const key = this.window(w.key);
      keys.push(key);
      const last = this.extendedAt.get(key);
      const extend = last === undefined || now - last >= EXPIRY_SLACK_MS || now < last;
      if (extend) extended.push(key);
      args.push(w.windowMs, w.allowed, extend ? 1 : 0);
    }
    for (const p of pauses) keys.push(this.held(p));
    if (write?.fence) keys.push(write.fence.key);
    args.push(pauses.length, write?.fence?.value ?? "", write?.ops.length ?? 0);
    for (const op of write?.ops ?? []) args.push(op.length, ...op);
    const moves = this.takeMoves();
    for (const a of moves.args) args.push(a);
    let answer: [number, number, number?];
    try {
      answer = await TAKE.run<[number, number, number?]>(this.redis, keys, args);
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
      return { ok: true, at, member };
    }
    const i = (index ?? 1) - 1;
    return {
      ok: false,
      readyAt: at < 0 ? Infinity : at,
      binding: i < windows.length ? windows[i]!.key : pauses[i - windows.length]!,
    };
  }

  async correct(key: string, windowMs: number, max: number, remaining: number, now: number): Promise<number> {
    return Number(
      await CORRECT.run(
        this.redis,
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
    if (!member) return void (await MOVE.run(this.redis, [this.window(key)], [from, to, ""]));
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
   * The moves waiting, for a script to apply (as {@link APPLY_MOVES} reads them); `settle` once
   * it is known whether it did. The batch timer is left to run out: a timer set and cleared for
   * every request costs more than its one empty wake-up.
   */
  private takeMoves(): { args: Array<string | number>; settle(err?: unknown): void } {
    const batch = this.moves;
    this.moves = [];
    const args: Array<string | number> = [batch.length];
    for (const m of batch) args.push(...m.move);
    return {
      args,
      settle: (err) => {
        for (const m of batch) err === undefined ? m.resolve() : m.reject(err);
      },
    };
  }

  /** The batch timer ran out: sends the moves that have waited {@link MOVE_BATCH_MS}, or waits for the rest of it. */
  private async sendMoves(): Promise<void> {
    this.moveTimer = undefined;
    if (this.moves.length === 0) return;
    const waited = performance.now() - this.movesSince;
    if (waited < MOVE_BATCH_MS) return this.armMoves(MOVE_BATCH_MS - waited);
    const moves = this.takeMoves();
    await MOVES.run(this.redis, [], moves.args).then(
      () => moves.settle(),
      (err: unknown) => moves.settle(err),
    );
  }

  async forget(key: string, at: number, member?: string): Promise<void> {
    await MOVE.run(this.redis, [this.window(key)], [at, "", member ?? ""]);
  }

  async pause(key: string, until: number, now: number): Promise<void> {
    await PAUSE.run(this.redis, [this.held(key)], [until, now]);
  }

  async used(key: string, windowMs: number, now: number): Promise<number> {
    return await this.redis.zcount(this.window(key), `(${now - windowMs}`, "+inf");
  }

  async countReads(appId: string, period: { start: number; end: number }, n: number, now: number): Promise<number> {
    const keepMs = Math.max(1, Math.round(period.end - now + COUNT_KEPT_MS));
    return Number(
      await COUNT.run(this.redis, [`${this.prefix}m:${appId}:${period.start}`], [Math.max(0, Math.round(n)), keepMs]),
    );
  }
}

/**
 * The monthly read counts in Redis, per app: its latest period's start and posts read (what
 * the budget book keeps in `budget.usage` when it counts alone), for `bot status`.
 */
export async function readMonthlyCounts(
  redis: Redis,
  prefix = DEFAULT_PREFIX,
): Promise<Map<string, { periodStart: number; posts: number }>> {
  const keys = await scanKeys(redis, `${prefix}m:*`);
  const values = keys.length > 0 ? await redis.mget(keys) : [];
  const out = new Map<string, { periodStart: number; posts: number }>();
  for (const [i, key] of keys.entries()) {
    const rest = key.slice(prefix.length + 2);
    const cut = rest.lastIndexOf(":");
    const appId = rest.slice(0, cut);
    const periodStart = Number(rest.slice(cut + 1));
    const posts = Number(values[i] ?? 0);
    if (!appId || !Number.isFinite(periodStart) || (out.get(appId)?.periodStart ?? -Infinity) > periodStart) continue;
    out.set(appId, { periodStart, posts });
  }
  return out;
}
