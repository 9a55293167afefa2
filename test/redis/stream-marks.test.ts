/**
 * Where each app's stream left off, in Redis (src/redis/stream-marks.ts): written by the
 * holder of the app's stream lease only (fenced), one write at a time with the newest mark
 * winning, nothing after its hub stopped; read back by whoever starts the stream next. A
 * value that is not a mark is said and counts as none. On a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type Redis, type SingleRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { readStreamMark, StreamMarkWriter, streamMarkKey } from "../../src/redis/stream-marks.ts";
import { captureLogs } from "../helpers/log.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

let server: RedisServer;
let redis: Redis;
const monitors: Redis[] = [];
beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
});
afterAll(async () => {
  for (const monitor of monitors) monitor.disconnect();
  redis?.disconnect();
  await server?.close();
});

describe("stream marks in Redis", () => {
  it("the lease holder's newest mark is kept; a stale holder's and a retired writer's are not", async () => {
    const { lines, logger } = captureLogs("info");
    const leases = new Leases(redis, { prefix: "sm:" });
    const key = streamMarkKey("sm:", "app1");
    let lease = await leases.claim("stream:app1", "A", 60_000);
    const writer = new StreamMarkWriter(leases, key, () => lease, logger);
    expect(await readStreamMark(redis, "sm:", "app1", logger)).toBeUndefined();
    // Three moves at once: the first goes, the newest follows it, the one between is skipped.
    const sets: string[] = [];
    // monitor() opens a connection of its own in MONITOR mode: that one is what is closed after.
    const monitor = await (redis as SingleRedis).monitor();
    monitors.push(monitor);
    let seen = "";
    monitor.on("monitor", (_t: string, args: string[]) => {
      if (args[0] === "evalsha") sets.push(args.join(" "));
      if (args[0] === "echo") seen = args[1]!;
    });
    writer.save({ id: "1", at: 1, until: 1 });
    writer.save({ id: "2", at: 2, until: 2 });
    writer.save({ id: "3", at: 3, until: 3 });
    await until(
      "the newest mark written",
      async () => (await readStreamMark(redis, "sm:", "app1", logger))?.id === "3",
    );
    // MONITOR reports in order but late (under load, after the read above): once it reports a
    // command sent after the writes, it has reported every write.
    await redis.echo("writes-done");
    await until("the monitor caught up", () => seen === "writes-done");
    expect(sets).toHaveLength(2);
    monitor.disconnect();
    // Another process took the stream: this one's lease is stale, its mark is refused.
    const stale = lease;
    await redis.del(leases.key("stream:app1"));
    const other = await leases.claim("stream:app1", "B", 60_000);
    expect(other).toBeDefined();
    lease = stale;
    writer.save({ id: "4", at: 4, until: 4 });
    await writer.settled();
    expect((await readStreamMark(redis, "sm:", "app1", logger))?.id).toBe("3");
    // The next holder's writer moves it on; once retired (its hub stopped), nothing more.
    const next = new StreamMarkWriter(leases, key, () => other, logger);
    next.save({ id: "5", at: 5, until: 5 });
    await until("the next holder's mark", async () => (await readStreamMark(redis, "sm:", "app1", logger))?.id === "5");
    next.retire();
    next.save({ id: "6", at: 6, until: 6 });
    await next.settled();
    expect((await readStreamMark(redis, "sm:", "app1", logger))?.id).toBe("5");
    // Not a mark: said, and none.
    await redis.set(key, "{not json");
    expect(await readStreamMark(redis, "sm:", "app1", logger)).toBeUndefined();
    expect(lines.map((l) => l.msg)).toContain(
      "Redis key sm:stream-mark:app1 is not a stream mark; the stream starts without searching the gap before it (it is written anew as posts come)",
    );
  });
});
