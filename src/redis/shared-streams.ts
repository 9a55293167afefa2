/**
 * The apps' streams when several processes share one Redis (`bot start --state redis://`):
 * the service allows one filtered-stream connection per app, so per app exactly one process
 * holds the lease `stream:<app>` and runs the app's {@link StreamHub}; every post it routes
 * goes through the stream handoff (./stream-handoff.ts) to the process running the post's
 * bot, and what the hub learns of the connection reaches every process (their bots' catch-up
 * polls). Every process:
 *
 * - publishes each bot it starts running in the app's directory (`<prefix>handoff:<app>:bots`,
 *   the bot's user id, username and stream rules), since the hub needs every bot of the app
 *   while the state store shows a process only the bots it runs; the process that starts the
 *   app's hub first publishes every bot of the app it can describe (its account known:
 *   {@link SharedStreamsOptions.describe}), so the hub's first rules cover a first start's bots
 *   before they run, their mentions waiting in their handoff streams until they do;
 * - reads the handoff streams of the bots it runs (and takes over what a dead process left
 *   unacknowledged when it takes a bot over);
 * - tries for each app's stream lease at every renewal (every few seconds, on the injected
 *   clock) while it runs a bot of that app and fewer streams than its share (the apps over
 *   the live processes; a lease left free for two renewals is taken share or not): when the
 *   holder dies its lease expires and another process starts the hub within a renewal or two;
 *   a process holding two streams more than another that wants one hands one back
 *   (./stream-shares.ts), so a process that joins later gets its share. When the directory changed (a
 *   bot added, changed or removed anywhere), the holder reads the entries that changed
 *   (./stream-directory.ts), and its hub is told at its next renewal and
 *   changes the app's rules by the smallest step, without reconnecting
 *   ({@link StreamHub.update}). A bot that joined (or changed its rules) was running before
 *   the hub had its rules: once they are in, what matched them since the holder last read the
 *   directory without it is searched for and handed to it, and what mentioned a new mention
 *   bot since its `mentions.backfill` likewise. Every minute or so the holder's hub also reads
 *   the app's rules and puts right what a late write of the stream's previous hub undid
 *   ({@link StreamHub.checkRules}).
 *
 * Where the app's stream left off is kept in Redis (./stream-marks.ts), moved by the holder's
 * hub as it delivers and at each renewal: every hub started, here or in the process that
 * takes the stream over, first closes the gap since then with recent search.
 */
import type { Redis } from "./connect.ts";
import { turnBatch } from "../turn-batch.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Lease } from "../fencing.ts";
import type { Leases } from "./leases.ts";
import { RedisScript } from "./script.ts";
import { redisKeys, type RedisKeys } from "./keys.ts";
import {
  handoffKeys,
  handoffState,
  HandoffReader,
  HandoffWriter,
  type HandedEntry,
  type HandoffControl,
} from "./stream-handoff.ts";
import { PullQueue } from "../pull-queue.ts";
import type { StreamHub } from "../triggers/stream-hub.ts";
import type { StreamMark } from "../triggers/stream/marks.ts";
import type { MentionBot } from "../triggers/stream/routing.ts";
import type { BotRules } from "../triggers/stream/rules.ts";
import type { StreamStatus } from "../triggers/stream/status.ts";
import { DirectoryView, type DirectoryBot, type DirectoryChange, type DirectoryKeys } from "./stream-directory.ts";
import { readStreamMark, StreamMarkWriter, streamMarkKey } from "./stream-marks.ts";
import { StreamShares } from "./stream-shares.ts";

export type { DirectoryBot } from "./stream-directory.ts";

/** What the runtime makes a hub from (it knows the app's keys, bearer and budget). */
export interface HubRequest {
  appId: string;
  wants: BotRules[];
  mentionBots: MentionBot[];
  onConnected(first: boolean): void;
  onInterrupted(): void;
  /** Where the app's stream left off, in whichever process ran it last (./stream-marks.ts). */
  resume(): Promise<StreamMark | undefined>;
  /** The hub's mark moved: written for the next holder, fenced by this process's stream lease. */
  onMark(mark: StreamMark): void;
  /** See `StreamHubOptions.connectionFreed`: the connection of the process that held the stream before closed. */
  connectionFreed(signal: AbortSignal): Promise<boolean>;
  /** See `StreamHubOptions.onCaughtUp`: the first connection's gap was searched. */
  onCaughtUp(): void;
  /**
   * Always: the holder tells the hub when the directory's changes pause ({@link StreamHub.settled}:
   * at a renewal whose reading found nothing new, or that found the last bot of the app in),
   * so the rules of a long start's last bots go then (see `StreamHubOptions.settles`).
   */
  settles: true;
}

export interface SharedStreamsOptions {
  redis: Redis;
  leases: Leases;
  /**
   * The leases over a connection of their own, where the apps' stream leases are renewed and
   * claimed (default: {@link leases}): a renewal queued behind the thousands of commands of a
   * start came after the lease ran out, and the hub stopped, again and again.
   */
  renewals?: Leases;
  /** This process's lease owner name. */
  owner: string;
  clock: Clock;
  log: Logger;
  /** The app of every bot of the deployment (the same bot files in every process). */
  appOf: ReadonlyMap<string, string>;
  /** Starts an app's hub in this process (it holds the app's stream lease). */
  startHub(request: HubRequest): StreamHub;
  /** The app's hub (in whichever process) connected or was interrupted. */
  onControl(appId: string, what: HandoffControl): void;
  /**
   * How far back a bot's mentions are searched for when it joins a running hub's mention
   * rules (its `mentions.backfill`, ms); `undefined`: not searched. Without it, none is.
   */
  mentionsBackfillMs?(bot: string): number | undefined;
  /**
   * The app's bots this process can describe before they run (their account's user known at
   * load), with the entries they publish when they do ({@link SharedStreams.host}): the
   * process that starts the app's hub publishes them first, so that the hub's first rules
   * cover every bot of a first start rather than those started so far (a start of 25,000 bots
   * of an app publishes them over a minute or two, each renewal's reading a rules write).
   */
  describe?(appId: string): Iterable<[string, DirectoryBot]>;
  /** Stream lease time-to-live and renewal (defaults 9 s and 3 s, as the bots' leases). */
  ttlMs?: number;
  everyMs?: number;
  /**
   * How often the holder's hub reads the app's rules and puts right what differs from those it
   * made (default a minute; `StreamHub.checkRules`): a rules change of the hub that ran the
   * stream before, landing after the new hub read the rules, deletes a rule the new hub keeps.
   * One request of the rules' list (pro: 450 per 15 minutes) a minute.
   */
  rulesCheckMs?: number;
  /** How often each owned bot's handoff stream is read whatever its bell said (default 5 s). */
  sweepMs?: number;
  /** The lease this process holds for a bot now (its handoff acknowledgements are fenced by it); without it they are not fenced. */
  leaseOf?(bot: string): Promise<Lease | undefined>;
  /** A post was handed to a bot that does not run here (now): see `HandoffReaderOptions.onUnowned`. */
  onUnowned?(bot: string): void;
  /**
   * This process took an app's stream lease: its bots' starts after a take-over wait for the
   * hub to catch up, `until` (resolves once it connected and searched its gap, or stopped),
   * bounded there (`BotClaims.holdStarts`).
   */
  holdStarts?(until: Promise<void>): void;
  prefix?: string;
}

/**
 * How far back the holder searches for what matched a joining bot's rules before its hub had
 * them, at most: the search starts when the holder last read the directory without the bot
 * (a renewal, 3 s by default, before the bot was published), and a minute covers renewals
 * held up by a slow Redis; a holder that cannot renew for its lease's time stops its hub, and
 * the next hub's mark closes that gap for every rule.
 */
const RULES_CATCH_UP_MS = 60_000;

/** How long after another's stream lease runs out (Redis's clock) the renewals look again: the clocks' drift. */
const FREE_MARGIN_MS = 250;

/**
 * After how many renewals a stream lease seen free is claimed by a process at its share of
 * the streams (see `SharedStreams.claimShare`): none under its share runs a bot of the app.
 */
const OVERDUE_RENEWALS = 2;

/** How often the holder checks its hub's rules against the service's, by default (see {@link SharedStreamsOptions.rulesCheckMs}). */
const RULES_CHECK_MS = 60_000;

/**
 * Publishes bots in their app's directory (KEYS[1]; ARGV bot and entry by turns): those new or
 * changed move the version (KEYS[2]) once and are recorded with it in the changes (KEYS[3],
 * ./stream-directory.ts).
 */
const PUBLISH_ALL = new RedisScript(`
local version = nil
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    version = version or redis.call('INCR', KEYS[2])
    redis.call('ZADD', KEYS[3], version, ARGV[i])
  end
end
return version or 0`);

/** Entries published by one {@link PUBLISH_ALL}: a short script each, Redis answering others between. */
const PUBLISH_CHUNK = 500;

/** Forgets who has the app's connection open (KEYS[1]) if it is still ARGV[1]. */
const CONNECTION_CLOSED = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/**
 * How soon after the app's connection was said closed by the process that had it open the
 * next holder connects: the service needs a moment to see the connection go.
 */
const CONNECTION_GRACE_MS = 500;

/** Takes a bot out of its app's directory (KEYS[1]); when it was there, moves the version (KEYS[2]) and records it (KEYS[3]). */
const FORGET = new RedisScript(`
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
local version = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], version, ARGV[1])
return version`);

interface App {
  reader: HandoffReader;
  writer: HandoffWriter;
  /** Bots of the app running here. */
  hosted: Set<string>;
  lease?: Lease;
  hub?: StreamHub;
  /** Writes the hub's mark while it runs. */
  marks?: StreamMarkWriter;
  /** The directory as this process read it for the hub, read again by what changed (./stream-directory.ts). */
  view?: DirectoryView;
  /**
   * When this process last knew the hub's bots to be the whole directory (clock ms, read
   * before the directory was): an entry the hub has not had yet was published after it.
   */
  checkedAt?: number;
  /**
   * Until when (this clock) the lease is surely this process's: when the last renewal (or the
   * claim) that found it so was sent, plus the ttl; Redis counts the lease's time from when it
   * ran that command, later.
   */
  validUntil?: number;
  /** When the renewal on its way now was sent (see {@link SharedStreams.watch}). */
  renewingSince?: number;
  /** Cancels the deadline by which the lease must be renewed again (see {@link SharedStreams.watch}). */
  unwatch?: () => void;
  /**
   * The lease this process stopped using when it could not renew it in time: it stays this
   * process's to claim again while it lives (../redis/leases.ts), so it is given up should
   * this process no longer run any bot of the app.
   */
  lapsed?: Lease;
  /** Ends the hold on the bots' starts that the lease's claim asked for ({@link SharedStreamsOptions.holdStarts}), until its hub is started. */
  caughtUp?: () => void;
  /** The directory's reading and the hub's start or update after a renewal, while it runs. */
  tending?: Promise<void>;
  /** When the hub's rules were last checked against the service's (clock ms; its start at first). */
  rulesCheckedAt?: number;
  /** Since when (this clock) this process, at its share, has seen the app's stream lease free (see {@link SharedStreams.claimShare}). */
  freeSince?: number;
  /** The hub's routed posts being handed to their bots' processes ({@link SharedStreams.handOff}), until it closes. */
  handing?: Promise<void>;
  /** Its stream being handed back to a process that wants it ({@link SharedStreams.handBack}): its hub not started again. */
  leaving?: Promise<void>;
  /**
   * Its stream was handed back and nobody was seen holding it since: it is claimed again only
   * as a process at its share claims one (left free for two renewals), not at once as one
   * below its share would: it went to a process that wants it.
   */
  gaveBack?: boolean;
}

/** The apps' streams of one process; see the module comment. */
export class SharedStreams {
  private readonly apps = new Map<string, App>();
  private readonly ttl: number;
  private readonly every: number;
  /**
   * How long before its lease's end a hub whose renewal is on its way stops all the same (see
   * {@link watch}): the bots' leases cut their requests as much before theirs (./bot-claims.ts).
   */
  private readonly margin: number;
  private readonly prefix: string;
  private readonly keys: RedisKeys;
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private loop: Promise<void> | undefined;
  /** Aborted to renew (and claim) before the next renewal is due: see {@link wakeWhenFree}. */
  private wake: AbortController | undefined;
  /** The timer of {@link wakeWhenFree}, and when (this clock) it fires. */
  private wakeTimer: { cancel: () => void; at: number } | undefined;
  /** Stops listening for the connection coming back (see HandoffReader.connectionBack). */
  private unlisten: (() => void) | undefined;
  /** The handoff entries read for the bots running here, for hosting to take ({@link take}). */
  private readonly handed = new PullQueue<HandedEntry>();
  /** The deployment's apps as last counted ({@link appIds}), and for how many bots. */
  private appsCounted: { bots: number; apps: string[] } | undefined;
  /** Which stream this process hands back to another that wants one (./stream-shares.ts). */
  private readonly shares: StreamShares;

  constructor(private readonly options: SharedStreamsOptions) {
    this.ttl = options.ttlMs ?? 9_000;
    this.every = options.everyMs ?? 3_000;
    this.margin = this.every / 3;
    this.keys = redisKeys(options.redis, options.prefix);
    this.prefix = this.keys.prefix;
    this.shares = new StreamShares({
      leases: options.renewals ?? options.leases,
      keys: this.keys,
      owner: options.owner,
      wantMs: OVERDUE_RENEWALS * this.every,
      settleMs: OVERDUE_RENEWALS * this.every,
    });
  }

  /**
   * Which process has the app's stream connection open, while it does: set when its hub
   * connects, removed once that connection has closed. A holder that stopped answering keeps
   * it until it runs again (and closes the connection, its lease gone) or dies (the service
   * sees its connection go; the next holder's connection overwrites it).
   */
  private connectionKey(appId: string): string {
    return handoffKeys(appId, this.keys).connection;
  }

  /**
   * The directory's keys: its entries, the count of its changes (the hub's process reads
   * nothing more until it moves), and which bot each change was (it reads just those).
   */
  private directoryKeys(appId: string): DirectoryKeys {
    const { directory, version } = handoffKeys(appId, this.keys);
    return { directory, version, changes: this.keys.app(appId, `handoff:${appId}:bots:changes`) };
  }

  private app(appId: string): App {
    let app = this.apps.get(appId);
    if (!app) {
      const { redis, clock, log, owner } = this.options;
      const reader = new HandoffReader({
        redis,
        appId,
        consumer: owner,
        clock,
        log: log.child({ app: appId }),
        handed: this.handed,
        onControl: (what) => this.options.onControl(appId, what),
        ...(this.options.onUnowned ? { onUnowned: this.options.onUnowned } : {}),
        ...(this.options.sweepMs ? { sweepMs: this.options.sweepMs } : {}),
        prefix: this.prefix,
        ...(this.options.leaseOf
          ? { acknowledge: (bot: string, commands: Array<[string, ...string[]]>) => this.acknowledge(bot, commands) }
          : {}),
      });
      reader.start();
      app = {
        reader,
        writer: new HandoffWriter(redis, appId, { prefix: this.prefix }),
        hosted: new Set(),
      };
      this.apps.set(appId, app);
    }
    return app;
  }

  /** Acknowledges only while this process holds the bot's lease (a FencedError otherwise). */
  private async acknowledge(bot: string, commands: Array<[string, ...string[]]>): Promise<void> {
    const lease = await this.options.leaseOf!(bot);
    if (!lease) throw new Error(`${bot} does not run here any more`);
    await this.options.leases.fenced(lease, commands);
  }

  /**
   * The handoff entries read for the bots running here since the last take (any app): hosting
   * takes each to its bot and says when it was handled ({@link HandedEntry.handled}), which
   * acknowledges it. Waits until there is some; `undefined` once closed.
   */
  take(): Promise<HandedEntry[] | undefined> {
    return this.handed.take();
  }

  /** Starts the lease loop (each app's stream lease is tried at every renewal). */
  start(): void {
    this.loop = this.run();
    // One listener for every app's reader (not one each: many apps would pass the emitter's limit).
    const back = () => {
      for (const app of this.apps.values()) app.reader.connectionBack();
    };
    this.options.redis.on("ready", back);
    this.unlisten = () => this.options.redis.off("ready", back);
  }

  /**
   * A bot started running here: it is published in its app's directory, its handoff stream
   * is read here (what a dead process left of it first), and this process tries for the app's
   * stream lease. Resolves with the hub's last word about the app's connection, so the bot's
   * mentions trigger knows whether the stream is connected now.
   */
  async host(bot: string, entry: DirectoryBot): Promise<HandoffControl | undefined> {
    const appId = this.options.appOf.get(bot);
    if (!appId || this.stopped) return undefined;
    this.app(appId).hosted.add(bot);
    return await this.hosting.load({ appId, bot, entry });
  }

  /**
   * The bots started in one turn (a start starts 64 at a time: ../turn-batch.ts), by app:
   * published with one script, their streams owned together, the hub's word read once.
   */
  private readonly hosting = turnBatch<{ appId: string; bot: string; entry: DirectoryBot }, HandoffControl | undefined>(
    async (asked) => {
      const byApp = new Map<string, Array<{ bot: string; entry: DirectoryBot }>>();
      for (const { appId, bot, entry } of asked) {
        const bots = byApp.get(appId);
        if (bots) bots.push({ bot, entry });
        else byApp.set(appId, [{ bot, entry }]);
      }
      const states = new Map<string, HandoffControl | undefined>();
      /** Bots whose handoff streams could not be taken: their start fails alone. */
      const failed = new Map<string, Error>();
      await Promise.all(
        [...byApp].map(async ([appId, bots]) => {
          const { directory, version, changes } = this.directoryKeys(appId);
          for (let i = 0; i < bots.length; i += PUBLISH_CHUNK) {
            const args = bots.slice(i, i + PUBLISH_CHUNK).flatMap(({ bot, entry }) => [bot, JSON.stringify(entry)]);
            await PUBLISH_ALL.run(this.options.redis, [directory, version, changes], args);
          }
          const unowned = await this.app(appId).reader.own(bots.map(({ bot }) => bot));
          for (const [bot, err] of unowned)
            failed.set(bot, new Error(`could not take its handoff stream in Redis: ${err.message}`, { cause: err }));
          states.set(appId, await handoffState(this.options.redis, appId, this.prefix));
        }),
      );
      return asked.map(({ appId, bot }) => failed.get(bot) ?? states.get(appId));
    },
  );

  /** A bot stopped running here: its handoff entries are left for its next process. */
  unhost(bot: string): void {
    const appId = this.options.appOf.get(bot);
    const app = appId ? this.apps.get(appId) : undefined;
    if (!app) return;
    app.hosted.delete(bot);
    app.reader.disown([bot]);
  }

  /**
   * A bot left the deployment (removed from the fleet, not merely stopped here): it leaves
   * its app's directory, so the hub (wherever it runs) drops its rules at its next renewal.
   */
  async forget(bot: string, appId: string): Promise<void> {
    this.unhost(bot);
    const { directory, version, changes } = this.directoryKeys(appId);
    await FORGET.run(this.options.redis, [directory, version, changes], [bot]);
  }

  /** The app's stream as this process runs it (only the lease holder has one). */
  status(appId: string): StreamStatus | undefined {
    return this.apps.get(appId)?.hub?.status();
  }

  /** Whether the app's stream delivered this post here (the holder; tests wait for it). */
  has(appId: string, postId: string): boolean {
    return this.apps.get(appId)?.hub?.has(postId) ?? false;
  }

  /**
   * Whether something moves without the clock: the directory being read for a hub (and its
   * hub started or told), a hub syncing or recovering, a handoff read or entry being handled.
   */
  busy(): string[] {
    const out: string[] = [];
    for (const [appId, app] of this.apps) {
      if (app.tending) out.push(`the directory of app ${appId}`);
      if (app.hub?.busy()) out.push(`the stream of app ${appId}`);
      if (app.reader.busy()) out.push(`the stream handoff of app ${appId}`);
    }
    return out;
  }

  /** Stops the hubs (their leases given back) and the readers. */
  async close(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    this.stopSignal.abort();
    this.wakeTimer?.cancel();
    this.wakeTimer = undefined;
    await this.loop;
    for (const [appId, app] of this.apps) {
      await app.leaving;
      app.unwatch?.();
      app.caughtUp?.();
      await this.stopHub(appId, app);
      const lease = app.lease ?? app.lapsed;
      if (lease) await this.options.leases.release(lease).catch(() => undefined);
      await app.reader.close();
    }
    this.handed.close();
  }

  /**
   * Another process holds an app's stream lease, which runs out in `inMs` unless renewed: when
   * that comes before the next renewal, the renewals look again then (a little after, for the
   * clocks' drift). A holder that died (even by `kill -9`) is so followed within a moment of
   * its lease's end, not up to a renewal's interval later, and the app's posts flow again
   * sooner; a lease renewed meanwhile costs one early renewal.
   */
  private wakeWhenFree(inMs: number): void {
    if (inMs <= 0 || inMs + FREE_MARGIN_MS >= this.every || this.stopped) return;
    const at = this.options.clock.now() + inMs + FREE_MARGIN_MS;
    if (this.wakeTimer && this.wakeTimer.at <= at) return;
    this.wakeTimer?.cancel();
    const cancel = this.options.clock.setTimeout(() => {
      this.wakeTimer = undefined;
      this.wake?.abort();
    }, inMs + FREE_MARGIN_MS);
    this.wakeTimer = { cancel, at };
  }

  /**
   * The holder's side of the lease: unless it is renewed again in time, the hub stops by
   * itself before the lease runs out in Redis, so that when Redis is away (the renewal cannot
   * happen) the old holder's connection is closed before another process can claim the lease
   * and connect: the service allows one connection per app. The time is counted from when the
   * last renewal that found the lease this process's was *sent* ({@link App.validUntil}):
   *
   * - `every` before the lease's end, with no renewal on its way, the hub stops (as it always did);
   * - with one on its way (sent before that end), its answer decides, and the hub stops only
   *   {@link SharedStreams.margin} before the end: a process whose cores are busy with a start
   *   sent the renewal in time, and Redis ran it, but read the answer late;
   * - each time, what has come from Redis meanwhile is read first: the running clock fires its
   *   timers before the event loop reads its sockets, so after a busy stretch the watch came
   *   before the answer of a renewal that had succeeded long before, and the hub stopped (its
   *   lease still this process's, taken again with a new token, a gap search later).
   */
  private watch(appId: string, app: App): void {
    app.unwatch?.();
    app.unwatch = undefined;
    if (!app.lease || app.validUntil === undefined || this.stopped) return;
    const { clock } = this.options;
    const cancel = clock.setTimeout(
      () => {
        // Answers that came while the loop was busy are read before this one decides.
        setImmediate(() => {
          if (app.unwatch !== cancel) return;
          app.unwatch = undefined;
          if (!app.lease || this.stopped) return;
          const now = clock.now();
          if (now < this.stopAt(app)) return this.watch(appId, app);
          this.lapse(appId, app, now);
        });
      },
      Math.max(0, this.stopAt(app) - clock.now()),
    );
    app.unwatch = cancel;
  }

  /** When the hub stops unless its lease is renewed before (see {@link watch}). */
  private stopAt(app: App): number {
    const validUntil = app.validUntil ?? -Infinity;
    const renewing = app.renewingSince !== undefined && app.renewingSince < validUntil;
    return validUntil - (renewing ? this.margin : this.every);
  }

  /** The lease was not renewed in time (see {@link watch}): the hub stops, the lease kept to claim again. */
  private lapse(appId: string, app: App, now: number): void {
    this.options.log.warn(
      { app: appId, leftMs: app.validUntil! - now },
      `stream of app ${appId}: its lease could not be renewed in time (Redis unreachable, or this process stalled); stopping the stream so that whoever holds the lease next can connect`,
    );
    app.lapsed = app.lease;
    app.lease = undefined;
    app.validUntil = undefined;
    this.stopHub(appId, app);
  }

  /** This process's connection of the app's stream closed (see {@link connectionKey}). */
  private async connectionClosed(appId: string): Promise<void> {
    await CONNECTION_CLOSED.run(this.options.redis, [this.connectionKey(appId)], [this.options.owner]).catch(
      () => undefined,
    );
  }

  /**
   * The service refused this process's hub a connection, the app's one being taken: when
   * another process (that held the stream before) still has it open, resolves `true` once it
   * says it closed (looked at four times a renewal); `false` when no other process is known
   * to have it open.
   */
  private async connectionFreed(appId: string, signal: AbortSignal): Promise<boolean> {
    const { redis, owner, clock, log } = this.options;
    const key = this.connectionKey(appId);
    const other = await redis.get(key);
    if (other === null || other === owner) return false;
    log.info(
      { app: appId, holder: other },
      `stream of app ${appId}: the process that held it before (${other}) still has its connection open; connecting once it closes it`,
    );
    while (!signal.aborted && (await redis.get(key)) === other)
      await clock.sleep(this.every / 4, signal).catch(() => undefined);
    if (signal.aborted) return false;
    await clock.sleep(CONNECTION_GRACE_MS, signal).catch(() => undefined);
    return !signal.aborted;
  }

  /**
   * Mention bots that joined the running hub's rules (added to the fleet, in this process or
   * another): their catch-up poll ran when they started, before the hub had their rule, so
   * what mentioned them in between came through neither. Once the rules are in, a search
   * closes that gap, as a single process does (../hosting/apps.ts): one call for the bots of
   * this change (the hub packs many bots into each query, {@link StreamHub.backfill}), or one
   * per `mentions.backfill` they have; their mentions trigger hands each post out once,
   * however it came. A hub not connected needs none: when it connects, every process polls
   * its bots' mentions to catch up.
   */
  private backfill(appId: string, app: App, hub: StreamHub, bots: readonly string[]): void {
    if (app.hub !== hub || hub.status().state !== "connected") return;
    const now = this.options.clock.now();
    const byReach = new Map<number, string[]>();
    for (const bot of bots) {
      const backfillMs = this.options.mentionsBackfillMs?.(bot);
      if (backfillMs === undefined) continue;
      const same = byReach.get(backfillMs);
      if (same) same.push(bot);
      else byReach.set(backfillMs, [bot]);
    }
    for (const [backfillMs, group] of byReach)
      hub
        .backfill(group, now - backfillMs)
        .catch((err: unknown) =>
          this.options.log.warn(
            { app: appId, bots: group.length, err: (err as Error)?.message },
            `${group.length === 1 ? `bot ${group[0]}` : `${group.length} bots (${group.slice(0, 3).join(", ")}${group.length > 3 ? ", …" : ""})`}: could not search for what mentioned them before their stream rule was in (${(err as Error)?.message ?? String(err)}); their mentions are polled again when the stream next reconnects`,
          ),
        );
  }

  /** Stops the app's hub here; resolves once its connection is closed and said so (see {@link connectionKey}). */
  private stopHub(appId: string, app: App): Promise<void> {
    const hub = app.hub;
    hub?.close();
    // Once its connection is released, whoever holds the stream next may connect at once.
    const closed = hub ? hub.done.then(() => this.connectionClosed(appId)) : Promise.resolve();
    app.marks?.retire();
    app.marks = undefined;
    app.hub = undefined;
    app.view = undefined;
    app.checkedAt = undefined;
    app.rulesCheckedAt = undefined;
    return closed;
  }

  /**
   * Every `every`: each app's stream lease held here renewed, all apps at once, then the free
   * ones claimed up to this process's share ({@link claimShare}), and then, for each held, its
   * directory read and its hub started or told of changes, which the next renewal does not
   * wait for: the directory's reading goes over the main connection, which a start's
   * thousands of commands may hold for longer than a lease lives.
   */
  private async run(): Promise<void> {
    const { clock } = this.options;
    while (!this.stopped) {
      this.wake = new AbortController();
      const began = clock.now();
      const apps = [...this.apps];
      await Promise.all(apps.map(([appId, app]) => this.keepLease(appId, app).catch((err) => this.failed(appId, err))));
      for (const [appId, app] of apps) this.tendHeld(appId, app);
      await this.claimShare(apps);
      for (const [appId, app] of apps) this.tendHeld(appId, app);
      // The next renewal `every` after this one began, not after the claims' round trips: on a
      // process whose start keeps its cores busy those took seconds, and renewals that came over
      // `ttl - every` apart stopped its hubs (the watch below), each restart a gap search.
      const signal = AbortSignal.any([this.stopSignal.signal, this.wake.signal]);
      await clock.sleep(Math.max(0, this.every - (clock.now() - began)), signal).catch(() => undefined);
    }
    await Promise.all([...this.apps.values()].map((app) => app.tending));
  }

  private failed(appId: string, err: unknown): void {
    this.options.log.warn(
      { app: appId, err: (err as Error)?.message },
      `stream lease of app ${appId}: ${(err as Error)?.message ?? String(err)}; trying again in ${this.every / 1000} s`,
    );
  }

  /** After a renewal: the app's hub tended while this process holds its lease, unless that is still under way. */
  private tendHeld(appId: string, app: App): void {
    if (!app.lease || app.tending || app.leaving || this.stopped) return;
    app.tending = this.tend(appId, app)
      .catch((err: unknown) => this.failed(appId, err))
      .finally(() => (app.tending = undefined));
  }

  /** After a renewal that holds the app's lease: its mark saved, its hub started or restarted. */
  private async tend(appId: string, app: App): Promise<void> {
    // Until when the stream is known connected, for whoever takes it next.
    const mark = app.hub?.mark();
    if (mark) app.marks?.save(mark);
    const checkedAt = this.options.clock.now();
    const fresh = !app.view;
    // A new hub reads the whole directory; a running one what changed since its last reading.
    const view = (app.view ??= new DirectoryView(
      this.options.redis,
      this.directoryKeys(appId),
      (bot) => this.options.appOf.get(bot) === appId,
    ));
    let changes = await view.read();
    // A hub to start: when the directory lacks any bot of the app, the bots this process can
    // describe go in, for its first rules, and are read back as the changes since.
    if (fresh && app.view === view && (await this.publishKnown(appId, view)) && app.view === view)
      changes = await view.read();
    // Entries of bots this process does not know yet (added elsewhere a moment ago) are looked
    // at again at the next renewal, whatever the version says.
    const complete = view.complete();
    if (app.view !== view) return; // the hub stopped meanwhile
    if (!app.hub) this.startHubOf(appId, app, view, complete ? checkedAt : undefined);
    else if (changes && changes.length > 0) {
      this.updateHub(appId, app, app.hub, changes, complete ? checkedAt : undefined, checkedAt);
      // Every bot of the app is in (the last of a start): no more to wait for, the update goes now.
      if (view.size() >= this.botsOf(appId)) app.hub.settled();
    } else {
      if (complete) app.checkedAt = checkedAt;
      // Nothing new since the last reading: an update held while the bots kept coming goes now.
      app.hub.settled();
    }
    this.checkRules(app);
  }

  /**
   * Publishes the app's bots this process can describe ({@link SharedStreamsOptions.describe})
   * in its directory, as the hub's first reading (`view`) lacks any; nothing when it lists
   * every bot of the app already (a hub taken over from a process that died: describing
   * 25,000 bots again was seconds of the survivor's CPU while it also starts the dead one's
   * bots). That reading tells: the directory is not read twice (its names, then its entries)
   * while the survivor's start needs the same core. Whether it published any.
   */
  private async publishKnown(appId: string, view: DirectoryView): Promise<boolean> {
    if (!this.options.describe) return false;
    let missing = false;
    for (const [bot, app] of this.options.appOf) {
      if (app !== appId || view.lists(bot)) continue;
      missing = true;
      break;
    }
    if (!missing) return false;
    const { directory, version, changes } = this.directoryKeys(appId);
    const known = this.options.describe(appId);
    let args: string[] = [];
    const send = async () => {
      await PUBLISH_ALL.run(this.options.redis, [directory, version, changes], args);
      args = [];
    };
    for (const [bot, entry] of known) {
      if (this.options.appOf.get(bot) !== appId) continue;
      args.push(bot, JSON.stringify(entry));
      if (args.length >= 2 * PUBLISH_CHUNK) await send();
    }
    if (args.length > 0) await send();
    return true;
  }

  /** How many bots of the deployment are of the app (the same bot files in every process). */
  private botsOf(appId: string): number {
    let count = 0;
    for (const app of this.options.appOf.values()) if (app === appId) count++;
    return count;
  }

  /** Every {@link SharedStreamsOptions.rulesCheckMs}, the hub's rules are checked against the service's. */
  private checkRules(app: App): void {
    const hub = app.hub;
    if (!hub) return;
    const now = this.options.clock.now();
    app.rulesCheckedAt ??= now;
    if (now - app.rulesCheckedAt < (this.options.rulesCheckMs ?? RULES_CHECK_MS)) return;
    app.rulesCheckedAt = now;
    void hub.checkRules().catch(() => undefined);
  }

  /**
   * Renews the app's stream lease when held here (a lease this process stopped using is given
   * back once it runs no bot of the app).
   */
  private async keepLease(appId: string, app: App): Promise<void> {
    const leases = this.options.renewals ?? this.options.leases;
    const held = app.lease;
    if (held) {
      const sentAt = this.options.clock.now();
      app.renewingSince = sentAt;
      let renewed: boolean;
      try {
        renewed = await leases.renew(held, this.ttl);
      } finally {
        if (app.renewingSince === sentAt) app.renewingSince = undefined;
      }
      // (Not held any more: its watch stopped the hub meanwhile; the lease lapsed, this process's to claim again.)
      if (app.lease === held && renewed) {
        app.validUntil = Math.max(app.validUntil ?? -Infinity, sentAt + this.ttl);
        this.watch(appId, app);
      } else if (app.lease === held) {
        this.options.log.warn({ app: appId }, `stream of app ${appId}: lease lost; another process runs it now`);
        app.lease = undefined;
        app.validUntil = undefined;
        app.unwatch?.();
        app.unwatch = undefined;
        this.stopHub(appId, app);
      }
    }
    if (app.lease || app.hosted.size > 0) return;
    // Only a process running bots of the app runs its stream.
    const lapsed = app.lapsed;
    app.lapsed = undefined;
    if (lapsed) await leases.release(lapsed);
  }

  /**
   * Claims the free stream leases of the apps this process runs bots of, one after another,
   * while it holds fewer than its share: `ceil(apps / live processes)`. So the streams spread
   * over the processes as they start (one held by each of four, not four by whichever renewed
   * first), and those of a process that died go to different survivors: a process running
   * every hub beside its share of the bots was the slowest to take its share of the dead
   * one's bots, and its hubs' gap searches the slowest to end. A lease free for
   * {@link OVERDUE_RENEWALS} renewals is claimed share or not: no process under its share
   * runs a bot of that app, and a stream must not stay unrun. The apps are tried in an order
   * of this process's own, so processes starting together seldom race for the same one.
   * Still below its share, with streams others hold, a process says it wants one; and one
   * holding two streams more than a process that wants one hands one back (./stream-shares.ts).
   */
  private async claimShare(apps: ReadonlyArray<[string, App]>): Promise<void> {
    const free = apps.filter(([, app]) => !app.lease && app.hosted.size > 0);
    const mine = apps.filter(([, app]) => app.lease).map(([appId]) => appId);
    if ((free.length === 0 && mine.length < 2) || this.stopped) return;
    let held = mine.length;
    const leases = this.options.renewals ?? this.options.leases;
    const members = await leases
      .liveMembers(this.options.owner)
      .catch((): { live: number; othersRunOutInMs?: number } => ({ live: 0 }));
    // A member that died leaves the count when its entry runs out: a process at its share looks again then.
    if (members.othersRunOutInMs !== undefined) this.wakeWhenFree(members.othersRunOutInMs);
    const share = members.live > 1 ? Math.ceil(this.appIds().length / members.live) : Infinity;
    if (members.live > 1) await this.handBackOne(apps);
    if (free.length === 0) return;
    const turn = [...this.options.owner].reduce((sum, c) => sum + c.charCodeAt(0), 0) % free.length;
    const atShare: Array<[string, App]> = [];
    /** Refused below the share: another process holds them (see ./stream-shares.ts). */
    const refused: string[] = [];
    for (const [appId, app] of [...free.slice(turn), ...free.slice(0, turn)]) {
      if (this.stopped) return;
      // A lease this process stopped using is its own to claim again (others are refused while it lives).
      if ((held >= share || app.gaveBack) && !app.lapsed) {
        atShare.push([appId, app]);
        continue;
      }
      const claimed = await this.claim(appId, app).catch((err: unknown) => void this.failed(appId, err));
      if (claimed) held++;
      else if (claimed === false) refused.push(appId);
    }
    // Still below the share, with streams others hold: a holder of two more than this process hands one back.
    if (held < share && refused.length > 0)
      await this.shares.want(refused).catch((err: unknown) => this.failed(refused[0]!, err));
    // At its share, each free lease is looked at all at once (a process holding one of four
    // streams sees three free every renewal): one after another, they held its renewals back.
    await Promise.all(
      atShare.map(async ([appId, app]) => {
        try {
          if (await this.overdue(appId, app)) await this.claim(appId, app);
        } catch (err) {
          this.failed(appId, err);
        }
      }),
    );
  }

  /**
   * When this process holds two streams or more than another process that wants one of them,
   * one is handed back (./stream-shares.ts), in the background: the next renewal does not wait
   * for its hub to close. None while another is being handed back.
   */
  private async handBackOne(apps: ReadonlyArray<[string, App]>): Promise<void> {
    const mine = apps.filter(([, app]) => app.lease);
    if (mine.length < 2 || mine.some(([, app]) => app.leaving)) return;
    const { clock, log } = this.options;
    const chosen = await this.shares
      .toHandBack(
        mine.map(([appId]) => appId),
        this.appIds(),
        clock.now(),
      )
      .catch((err: unknown) => void this.failed(mine[0]![0], err));
    const app = chosen && this.apps.get(chosen.appId);
    if (!chosen || !app?.lease || app.leaving || this.stopped) return;
    log.info(
      { app: chosen.appId, to: chosen.to, held: mine.length, theirs: chosen.theirs },
      `stream of app ${chosen.appId}: this process runs ${mine.length} apps' streams, ${chosen.to} runs ${chosen.theirs} and wants one; handing this one back (its next holder resumes where it left off)`,
    );
    this.shares.handedBack(chosen.appId, clock.now());
    app.leaving = this.handBack(chosen.appId, app, app.lease)
      .catch((err: unknown) => this.failed(chosen.appId, err))
      .finally(() => (app.leaving = undefined));
  }

  /**
   * Hands the app's stream back: its hub stopped (its connection closed, and said so), what it
   * routed handed to the bots' processes, its last mark written (fenced by the lease, still
   * held), and only then the lease given back. The process that claims it next resumes from
   * that mark (a gap search); the renewals keep the lease meanwhile.
   */
  private async handBack(appId: string, app: App, lease: Lease): Promise<void> {
    await app.tending;
    const marks = app.marks;
    const handing = app.handing;
    await this.stopHub(appId, app);
    await handing;
    await marks?.settled();
    if (app.lease !== lease && app.lapsed !== lease) return; // lost meanwhile: nothing to give back
    app.unwatch?.();
    app.unwatch = undefined;
    app.lease = undefined;
    app.lapsed = undefined;
    app.validUntil = undefined;
    app.freeSince = undefined;
    app.gaveBack = true;
    await (this.options.renewals ?? this.options.leases).release(lease);
  }

  /**
   * Whether the app's stream lease has been free for {@link OVERDUE_RENEWALS} renewals, as
   * this process (at its share) saw it at each: then it claims it all the same.
   */
  private async overdue(appId: string, app: App): Promise<boolean> {
    const leases = this.options.renewals ?? this.options.leases;
    const now = this.options.clock.now();
    if (await leases.holder(`stream:${appId}`)) {
      app.freeSince = undefined;
      app.gaveBack = undefined;
      return false;
    }
    app.freeSince ??= now;
    return now - app.freeSince >= OVERDUE_RENEWALS * this.every;
  }

  /** The apps the deployment's bots are of (the same bot files in every process), counted again when the bots' number changes. */
  private appIds(): string[] {
    const { appOf } = this.options;
    if (this.appsCounted?.bots !== appOf.size)
      this.appsCounted = { bots: appOf.size, apps: [...new Set(appOf.values())] };
    return this.appsCounted.apps;
  }

  /** Claims the app's stream lease if free; when a dead holder's runs out before the next renewal, the renewals wake then. */
  private async claim(appId: string, app: App): Promise<boolean> {
    const leases = this.options.renewals ?? this.options.leases;
    const sentAt = this.options.clock.now();
    const claimed = await leases.claimOrWait(`stream:${appId}`, this.options.owner, this.ttl);
    if ("freeInMs" in claimed) {
      app.freeSince = undefined;
      this.wakeWhenFree(claimed.freeInMs);
      return false;
    }
    app.lease = claimed;
    app.caughtUp?.();
    app.caughtUp = undefined;
    // Its hub, new here, goes before the bots' starts of a take-over (../redis/bot-claims.ts `holdStarts`).
    if (this.options.holdStarts) this.options.holdStarts(new Promise<void>((resolve) => (app.caughtUp = resolve)));
    app.validUntil = sentAt + this.ttl;
    app.lapsed = undefined;
    app.freeSince = undefined;
    app.gaveBack = undefined;
    this.watch(appId, app);
    this.options.log.info({ app: appId }, `stream of app ${appId}: this process holds it now`);
    return true;
  }

  /**
   * The directory changed under a running hub: its rules change by the smallest step, and what
   * the joining bots missed is searched for. `seenAt`: when the reading began, if it found
   * every entry of a known bot.
   */
  private updateHub(
    appId: string,
    app: App,
    hub: StreamHub,
    changes: readonly DirectoryChange[],
    seenAt: number | undefined,
    readAt: number,
  ): void {
    this.options.log.info(
      { app: appId, changed: changes.length },
      `stream of app ${appId}: ${changes.length} bots of its directory changed; changing the app's rules (the stream stays connected)`,
    );
    const joined = changes.filter((c) => c.after?.mention && !c.before?.mention).map((c) => c.bot);
    // Bots with new rules were published since the last check (or, at most, a minute ago):
    // what matched their rules since then, before the hub had them, is searched for.
    const since = Math.max(app.checkedAt ?? 0, readAt - RULES_CATCH_UP_MS);
    if (seenAt !== undefined) app.checkedAt = seenAt;
    const view = app.view!;
    void hub.update(view.wants(), view.mentionBots(), { since }).then(() => this.backfill(appId, app, hub, joined));
  }

  /** Starts the app's hub in this process (it holds the lease), its posts handed off to their bots' processes. */
  private startHubOf(appId: string, app: App, view: DirectoryView, seenAt: number | undefined): void {
    const { leases, log } = this.options;
    const wants = view.wants();
    const mentionBots = view.mentionBots();
    const caughtUp = app.caughtUp ?? (() => {});
    app.caughtUp = undefined;
    if (wants.length === 0 && mentionBots.length === 0) return caughtUp();
    const control = (what: HandoffControl) => void app.writer.control(what).catch(() => undefined);
    if (seenAt !== undefined) app.checkedAt = seenAt;
    const marks = new StreamMarkWriter(leases, streamMarkKey(this.keys, appId), () => app.lease, log);
    app.marks = marks;
    const hub = this.options.startHub({
      appId,
      wants,
      mentionBots,
      onConnected: () => {
        control("connected");
        void this.options.redis.set(this.connectionKey(appId), this.options.owner).catch(() => undefined);
      },
      onInterrupted: () => {
        control("interrupted");
        void this.connectionClosed(appId);
      },
      connectionFreed: (signal) => this.connectionFreed(appId, signal),
      onCaughtUp: caughtUp,
      settles: true,
      resume: () => readStreamMark(this.options.redis, this.prefix, appId, log),
      onMark: (mark) => marks.save(mark),
    });
    app.hub = hub;
    void hub.done.then(caughtUp);
    const handing: Promise<void> = this.handOff(appId, app.writer, hub).finally(() => {
      if (app.handing === handing) app.handing = undefined;
    });
    app.handing = handing;
  }

  /**
   * Takes what the hub routed and hands each bot's events over to the process that runs the
   * bot (./stream-handoff.ts); once Redis has a batch, the hub's mark moves past its posts.
   * Resolves once the hub is closed and everything it routed was handed over.
   */
  private async handOff(appId: string, writer: HandoffWriter, hub: StreamHub): Promise<void> {
    for (let batch = await hub.take(); batch; batch = await hub.take()) {
      await Promise.all(
        batch.entries.map(({ bot, kind, events }) =>
          writer
            .send(bot, { kind, events })
            .catch((err: unknown) =>
              this.options.log.error(
                { app: appId, bot, err },
                `could not hand a streamed post to ${bot}'s process: ${(err as Error)?.message ?? String(err)}`,
              ),
            ),
        ),
      );
      hub.taken(batch);
    }
  }
}
