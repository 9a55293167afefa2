/**
 * Each app's status when several processes share one Redis: no process sees the whole app.
 * Each one runs some of its bots and its own catch-up polls, and only the holder of the
 * app's stream lease runs (and knows the state and last error of) its one connection. So each
 * process publishes its part (`<prefix>status:app:<app>:<owner>`, with a time-to-live, so the
 * part of a process killed without a word goes by itself), withdraws it when it stops, and
 * `bot status` merges the parts ({@link mergeAppParts}): the bots and catch-up polls add up,
 * and the stream is the holder's. One value per app written by everyone would be whichever
 * process wrote last: a process without the stream would erase the holder's.
 *
 * The monthly read count, also written by every process, is Redis's atomic counter
 * (./shared-windows.ts); {@link readSharedStatus} puts both where `bot status` reads
 * them.
 */
import { z } from "zod";
import { UserError } from "../errors.ts";
import { MONTHLY_USAGE_NAMESPACE, type StoredUsage } from "../limits/budget-book.ts";
import { readMonthlyCounts } from "./shared-windows.ts";
import type { Redis } from "./connect.ts";
import { getMany, redisKeys } from "./keys.ts";
import { scanKeys } from "./scan.ts";
import type { Store } from "../store/store.ts";
import { APP_STATUS_NAMESPACE, type AppStatus } from "../runtime/types.ts";

/** A process's part of an app's status (in the app's slot on a cluster). */
const partKey = (redis: Redis, prefix: string, appId: string, owner: string) =>
  redisKeys(redis, prefix).app(appId, `status:app:${appId}:${owner}`);

/** Publishes this process's part of each app's status, kept `ttlMs` unless published again. */
export async function publishAppParts(
  redis: Redis,
  prefix: string,
  owner: string,
  parts: readonly AppStatus[],
  ttlMs: number,
): Promise<void> {
  if (parts.length === 0) return;
  const ttl = Math.max(1, Math.round(ttlMs));
  if (redis.isCluster) {
    // One slot per app: one command each (a pipeline on a cluster must keep to one node).
    await Promise.all(
      parts.map((part) => redis.set(partKey(redis, prefix, part.appId, owner), JSON.stringify(part), "PX", ttl)),
    );
    return;
  }
  const pipeline = redis.pipeline();
  for (const part of parts) pipeline.set(partKey(redis, prefix, part.appId, owner), JSON.stringify(part), "PX", ttl);
  for (const [err] of (await pipeline.exec()) ?? []) if (err) throw err;
}

/** Removes this process's parts (it stops: it runs none of the apps' bots any more). */
export async function withdrawAppParts(
  redis: Redis,
  prefix: string,
  owner: string,
  appIds: readonly string[],
): Promise<void> {
  const keys = appIds.map((appId) => partKey(redis, prefix, appId, owner));
  if (redis.isCluster) await Promise.all(keys.map((key) => redis.del(key)));
  else if (keys.length > 0) await redis.del(...keys);
}

/**
 * This process's parts of its apps' status: published every status round (each kept `ttlMs`
 * unless published again), and withdrawn when the process stops.
 */
export class AppStatusParts {
  private readonly published = new Set<string>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly owner: string,
  ) {}

  /** Whether the process is stopping (nothing is published any more). */
  get stopping(): boolean {
    return this.closed;
  }

  async publish(parts: readonly AppStatus[], ttlMs: number): Promise<void> {
    if (this.closed) return;
    for (const part of parts) this.published.add(part.appId);
    await publishAppParts(this.redis, this.prefix, this.owner, parts, ttlMs);
  }

  /** Publishes nothing more (the process is stopping). */
  close(): void {
    this.closed = true;
  }

  /** Removes every part published; not while Redis is away (the command would wait for it): the parts then expire by themselves. */
  async withdraw(): Promise<void> {
    this.closed = true;
    if (this.redis.status === "ready")
      await withdrawAppParts(this.redis, this.prefix, this.owner, [...this.published]).catch(() => undefined);
  }
}

/**
 * One app's status from its processes' parts: bots and catch-up polls summed, the stream
 * of the part that has one (the lease holder; of two, as when the lease just moved, the
 * later), capacity and plan of the latest part (every process computes them from the same
 * bot files).
 */
export function mergeAppParts(parts: readonly AppStatus[]): AppStatus {
  const latest = parts.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));
  const streamed = parts
    .filter((p) => p.stream)
    .reduce<AppStatus | undefined>((a, b) => (!a || b.updatedAt > a.updatedAt ? b : a), undefined);
  const catchUps = parts.flatMap((p) => (p.catchUp ? [p.catchUp] : []));
  return {
    appId: latest.appId,
    plan: latest.plan,
    bots: parts.reduce((n, p) => n + p.bots, 0),
    processes: parts.length,
    capacity: latest.capacity,
    ...(streamed?.stream ? { stream: streamed.stream } : {}),
    ...(catchUps.length > 0
      ? {
          catchUp: {
            waiting: catchUps.reduce((n, c) => n + c.waiting, 0),
            running: catchUps.reduce((n, c) => n + c.running, 0),
            done: catchUps.reduce((n, c) => n + c.done, 0),
          },
        }
      : {}),
    updatedAt: latest.updatedAt,
  };
}

/**
 * What {@link mergeAppParts} and `bot status` read of a part; the rest (the stream's
 * details) is shown as written. A key under the prefix that is not a part (written by hand,
 * or by another program sharing the database) is refused by name rather than crashing
 * `bot status` with a parser's stack trace.
 */
const partShape = z.looseObject({
  appId: z.string(),
  plan: z.string(),
  bots: z.number(),
  capacity: z.array(z.string()),
  catchUp: z.object({ waiting: z.number(), running: z.number(), done: z.number() }).optional(),
  updatedAt: z.number(),
});

function parsePart(key: string, text: string): AppStatus {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!partShape.safeParse(value).success) {
    throw new UserError(
      `Redis key ${key} is not a postbot app status (a process's part, kept a minute at most); remove it (redis-cli DEL ${key}) and run \`bot status\` again`,
    );
  }
  return value as AppStatus;
}

/** Every app's merged status, from the parts the processes published. */
export async function readAppStatus(redis: Redis, prefix = "postbot:"): Promise<AppStatus[]> {
  const layout = redisKeys(redis, prefix);
  const keys = await scanKeys(redis, layout.pattern("status:app:*"));
  const values = await getMany(redis, layout, keys);
  const byApp = new Map<string, AppStatus[]>();
  for (const [i, text] of values.entries()) {
    if (!text) continue; // expired between the scan and the read
    const part = parsePart(keys[i]!, text);
    byApp.set(part.appId, [...(byApp.get(part.appId) ?? []), part]);
  }
  return [...byApp.values()].map(mergeAppParts);
}

/**
 * Puts what the processes keep outside the state hashes into `store` (opened read-only for
 * `bot status`, so nothing is written back): each app's merged status, and its monthly read
 * count from Redis's counter.
 */
export async function readSharedStatus(store: Store, redis: Redis, prefix = "postbot:"): Promise<void> {
  for (const app of await readAppStatus(redis, prefix)) store.set(APP_STATUS_NAMESPACE, app.appId, app);
  for (const [appId, count] of await readMonthlyCounts(redis, prefix))
    store.set<StoredUsage>(MONTHLY_USAGE_NAMESPACE, appId, count);
}
