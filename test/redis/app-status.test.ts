/**
 * An app's status from the parts its processes publish (src/redis/app-status.ts): whichever
 * part was written last, the stream is the holder's, and the bots and catch-up polls add up.
 */
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import type { AppStatus } from "../../src/runtime/types.ts";
import { mergeAppParts, publishAppParts, readAppStatus } from "../../src/redis/app-status.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const servers: RedisServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const part = (bots: number, updatedAt: number, extra: Partial<AppStatus> = {}): AppStatus => ({
  appId: "7",
  plan: "pro",
  bots,
  capacity: ["line"],
  catchUp: { waiting: 1, running: 0, done: bots },
  updatedAt,
  ...extra,
});
const stream = {
  state: "connected" as const,
  since: 5,
  connects: 1,
  reconnects: 2,
  posts: 40,
  rules: { own: 0, mentions: 1 },
  mentionBots: 9,
  gaps: { count: 0, recovered: 0 },
  lastError: { message: "the service closed the stream", cause: "drop" as const, at: 4 },
};

describe("an app's status merged from its processes' parts", () => {
  it("takes the stream from the holder's part even when another part is newer, and sums the bots and catch-up polls", () => {
    const merged = mergeAppParts([part(3, 100, { stream }), part(4, 200), part(2, 150)]);
    expect(merged).toEqual({
      appId: "7",
      plan: "pro",
      bots: 9,
      processes: 3,
      capacity: ["line"],
      stream,
      catchUp: { waiting: 3, running: 0, done: 9 },
      updatedAt: 200,
    });
  });

  it("of two holders' parts (the lease just moved), the newer stream wins", () => {
    const moved = { ...stream, state: "starting" as const, since: 300 };
    expect(mergeAppParts([part(3, 100, { stream }), part(3, 300, { stream: moved })]).stream).toEqual(moved);
  });
});

describe("reading the parts from Redis", () => {
  it("merges what the processes published, and refuses a key that is not a part by name, saying how to remove it", async () => {
    const server = await startRedisServer();
    servers.push(server);
    const redis = await connectRedis(server.url);
    try {
      await publishAppParts(redis, "postbot:", "host-a", [part(3, 100, { stream })], 60_000);
      await publishAppParts(redis, "postbot:", "host-b", [part(4, 200)], 60_000);
      expect(await readAppStatus(redis)).toEqual([mergeAppParts([part(3, 100, { stream }), part(4, 200)])]);

      for (const bad of ["not json {", JSON.stringify({ appId: "7", bots: "three" })]) {
        await redis.set("postbot:status:app:7:stray", bad);
        const err = await readAppStatus(redis).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UserError);
        expect((err as Error).message).toBe(
          "Redis key postbot:status:app:7:stray is not a postbot app status (a process's part, kept a minute at most); remove it (redis-cli DEL postbot:status:app:7:stray) and run `bot status` again",
        );
      }
    } finally {
      redis.disconnect();
    }
  });
});
