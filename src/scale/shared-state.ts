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
import type { Runtime } from "../runtime/runtime.ts";
import { connectRedis, parseRedisUrl, type Redis } from "../store/redis/connect.ts";
import { openRedisStore, type RedisStore } from "../store/redis/redis-store.ts";
import { BotClaims, type BotClaimsOptions } from "./bot-claims.ts";
import { Leases, processOwnerId } from "./lease.ts";

export interface SharedStateOptions {
  /** `redis://HOST:PORT/DB`. */
  url: string;
  /** Where the URL came from, for messages (`--state`, `POSTBOT_STATE`). */
  source?: string;
  /** Every bot of the deployment. */
  bots: readonly string[];
  clock: Clock;
  logger: Logger;
  /** Lease timing (tests shorten the ttl; the renewals follow `clock`). */
  ttlMs?: number;
  everyMs?: number;
  /** Wait before the first claim (default: `everyMs`); see {@link BotClaimsOptions.settleMs}. */
  settleMs?: number;
  /** Key prefix (default `postbot:`): two deployments can share one Redis database. */
  prefix?: string;
}

export interface SharedState {
  readonly redis: Redis;
  readonly store: RedisStore;
  readonly claims: BotClaims;
  /** The leases (bots' and the apps' streams'), under the deployment's key prefix. */
  readonly leases: Leases;
  readonly owner: string;
  /** Starts claiming bots for `runtime` (created with `hosting: "claimed"` over {@link store}). */
  run(runtime: Runtime): Promise<void>;
  /** Gives every bot back (each saved first), stops the runtime, then closes the store and the connection. */
  stop(): Promise<void>;
}

/** Connects, opens the store and prepares the claims; see the module comment. */
export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  const { logger, clock } = options;
  const display = parseRedisUrl(options.url, options.source).display;
  const owner = processOwnerId();
  const redis = await connectRedis(options.url, { ...(options.source ? { source: options.source } : {}), name: `postbot:${owner.replace(/[^\w.:-]/g, "_")}` });
  watchOutages(redis, display, logger);
  const leases = new Leases(redis, options.prefix ? { prefix: options.prefix } : {});
  let runtime: Runtime | undefined;
  let store: RedisStore | undefined;
  const claims = new BotClaims({
    redis,
    leases,
    owner,
    bots: options.bots,
    clock,
    logger,
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
    ...(options.everyMs ? { everyMs: options.everyMs } : {}),
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    async host(bot) {
      await store!.hold(bot);
      await runtime!.host(bot);
    },
    async unhost(bot, why) {
      await runtime?.unhost(bot, why);
      if (why === "released") await store!.flush();
      store!.drop(bot);
    },
  });
  try {
    store = await openRedisStore({ redis, logger, ...(options.prefix ? { prefix: options.prefix } : {}), fencing: { leases, current: (bot) => claims.current(bot), refused: (bot) => claims.refused(bot) } });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  await claims.announce();
  logger.info({ state: display, owner }, `state in Redis at ${display}; this process is ${owner}`);
  const opened = store;
  return {
    redis,
    store: opened,
    claims,
    leases,
    owner,
    async run(r) {
      runtime = r;
      await claims.start();
    },
    async stop() {
      try {
        await claims.stop();
        await runtime?.stop();
      } finally {
        await opened.close();
      }
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
    setImmediate(() => logger.warn({ state: display }, `lost the connection to Redis at ${display}${lastError ? ` (${lastError})` : ""}: actions wait and triggers pause until it is back; retrying`));
  });
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    lastError = "";
    logger.info({ state: display }, `Redis at ${display} is back: resuming`);
  });
}
