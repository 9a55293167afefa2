/**
 * The apps' streams across processes, on a real redis-server: one process per app holds the
 * stream lease and runs the hub, which knows every bot of the app from the directory; what it
 * routes reaches the process running each bot; when the holder dies, another process takes
 * the stream over once the lease has expired (Redis's TTL: real time, bounded waits). The
 * lease renewals run on a running clock (every 100 ms), as they would in a process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { Leases } from "../../src/redis/leases.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import type { HandoffControl, HandoffEntry } from "../../src/redis/stream-handoff.ts";
import { SharedStreams, type HubRequest } from "../../src/redis/shared-streams.ts";
import type { StreamHub } from "../../src/triggers/stream-hub.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/until.ts";

let server: RedisServer;
const connections: Redis[] = [];
const running: SharedStreams[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const s of running) await Promise.race([s.close(), new Promise((r) => setTimeout(r, 2_000))]);
  for (const c of connections) c.disconnect();
  await server?.close();
});

const mention = (n: number): BotEvent => ({
  kind: "mention",
  id: `mention:${n}`,
  post: {
    id: String(n),
    text: "@x hi",
    author_id: "9",
    created_at: "2026-01-05T12:00:00.000Z",
    conversation_id: String(n),
    edit_history_post_ids: [String(n)],
  } as never,
  author: { id: "9", name: "Crowd", username: "crowd" },
});

const fakeHub = (): StreamHub => ({
  routes: new Map(),
  done: Promise.resolve(),
  status: () => ({}) as never,
  has: () => false,
  busy: () => false,
  update: async () => {},
  mark: () => undefined,
  backfill: async () => 0,
  close: () => {},
});

describe("shared streams", () => {
  it("one process runs the app's hub for every bot of the app; a dead holder's stream is taken over", async () => {
    const clock = createClock();
    const hubs: Array<{ by: string; request: HubRequest; closed: boolean }> = [];
    const handled: Array<[string, string, string]> = [];
    const controls: Array<[string, HandoffControl]> = [];
    const appOf = new Map([
      ["greeter", "app1"],
      ["liker", "app1"],
    ]);
    const processWith = async (name: string) => {
      const redis = await connectRedis(server.url);
      connections.push(redis);
      const streams = new SharedStreams({
        redis,
        leases: new Leases(redis, { prefix: "ss:" }),
        owner: name,
        clock,
        log: silentLogger,
        appOf,
        prefix: "ss:",
        ttlMs: 400,
        everyMs: 100,
        startHub: (request) => {
          const record = { by: name, request, closed: false };
          hubs.push(record);
          return {
            ...fakeHub(),
            // What the hub is told of the directory's changes, kept with what it was started with.
            update: async (wants, mentionBots = []) => {
              record.request = { ...record.request, wants: [...wants], mentionBots: [...mentionBots] };
            },
            close: () => void (record.closed = true),
          };
        },
        handle: async (bot: string, entry: HandoffEntry) => void handled.push([name, bot, entry.events[0]!.id]),
        onControl: (_app, what) => void controls.push([name, what]),
      });
      running.push(streams);
      streams.start();
      return { redis, streams };
    };
    const a = await processWith("A");
    const b = await processWith("B");
    expect(
      await a.streams.host("greeter", { userId: "1", username: "greeter", rules: [], mentions: true }),
    ).toBeUndefined();
    await b.streams.host("liker", { userId: "2", username: "liker", rules: [{ value: "cats" }], mentions: true });
    await until("a hub started", () => hubs.length >= 1, 10_000, 10);
    // The directory changed after the first start: at a renewal the hub is told, and knows both bots.
    await until("the hub knows both bots", () => hubs.at(-1)!.request.mentionBots.length === 2, 10_000, 10);
    const live = hubs.filter((h) => !h.closed);
    expect(live).toHaveLength(1);
    const holder = live[0]!;
    expect(holder.request.wants).toEqual([{ bot: "liker", userId: "2", rules: [{ value: "cats" }] }]);

    // What the hub routes reaches the process running each bot, whichever holds the stream.
    holder.request.deliverMentions("liker", [mention(1)]);
    holder.request.deliverMentions("greeter", [mention(2)]);
    holder.request.onConnected(true);
    await until(
      "both posts handled, both processes told",
      () => handled.length === 2 && controls.length === 2,
      10_000,
      10,
    );
    expect(handled.sort()).toEqual([
      ["A", "greeter", "mention:2"],
      ["B", "liker", "mention:1"],
    ]);
    expect(controls.map(([p]) => p).sort()).toEqual(["A", "B"]);
    expect(
      await b.streams.host("liker", { userId: "2", username: "liker", rules: [{ value: "cats" }], mentions: true }),
    ).toBe("connected");

    // The holder dies (its connection gone, nothing renewed): the other takes the stream once the lease expired.
    const survivor = holder.by === "A" ? b : a;
    const dead = holder.by === "A" ? a : b;
    dead.redis.disconnect();
    await until("the survivor runs the hub", () => hubs.some((h) => h.by !== holder.by), 10_000, 10);
    // The dead holder's own hub had stopped by itself before its lease ran out (it could not renew).
    expect(holder.closed).toBe(true);
    expect(
      hubs
        .filter((h) => h.by !== holder.by)
        .at(-1)!
        .request.mentionBots.map((m) => m.bot)
        .sort(),
    ).toEqual(["greeter", "liker"]);
  });

  it("a mention bot that joins a running hub's rules is searched for once they are in: what mentioned it between its catch-up poll and its rule", async () => {
    const clock = createClock();
    const redis = await connectRedis(server.url);
    connections.push(redis);
    let hubs = 0;
    const updates: string[][] = [];
    const backfills: Array<{ bots: string[]; since: number }> = [];
    const streams = new SharedStreams({
      redis,
      leases: new Leases(redis, { prefix: "sb:" }),
      owner: "A",
      clock,
      log: silentLogger,
      appOf: new Map([
        ["keeper", "app2"],
        ["newbie", "app2"],
        ["liker", "app2"],
      ]),
      prefix: "sb:",
      ttlMs: 400,
      everyMs: 100,
      startHub: () => {
        hubs++;
        return {
          ...fakeHub(),
          status: () => ({ state: "connected" }) as never,
          update: async (_wants, mentionBots = []) => void updates.push(mentionBots.map((m) => m.bot)),
          backfill: async (bots, since) => (backfills.push({ bots: [...bots], since }), 0),
        };
      },
      handle: async () => {},
      onControl: () => {},
      mentionsBackfillMs: () => 3_600_000,
    });
    running.push(streams);
    streams.start();
    // The hub starts with keeper: its gap is closed by the catch-up poll every process runs on "connected".
    await streams.host("keeper", { userId: "1", username: "keeper", rules: [], mentions: true });
    await until("the hub started", () => hubs === 1, 10_000, 10);
    // Then a mention bot and a bot with rules only join (added to the fleet while the hub runs).
    await streams.host("newbie", { userId: "2", username: "newbie", rules: [], mentions: true });
    await streams.host("liker", { userId: "3", username: "liker", rules: [{ value: "cats" }], mentions: false });
    await until("the hub told of both", () => updates.at(-1)?.includes("newbie") && updates.length, 10_000, 10);
    await until("a search", () => backfills.length > 0, 10_000, 10);
    expect(backfills.map((b) => b.bots)).toEqual([["newbie"]]);
    // As far back as the bot's mentions.backfill reaches.
    expect(clock.now() - 3_600_000 - backfills[0]!.since).toBeLessThan(10_000);
    expect(clock.now() - 3_600_000 - backfills[0]!.since).toBeGreaterThanOrEqual(0);

    // Hosted again (a restart here, the same entry): no change, no search.
    await streams.host("newbie", { userId: "2", username: "newbie", rules: [], mentions: true });
    const told = updates.length;
    await streams.host("liker", { userId: "3", username: "liker", rules: [{ value: "dogs" }], mentions: false });
    await until("the hub told of liker's new rules", () => updates.length > told, 10_000, 10);
    expect(backfills.map((b) => b.bots)).toEqual([["newbie"]]);
  });
});
