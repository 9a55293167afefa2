/**
 * Where `bot start` and `bot status` find a state shared in Redis: `--state URL`, else the
 * `POSTBOT_STATE` variable; neither means the state directory (`--data`). And how long the
 * leases of `bot start` on it last (`--lease SECONDS`).
 */
import { UserError } from "../errors.ts";
import { isRedisUrl, parseRedisUrl, redactRedisUrl } from "../redis/url.ts";

/** The Redis URL and the setting it came from (for messages), or `undefined` for the state directory. */
export function stateOption(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { url: string; source: string } | undefined {
  const source = flag !== undefined ? "--state" : env.POSTBOT_STATE?.trim() ? "POSTBOT_STATE" : undefined;
  if (!source) return undefined;
  const url = (flag ?? env.POSTBOT_STATE ?? "").trim();
  if (!isRedisUrl(url)) {
    throw new UserError(
      `${source} "${redactRedisUrl(url)}": give a Redis URL, redis://HOST:PORT/DB (e.g. redis://127.0.0.1:6379/0) or, for a Redis on this machine, its unix socket: unix:///PATH/TO/redis.sock?db=DB, or a Redis Cluster's nodes: redis+cluster://HOST:PORT,HOST:PORT,...; for a state directory use --data DIR`,
      { exitCode: 2 },
    );
  }
  parseRedisUrl(url, source);
  return { url, source };
}

/** The fewest and most seconds `--lease` takes: renewed every third of it, a lease under 3 s would be renewed more than once a second. */
const LEASE_SECONDS = { min: 3, max: 600 } as const;

/**
 * `bot start --lease SECONDS`: how long a process's bots and app streams stay its own once it
 * stops renewing them (killed, hung), so how soon the other processes take them over. A
 * shorter lease moves a dead process's bots sooner, and moves bots for nothing when a process
 * or Redis stalls for longer than it; the default (9 s, renewed every 3 s) rides out two missed
 * renewals. Only with a state in Redis: a state directory has one process and no leases.
 * Returns the lease in ms, or `undefined` for the default.
 */
export function leaseOption(flag: string | undefined, shared: { source: string } | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const seconds = Number(flag.trim());
  if (!flag.trim() || !Number.isFinite(seconds) || seconds < LEASE_SECONDS.min || seconds > LEASE_SECONDS.max)
    throw new UserError(
      `--lease ${flag}: expected seconds from ${LEASE_SECONDS.min} to ${LEASE_SECONDS.max} (how long a process's bots stay its own once it stops renewing them; default 9)`,
      { exitCode: 2 },
    );
  if (!shared)
    throw new UserError(
      "--lease is how long the bots shared in Redis stay a process's own; it needs --state (or POSTBOT_STATE): a --data directory is run by one process, with no leases",
      { exitCode: 2 },
    );
  return Math.round(seconds * 1000);
}
