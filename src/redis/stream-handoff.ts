/**
 * The stream handoff: with several `bot start` processes, the one process that holds an
 * app's stream lease runs its filtered-stream connection (../triggers/stream-hub.ts), but each
 * delivered post belongs to the process that runs its bot. The hub hands every routed post
 * over through Redis, durably, and the owner acknowledges it only once its handlers ran, so
 * a process dying between delivery and handling loses nothing:
 *
 * - {@link HandoffWriter} (the hub's process) appends each bot's events to that bot's own
 *   Redis stream (`XADD postbot:handoff:<app>:<bot>`) and rings the app's bell stream with the
 *   bot's name, in one transaction. What the hub learns about the connection (connected,
 *   interrupted) goes on the bell too, so every process can run its bots' catch-up polls.
 * - {@link HandoffReader} (every process) listens to the bell and reads the streams of the
 *   bots it runs through the consumer group `handlers` (`XREADGROUP`), puts each entry in a
 *   queue that hosting pulls from ({@link HandedEntry}: the reader calls no bot), and
 *   `XACK`s (and deletes) it once hosting says its bot handled it. A bell missed (the process was busy
 *   reconnecting, Redis was away) costs nothing: a sweep reads every owned bot's stream again.
 *   The sweep runs a few seconds after anything that may have let an entry slip past the bell
 *   (see {@link HandoffReader.mayHaveMissed}), and otherwise only every few minutes as a last
 *   net: an idle process sends no command for it, however many bots it runs.
 * - When a process takes a bot over (its lease was won after the owner died), it first
 *   claims what the dead consumer had been given and not acknowledged (`XAUTOCLAIM`) and
 *   hands it to the bot again. A post handled but not yet acknowledged comes back once more:
 *   the bot's inbox and mentions cursor drop what they already had, and the action ledger
 *   never sends the same reply twice.
 *
 * Why a stream per bot rather than one per app: consumer groups hand an entry to whichever
 * consumer asks, not to the owner of its bot; a bot's own stream has exactly one reader
 * (the lease holder), and a takeover only has to look at the streams of the bots it took.
 *
 * On a Redis Cluster a bot's stream is in its bot's slot (its acknowledgement is fenced by the
 * bot's lease), the bell in its app's (./keys.ts): the entry and its bell are then two writes,
 * the entry first; a bell lost between them (the hub's process died) is made up for by the sweep.
 */
import type { Redis } from "./connect.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { PullQueue } from "../pull-queue.ts";
import type { BotEvent } from "../triggers/events.ts";
import { endConnection } from "./connect.ts";
import { bySlot, keyLayout, redisKeys, type RedisKeys } from "./keys.ts";

/** What one handoff entry carries: a bot's own-rule post, or mentions for its mentions trigger. */
export type HandoffEntry = { kind: "post"; events: BotEvent[] } | { kind: "mentions"; events: BotEvent[] };

/** What the hub says about the app's connection, for every process's catch-up polls. */
export type HandoffControl = "connected" | "interrupted";

/** The consumer group every process reads a bot's stream in. */
export const HANDOFF_GROUP = "handlers";
/** Bells kept (approximately) per app: readers that fall further behind rely on the sweep. */
const BELL_MAXLEN = 10_000;
/** Entries read from one stream at a time. */
const READ_COUNT = 100;
/** How long the bell waits after Redis could not be reached, before it listens again. */
const BELL_RETRY_MS = 500;
/** Streams named in one sweep command. */
const SWEEP_BATCH = 500;

/** The Redis keys of one app's handoff (by default one Redis's, under `postbot:`). */
export function handoffKeys(appId: string, keys: RedisKeys = keyLayout(false)) {
  return {
    bot: (bot: string) => keys.bot(bot, `handoff:${appId}:bot:${bot}`),
    bell: keys.app(appId, `handoff:${appId}:bell`),
    /** The hub's last word about the connection, for a process that starts running a bot later. */
    state: keys.app(appId, `handoff:${appId}:state`),
    /** The app's bots, for whichever process runs its hub (../redis/shared-streams.ts). */
    directory: keys.app(appId, `handoff:${appId}:bots`),
    /** Counts the directory's changes. */
    version: keys.app(appId, `handoff:${appId}:bots:version`),
    /** Which process has the app's stream connection open (../redis/shared-streams.ts). */
    connection: keys.app(appId, `handoff:${appId}:connection`),
  };
}

/** The hub's side: appends each bot's events to its stream and rings the app's bell. */
export class HandoffWriter {
  private readonly keys: ReturnType<typeof handoffKeys>;

  /** `prefix`: the deployment's key prefix (default `postbot:`). */
  constructor(
    private readonly redis: Redis,
    appId: string,
    options: { prefix?: string } = {},
  ) {
    this.keys = handoffKeys(appId, redisKeys(redis, options.prefix));
  }

  /** Hands `entry` to whichever process runs `bot`; resolves once Redis has it. */
  async send(bot: string, entry: HandoffEntry): Promise<void> {
    const data = JSON.stringify(entry);
    if (this.redis.isCluster) {
      // Two slots: the entry first, then its bell (see the module comment).
      await this.redis.xadd(this.keys.bot(bot), "*", "e", data);
      await this.redis.xadd(this.keys.bell, "MAXLEN", "~", BELL_MAXLEN, "*", "bot", bot);
      return;
    }
    await this.redis
      .multi()
      .xadd(this.keys.bot(bot), "*", "e", data)
      .xadd(this.keys.bell, "MAXLEN", "~", BELL_MAXLEN, "*", "bot", bot)
      .exec();
  }

  /** Tells every process of the app that the stream connected or was interrupted. */
  async control(what: HandoffControl): Promise<void> {
    await this.redis
      .multi()
      .set(this.keys.state, what)
      .xadd(this.keys.bell, "MAXLEN", "~", BELL_MAXLEN, "*", "control", what)
      .exec();
  }
}

/** The hub's last word about the app's connection (`undefined`: no hub has connected yet). */
export async function handoffState(redis: Redis, appId: string, prefix?: string): Promise<HandoffControl | undefined> {
  const value = await redis.get(handoffKeys(appId, redisKeys(redis, prefix)).state);
  return value === "connected" || value === "interrupted" ? value : undefined;
}

export interface HandoffReaderOptions {
  redis: Redis;
  appId: string;
  /** This process's consumer name (the lease owner id: `host:pid:random`). */
  consumer: string;
  clock: Clock;
  log: Logger;
  /**
   * Where each entry read waits for hosting to take it to its bot (shared by the readers of a
   * process's apps); hosting says when the bot handled it ({@link HandedEntry.handled}).
   */
  handed: PullQueue<HandedEntry>;
  /** The hub said the app's stream connected or was interrupted. */
  onControl?(what: HandoffControl): void;
  /**
   * A post was handed to a bot this reader does not read for (now): another process runs it,
   * or none does yet (its process died, and this one may be about to take it over: it then
   * starts that bot first, ../redis/bot-claims.ts `hurry`).
   */
  onUnowned?(bot: string): void;
  /**
   * How often the reader looks whether a sweep is due (default 5 s): one is when something
   * may have let an entry slip past the bell since the last ({@link HandoffReader.mayHaveMissed}),
   * or `fullSweepMs` after the last.
   */
  sweepMs?: number;
  /**
   * The longest time between two sweeps of every owned bot's stream, whatever the bell said
   * (default 5 min): the net for the one gap the bell cannot report, on a Redis Cluster an
   * entry written and its bell refused (the two are in different slots).
   */
  fullSweepMs?: number;
  /** The deployment's key prefix (default `postbot:`). */
  prefix?: string;
  /**
   * Runs the commands that acknowledge a handled entry of `bot` (default: in one
   * transaction). The runtime runs them fenced by the bot's lease, so a process that lost
   * the bot meanwhile (whose handling may have had its writes refused) leaves the entry to
   * the bot's next process instead of acknowledging it; a rejection leaves it pending.
   */
  acknowledge?(bot: string, commands: Array<[string, ...string[]]>): Promise<void>;
}

/** An entry read for a bot running here, as hosting takes it: once its bot handled it, say so. */
export interface HandedEntry {
  readonly bot: string;
  readonly entry: HandoffEntry;
  /** The bot handled it: it is acknowledged (fenced by the bot's lease, when the reader is). */
  handled(): void;
  /** Handling failed: it stays unacknowledged and is handed out again. */
  failed(err: unknown): void;
}

/** An entry's name across the app's streams: its stream and its id (an id alone is only unique in its stream). */
const entryKey = (stream: string, id: string) => `${stream} ${id}`;

type StreamReply = Array<[key: string, entries: Array<[id: string, fields: string[]]>]> | null;

/** One page of `XAUTOCLAIM`: the cursor to go on from (`0-0`: done) and the entries claimed (`null`: deleted since). */
type ClaimPage = [next: string, entries: Array<[string, string[]] | null>];

/**
 * Commands sent together (each named as ioredis's method: `xgroup`), each one's error or
 * reply: one pipeline on one Redis; on a cluster
 * each alone, all at once (a pipeline there must keep to one node).
 */
async function together(
  redis: Redis,
  commands: Array<[string, ...Array<string | number>]>,
): Promise<Array<[Error | null, unknown]>> {
  if (redis.isCluster)
    return await Promise.all(
      commands.map(([name, ...args]) =>
        redis.call(name, ...args).then(
          (reply): [null, unknown] => [null, reply],
          (err: Error): [Error, null] => [err, null],
        ),
      ),
    );
  if (commands.length === 0) return [];
  return ((await redis.pipeline(commands).exec()) ?? []) as Array<[Error | null, unknown]>;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** One process's side: reads the streams of the bots it runs; see the module comment. */
export class HandoffReader {
  private readonly keys: ReturnType<typeof handoffKeys>;
  private readonly owned = new Set<string>();
  private readonly botOfKey = new Map<string, string>();
  /**
   * Entries being handled now (a re-read must not hand them out twice), by stream and id
   * ({@link entryKey}: ids are per stream, and two bots' entries written in the same
   * millisecond have the same one): the bot and a token of this handing. Forgotten when the
   * bot is disowned: a handling cut off by its bot's stop never ends, and the entry must go to
   * the bot again if it comes back here.
   */
  private readonly inFlight = new Map<string, { bot: string }>();
  /**
   * Owned bots whose stream `own` has read since their group exists: those the bell's first
   * position must be followed by a read of (see {@link listen}).
   */
  private readonly opened = new Set<string>();
  /** Bots whose stream is being read, and those to read again once that read ends. */
  private readonly reading = new Set<string>();
  private readonly again = new Set<string>();
  private bellConnection: Redis | undefined;
  private closed = false;
  private cancelSweep: (() => void) | undefined;
  private bellLoop: Promise<void> | undefined;
  /** Whether an entry may have slipped past the bell since the last sweep began (see {@link mayHaveMissed}). */
  private unsure = true;
  /** When the last sweep began. */
  private sweptAt: number | undefined;
  /** Reads and acknowledgements on their way (tests and `idle()` wait for them). */
  private working = 0;
  /** Entries handled and acknowledged since start. */
  handled = 0;

  private readonly layout: RedisKeys;

  constructor(private readonly options: HandoffReaderOptions) {
    this.layout = redisKeys(options.redis, options.prefix);
    this.keys = handoffKeys(options.appId, this.layout);
  }

  /** Starts listening to the app's bell and sweeping the owned bots' streams. */
  start(): void {
    const bell = (this.bellConnection = this.options.redis.duplicate());
    bell.on("error", () => {}); // the loop below reports; ioredis reconnects by itself
    // Back after a loss (ioredis sends the pending read again, so no error shows): one sweep, to be sure.
    bell.on("ready", () => this.mayHaveMissed());
    this.bellLoop = this.listen(bell);
    this.armSweep();
  }

  /**
   * This process now runs these bots: their groups exist, what an earlier consumer left
   * unacknowledged is claimed and handed to them again, then what is new. Resolves with the
   * bots whose streams could not be taken, each with why (a bad key in Redis, or Redis away):
   * those are not run here by the reader, and the others go on, so one bot's bad key fails
   * that bot alone.
   */
  async own(bots: Iterable<string>): Promise<Map<string, Error>> {
    const fresh: string[] = [];
    for (const bot of bots) {
      if (this.owned.has(bot)) continue;
      this.owned.add(bot);
      this.botOfKey.set(this.keys.bot(bot), bot);
      fresh.push(bot);
    }
    const failed = new Map<string, Error>();
    await this.track(async () => {
      // A start owns many bots at once: each step is one pipeline for all of them (../turn-batch.ts).
      const made = await together(
        this.options.redis,
        fresh.map((bot) => ["xgroup", "CREATE", this.keys.bot(bot), HANDOFF_GROUP, "0", "MKSTREAM"]),
      );
      for (const [i, [err]] of made.entries()) if (err && !/BUSYGROUP/.test(err.message)) failed.set(fresh[i]!, err);
      const grouped = fresh.filter((bot) => !failed.has(bot));
      const firsts = await together(
        this.options.redis,
        grouped.map((bot) => [
          "xautoclaim",
          this.keys.bot(bot),
          HANDOFF_GROUP,
          this.options.consumer,
          "0",
          "0-0",
          "COUNT",
          READ_COUNT,
        ]),
      );
      for (const [i, [err, page]] of firsts.entries()) {
        const bot = grouped[i]!;
        if (err) failed.set(bot, err);
        else await this.reclaim(bot, page as ClaimPage).catch((e: unknown) => void failed.set(bot, asError(e)));
      }
    }).catch((err: unknown) => {
      for (const bot of fresh) if (!failed.has(bot)) failed.set(bot, asError(err));
    });
    if (failed.size > 0) {
      this.mayHaveMissed();
      this.disown(failed.keys());
    }
    for (const bot of fresh) if (this.owned.has(bot)) this.opened.add(bot);
    this.readFresh(fresh.filter((bot) => !failed.has(bot)));
    return failed;
  }

  /** This process no longer runs these bots (lease lost or released): their entries are left to the next owner. */
  disown(bots: Iterable<string>): void {
    const gone = new Set(bots);
    for (const bot of gone) {
      this.owned.delete(bot);
      this.opened.delete(bot);
      this.botOfKey.delete(this.keys.bot(bot));
    }
    for (const [at, handing] of this.inFlight) if (gone.has(handing.bot)) this.inFlight.delete(at);
  }

  /**
   * The connection the reader reads the streams on (`redis`, shared with the rest of the
   * process, which listens to it) is ready again after it was lost: ioredis sends again what
   * had no answer, so a read whose reply was lost fails nothing, but what it gave this
   * consumer is pending in no one's hands until the next sweep, which this makes due.
   */
  connectionBack(): void {
    this.mayHaveMissed();
  }

  /** Whether something is moving without the clock: a read, an entry being handled, an acknowledgement. */
  busy(): boolean {
    return this.working > 0 || this.inFlight.size > 0;
  }

  /** Stops listening and reading; entries being handled stay unacknowledged for the next owner if they never finish. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    if (this.bellConnection) await endConnection(this.bellConnection); // its BLOCK read fails now, also while Redis is away
    await this.bellLoop;
  }

  private async track<T>(work: () => Promise<T>): Promise<T> {
    this.working++;
    try {
      return await work();
    } finally {
      this.working--;
    }
  }

  /**
   * Reads what is new in the streams of bots just owned, many in one read (one a slot bucket
   * on a cluster); a stream with more than a read's worth, or rung for meanwhile, is read on
   * by {@link read}.
   */
  private readFresh(bots: readonly string[]): void {
    const todo: string[] = [];
    for (const bot of bots) {
      if (!this.owned.has(bot) || this.closed) continue;
      if (this.reading.has(bot)) this.again.add(bot);
      else todo.push(bot);
    }
    for (const bot of todo) this.reading.add(bot);
    void this.track(async () => {
      for (const group of bySlot(this.layout, todo, (b) => this.keys.bot(b)))
        for (let i = 0; i < group.length; i += SWEEP_BATCH) {
          const some = group.slice(i, i + SWEEP_BATCH);
          const more = new Set<string>();
          try {
            const reply = await this.readGroup(
              some.map((b) => this.keys.bot(b)),
              ">",
            );
            for (const [key, entries] of reply ?? []) {
              const bot = this.botOfKey.get(key);
              if (!bot) continue;
              this.handToBot(bot, key, entries);
              if (entries.length >= READ_COUNT) more.add(bot);
            }
          } catch {
            // One bot's stream (its group gone, a bad key) fails the read of all: each is read
            // alone next, and a failure there is its own bot's.
            for (const bot of some) this.again.add(bot);
          }
          for (const bot of some) {
            this.reading.delete(bot);
            if (this.again.delete(bot) || more.has(bot)) this.read(bot);
          }
        }
    });
  }

  private async ensureGroup(key: string): Promise<void> {
    try {
      await this.options.redis.xgroup("CREATE", key, HANDOFF_GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!/BUSYGROUP/.test(String((err as Error)?.message))) throw err;
    }
  }

  /**
   * Takes over what other consumers were given of `bot`'s stream and never acknowledged,
   * from the first page of it (read for many bots at once by {@link own}).
   */
  private async reclaim(bot: string, first: ClaimPage): Promise<void> {
    const key = this.keys.bot(bot);
    let cursor = "0-0";
    let claimed = 0;
    let page: ClaimPage | undefined = first;
    do {
      const [next, entries]: ClaimPage =
        page ??
        ((await this.options.redis.xautoclaim(
          key,
          HANDOFF_GROUP,
          this.options.consumer,
          0,
          cursor,
          "COUNT",
          READ_COUNT,
        )) as ClaimPage);
      page = undefined;
      cursor = next;
      const live = entries.filter((e): e is [string, string[]] => e !== null);
      claimed += live.length;
      this.handToBot(bot, key, live);
    } while (cursor !== "0-0" && !this.closed);
    if (claimed > 0)
      this.options.log.info(
        { bot, entries: claimed },
        `took over ${claimed} streamed posts of ${bot} that its previous process had not finished; handling them now`,
      );
  }

  /** Reads what is new in `bot`'s stream (one read per bot at a time; a bell during it reads again after). */
  private read(bot: string): void {
    if (this.closed || !this.owned.has(bot)) return;
    if (this.reading.has(bot)) {
      this.again.add(bot);
      return;
    }
    this.reading.add(bot);
    const key = this.keys.bot(bot);
    void this.track(async () => {
      for (;;) {
        const reply = await this.readGroup([key], ">");
        const entries = reply?.[0]?.[1] ?? [];
        this.handToBot(bot, key, entries);
        if (entries.length < READ_COUNT) break;
      }
    })
      .catch((err: unknown) => this.readFailed(bot, err))
      .finally(() => {
        this.reading.delete(bot);
        if (this.again.delete(bot)) this.read(bot);
      });
  }

  private readFailed(bot: string, err: unknown): void {
    if (this.closed) return;
    this.mayHaveMissed(); // the read may have been given entries whose reply never came
    const message = (err as Error)?.message ?? String(err);
    // The stream (and its group) went missing, e.g. Redis restarted without its data: make it again.
    if (/NOGROUP/.test(message)) void this.ensureGroup(this.keys.bot(bot)).catch(() => undefined);
    this.options.log.warn(
      { bot, err: message },
      `could not read the streamed posts of ${bot} from Redis: ${message}; the next sweep tries again`,
    );
  }

  /** Puts entries in the queue hosting takes them from, each acknowledged once handled. */
  private handToBot(bot: string, key: string, entries: Array<[string, string[]]>): void {
    for (const [id, fields] of entries) {
      const at = entryKey(key, id);
      if (this.inFlight.has(at)) continue;
      let entry: HandoffEntry | undefined;
      try {
        const raw = fields[fields.indexOf("e") + 1];
        entry = raw === undefined ? undefined : (JSON.parse(raw) as HandoffEntry);
      } catch {
        entry = undefined;
      }
      if (!entry || !Array.isArray(entry.events)) {
        this.options.log.error(
          { bot, entry: id },
          `streamed entry ${id} for ${bot} is not a postbot handoff entry; dropped`,
        );
        void this.ack(bot, key, id);
        continue;
      }
      const handing = { bot };
      this.inFlight.set(at, handing);
      const settled = () => {
        if (this.inFlight.get(at) === handing) this.inFlight.delete(at);
      };
      this.options.handed.push({
        bot,
        entry,
        handled: () => void this.ack(bot, key, id).finally(settled),
        failed: (err) => {
          settled();
          this.mayHaveMissed(); // it stays pending for this consumer: the sweep hands it out again
          this.options.log.error(
            { bot, err, entry: id },
            `handling a streamed post of ${bot} failed: ${(err as Error)?.message ?? String(err)}; it stays unacknowledged and is handed out again`,
          );
        },
      });
    }
  }

  private async ack(bot: string, key: string, id: string): Promise<void> {
    await this.track(async () => {
      if (this.options.acknowledge)
        await this.options.acknowledge(bot, [
          ["XACK", key, HANDOFF_GROUP, id],
          ["XDEL", key, id],
        ]);
      else await this.options.redis.multi().xack(key, HANDOFF_GROUP, id).xdel(key, id).exec();
      this.handled++;
    }).catch((err: unknown) => {
      this.mayHaveMissed();
      this.options.log.warn(
        { bot, entry: id, err: (err as Error)?.message },
        `streamed entry ${id} of ${bot} stays unacknowledged (${(err as Error)?.message ?? String(err)}): whichever process runs ${bot} next handles it; the ledger keeps its answers from repeating`,
      );
    });
  }

  /** Follows the app's bell: a bot's name reads its stream, a control word goes to `onControl`. */
  private async listen(bell: Redis): Promise<void> {
    let last: string | undefined;
    let failing = false;
    while (!this.closed) {
      try {
        // From the newest bell when it starts. Finding it takes a round trip on a connection of
        // its own, which `own` may have read the streams before: an entry written between that
        // read and this bell would wait for a sweep, so the bots `own` read are read again now.
        // Later bells ring here; earlier entries are in their streams by now.
        if (last === undefined) {
          last = (await bell.xrevrange(this.keys.bell, "+", "-", "COUNT", 1))[0]?.[0] ?? "0-0";
          if (this.opened.size > 0) this.readFresh([...this.opened]);
          this.mayHaveMissed(); // and one sweep, for whatever else happened before this process listened
        }
        const reply = (await bell.xread("BLOCK", 1_000, "STREAMS", this.keys.bell, last)) as StreamReply;
        if (failing) {
          this.options.log.info("the stream handoff reaches Redis again");
          this.mayHaveMissed(); // bells trimmed while away are not in the reply
        }
        failing = false;
        const bells = reply?.[0]?.[1] ?? [];
        // The bell is trimmed to about BELL_MAXLEN (never fewer): a shorter reply from `last` is every bell since.
        if (bells.length >= BELL_MAXLEN) this.mayHaveMissed();
        for (const [id, fields] of bells) {
          last = id;
          const [name, value] = fields;
          if (name === "bot" && value !== undefined) {
            if (this.owned.has(value)) this.read(value);
            else this.options.onUnowned?.(value);
          } else if (name === "control" && (value === "connected" || value === "interrupted")) {
            // A hub (re)connected or stopped: the one before may have died between an entry and its bell.
            this.mayHaveMissed();
            this.options.onControl?.(value);
          }
        }
      } catch (err) {
        if (this.closed) break;
        this.mayHaveMissed();
        if (!failing)
          this.options.log.warn(
            { err: (err as Error)?.message },
            `the stream handoff cannot reach Redis: ${(err as Error)?.message ?? String(err)}; streamed posts wait there until it is back`,
          );
        failing = true;
        await this.options.clock.sleep(BELL_RETRY_MS).catch(() => undefined);
      }
    }
  }

  /**
   * Something happened after which an entry may sit in an owned bot's stream with no bell
   * read for it, or pending for this consumer and in nobody's hands: the reader began to
   * listen, the bell failed, was trimmed past what was read, or a hub (re)connected; a
   * connection came back; a read, a handling or an acknowledgement failed. The next round
   * sweeps. Without any of these, every entry was read when its bell rang, so an idle round
   * reads nothing.
   */
  private mayHaveMissed(): void {
    this.unsure = true;
  }

  /** Every `sweepMs`: sweeps when one is due (see {@link HandoffReaderOptions.sweepMs}). */
  private armSweep(): void {
    if (this.closed) return;
    this.cancelSweep = this.options.clock.setTimeout(() => {
      const now = this.options.clock.now();
      const due =
        this.unsure || this.sweptAt === undefined || now - this.sweptAt >= (this.options.fullSweepMs ?? 300_000);
      void (due ? this.sweep() : Promise.resolve()).finally(() => this.armSweep());
    }, this.options.sweepMs ?? 5_000);
  }

  /**
   * Reads every owned bot's stream: new entries, and this consumer's own unacknowledged ones.
   * Exposed for tests that move the clock. One read per slot bucket on a cluster.
   */
  async sweep(): Promise<void> {
    this.unsure = false;
    this.sweptAt = this.options.clock.now();
    for (const group of bySlot(this.layout, [...this.owned], (b) => this.keys.bot(b))) {
      for (let i = 0; i < group.length && !this.closed; i += SWEEP_BATCH)
        await this.sweepSome(group.slice(i, i + SWEEP_BATCH).map((b) => this.keys.bot(b)));
    }
  }

  /** One read of this consumer's group on the streams `keys` (of one slot), each from `from` ("0": given and not acknowledged; ">": new). */
  private async readGroup(keys: string[], from: string): Promise<StreamReply> {
    return (await this.options.redis.xreadgroup(
      "GROUP",
      HANDOFF_GROUP,
      this.options.consumer,
      "COUNT",
      READ_COUNT,
      "STREAMS",
      ...keys,
      ...keys.map(() => from),
    )) as StreamReply;
  }

  /** Reads the streams `keys` (of one slot): what this consumer was given and did not acknowledge, then what is new. */
  private async sweepSome(keys: string[]): Promise<void> {
    await this.track(async () => {
      for (const from of ["0", ">"]) {
        const reply = await this.readGroup(keys, from);
        for (const [key, entries] of reply ?? []) {
          const bot = this.botOfKey.get(key);
          if (bot)
            this.handToBot(
              bot,
              key,
              entries.filter((e) => e[1] !== null && e[1] !== undefined),
            );
        }
      }
    }).catch((err: unknown) => {
      const message = (err as Error)?.message ?? String(err);
      this.mayHaveMissed();
      if (/NOGROUP/.test(message)) for (const key of keys) void this.ensureGroup(key).catch(() => undefined);
      else if (!this.closed)
        this.options.log.warn(
          { err: message },
          `stream handoff sweep failed: ${message}; trying again in a few seconds`,
        );
    });
  }
}
