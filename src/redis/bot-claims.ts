/**
 * Who runs which bot, when several `bot start` processes share one Redis: each process claims
 * bots by lease (lease `bot:<name>`, ./leases.ts), runs only those, and every few seconds
 * renews its heartbeat, one key a slot bucket it holds bots in (one on a single Redis), which
 * keeps all its claims there live (./bot-leases.ts): a renewal is a few commands whatever
 * the number of bots.
 *
 * - A process that dies, even by `kill -9`, stops renewing; its heartbeats expire `ttl` later
 *   by Redis's own clock, freeing all its bots, and its entry in the members (renewed just
 *   after them) a moment later. The survivors know when that entry runs out unrenewed and
 *   look for free bots then (and at every renewal while the members changed within a ttl),
 *   taking its bots over: with the defaults (ttl 9 s, every 3 s) between 6 and 9 s after the
 *   death, and their start.
 * - When a heartbeat could not be renewed in time (this process stalled, or Redis was away),
 *   this process stops sending for every bot of that bucket (../actions/holding.ts) and its
 *   writes for them are refused; the next renewal sets it again, and the bots whose claims
 *   nobody took meanwhile go on.
 * - A bot never runs in two processes at once: a claim succeeds only on a free lease, and
 *   every write of the bot's state carries the claim's fencing token (./store.ts), so a
 *   process that lost a lease without noticing has its writes refused and stops the bot.
 * - Fair shares: processes announce themselves in a members set (expiring like leases); a
 *   process claims up to `ceil(bots / processes)` and gives back what is above that, one
 *   renewal at a time, so a process joining later gets its share. A bot left free for a
 *   whole ttl is claimed by anyone, so shares never leave a bot unrun. Which free bots a
 *   process claims is split so that processes starting together claim different ones
 *   (./share-split.ts), many claims a script (./bot-leases.ts).
 * - Renewals come first: they go out every few seconds on the clock, counted from the last one
 *   sent, on a connection of their own ({@link BotClaimsOptions.renewals}), so the thousands of
 *   commands of a start (each claimed bot's state read, its stream taken) never queue ahead of
 *   them. A heartbeat lost to a renewal that came late because the process was busy moves its bots
 *   for nothing, and with many bots such moves churn the whole deployment.
 * - Redis away: renewals wait in the client's queue; when Redis answers again the heartbeats are
 *   renewed first, and writes of the bots' state wait for that ({@link BotClaims.current}).
 *   Where a heartbeat had run out meanwhile, the claims of its bucket are read: those still
 *   this process's (nobody claimed them in between) simply go on.
 * - The bots change while the processes run (the live fleet): a bot added anywhere is
 *   {@link BotClaims.track}ed by every process that learns of it, and the first claim wins its
 *   lease (the process that added it looks at once, the others at their next renewal); one
 *   removed is {@link BotClaims.forget}ten, stopped by the process that runs it and never
 *   claimed again.
 *
 * Timing (renewals) runs on the injected {@link Clock}; expiry is Redis's TTL (of the heartbeats).
 */
import type { Holding } from "../actions/holding.ts";
import { DEFAULT_TIMEOUTS } from "../api/http.ts";
import type { Redis } from "./connect.ts";
import type { Clock } from "../clock.ts";
import { LeaseLapsedError, NotHeldError, type Lease } from "../fencing.ts";
import { silentLogger, type Logger } from "../log.ts";
import type { Leases } from "./leases.ts";
import { Membership } from "./membership.ts";
import { myPart } from "./share-split.ts";

/** Heartbeat (so lease) time-to-live (default): long enough to ride out two missed renewals. */
export const DEFAULT_LEASE_TTL_MS = 9_000;
/** How often leases are renewed and free bots looked for (default). */
export const DEFAULT_RENEW_EVERY_MS = 3_000;
/**
 * How long after taking a bot over from a process that stopped answering (its lease ran out,
 * never given back) the actions it left `pending` are checked with the service: the longest
 * a request waits for its answer. A process that hung with a request on its way cuts it as
 * soon as it runs again (its lease ran out: ../actions/holding.ts), and one that died had its
 * connections closed; what the service held meanwhile, it answered within this, or the
 * request had failed anyway.
 */
export const TAKEOVER_SETTLE_MS = DEFAULT_TIMEOUTS.headersMs + 2_000;

export interface BotClaimsOptions {
  redis: Redis;
  leases: Leases;
  /**
   * The leases over a connection of their own, for the renewals (and the membership's
   * heartbeats, made with it): a start-up's thousands of commands queue on the main
   * connection, and a renewal sent behind them reached Redis only once they had all been
   * answered, after the leases it renewed had run out. Default: {@link leases}.
   */
  renewals?: Leases;
  /** This process's name as a lease owner ({@link processOwnerId}). */
  owner: string;
  /** Every bot of the deployment at start (the same bot files in every process); see {@link BotClaims.track}. */
  bots: readonly string[];
  clock: Clock;
  logger?: Logger;
  ttlMs?: number;
  everyMs?: number;
  /** How many bots are started at once after a claim (default {@link HOST_CONCURRENCY}). */
  hostConcurrency?: number;
  /**
   * How long a starting process waits, once it has announced itself, before its first claim
   * (default `everyMs`): processes started together (a compose file's replicas) then see each
   * other and each take its share, instead of the first taking every bot and giving most back.
   */
  settleMs?: number;
  /**
   * This process's entry in the members, when it announced itself already (before loading
   * its bots: ./membership.ts); else one of its own.
   */
  membership?: Membership;
  /** Starts running `bot` here (its lease is held). A rejection gives the lease back. */
  host(bot: string, lease: Lease): Promise<void>;
  /**
   * Stops running `bot` here: `"lost"` when another process may already run it (write
   * nothing more), `"released"` when this process gives it up (save it first).
   */
  unhost(bot: string, why: "lost" | "released"): Promise<void>;
}

/**
 * Bots started at once after a claim (default). Starting one is a dozen Redis round trips
 * one after another (its state read, its handoff stream taken, its directory entry): with 16
 * at a time a process on a busy machine waited for each answer in turn, 4.5 s to start 1,000
 * bots; with 64, 2.2 to 3.7 s for the same CPU. The bots started together ask each question
 * in the same turn, and it goes to Redis once for all of them (../turn-batch.ts).
 */
export const HOST_CONCURRENCY = 64;

/**
 * How long the other bots claimed wait at most for those with posts waiting to start by
 * themselves (BotClaims `startAll`): a start is a dozen round trips, tens of ms alone.
 */
const URGENT_ALONE_MS = 1_000;

/**
 * How long a take-over's start of the bots with nothing waiting waits at most for a stream hub
 * this process just took over to catch up ({@link BotClaims.holdStarts}). At 40,000 accounts
 * (10,000 bots an app) the new hub connected 0.3-1.0 s after its lease and its gap search ended
 * 0.4-0.8 s later, on a survivor busy starting its share: a hub that cannot connect holds
 * those starts no longer than this.
 */
export const HUB_FIRST_MS = 3_000;

/**
 * Claim rounds at most in one look for free bots: a round that lost races to another process
 * is followed by another at once (./share-split.ts keeps those few: two rounds, three when
 * the processes' views of each other differed).
 */
const CLAIM_ROUNDS = 3;

/**
 * Renewals at most between two looks for free bots while nothing changes (the members the
 * same, the last look finding none free): a look reads the lease of every bot held elsewhere,
 * 75,000 GETs every 3 s from each of four processes sharing 100,000 bots, for nothing once
 * they are all held. What frees a bot changes the members (a process dies or joins) or comes
 * through {@link BotClaims.track}, and starts the looks again at once; this is the backstop.
 */
const LOOK_EVERY_RENEWALS = 10;

/**
 * How long after another member's entry ran out (Redis's clock, as of the last renewal) the
 * renewals are woken to look for its bots: its heartbeats were renewed just before its entry, on
 * one connection, so they ran out a moment before; this covers clocks' drift between the two.
 */
const GONE_MARGIN_MS = 250;

/** A bot's state here: claimed (waiting for its turn to start, or starting), running, or being stopped. */
interface Held {
  lease: Lease;
  /** This process's heartbeat in the bot's slot bucket (./bot-leases.ts): the claim is live while it is. */
  beat: string;
  hosting?: Promise<void>;
  stopping?: boolean;
  /** Aborted when its bucket's `validUntil` (less a margin) passes unrenewed, cutting the bot's requests on their way; made by the first request. */
  lapse?: AbortController;
  /** Another process runs it now, or it was given back: nothing more is sent for it from here. */
  gone?: boolean;
  /** When (this clock) it was taken over from a process whose lease on it ran out unreturned. */
  takenOverAt?: number;
}

/** One of this process's heartbeats (one a slot bucket it holds bots in: one on a single Redis). */
interface Beat {
  /** Until when (this clock) its claims are surely live: when its last renewal found it there was sent, plus the ttl. */
  validUntil: number;
  /** A renewal of it on its way outside the round ({@link BotClaims.verify}, a claim): one at a time. */
  renewing?: Promise<void>;
}

/** The bots this process claims and runs; see the module comment. */
export class BotClaims implements Holding {
  private readonly held = new Map<string, Held>();
  /**
   * How many bots held here (not being stopped) each heartbeat keeps: the renewal's keys
   * without a walk over every bot held (25,000 in a process, every few seconds).
   */
  private readonly heldIn = new Map<string, number>();
  /** The bots held here (not being stopped): the sum of {@link heldIn}, said to the others at each renewal. */
  private heldCount = 0;
  /**
   * The bots with a {@link Held.lapse}, by heartbeat: the lapse timer is armed for the
   * earliest heartbeat among these, without a walk over every bot held at each renewal.
   */
  private readonly lapsing = new Map<string, Map<string, Held>>();
  /** This process's heartbeats, by key. */
  private readonly beats = new Map<string, Beat>();
  /** Every bot of the deployment, as this process knows it now. */
  private readonly all: Set<string>;
  private readonly ttl: number;
  private readonly every: number;
  private readonly log: Logger;
  private readonly membership: Membership;
  /** Where renewals go: {@link BotClaimsOptions.renewals}. */
  private readonly line: Leases;
  private members = 1;
  /**
   * Who held each bot held elsewhere at the last look that read its claim (its owner's name,
   * one string an owner). When a member dies, the next look reads only the claims of the bots
   * it held (and of those not known), not of every bot held elsewhere: 25,000 claims at
   * 100,000 bots over four processes, not 75,000, in each survivor at once, as the dead
   * process's bots wait. A bot claimed meanwhile by a live member is refused by the claim
   * script as ever; one this view missed is found by the whole look that follows.
   */
  private readonly lastOwner = new Map<string, string>();
  /** Whether the next look reads every bot's claim (after a look of a dead member's bots alone). */
  private wholeLookNext = false;
  /** Since when (this clock) each bot has been seen free; past a ttl anyone claims it, share or not. */
  private freeSince = new Map<string, number>();
  private stopped = false;
  private readonly stopSignal = new AbortController();
  private wake?: AbortController;
  private loop?: Promise<void>;
  private claiming?: Promise<void>;
  /** Pending while the leases must be checked again (after Redis was away). */
  private recheck?: { promise: Promise<void>; resolve: () => void };
  private readonly onClose = () => {
    if (this.recheck || this.stopped) return;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.recheck = { promise, resolve };
  };
  /** Redis came back: renew at once rather than at the next turn. */
  private kick = false;
  /** A bot joined the fleet since the last look for free bots. */
  private joined = false;
  private readonly onReady = () => {
    this.kick = true;
    this.wake?.abort();
  };
  /** How long before a lease's time is up the bot's requests are cut (a third of a renewal's interval). */
  private readonly margin: number;
  /** The timer that cuts the requests of bots whose leases were not renewed in time, and when it fires. */
  private lapseTimer?: () => void;
  private lapseAt = Infinity;
  /** The members counted at the last renewal, and until when (this clock) every renewal looks for free bots after they changed. */
  private seenMembers = 0;
  /** The deployment's count of bots given back, as of the last renewal (./leases.ts's `releasedKey`). */
  private seenReleases = 0;
  private lookUntil = -Infinity;
  /** When (this clock) free bots were last looked for, and whether the look found any (or gave some back). */
  private lastLook = { at: -Infinity, unsettled: true };
  /** When the last renewal was sent: the next is due `every` after it. */
  private renewedAt = -Infinity;
  /** Wakes the renewals when another member's entry runs out before the next renewal ({@link watchOthers}). */
  private watchTimer?: () => void;
  /** Requests waiting for the next renewal (their bot's lease ran out here but may be renewed yet). */
  private tickWaiters: Array<() => void> = [];
  /**
   * Bots not held here that work came for ({@link hurry}), with when (this clock), oldest
   * first: a bot among them claimed within {@link URGENT_MS} starts before the others claimed.
   */
  private readonly urgent = new Map<string, number>();
  /** The bots claimed and waiting for their turn to start (in the order they start), while a claim starts them. */
  private queued?: Map<string, Held>;
  /** Starts one of {@link queued} at once, beside those starting in turn (work came for it). */
  private startNow?: (bot: string, h: Held) => void;
  /** What a take-over's starts of the bots with nothing waiting wait for ({@link holdStarts}), each bounded. */
  private readonly holds = new Set<Promise<void>>();

  constructor(private readonly options: BotClaimsOptions) {
    this.ttl = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    this.every = options.everyMs ?? DEFAULT_RENEW_EVERY_MS;
    this.log = options.logger ?? silentLogger;
    this.all = new Set(options.bots);
    if (!(this.every * 2 < this.ttl))
      throw new RangeError(`lease renewal every ${this.every} ms must be under half its ttl (${this.ttl} ms)`);
    this.margin = this.every / 3;
    this.line = options.renewals ?? options.leases;
    const { owner, clock } = options;
    const line = this.line;
    this.membership =
      options.membership ??
      new Membership({ redis: line.redis, leases: line, owner, clock, ttlMs: this.ttl, everyMs: this.every });
  }

  /** See {@link Holding.hold}: while the bot's lease is held, renewed recently enough. */
  async hold(bot: string, signal: AbortSignal): Promise<AbortSignal> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const h = this.held.get(bot);
      if (!h || h.gone) throw new NotHeldError(bot);
      if (this.options.clock.now() < this.validUntil(h) - this.margin) {
        if (!h.lapse) {
          h.lapse = new AbortController();
          this.lapsingIn(h.beat).set(bot, h);
          // Only a time earlier than the one armed moves the timer: not a walk over every bot
          // held (25,000 in a process) at each bot's first request, as a flood of mentions over
          // many bots makes (a tenth of the process's CPU in that flood).
          if (!this.lapseTimer || this.validUntil(h) - this.margin < this.lapseAt) this.armLapse();
        }
        return h.lapse.signal;
      }
      if (this.stopped) throw new NotHeldError(bot);
      // Past its time here: the next renewal says whether it is still this process's.
      await this.nextTick(signal);
    }
  }

  /** Until when (this clock) `h`'s claim is surely live: its bucket's heartbeat's. */
  private validUntil(h: Held): number {
    return this.beats.get(h.beat)?.validUntil ?? -Infinity;
  }

  /** See {@link Holding.settledAt}. */
  settledAt(bot: string): number | undefined {
    const at = this.held.get(bot)?.takenOverAt;
    return at === undefined ? undefined : at + TAKEOVER_SETTLE_MS;
  }

  /**
   * Tells the other processes this one is coming (before the slow part of a start), so that
   * their shares count it, and keeps telling them until the renewals begin (./membership.ts).
   * {@link start} does it too.
   */
  async announce(): Promise<void> {
    this.members = await this.membership.announce();
  }

  /** Claims a first share of bots and starts them, then renews and claims every `everyMs`. */
  async start(): Promise<void> {
    this.options.redis.on("close", this.onClose);
    this.options.redis.on("ready", this.onReady);
    const settle = this.options.settleMs ?? this.every;
    if (settle > 0) {
      await this.announce();
      this.log.info(`waiting ${settle / 1000} s for the other processes to announce themselves before claiming bots`);
      await this.options.clock.sleep(settle, this.stopSignal.signal).catch(() => undefined);
    }
    await this.tick();
    // Renewals run while the first share starts: starting thousands of bots takes longer than a ttl.
    this.loop = this.run();
    await this.claiming;
  }

  /** The bots held here now. */
  bots(): string[] {
    return [...this.held].filter(([, h]) => !h.stopping).map(([bot]) => bot);
  }

  /** How often the leases are renewed (and free bots looked for). */
  get renewEveryMs(): number {
    return this.every;
  }

  /** A bot joined the fleet: it is claimed at the next look for free bots, which comes at once. */
  track(bot: string): void {
    if (this.all.has(bot)) return;
    this.all.add(bot);
    if (this.stopped) return;
    this.joined = true;
    this.kick = true;
    this.wake?.abort();
  }

  /**
   * Work came for `bot` (a post handed to it through Redis) while it does not run here: when
   * it is claimed here and waiting for its turn to start, it starts at once; when it is free (its
   * process died) and claimed here soon, it starts before the bots with nothing waiting. A
   * take-over starts thousands of bots, seconds of work: a post waiting for one of them is
   * then answered first, not after whichever bots came before it.
   */
  hurry(bot: string): void {
    const h = this.queued?.get(bot);
    if (h) {
      this.queued!.delete(bot);
      this.startNow?.(bot, h);
      return;
    }
    if (this.held.has(bot) || !this.all.has(bot)) return;
    const now = this.options.clock.now();
    this.urgent.delete(bot);
    this.urgent.set(bot, now);
    for (const [old, at] of this.urgent) {
      if (now - at < this.urgentMs) break;
      this.urgent.delete(old);
    }
  }

  /**
   * A stream hub this process just took over is catching up (connecting, then searching the
   * posts of the time nobody held the stream): until `until` settles, or {@link HUB_FIRST_MS}
   * passed, a take-over's start gives it the process. The bots with nothing waiting start no
   * more meanwhile (those already starting finish; those work comes for start at once, as
   * always). The last answers of a take-over are the dead process's app's posts found by that
   * search, and the hub's directory read and search were waiting for turns behind 64 bots'
   * starts at a time. A process's first start (nothing taken over) is not held.
   */
  holdStarts(until: Promise<unknown>): void {
    const bound = new AbortController();
    const hold: Promise<void> = Promise.race([
      until.then(
        () => undefined,
        () => undefined,
      ),
      this.options.clock.sleep(HUB_FIRST_MS, bound.signal).catch(() => undefined),
    ]).finally(() => {
      bound.abort();
      this.holds.delete(hold);
    });
    this.holds.add(hold);
  }

  /** How long a bot {@link hurry} was told of stays first to start when claimed: until its process's claims surely ran out, and a renewal more. */
  private get urgentMs(): number {
    return 2 * this.ttl + this.every;
  }

  /** A bot left the fleet: stopped here (saved first) when it runs here, and never claimed again. */
  async forget(bot: string): Promise<void> {
    this.all.delete(bot);
    this.freeSince.delete(bot);
    this.lastOwner.delete(bot);
    await this.giveBack(bot);
  }

  /** How many processes share the bots, as last seen. */
  processes(): number {
    return this.members;
  }

  /**
   * The lease that fences `bot`'s writes, or `undefined` when this process does not hold it.
   * Waits while the leases are checked again after Redis came back.
   */
  async current(bot: string): Promise<Lease | undefined> {
    while (this.recheck) await this.recheck.promise;
    return this.held.get(bot)?.lease;
  }

  /**
   * A write for `bot` carrying `refused` was refused by its fence: is the bot still this
   * process's? Its bucket's heartbeat may have run out in Redis while Redis hung (no renewal
   * can reach a frozen Redis) or this process stalled: then it is renewed here (as a renewal
   * does), the bucket's claims checked, and the lease returned when its claim is still this
   * process's, for the write to be made again. `undefined` when another process holds it now
   * (the caller stops the bot with {@link refused}).
   */
  async verify(bot: string, refused: Lease): Promise<Lease | undefined> {
    while (this.recheck) await this.recheck.promise;
    const h = this.held.get(bot);
    if (!h || h.stopping) return undefined;
    if (h.lease.token === refused.token) await this.renewBeats([h.beat]);
    return this.held.get(bot) === h && !h.stopping ? h.lease : undefined;
  }

  /** A write for `bot` was refused (another process holds it): stop it here. */
  refused(bot: string): void {
    const h = this.held.get(bot);
    if (h && !h.stopping) void this.lose(bot, h, "its state was written by another process");
  }

  /** Stops every bot held here (saving it), gives the leases back and leaves the members. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.stopSignal.abort();
    this.wake?.abort();
    this.recheck?.resolve();
    this.recheck = undefined;
    await this.loop;
    await this.claiming;
    this.ticked();
    await Promise.all([...this.held.keys()].map((bot) => this.giveBack(bot)));
    this.lapseTimer?.();
    this.lapseTimer = undefined;
    this.watchTimer?.();
    this.watchTimer = undefined;
    // Its heartbeats gone, what is left of its claims (a bot that could not be given back) is free at once.
    await this.line.bots.stopBeating([...this.beats.keys()]).catch(() => undefined);
    await this.membership.leave().catch(() => undefined);
    this.options.redis.off("close", this.onClose);
    this.options.redis.off("ready", this.onReady);
  }

  /**
   * Renews every `everyMs` from when the last renewal was sent, not from when it (and what it
   * found to claim again) ended: a renewal that took long does not push the next one back.
   */
  private async run(): Promise<void> {
    const { clock } = this.options;
    while (!this.stopped) {
      this.wake = new AbortController();
      const signal = AbortSignal.any([this.wake.signal, this.stopSignal.signal]);
      const wait = this.renewedAt + this.every - clock.now();
      if (!this.kick && wait > 0) await clock.sleep(wait, signal).catch(() => undefined);
      this.kick = false;
      if (this.stopped) break;
      await this.tick().catch((err: unknown) =>
        this.log.error(
          { err },
          `could not renew the bots' leases: ${(err as Error)?.message ?? String(err)}; trying again in ${this.every / 1000} s`,
        ),
      );
    }
  }

  /** Renews every lease, then (in the background) gives back or claims toward the fair share. */
  private async tick(): Promise<void> {
    try {
      await this.renewTick();
    } finally {
      this.ticked();
    }
  }

  private async renewTick(): Promise<void> {
    const rechecking = this.recheck;
    const sentAt = this.options.clock.now();
    this.renewedAt = sentAt;
    const keys = this.heldBeats();
    // The heartbeats before the entry in the members, on the same connection: when this process
    // dies, its entry runs out last, and whoever sees it gone finds its heartbeats gone too.
    const [alive, members] = await Promise.all([
      this.line.bots.beat(keys, this.options.owner, this.ttl),
      this.membership.renew(this.heldCount),
    ]);
    this.members = members;
    this.watchOthers();
    // Those that had run out are set again: their claims are checked before the tick ends
    // (writes waiting for a recheck then know which bots are still this process's).
    await this.beaten(keys, alive, sentAt);
    if (rechecking && this.recheck === rechecking) {
      this.recheck = undefined;
      rechecking.resolve();
    }
    if (!this.claiming && !this.stopped && this.lookDue(sentAt)) {
      this.lastLook = { at: sentAt, unsettled: false };
      this.claiming = this.balance()
        .catch((err: unknown) =>
          this.log.error({ err }, `could not claim bots: ${(err as Error)?.message ?? String(err)}`),
        )
        .finally(() => (this.claiming = undefined));
    }
  }

  /**
   * Wakes the renewals when another member's entry runs out before the next renewal is due
   * (it was not renewed: that process died, even by `kill -9`, or hangs): the renewal then
   * finds it gone from the members and looks for its bots at once, rather than up to a
   * renewal's interval later. An entry renewed meanwhile costs one early renewal.
   */
  private watchOthers(): void {
    this.watchTimer?.();
    this.watchTimer = undefined;
    const soonest = this.membership.othersRunOutInMs;
    if (soonest === undefined || this.stopped) return;
    const wait = soonest + GONE_MARGIN_MS;
    if (wait >= this.every) return; // the next renewal comes first, and watches again
    this.watchTimer = this.options.clock.setTimeout(() => {
      this.watchTimer = undefined;
      this.kick = true;
      this.wake?.abort();
    }, wait);
  }

  /**
   * Whether this renewal looks for free bots: while the members changed within a lease's ttl
   * (a process that died frees its bots a ttl after its last renewal), while the last look
   * found bots free or gave some back, when a bot joined or bots were given back anywhere in
   * the deployment (its heartbeat says: ./membership.ts), and every {@link LOOK_EVERY_RENEWALS}
   * renewals unless {@link allHeld}.
   */
  private lookDue(now: number): boolean {
    if (this.members !== this.seenMembers) {
      this.seenMembers = this.members;
      this.lookUntil = now + this.ttl + this.every;
    }
    const joined = this.joined;
    this.joined = false;
    // Bots were given back somewhere since (for this process's share, maybe): look now, not
    // at the backstop; otherwise the process that gave them back, still looking, found them
    // free for a ttl and took them again, and gave them back again.
    const released = this.membership.releases !== this.seenReleases;
    this.seenReleases = this.membership.releases;
    return (
      joined ||
      released ||
      now < this.lookUntil ||
      this.lastLook.unsettled ||
      (now - this.lastLook.at >= LOOK_EVERY_RENEWALS * this.every && !this.allHeld())
    );
  }

  /**
   * Whether every bot is held (the live processes' counts of their bots, as each said at its
   * last renewal, add up to every bot) and this process is within its share: then the backstop
   * look would read every bot's claim (75,000 at 100,000 bots over four processes, and as many
   * strings for the collector) to find none free. A bot freed without a word (its process lost
   * it, and gave it back) lowers its holder's count at its next renewal, and is looked for at
   * the next renewal after that, past the backstop's interval.
   */
  private allHeld(): boolean {
    const share = Math.ceil(this.all.size / this.members);
    return this.membership.heldByMembers >= this.all.size && this.heldCount <= share;
  }

  /** This process's heartbeats in the buckets of the bots it holds (one on a single Redis). */
  private heldBeats(): string[] {
    return [...this.heldIn.keys()];
  }

  /** Holds `bot` here from its claim on: its heartbeat is renewed for it ({@link heldBeats}). */
  private keep(bot: string, h: Held): void {
    this.held.set(bot, h);
    this.heldIn.set(h.beat, (this.heldIn.get(h.beat) ?? 0) + 1);
    this.heldCount++;
  }

  /** `h` is being stopped: its heartbeat is no longer renewed for it. False when it was already. */
  private markStopping(h: Held): boolean {
    if (h.stopping) return false;
    h.stopping = true;
    this.heldCount--;
    const left = (this.heldIn.get(h.beat) ?? 1) - 1;
    if (left > 0) this.heldIn.set(h.beat, left);
    else this.heldIn.delete(h.beat);
    return true;
  }

  /** `bot` is no longer held here (when `h` is still what is held of it). */
  private drop(bot: string, h: Held): void {
    if (this.held.get(bot) !== h) return;
    this.markStopping(h);
    this.held.delete(bot);
    this.unlapse(bot, h);
  }

  private lapsingIn(beat: string): Map<string, Held> {
    let bots = this.lapsing.get(beat);
    if (!bots) this.lapsing.set(beat, (bots = new Map()));
    return bots;
  }

  /** `bot`'s requests are no longer cut by its lease's lapse (they were cut, or it is gone). */
  private unlapse(bot: string, h: Held): void {
    h.lapse = undefined;
    const bots = this.lapsing.get(h.beat);
    if (bots?.get(bot) !== h) return;
    bots.delete(bot);
    if (bots.size === 0) this.lapsing.delete(h.beat);
  }

  /**
   * Renews heartbeats `keys` outside the round (a write refused, bots about to be claimed in
   * their buckets), one renewal a heartbeat at a time; see {@link beaten}.
   */
  private async renewBeats(keys: readonly string[]): Promise<void> {
    const todo = keys.filter((k) => !this.beats.get(k)?.renewing);
    const sentAt = this.options.clock.now();
    const renewing = this.line.bots
      .beat(todo, this.options.owner, this.ttl)
      .then((alive) => this.beaten(todo, alive, sentAt));
    for (const key of todo) this.beatOf(key).renewing = renewing;
    try {
      await Promise.all([renewing, ...keys.map((k) => this.beats.get(k)?.renewing)]);
    } finally {
      for (const key of todo) if (this.beats.get(key)?.renewing === renewing) this.beats.get(key)!.renewing = undefined;
    }
  }

  private beatOf(key: string): Beat {
    let beat = this.beats.get(key);
    if (!beat) this.beats.set(key, (beat = { validUntil: -Infinity }));
    return beat;
  }

  /**
   * Heartbeats `keys` were renewed by a command sent at `sentAt`; `alive[i]`: whether each was
   * still there. Their claims are live for a ttl from then, except where one had run out:
   * there the claims of the bots held in its bucket are read first, those still exactly this
   * process's go on (nobody claimed them meanwhile: a claim changes the value), the others are
   * lost here.
   */
  private async beaten(keys: readonly string[], alive: readonly boolean[], sentAt: number): Promise<void> {
    const gone = new Set(keys.filter((_, i) => !alive[i]));
    const checking = gone.size === 0 ? [] : [...this.held].filter(([, h]) => !h.stopping && gone.has(h.beat));
    const claims = await this.line.bots.claimsOf(checking.map(([bot]) => bot));
    const lost = checking.filter(([, h], i) => claims[i] !== this.line.value(h.lease));
    for (const key of keys) {
      const beat = this.beatOf(key);
      beat.validUntil = Math.max(beat.validUntil, sentAt + this.ttl);
    }
    for (const [bot, h] of lost)
      void this.lose(bot, h, "another process claimed it while this process's heartbeat had run out");
    if (checking.length > 0)
      this.log.info(
        { bots: checking.length, lost: lost.length },
        `this process's heartbeat had run out (it stalled, or Redis was away): ${checking.length - lost.length} of its ${checking.length} bots there nobody claimed meanwhile go on${lost.length > 0 ? `, ${lost.length} run elsewhere now` : ""}`,
      );
    this.armLapse();
  }

  private async lose(bot: string, h: Held, why: string): Promise<void> {
    if (!this.markStopping(h)) return;
    this.cut(bot, h); // another process may run it now: nothing of it stays on its way from here
    this.log.warn({ bot }, `bot ${bot}: lease lost (${why}); stopped in this process`);
    await h.hosting?.catch(() => undefined);
    await this.options
      .unhost(bot, "lost")
      .catch((err: unknown) => this.log.error({ err, bot }, "could not stop the bot"));
    this.drop(bot, h);
    // Should the lease be this process's still (or have run out with it the last holder), nobody
    // else could claim it while this process lives: give it up (a no-op when another holds it).
    await this.options.leases.release(h.lease).catch(() => undefined);
  }

  private async giveBack(bot: string): Promise<void> {
    const h = this.held.get(bot);
    if (!h || !this.markStopping(h)) return;
    await h.hosting?.catch(() => undefined);
    await this.options
      .unhost(bot, "released")
      .catch((err: unknown) => this.log.error({ err, bot }, "could not stop the bot"));
    // What is still on its way once its handlers had their time is cut before the lease is
    // given back: whoever claims it next finds no request of this process arriving after.
    this.cut(bot, h);
    await this.options.leases.release(h.lease).catch(() => undefined);
    this.drop(bot, h);
  }

  /** Sends nothing more for the bot from here, and cuts its requests on their way. */
  private cut(bot: string, h: Held): void {
    h.gone = true;
    h.lapse?.abort(new LeaseLapsedError(bot));
    this.unlapse(bot, h);
  }

  /** Resolves at the end of the next renewal (whatever it found), or at once when stopped; rejects when `signal` aborts. */
  private nextTick(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.tickWaiters = this.tickWaiters.filter((w) => w !== done);
        reject(signal.reason);
      };
      const done = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      this.tickWaiters.push(done);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private ticked(): void {
    const waiters = this.tickWaiters;
    this.tickWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Arms the one timer that cuts requests whose bot's lease ran out unrenewed: for the
   * earliest lease, among the bots with requests, a margin before its time is up. A process
   * that stalls (stopped, its machine paused) runs it the moment it wakes, before anything of
   * its requests' answers is read.
   */
  private armLapse(): void {
    let earliest = Infinity;
    for (const beat of this.lapsing.keys())
      earliest = Math.min(earliest, (this.beats.get(beat)?.validUntil ?? -Infinity) - this.margin);
    if (earliest === this.lapseAt && this.lapseTimer) return;
    this.lapseTimer?.();
    this.lapseTimer = undefined;
    this.lapseAt = earliest;
    if (earliest === Infinity || this.stopped) return;
    this.lapseTimer = this.options.clock.setTimeout(() => {
      this.lapseTimer = undefined;
      this.lapsed();
    }, earliest - this.options.clock.now());
  }

  /** Cuts the requests of every bot whose lease is past its time here; see {@link armLapse}. */
  private lapsed(): void {
    const now = this.options.clock.now();
    const cut: string[] = [];
    for (const [beat, bots] of [...this.lapsing]) {
      if (now < (this.beats.get(beat)?.validUntil ?? -Infinity) - this.margin) continue;
      for (const [bot, h] of [...bots]) {
        h.lapse?.abort(new LeaseLapsedError(bot));
        this.unlapse(bot, h);
        cut.push(bot);
      }
    }
    if (cut.length > 0)
      this.log.warn(
        { bots: cut.length },
        `this process's heartbeat was not renewed in time (it stalled, or Redis is away): the requests on their way of ${cut.length === 1 ? `bot ${cut[0]}` : `${cut.length} bots (${cut.slice(0, 3).join(", ")}${cut.length > 3 ? ", …" : ""})`} are cut, so that none arrives after another process takes a bot over; they are checked and sent again once the bot is this process's again`,
      );
    this.lapseAt = Infinity;
    this.armLapse();
  }

  /**
   * Gives back what is above the fair share, or claims free bots up to it, then starts those
   * claimed. A round that lost claims to another process while this one is still below its
   * share is followed by another at once (the bots still free), not at the next renewal: that
   * came only after every bot won had started, seconds later with thousands.
   */
  private async balance(): Promise<void> {
    const lookedAt = this.options.clock.now();
    const claimed: Array<[string, Held]> = [];
    for (let round = 0; round < CLAIM_ROUNDS && !this.stopped; round++)
      if ((await this.claimRound(claimed, round === 0)) !== "short") break;
    if (claimed.length === 0) return;
    for (const [bot] of claimed) this.freeSince.delete(bot);
    const tookOver = claimed.filter(([, h]) => h.takenOverAt !== undefined).length;
    if (tookOver > 0)
      this.log.info(
        { bots: claimed.length, tookOver },
        `took over ${tookOver} bots from processes that stopped answering (${claimed.length} claimed in all, looked for and claimed in ${this.options.clock.now() - lookedAt} ms); starting them`,
      );
    await this.startAll(claimed, async ([bot, h]) => {
      // Lost or given back while it waited for its turn: nothing to start.
      if (h.stopping || this.held.get(bot) !== h) return;
      h.hosting = this.options.host(bot, h.lease);
      try {
        await h.hosting;
      } catch (err) {
        this.log.error(
          { err, bot },
          `bot ${bot} could not start here: ${(err as Error)?.message ?? String(err)}; its lease is given back`,
        );
        this.drop(bot, h);
        await this.options.leases.release(h.lease).catch(() => undefined);
        await this.line.announceReleased().catch(() => undefined);
      } finally {
        h.hosting = undefined;
      }
    });
    this.log.info(
      `claimed ${claimed.length} bots (${claimed.map(([b]) => b).join(", ")}); running ${this.bots().length} of ${this.all.size} with ${this.members} processes`,
    );
  }

  /**
   * Starts the bots claimed, `hostConcurrency` at a time: first those work came for before
   * the claim ({@link hurry}), in the order it came, by themselves (the others wait until they
   * started, or {@link URGENT_ALONE_MS}), then the others in claim order; one work comes for
   * while it waits for its turn starts at once, beside them.
   */
  private async startAll(
    claimed: Array<[string, Held]>,
    start: (item: [string, Held]) => Promise<void>,
  ): Promise<void> {
    const now = this.options.clock.now();
    const held = new Map(claimed);
    // The urgent are oldest first: the order their work came in.
    const first = [...this.urgent].filter(([bot, at]) => held.has(bot) && now - at < this.urgentMs).map(([bot]) => bot);
    for (const [bot] of claimed) this.urgent.delete(bot);
    if (first.length > 0)
      this.log.info(
        { bots: first.length },
        `starting first the ${first.length} claimed bots with posts waiting (${first.slice(0, 5).join(", ")}${first.length > 5 ? ", …" : ""})`,
      );
    const queued = new Map([...first.map((bot): [string, Held] => [bot, held.get(bot)!]), ...claimed]);
    const atOnce: Array<Promise<void>> = [];
    this.queued = queued;
    this.startNow = (bot, h) => void atOnce.push(start([bot, h]));
    const urgent = new Set(first);
    const tookOver = claimed.some(([, h]) => h.takenOverAt !== undefined);
    const worker = (urgentOnly: boolean) => async () => {
      for (let [item] = queued; item && (!urgentOnly || urgent.has(item[0])); [item] = queued) {
        if (tookOver && this.holds.size > 0 && !urgent.has(item[0])) {
          while (this.holds.size > 0) await Promise.all(this.holds);
          // Hurried meanwhile (started at once) or started by another worker: look again.
          if (queued.get(item[0]) !== item[1]) continue;
        }
        queued.delete(item[0]);
        await start(item);
      }
    };
    const concurrency = this.options.hostConcurrency ?? HOST_CONCURRENCY;
    try {
      // Those with posts waiting start by themselves: beside a batch of others, each of their
      // dozen round trips waited for the others' work of the same turn (64 bots' on a survivor
      // busy taking over thousands). Not for long: one that hangs (a service slow to answer
      // who its account is) does not hold the others back.
      if (first.length > 0) {
        const alone = new AbortController();
        const urgentStarts = Promise.all(
          Array.from({ length: Math.min(concurrency, first.length) }, worker(true)),
        ).then(() => undefined);
        await Promise.race([
          urgentStarts,
          this.options.clock.sleep(URGENT_ALONE_MS, alone.signal).catch(() => undefined),
        ]);
        alone.abort();
        atOnce.push(urgentStarts);
      }
      const workers = Math.min(concurrency, queued.size);
      await Promise.all(Array.from({ length: workers }, worker(false)));
    } finally {
      this.queued = undefined;
      this.startNow = undefined;
      await Promise.all(atOnce);
    }
  }

  /**
   * One round of {@link balance}: gives back what is above the share (`mayGiveBack`), or
   * claims this process's part of the free bots (./share-split.ts) up to its share, adding
   * each bot won to `claimed`. `"short"` when claims were lost while bots may still be free.
   */
  private async claimRound(claimed: Array<[string, Held]>, mayGiveBack: boolean): Promise<"done" | "short"> {
    const all = [...this.all];
    const share = Math.ceil(all.length / this.members);
    const mine = this.bots();
    const others = all.filter((bot) => !this.held.has(bot));
    const { leases, owner } = this.options;
    const members = (await leases.members()).filter((_, i) => i % 2 === 0);
    const looked = this.toLook(others, members);
    // Free: no claim, or its owner's heartbeat in the bot's bucket ran out (./bot-leases.ts).
    const { seen, live: values } = await leases.bots.holders(looked);
    this.remember(looked, seen);
    const seenOf = new Map(looked.map((bot, i) => [bot, seen[i] ?? null]));
    const free = looked.filter((_, i) => values[i] === null);
    // Since when each is free, as far as the looks saw: a bot held at this look starts again
    // from now when it is free later. (Kept from an older look, the bots of a process that
    // died had been "free for a ttl" since the deployment started, and the first survivor to
    // look took them all, above its share, to give them back and take them again.)
    const now = this.options.clock.now();
    this.freeSince = new Map(free.map((bot) => [bot, this.freeSince.get(bot) ?? now]));
    // Above the share while nothing is free: another process wants some. (While bots are
    // free nobody else takes them, and giving more back would only make them move about.)
    if (mine.length > share && free.length === 0) {
      if (!mayGiveBack || looked !== others) return "done";
      const extra = mine.slice(share);
      this.log.info(
        `${this.members} processes share ${all.length} bots: giving back ${extra.length} (${extra.join(", ")}) for the others to run`,
      );
      await Promise.all(extra.map((bot) => this.giveBack(bot)));
      // A lost word costs the others no bot: their backstop look finds them.
      await this.line.announceReleased().catch(() => undefined);
      this.lastLook.unsettled = true;
      return "done";
    }
    if (free.length === 0) return "done";
    this.lastLook.unsettled = true;
    const stale = free.filter((bot) => now - this.freeSince.get(bot)! >= this.ttl);
    const staleSet = new Set(stale);
    const part = myPart({
      free: free.filter((bot) => !staleSet.has(bot)),
      members,
      me: owner,
      holding: this.holdings(values, mine.length, looked === others ? undefined : looked),
      share,
    });
    // Free for a whole ttl: anyone takes them. Otherwise this process's part, up to the share.
    const wanted = [...stale, ...part.slice(0, Math.max(0, share - mine.length - stale.length))];
    if (wanted.length === 0 || this.stopped) return "done";
    // Each claimed bot is held (so its heartbeat renewed at every tick) from its claim on, not
    // from its turn to start: starting thousands takes longer than a ttl. A claim needs this
    // process's heartbeat alive in the bot's bucket: renewed (or set) first.
    const beatOf = (bot: string) => leases.bots.heartbeatKey(bot, owner);
    await this.renewBeats([...new Set(wanted.map(beatOf))]);
    const won = await leases.bots.claimBots(
      wanted,
      owner,
      wanted.map((bot) => seenOf.get(bot) ?? null),
    );
    for (const [i, bot] of wanted.entries()) {
      const lease = won[i];
      if (!lease) continue;
      const h: Held = {
        lease,
        beat: beatOf(bot),
        ...(lease.tookOver ? { takenOverAt: this.options.clock.now() } : {}),
      };
      this.keep(bot, h);
      this.lastOwner.delete(bot);
      claimed.push([bot, h]);
    }
    const lost = won.some((lease) => !lease);
    return lost && this.bots().length < share ? "short" : "done";
  }

  /**
   * The bots whose claims a look reads: every bot held elsewhere, or, when a member this
   * process saw holding bots is no longer among the live `members` (it died), the bots it held
   * and those whose holder is not known ({@link lastOwner}); the look after that one reads
   * every bot's again.
   */
  private toLook(others: readonly string[], members: readonly string[]): readonly string[] {
    const whole = this.wholeLookNext;
    this.wholeLookNext = false;
    if (whole || this.lastOwner.size === 0) return others;
    const live = new Set([...members, this.options.owner]);
    const looked = others.filter((bot) => {
      const holder = this.lastOwner.get(bot);
      return holder === undefined || !live.has(holder);
    });
    if (looked.length === others.length || looked.every((bot) => !this.lastOwner.has(bot))) return others;
    this.wholeLookNext = true;
    return looked;
  }

  /** Keeps who held each bot looked at ({@link lastOwner}), from its claim as read (`token|owner`). */
  private remember(bots: readonly string[], seen: ReadonlyArray<string | null>): void {
    const names = new Map<string, string>();
    for (const [i, bot] of bots.entries()) {
      const claim = seen[i];
      if (!claim) {
        this.lastOwner.delete(bot);
        continue;
      }
      const holder = claim.slice(claim.indexOf("|") + 1);
      let name = names.get(holder);
      if (name === undefined) names.set(holder, (name = holder));
      this.lastOwner.set(bot, name);
    }
  }

  /**
   * How many bots each process holds, from the bots' live claims (`token|owner`) and this
   * process's own count; after a look of a dead member's bots alone (`looked`), the bots it did
   * not read count for their holders as last seen.
   */
  private holdings(
    values: ReadonlyArray<string | null>,
    mine: number,
    looked?: readonly string[],
  ): Map<string, number> {
    const me = this.options.owner;
    const count = new Map<string, number>([[me, mine]]);
    const add = (holder: string) => {
      if (holder !== me) count.set(holder, (count.get(holder) ?? 0) + 1);
    };
    for (const value of values) if (value !== null) add(value.slice(value.indexOf("|") + 1));
    if (looked) {
      const read = new Set(looked);
      for (const [bot, holder] of this.lastOwner) if (!read.has(bot) && !this.held.has(bot)) add(holder);
    }
    return count;
  }
}
