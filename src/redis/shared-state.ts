/**
 * `bot start --state redis://…`: the pieces that let several processes share one state, put
 * together for start.ts: the Redis connection, the state store in it, this process's bot
 * claims (which bots it runs), and the log lines of a Redis outage (one when it goes, one
 * when it is back).
 *
 * @example
 * ```ts
 * const shared = await openSharedState({ url, bots: ["greeter", "echo"], clock, logger });
 * const runtime = await startRuntime({ ..., store: shared.store, hosting: "claimed" });
 * await shared.run(runtime);   // claims a share of the bots and starts them
 * await shared.stop();         // gives them back (saved) for the other processes, stops the runtime
 * ```
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { Holding } from "../actions/holding.ts";
import type { Lease } from "../fencing.ts";
import { connectRedis, endConnection, parseRedisUrl, type Cluster, type Redis } from "./connect.ts";
import { openRedisStore, type RedisStore } from "./store.ts";
import { BotClaims, DEFAULT_LEASE_TTL_MS, DEFAULT_RENEW_EVERY_MS, type BotClaimsOptions } from "./bot-claims.ts";
import { Leases, processOwnerId } from "./leases.ts";
import { Membership } from "./membership.ts";

/** What a process shares its bots' streams through: the Redis, the leases and its owner name. */
export interface SharedRedis {
  redis: Redis;
  leases: Leases;
  /**
   * The same leases over the renewals' own connection ({@link JoinedRedis.renewals}): the apps'
   * stream leases are renewed there, never queued behind a start's thousands of commands.
   * Without it, on {@link leases}.
   */
  renewals?: Leases;
  /**
   * The budget windows' own connection ({@link JoinedRedis.budget}): their takes that write
   * nothing of the store go there. Without it, on {@link redis}.
   */
  budget?: Redis;
  owner: string;
  /** What the stream leases' renewals wait on (default: the runtime's clock); tests give a running one. */
  clock?: Clock;
  /** Stream lease time-to-live and renewal (defaults: those of the bots' leases). */
  ttlMs?: number;
  everyMs?: number;
  /** The lease this process holds for a bot now (the bot claims'), fencing the handoff's acknowledgements. */
  leaseOf?(bot: string): Promise<Lease | undefined>;
  /** Whether this process may send for a bot now (the bot claims'): its requests leave and end inside its lease. */
  holding?: Holding;
  /** Work came for a bot that does not run here (now): the bot claims start it first should they take it (`BotClaims.hurry`). */
  hurry?(bot: string): void;
  /** This process took an app's stream over: a take-over's bot starts wait for its hub to catch up (`BotClaims.holdStarts`). */
  holdStarts?(until: Promise<void>): void;
}

/**
 * What the bot claims start and stop: the runtime of this process (`startRuntime` with
 * `hosting: "claimed"`, src/hosting/runtime.ts), as far as the claims drive it.
 */
export interface ClaimedRuntime {
  host(bot: string): Promise<void>;
  unhost(bot: string, why: "lost" | "released"): Promise<void>;
  stop(): Promise<void>;
}

export interface JoinOptions {
  /** `redis://HOST:PORT/DB`. */
  url: string;
  /** Where the URL came from, for messages (`--state`, `POSTBOT_STATE`). */
  source?: string;
  clock: Clock;
  logger: Logger;
  /** Lease timing (tests shorten the ttl; the renewals follow `clock`). */
  ttlMs?: number;
  everyMs?: number;
  /** Key prefix (default `postbot:`): two deployments can share one Redis database. */
  prefix?: string;
}

/**
 * The state's Redis connected and this process announced in the deployment's members
 * (./membership.ts), before its bots are loaded: {@link joinSharedState}.
 */
export interface JoinedRedis {
  readonly redis: Redis;
  readonly leases: Leases;
  /**
   * The same leases over a second connection, for the renewals and the membership's
   * heartbeats alone (./bot-claims.ts says why).
   */
  readonly renewals: Leases;
  /**
   * A third connection, for the budget's takes that write nothing of the store
   * (../redis/shared-windows.ts), such as a read's: at start-up the main one carries several
   * commands per bot, and a take waiting behind them waited seconds.
   */
  readonly budget: Redis;
  readonly owner: string;
  readonly membership: Membership;
  /** Leaves the members and closes the connection: the start came to nothing. */
  leave(): Promise<void>;
}

export interface SharedStateOptions extends JoinOptions {
  /** Every bot of the deployment. */
  bots: readonly string[];
  /** The connection made (and this process announced) before the bots were loaded; else one is made. */
  joined?: JoinedRedis;
  /** Wait before the first claim (default: `everyMs`); see {@link BotClaimsOptions.settleMs}. */
  settleMs?: number;
  /** Bots started at once after a claim; see {@link BotClaimsOptions.hostConcurrency}. */
  hostConcurrency?: number;
}

export interface SharedState {
  readonly redis: Redis;
  readonly store: RedisStore;
  readonly claims: BotClaims;
  /** The leases (bots' and the apps' streams'), under the deployment's key prefix. */
  readonly leases: Leases;
  /** The same leases over the renewals' own connection ({@link JoinedRedis.renewals}). */
  readonly renewals: Leases;
  /** The budget's own connection ({@link JoinedRedis.budget}). */
  readonly budget: Redis;
  readonly owner: string;
  /** Starts claiming bots for `runtime` (created with `hosting: "claimed"` over {@link store}). */
  run(runtime: ClaimedRuntime): Promise<void>;
  /**
   * Gives every bot back (each saved first), stops the runtime, then closes the store and the
   * connection. When Redis stays unreachable for {@link GIVE_UP_MS} meanwhile, it stops
   * without it: what could not be written is logged, and it resolves `{ saved: false }`.
   */
  stop(): Promise<{ saved: boolean }>;
}

/**
 * How long a stop waits for an unreachable Redis before it stops without it. Nothing sent is
 * lost by that (each action's ledger mark reached Redis before its request left); what is
 * lost is what came after: finished actions' records (the next process checks those with the
 * service), cursor moves (polled again; the ledger skips what was answered), status.
 */
export const GIVE_UP_MS = 2_000;

/**
 * Connects to the state's Redis and announces this process in the deployment's members,
 * kept alive until its bot claims renew it: `bot start` does this before it loads its bot
 * files (seconds, with thousands), so that processes started together count each other when
 * the first of them claims its share. Rejects as {@link connectRedis} does.
 */
export async function joinSharedState(options: JoinOptions): Promise<JoinedRedis> {
  const display = parseRedisUrl(options.url, options.source).display;
  const owner = processOwnerId();
  const connect = (role: string) =>
    connectRedis(options.url, {
      ...(options.source ? { source: options.source } : {}),
      name: `postbot:${owner.replace(/[^\w.:-]/g, "_")}${role}`,
    });
  const made = await Promise.allSettled([connect(""), connect(":leases"), connect(":budget")]);
  const failed = made.find((m): m is PromiseRejectedResult => m.status === "rejected");
  if (failed) {
    for (const m of made) if (m.status === "fulfilled") m.value.disconnect();
    throw failed.reason;
  }
  const [main, line, budget] = made.map((m) => (m as PromiseFulfilledResult<Redis>).value) as [Redis, Redis, Redis];
  const redis = main;
  watchOutages(redis, display, options.logger);
  const prefix = options.prefix ? { prefix: options.prefix } : {};
  const leases = new Leases(redis, prefix);
  const renewals = new Leases(line, prefix);
  const membership = new Membership({
    redis: line,
    leases: renewals,
    owner,
    clock: options.clock,
    ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS,
    everyMs: options.everyMs ?? DEFAULT_RENEW_EVERY_MS,
  });
  const leave = async () => {
    // Not for ever with Redis away (the command would wait in the client's queue): the entry
    // then runs out by itself within the ttl.
    const done = new AbortController();
    await Promise.race([
      membership.leave().catch(() => undefined),
      options.clock.sleep(GIVE_UP_MS, done.signal).catch(() => undefined),
    ]);
    done.abort();
    redis.disconnect();
    line.disconnect();
    budget.disconnect();
  };
  try {
    await membership.announce();
  } catch (err) {
    await leave();
    throw err;
  }
  return { redis, leases, renewals, budget, owner, membership, leave };
}

/** Connects (unless {@link SharedStateOptions.joined}), opens the store and prepares the claims; see the module comment. */
export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  const { logger } = options;
  const display = parseRedisUrl(options.url, options.source).display;
  const joined = options.joined ?? (await joinSharedState(options));
  const { redis, leases, owner } = joined;
  const parts: { runtime?: ClaimedRuntime; store?: RedisStore } = {};
  const claims = claimsOf(options, joined, parts);
  let store: RedisStore;
  try {
    store = parts.store = await openRedisStore({
      redis,
      logger,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      fencing: {
        leases,
        current: (bot) => claims.current(bot),
        verify: (bot, lease) => claims.verify(bot, lease),
        refused: (bot) => claims.refused(bot),
      },
    });
  } catch (err) {
    await joined.leave();
    throw err;
  }
  await claims.announce();
  logger.info({ state: display, owner }, `state in Redis at ${display}; this process is ${owner}`);
  return {
    redis,
    store,
    claims,
    leases,
    renewals: joined.renewals,
    budget: joined.budget,
    owner,
    async run(r) {
      parts.runtime = r;
      await claims.start();
    },
    stop: () =>
      stopShared(
        {
          redis,
          line: joined.renewals.redis,
          budget: joined.budget,
          store,
          claims,
          display,
          clock: options.clock,
          logger,
        },
        parts.runtime,
      ),
  };
}

/** The process's bot claims: a bot claimed is read from the store and started by the runtime; one given up is stopped (saved first when released). */
function claimsOf(
  options: SharedStateOptions,
  joined: JoinedRedis,
  parts: { runtime?: ClaimedRuntime; store?: RedisStore },
): BotClaims {
  const { redis, leases, renewals, owner, membership } = joined;
  return new BotClaims({
    redis,
    leases,
    renewals,
    owner,
    membership,
    bots: options.bots,
    clock: options.clock,
    logger: options.logger,
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
    ...(options.everyMs ? { everyMs: options.everyMs } : {}),
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    ...(options.hostConcurrency ? { hostConcurrency: options.hostConcurrency } : {}),
    async host(bot) {
      await parts.store!.hold(bot);
      await parts.runtime!.host(bot);
    },
    async unhost(bot, why) {
      await parts.runtime?.unhost(bot, why);
      if (why === "released") await parts.store!.flush();
      parts.store!.drop(bot);
    },
  });
}

/** {@link SharedState.stop}: see there. */
async function stopShared(
  s: {
    redis: Redis;
    /** The renewals' connection. */
    line: Redis;
    /** The budget's connection. */
    budget: Redis;
    store: RedisStore;
    claims: BotClaims;
    display: string;
    clock: Clock;
    logger: Logger;
  },
  runtime: ClaimedRuntime | undefined,
): Promise<{ saved: boolean }> {
  const { redis, line, budget, store, display, logger } = s;
  let gaveUp = false;
  const unreachable = whenUnreachable(redis, s.clock, GIVE_UP_MS, () => {
    gaveUp = true;
    logger.warn(
      { state: display },
      `Redis at ${display} has been unreachable for ${GIVE_UP_MS / 1000} s while stopping: stopping without it`,
    );
    store.abandon();
    // Every command waiting for Redis fails now, so the stop goes on (renewals, releases, writes).
    void endConnection(redis);
    void endConnection(line);
    void endConnection(budget);
  });
  try {
    await s.claims.stop();
    if (!gaveUp) line.disconnect(); // the claims left the members: no renewal any more
    await runtime?.stop();
    await store.close();
  } catch (err) {
    if (!gaveUp) throw err;
  } finally {
    unreachable.cancel();
    budget.disconnect(); // the runtime's actions are done
  }
  if (!gaveUp) return { saved: true };
  const { changes, namespaces, bots } = store.unsaved();
  const what = Object.entries(namespaces)
    .map(([ns, n]) => `${ns}: ${n}`)
    .join(", ");
  logger.warn(
    { state: display, unsaved: changes, namespaces, bots },
    `${changes > 0 ? `stopped without saving ${changes} changes (${what}${bots.length > 0 ? `; of the bots ${bots.join(", ")}` : ""})` : "stopped without Redis (every change had been written before)"}: Redis at ${display} was unreachable. Nothing sent is lost: each action's ledger mark reached Redis before its request left, and the next process to run these bots checks those actions with the service; their leases run out and the other processes take them over`,
  );
  return { saved: false };
}

/**
 * Calls `then` once Redis has given no answer for `forMs` (looked at every 100 ms of `clock`).
 * "No answer" covers a Redis that refuses connections and one that hangs (stopped, or a host
 * that stalls): then the connection stays open and `ready`, and only a question shows that
 * nothing comes back. So a `PING` goes out on a connection of its own (not queued behind the
 * stop's own writes) whenever the last one was answered, and the clock runs from the last
 * answer.
 */
function whenUnreachable(redis: Redis, clock: Clock, forMs: number, then: () => void): { cancel(): void } {
  // On a cluster, a connection of its own to each master (a cluster client of its own would
  // first have to learn the slots, which took over 2 s on a loaded machine): Redis answers
  // while any of them does.
  const probes = redis.isCluster
    ? (redis as Cluster)
        .nodes("master")
        .map((node) => node.duplicate({ retryStrategy: (n) => Math.min(100 * n, 1_000) }))
    : [redis.duplicate()];
  for (const probe of probes) probe.on("error", () => undefined);
  let answeredAt = clock.now();
  const asking = new Set<Redis>();
  let cancel = () => {};
  let done = false;
  /** A ping on each probe that has none on its way. */
  const ask = () => {
    for (const probe of probes) {
      if (asking.has(probe)) continue;
      asking.add(probe);
      probe.ping().then(
        () => {
          asking.delete(probe);
          answeredAt = clock.now();
        },
        () => asking.delete(probe),
      );
    }
  };
  const end = () => {
    for (const probe of probes) void endConnection(probe);
  };
  const check = () => {
    if (done) return;
    if (clock.now() - answeredAt >= forMs) {
      done = true;
      end();
      return then();
    }
    ask();
    cancel = clock.setTimeout(check, 100);
  };
  ask();
  cancel = clock.setTimeout(check, 100);
  return {
    cancel: () => {
      done = true;
      cancel();
      end();
    },
  };
}

/** Logs an outage once when it starts and once when Redis is back; ioredis's own errors are kept quiet. */
function watchOutages(redis: Redis, display: string, logger: Logger): void {
  let down = false;
  let lastError = "";
  redis.on("error", (err: Error) => {
    lastError = err.message;
  });
  redis.on("close", () => {
    if (down || redis.status === "end") return;
    down = true;
    // The 'close' comes before the error that explains it: say it on the next turn.
    setImmediate(() =>
      logger.warn(
        { state: display },
        `lost the connection to Redis at ${display}${lastError ? ` (${lastError})` : ""}: actions wait and triggers pause until it is back; retrying`,
      ),
    );
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    lastError = "";
    logger.info({ state: display }, `Redis at ${display} is back: resuming`);
  });
}
