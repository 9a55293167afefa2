/**
 * The apps' streams across processes, on a real redis-server: one process per app holds the
 * stream lease and runs the hub, which knows every bot of the app from the directory; what it
 * routes reaches the process running each bot; when the holder dies, another process takes
 * the stream over once the lease has expired (Redis's TTL: real time, bounded waits). The
 * lease renewals run on a running clock (every 100 ms), as they would in a process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { Leases } from "../../src/redis/leases.ts";
import { Membership } from "../../src/redis/membership.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { redisKeys } from "../../src/redis/keys.ts";
import { HANDOFF_GROUP, handoffKeys, type HandoffControl, type HandoffEntry } from "../../src/redis/stream-handoff.ts";
import { SharedStreams, type HubRequest, type SharedStreamsOptions } from "../../src/redis/shared-streams.ts";
import { startStreamHub, type StreamHub } from "../../src/triggers/stream-hub.ts";
import { Outbox } from "../../src/triggers/stream/outbox.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { handEach } from "../helpers/handoff.ts";
import { SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";
import { until } from "../helpers/until.ts";
import { usernamesOf } from "../../src/triggers/mention-rules.ts";
import { rulesOf } from "../../src/sandbox/domain/rules.ts";
import type { Budgeted } from "../../src/triggers/stream/search.ts";

let server: RedisServer;
const connections: Redis[] = [];
const running: SharedStreams[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});
const sandboxHubs = new SandboxHubs();
afterEach(() => sandboxHubs.close());
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

/**
 * One renewal of the stream leases on a frozen clock, as a test steps through them: done once
 * the next is scheduled, due later than the one the advance ran (due times compared, not "EVERY
 * ahead": the advance may still be at the renewal's due time, or past it, when the renewal
 * ends), and then once `settled` (what the renewal started, sent), if given.
 */
function renewalOn(clock: AdjustableClock, every: number, settled?: () => boolean): () => Promise<void> {
  const due = () =>
    clock
      .waiting()
      .filter((w) => w.by.includes("SharedStreams.run"))
      .map((w) => clock.now() + w.inMs);
  return async () => {
    const before = Math.max(...(await until("a renewal waiting", () => due().length > 0 && due(), 10_000, 10)));
    await clock.advance(every);
    await until("the renewal done", () => due().some((d) => d > before), 10_000, 10);
    if (settled) await until("the hub's rules sent", settled, 10_000, 10);
  };
}

/** A hub that routes only what the test puts in its outbox. */
const fakeHub = (outbox = new Outbox()): StreamHub => ({
  routes: new Map(),
  done: Promise.resolve(),
  status: () => ({}) as never,
  has: () => false,
  busy: () => false,
  update: async () => {},
  settled: () => {},
  checkRules: async () => {},
  mark: () => undefined,
  backfill: async () => 0,
  take: () => outbox.take(),
  taken: () => {},
  close: () => outbox.close(),
});

/** Fake hubs that keep whether each was closed: `startHub` for SharedStreams, `hubs` in start order. */
const recordedHubs = () => {
  const hubs: Array<{ closed: boolean }> = [];
  const startHub = () => {
    const record = { closed: false };
    hubs.push(record);
    return { ...fakeHub(), close: () => void (record.closed = true) };
  };
  return { hubs, startHub };
};

describe("shared streams", () => {
  it("keeps the app's stream while the main connection is held: its lease renews on the renewals' own", async () => {
    const redis = await connectRedis(server.url);
    const line = await connectRedis(server.url);
    const admin = await connectRedis(server.url);
    connections.push(redis, line, admin);
    const { hubs, startHub } = recordedHubs();
    const leases = new Leases(redis, { prefix: "busy:" });
    const streams = new SharedStreams({
      redis,
      leases,
      renewals: new Leases(line, { prefix: "busy:" }),
      owner: "A",
      clock: createClock(),
      log: silentLogger,
      appOf: new Map([["greeter", "app1"]]),
      prefix: "busy:",
      ttlMs: 400,
      everyMs: 100,
      startHub,
      onControl: () => {},
    });
    running.push(streams);
    streams.start();
    await streams.host("greeter", { userId: "1", username: "greeter", rules: [], mentions: true });
    await until("the hub started", () => hubs.length === 1, 10_000, 10);
    // A start's thousands of commands hold the main connection (a BLPOP blocks it, as a queue
    // of them ahead of a renewal does) for five lease lifetimes.
    const holding = redis.blpop("busy:never", 0);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(hubs.map((h) => h.closed)).toEqual([false]);
    expect(await admin.pttl(leases.key("stream:app1"))).toBeGreaterThan(0);
    await admin.lpush("busy:never", "go");
    await holding;
    await streams.close();
  });

  it("one process runs the app's hub for every bot of the app; a dead holder's stream is taken over", async () => {
    const clock = createClock();
    const hubs: Array<{ by: string; request: HubRequest; closed: boolean; outbox: Outbox }> = [];
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
          const record = { by: name, request, closed: false, outbox: new Outbox() };
          hubs.push(record);
          return {
            ...fakeHub(record.outbox),
            // What the hub is told of the directory's changes, kept with what it was started with.
            update: async (wants, mentionBots = []) => {
              record.request = { ...record.request, wants: [...wants], mentionBots: [...mentionBots] };
            },
            close: () => void (record.closed = true),
          };
        },
        onControl: (_app, what) => void controls.push([name, what]),
      });
      handEach(
        streams,
        async (bot: string, entry: HandoffEntry) => void handled.push([name, bot, entry.events[0]!.id]),
      );
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
    holder.outbox.hand("liker", "mentions", [mention(1)]);
    holder.outbox.hand("greeter", "mentions", [mention(2)]);
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

  it("a dead holder's stream lease is claimed as soon as it runs out, not at the next renewal", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const redis = await connectRedis(server.url);
    connections.push(redis);
    const leases = new Leases(redis, { prefix: "free:" });
    // Process D held the app's stream and died: its lease runs out in 1.5 s (Redis's clock).
    await redis.set(leases.key("stream:app1"), "7|D", "PX", 1_500);
    const hubs: string[] = [];
    const streams = new SharedStreams({
      redis,
      leases,
      owner: "S",
      clock,
      log: silentLogger,
      appOf: new Map([["greeter", "app1"]]),
      prefix: "free:",
      ttlMs: 60_000,
      everyMs: 20_000,
      startHub: (request) => {
        hubs.push(request.appId);
        return fakeHub();
      },
      onControl: () => {},
    });
    running.push(streams);
    await streams.host("greeter", { userId: "1", username: "greeter", rules: [], mentions: true });
    streams.start(); // its first renewal finds D's lease there
    await until(
      "the first renewal done, the next due in 20 s",
      () => clock.waiting().some((w) => w.by.includes("SharedStreams.run")),
      10_000,
      10,
    );
    await until(
      "D's lease ran out in Redis",
      async () => (await redis.exists(leases.key("stream:app1"))) === 0,
      10_000,
      20,
    );
    // Short of the next renewal (20 s on), a little after the lease's end.
    await clock.advance(2_000);
    await until("this process runs the app's hub", () => hubs.length === 1, 10_000, 10);
    expect(clock.now()).toBeLessThan(T0 + 20_000);
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
      // Long enough that a stalled event loop (a loaded machine) does not lapse the lease: a new
      // hub would start with the rules, with no update to wait for. Nothing here moves the hub.
      ttlMs: 10_000,
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
  it("a bot with stream rules that joins a running hub gets, once its rules are in, what matched them since the holder last read the directory without it", async () => {
    const EVERY = 1_000;
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, connection } = await sandboxHubs.open(clock);
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    const keeper = await sandbox.admin.createUser({ username: "keeper", name: "keeper" });
    const liker = await sandbox.admin.createUser({ username: "liker", name: "liker" });
    const post = (text: string) => sandbox.admin.createPost({ author_id: alice.id, text });
    const redis = await connectRedis(server.url);
    connections.push(redis);
    const handled: Array<[string, string]> = [];
    const streams = new SharedStreams({
      redis,
      leases: new Leases(redis, { prefix: "sr:" }),
      owner: "A",
      clock,
      log: silentLogger,
      appOf: new Map([
        ["keeper", "app3"],
        ["liker", "app3"],
      ]),
      prefix: "sr:",
      ttlMs: 60_000,
      everyMs: EVERY,
      sweepMs: 600_000,
      startHub: (request) =>
        (sandboxHubs.hub = startStreamHub({ ...request, ...connection, clock, log: silentLogger })),
      onControl: () => {},
    });
    handEach(streams, async (bot, entry) => {
      for (const e of entry.events) handled.push([bot, e.kind === "post" ? e.post.text : e.id]);
    });
    running.push(streams);
    streams.start();
    const renewal = renewalOn(clock, EVERY);
    await streams.host("keeper", {
      userId: keeper.id,
      username: "keeper",
      rules: [{ value: "#dogs" }],
      mentions: false,
    });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    await post("#cats before the liker was published");
    // A renewal reads the directory as the hub has it: the liker is published after this.
    await renewal();
    await clock.advance(10);
    await streams.host("liker", { userId: liker.id, username: "liker", rules: [{ value: "#cats" }], mentions: false });
    await post("#cats after the liker was published, before its rule");
    // The next renewal tells the hub; once the service has the rule, the gap is searched.
    await renewal();
    await until(
      "the liker got the post from before its rule",
      () => handled.some(([, text]) => text === "#cats after the liker was published, before its rule"),
      10_000,
      10,
    );
    await until("the search done", () => !sandboxHubs.hub!.busy(), 10_000, 10);
    await post("#cats streamed");
    await until("the streamed post handled", () => handled.some(([, text]) => text === "#cats streamed"), 10_000, 10);
    expect(handled).toEqual([
      ["liker", "#cats after the liker was published, before its rule"],
      ["liker", "#cats streamed"],
    ]);
    await streams.close();
  });

  it("2,000 mention bots joining a running hub over 40 renewals get their rules in a bounded number of rule writes, the last within one write's pace", async () => {
    const names = Array.from({ length: 2_000 }, (_, i) => `joiner${String(i).padStart(4, "0")}`);
    // Every rule write counted, and none refused: the app's window (100 per 15 minutes) never runs dry.
    const { EVERY, clock, redis, streams, writes, renewal, ruled, sandbox } = await rulesHolder("sj:", "app4", [
      "keeper",
      ...names,
    ]);
    await streams.host("keeper", { userId: "1", username: "keeper", rules: [], mentions: true });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    const synced = writes.length;
    // The holder reads the whole directory once, when its hub starts; then each bot that joins, once.
    const whole = vi.spyOn(redis, "hgetall");
    const some = vi.spyOn(redis, "hmget");
    // 50 bots published at each renewal, as a start of thousands publishes them.
    for (let i = 0; i < names.length; i += 50) {
      for (const [k, name] of names.slice(i, i + 50).entries())
        await streams.host(name, { userId: String(10 + i + k), username: name, rules: [], mentions: true });
      await renewal();
    }
    const joinedAt = clock.now();
    const unruled = () => {
      const now = ruled();
      return names.filter((n) => !now.has(n));
    };
    for (let extra = 0; extra < 60 && unruled().length > 0; extra++) await renewal();
    expect(unruled()).toEqual([]);
    // Within the pace of one write after the last bot joined (the window's share: 18 s).
    expect(clock.now() - joinedAt).toBeLessThanOrEqual(20 * EVERY);
    // 40 directory changes in 40 s: a quarter of the window at once, then one write per 18 s,
    // the changes meanwhile joining it; not one write a change (40: 100 such in a start of
    // 25,000 bots use the whole window, and the last bots wait minutes for it to slide).
    expect(writes.length - synced).toBeLessThanOrEqual(25 + 4);
    const directory = (key: unknown) => String(key).endsWith("handoff:app4:bots");
    expect(whole.mock.calls.filter(([key]) => directory(key))).toEqual([]);
    const entriesRead = some.mock.calls.filter(([key]) => directory(key)).flatMap(([, ...bots]) => bots);
    // (A bot published while a reading runs may be read again by the next.)
    expect([...new Set(entriesRead)].sort()).toEqual(names);
    expect(entriesRead.length).toBeLessThan(names.length * 1.1);
    // Packed: the 2,001 names in few rules.
    expect(Object.keys(sandbox.context.data.world.stream_rules).length).toBeLessThan(100);
    await streams.close();
  }, 60_000);

  /**
   * A holder (owner "A") of app `appId`'s stream on a frozen clock, renewing every second, its
   * hub's rule writes within the pro window (100 per 15 minutes) and recorded: when each went
   * (`writes`), the usernames the app's rules carry (`ruled`), one renewal and what it started
   * done (`renewal`); `more` of the holder's options (`describe`, `rulesCheckMs`) when a test is about them.
   */
  async function rulesHolder(prefix: string, appId: string, bots: string[], more: Partial<SharedStreamsOptions> = {}) {
    const EVERY = 1_000;
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, app, connection } = await sandboxHubs.open(clock);
    const redis = await connectRedis(server.url);
    connections.push(redis);
    // When each rule write went (the sandbox refuses past the app's window: 100 per 15 minutes).
    const writes: number[] = [];
    const budgeted: Budgeted = async (endpoint, run) => {
      if (endpoint === "POST /2/posts/search/stream/rules") writes.push(clock.now());
      return (await run(new AbortController().signal)).result;
    };
    const streams = new SharedStreams({
      redis,
      leases: new Leases(redis, { prefix }),
      owner: "A",
      clock,
      log: silentLogger,
      appOf: new Map(bots.map((n) => [n, appId])),
      prefix,
      ttlMs: 600_000,
      everyMs: EVERY,
      sweepMs: 600_000,
      startHub: (request) =>
        (sandboxHubs.hub = startStreamHub({
          ...request,
          ...connection,
          ruleWrites: { max: 100, windowMs: 15 * 60_000 },
          budgeted,
          clock,
          log: silentLogger,
        })),
      onControl: () => {},
      ...more,
    });
    handEach(streams, async () => {});
    running.push(streams);
    streams.start();
    const renewal = renewalOn(clock, EVERY, () => streams.busy().length === 0);
    const ruled = () =>
      new Set(Object.values(sandbox.context.data.world.stream_rules).flatMap((r) => usernamesOf(r.value) ?? []));
    return { EVERY, clock, redis, streams, writes, renewal, ruled, sandbox, app, connection };
  }

  /**
   * 900 mention bots of an app published over a long start (10 before each of 90 renewals,
   * longer than the pacer's quick writes last), `absent` among the app's bots too when given
   * (a bot of the fleet that never starts), and with `quiet` one renewal more after the last:
   * when each rule write went, and the clock at the renewal that read the last of them.
   */
  async function longStart(prefix: string, appId: string, absent: string[], quiet: boolean) {
    const names = Array.from({ length: 900 }, (_, i) => `late${String(i).padStart(4, "0")}`);
    const { EVERY, clock, streams, writes, renewal, ruled } = await rulesHolder(prefix, appId, [
      "keeper",
      ...names,
      ...absent,
    ]);
    await streams.host("keeper", { userId: "1", username: "keeper", rules: [], mentions: true });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    for (let i = 0; i < names.length; i += 10) {
      for (const [k, name] of names.slice(i, i + 10).entries())
        await streams.host(name, { userId: String(10 + i + k), username: name, rules: [], mentions: true });
      await renewal();
    }
    // The renewal just done read the last of them; with `quiet`, one more finds nothing new.
    const lastReadAt = clock.now();
    if (quiet) await renewal();
    // No renewal more: the write must go without one (on the old pacer it waited for the refill's 18 s).
    const unruled = () => names.filter((n) => !ruled().has(n));
    await until("every bot's rule written, the clock still", () => unruled().length === 0, 10_000, 10);
    await streams.close();
    // Within a quarter of the window and one write per 18 s, whatever came.
    expect(writes.length).toBeLessThanOrEqual(25 + Math.ceil((writes.at(-1)! - writes[0]!) / 18_000));
    return { writes, lastReadAt, EVERY };
  }

  it("mention bots published over a long start get the last rules at the first reading that finds nothing new, within the window", async () => {
    const { writes, lastReadAt, EVERY } = await longStart("sl:", "app6", ["absent"], true);
    // The write that carried the last of them went at the next reading, a renewal later.
    expect(writes.at(-1)! - lastReadAt).toBe(EVERY);
  }, 60_000);

  it("mention bots published over a long start get the last rules at the reading that finds the app's last bot in, within the window", async () => {
    const { writes, lastReadAt } = await longStart("sm:", "app7", [], false);
    // Every bot of the app in: nothing more to wait for.
    expect(writes.at(-1)! - lastReadAt).toBe(0);
  }, 60_000);

  it("a hub started when one bot of a first start runs has the rules of every bot the process can describe in its first write; none more as they start", async () => {
    const names = Array.from({ length: 600 }, (_, i) => `early${String(i).padStart(4, "0")}`);
    const entry = (name: string, i: number) => ({ userId: String(10 + i), username: name, rules: [], mentions: true });
    // "unknown" is of the app but cannot be described (its account not known here).
    const { streams, writes, renewal, ruled } = await rulesHolder("se:", "app8", ["keeper", "unknown", ...names], {
      describe: () => names.map((name, i) => [name, entry(name, i)]),
    });
    // The first bot of the app to run here: this process claims the app's stream and starts its hub.
    await streams.host("keeper", { userId: "1", username: "keeper", rules: [], mentions: true });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    expect(names.filter((n) => !ruled().has(n))).toEqual([]);
    expect(ruled().has("keeper")).toBe(true);
    const synced = writes.length;
    expect(synced).toBeLessThanOrEqual(2);
    // The bots start (each publishing the entry described): nothing changes, nothing is written.
    for (let i = 0; i < names.length; i += 100) {
      for (const [k, name] of names.slice(i, i + 100).entries()) await streams.host(name, entry(name, i + k));
      await renewal();
    }
    // One that could not be described joins as before.
    await streams.host("unknown", { userId: "2", username: "unknown", rules: [], mentions: true });
    await renewal();
    await until("the last bot's rule", () => ruled().has("unknown"), 10_000, 10);
    expect(writes.length).toBe(synced + 1);
    await streams.close();
  }, 60_000);

  it("a hub taken over while its directory lists every bot of the app describes none again, reads the directory once, and has every bot's rule", async () => {
    const names = Array.from({ length: 300 }, (_, i) => `kept${String(i).padStart(4, "0")}`);
    const entry = (name: string, i: number) => ({ userId: String(10 + i), username: name, rules: [], mentions: true });
    let described = 0;
    // The holder's reads of the directory's names or entries (each of the whole hash), and
    // of its version: when each was sent and answered.
    const reads: string[] = [];
    const holderRedis = await connectRedis(server.url);
    connections.push(holderRedis);
    const counted = new Proxy(holderRedis, {
      get(target, key, receiver) {
        if (key === "hkeys" || key === "hgetall" || key === "get")
          return async (k: string) => {
            const what = key === "get" ? "version" : key;
            if (k !== "sk:handoff:app9:bots" && k !== "sk:handoff:app9:bots:version") return await target[key](k);
            reads.push(what);
            const answer = await target[key](k);
            reads.push(`${what} answered`);
            return answer;
          };
        return Reflect.get(target, key, receiver);
      },
    });
    const { streams, ruled, renewal } = await rulesHolder("sk:", "app9", ["keeper", ...names], {
      redis: counted,
      describe: () => {
        described++;
        return names.map((name, i) => [name, entry(name, i)]);
      },
    });
    // What the processes running the app's bots published before the hub's holder died.
    const admin = await connectRedis(server.url);
    connections.push(admin);
    await admin.hset(
      "sk:handoff:app9:bots",
      Object.fromEntries([
        ["keeper", JSON.stringify({ userId: "1", username: "keeper", rules: [], mentions: true })],
        ...names.map((name, i) => [name, JSON.stringify(entry(name, i))]),
      ]),
    );
    await streams.host("keeper", { userId: "1", username: "keeper", rules: [], mentions: true });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    await until("every bot's rule", () => names.every((n) => ruled().has(n)), 10_000, 10);
    expect(described).toBe(0);
    // Its entries once: not its names first to learn that nothing was missing; asked with
    // its version, not after it was answered.
    expect(reads.filter((r) => !r.startsWith("version")).filter((r) => !r.endsWith("answered"))).toEqual(["hgetall"]);
    expect(reads.slice(0, 2)).toEqual(["version", "hgetall"]);
    await streams.close();
  }, 60_000);

  it("the holder puts back a mention rule a late write of the stream's previous hub deleted, at its next check of the rules", async () => {
    // Its renewals (every second) each followed by what they started (a rules check) sent.
    const { EVERY, clock, streams, renewal, ruled, sandbox, app, connection } = await rulesHolder(
      "sc:",
      "app5",
      ["keeper", "ann", "bob"],
      { rulesCheckMs: 5_000 },
    );
    for (const [i, name] of ["keeper", "ann", "bob"].entries())
      await streams.host(name, { userId: String(1 + i), username: name, rules: [], mentions: true });
    await renewal();
    await until("the hub connected", () => sandboxHubs.hub?.status().state === "connected", 10_000, 10);
    expect([...ruled()].sort()).toEqual(["ann", "bob", "keeper"]);

    // The previous hub's delete lands after this hub read the rules: nothing covers the bots.
    const other = await connection.client();
    const ids = rulesOf(sandbox.context, app.id).map((r) => r.id);
    await other.exchange("POST /2/posts/search/stream/rules", { body: { delete: { ids } } });
    expect(ruled().size).toBe(0);
    const startedAt = clock.now();
    for (let i = 0; i < 10 && ruled().size === 0; i++) await renewal();
    expect([...ruled()].sort()).toEqual(["ann", "bob", "keeper"]);
    // Within a check's interval, and the renewals the check's requests may take.
    expect(clock.now() - startedAt).toBeLessThanOrEqual(8 * EVERY);
    expect(sandboxHubs.hub?.status().rules.mentions).toBe(1);
    await streams.close();
  }, 60_000);

  it("a read whose reply the lost main connection never brought back is handed out once the connection is back", async () => {
    const redis = await connectRedis(server.url);
    const admin = await connectRedis(server.url);
    connections.push(redis, admin);
    const hubs: HubRequest[] = [];
    const controls: HandoffControl[] = [];
    const handled: string[] = [];
    const streams = new SharedStreams({
      redis,
      leases: new Leases(redis, { prefix: "back:" }),
      owner: "A",
      clock: createClock(),
      log: silentLogger,
      appOf: new Map([["greeter", "app1"]]),
      prefix: "back:",
      sweepMs: 100,
      startHub: (request) => {
        hubs.push(request);
        return fakeHub();
      },
      onControl: (_app, what) => void controls.push(what),
    });
    handEach(streams, async (_bot, entry) => void handled.push(entry.events[0]!.id));
    running.push(streams);
    streams.start();
    await streams.host("greeter", { userId: "1", username: "greeter", rules: [], mentions: true });
    await until("the hub started", () => hubs.length === 1, 10_000, 10);
    hubs[0]!.onConnected(true);
    await until("the reader hears the bell", () => controls.length === 1, 10_000, 10);
    await new Promise((r) => setTimeout(r, 300)); // the sweep the bell's word makes due has run
    // A read of A's whose reply was lost with its connection: the entry is pending for A, in no one's hands.
    const key = handoffKeys("app1", redisKeys(admin, "back:")).bot("greeter");
    await admin.xadd(key, "*", "e", JSON.stringify({ kind: "mentions", events: [mention(1)] }));
    await admin.xreadgroup("GROUP", HANDOFF_GROUP, "A", "STREAMS", key, ">");
    await new Promise((r) => setTimeout(r, 300)); // idle rounds read nothing
    expect(handled).toEqual([]);
    await admin.client("KILL", "ID", String(await redis.client("ID")));
    await until("handed out once the connection is back", () => handled.length === 1, 10_000, 10);
    expect(handled).toEqual(["mention:1"]);
    await streams.close();
  });
});
describe("shared streams: each process runs its share of the apps' streams", () => {
  const APPS = ["app0", "app1", "app2", "app3"];
  /** One bot of each app a process (the same bot files in every process: 4 processes' bots here). */
  const appOf = new Map(
    ["P0", "P1", "P2", "P3"].flatMap((p) => APPS.map((app): [string, string] => [`${p}-${app}`, app])),
  );

  /**
   * A process of the deployment on a frozen clock of its own (stepped renewal by renewal): a
   * member (its entry lasts a minute of Redis's time), its stream leases too, so that nothing
   * runs out but what the test removes.
   */
  const processOf = async (
    prefix: string,
    owner: string,
    hubs: Array<{ by: string; app: string; closed?: boolean }>,
    options: { everyMs?: number; appOf?: Map<string, string> } = {},
  ) => {
    const everyMs = options.everyMs ?? 1_000;
    const clock = createClock({ frozen: true, start: T0 });
    const redis = await connectRedis(server.url);
    connections.push(redis);
    const leases = new Leases(redis, { prefix });
    const membership = new Membership({ redis, leases, owner, clock, ttlMs: 60_000, everyMs: 20_000 });
    await membership.announce();
    const streams = new SharedStreams({
      redis,
      leases,
      owner,
      clock,
      log: silentLogger,
      appOf: options.appOf ?? appOf,
      prefix,
      ttlMs: 60_000,
      everyMs,
      startHub: (request) => {
        const record = { by: owner, app: request.appId, closed: false };
        // Two hubs of one app open at once would be two connections, which the service refuses.
        if (hubs.some((h) => h.app === request.appId && h.closed === false)) twice.push(request.appId);
        hubs.push(record);
        const hub = fakeHub();
        return {
          ...hub,
          close: () => {
            record.closed = true;
            hub.close();
          },
        };
      },
      onControl: () => {},
    });
    running.push(streams);
    return { owner, clock, redis, leases, streams, renewal: renewalOn(clock, everyMs) };
  };
  type Process = Awaited<ReturnType<typeof processOf>>;
  const hostEvery = async (p: Process, apps = APPS) => {
    for (const app of apps)
      await p.streams.host(`${p.owner}-${app}`, { userId: "1", username: "x", rules: [], mentions: true });
  };
  const firstRenewal = (p: Process) =>
    until(
      "its first renewal done",
      () => p.clock.waiting().some((w) => w.by.includes("SharedStreams.run")),
      10_000,
      10,
    );
  const heldBy = (hubs: Array<{ by: string; app: string }>, owners: string[]) =>
    owners.map((o) => hubs.filter((h) => h.by === o).length);
  /** The apps whose hub was started while another hub of the app was still open. */
  const twice: string[] = [];
  afterEach(() => void twice.splice(0));
  /** How many hubs each owner has open now. */
  const openBy = (hubs: Array<{ by: string; closed?: boolean }>, owners: string[]) =>
    owners.map((o) => hubs.filter((h) => h.by === o && h.closed === false).length);

  it("a process that started alone with both apps' streams hands one back when another joins: each runs one, and it stays so", async () => {
    const hubs: Array<{ by: string; app: string; closed?: boolean }> = [];
    const apps = new Map(["P0", "P1"].flatMap((p) => ["app0", "app1"].map((a): [string, string] => [`${p}-${a}`, a])));
    const a = await processOf("handback:", "P0", hubs, { appOf: apps });
    await hostEvery(a, ["app0", "app1"]);
    a.streams.start(); // alone: its share is every stream
    await firstRenewal(a);
    await until("both hubs started", () => hubs.length === 2, 10_000, 10);
    expect(openBy(hubs, ["P0"])).toEqual([2]);
    // P1 joins (a restart): it runs bots of both apps; both streams are P0's.
    const b = await processOf("handback:", "P1", hubs, { appOf: apps });
    await hostEvery(b, ["app0", "app1"]);
    b.streams.start();
    await firstRenewal(b);
    for (let i = 0; i < 5 && openBy(hubs, ["P1"])[0] === 0; i++) await Promise.all([a.renewal(), b.renewal()]);
    await until("each runs one stream", () => openBy(hubs, ["P0", "P1"]).join() === "1,1", 10_000, 10);
    expect(hubs).toHaveLength(3); // one hub stopped and one started, no more
    // Members come and go: nothing moves back and forth.
    for (let i = 0; i < 6; i++) await Promise.all([a.renewal(), b.renewal()]);
    expect(hubs).toHaveLength(3);
    expect(openBy(hubs, ["P0", "P1"])).toEqual([1, 1]);
    expect(twice).toEqual([]);
  });

  it("a process below its share that handed a stream back leaves it to the one that wants it", async () => {
    const hubs: Array<{ by: string; app: string; closed?: boolean }> = [];
    // Three apps, the third's bots run nowhere: with two processes the share is two streams.
    const apps = new Map([
      ...["P0", "P1"].flatMap((p) => ["app0", "app1"].map((a): [string, string] => [`${p}-${a}`, a])),
      ["P9-app2", "app2"],
    ]);
    const a = await processOf("gaveback:", "P0", hubs, { appOf: apps });
    await hostEvery(a, ["app0", "app1"]);
    a.streams.start();
    await firstRenewal(a);
    await until("both hubs started", () => hubs.length === 2, 10_000, 10);
    const b = await processOf("gaveback:", "P1", hubs, { appOf: apps });
    await hostEvery(b, ["app0", "app1"]);
    b.streams.start();
    await firstRenewal(b);
    // P0 holds two (its share) and P1 none: one goes to P1, and P0, below its share now, does
    // not take it back before P1 can.
    for (let i = 0; i < 5 && openBy(hubs, ["P1"])[0] === 0; i++) await Promise.all([b.renewal(), a.renewal()]);
    await until("each runs one stream", () => openBy(hubs, ["P0", "P1"]).join() === "1,1", 10_000, 10);
    for (let i = 0; i < 6; i++) await Promise.all([a.renewal(), b.renewal()]);
    expect(hubs).toHaveLength(3);
    expect(twice).toEqual([]);
  });

  it("a process counted among the members that runs no bot of the apps draws no stream away", async () => {
    const hubs: Array<{ by: string; app: string; closed?: boolean }> = [];
    const apps = new Map([
      ["P0-app0", "app0"],
      ["P0-app1", "app1"],
    ]);
    const a = await processOf("nowant:", "P0", hubs, { appOf: apps });
    await hostEvery(a, ["app0", "app1"]);
    a.streams.start();
    await firstRenewal(a);
    await until("both hubs started", () => hubs.length === 2, 10_000, 10);
    // P1 announced itself (loading its bots, or running none of these apps): a share of one each.
    const b = await processOf("nowant:", "P1", hubs, { appOf: apps });
    b.streams.start();
    await firstRenewal(b);
    for (let i = 0; i < 6; i++) await Promise.all([a.renewal(), b.renewal()]);
    expect(hubs).toHaveLength(2);
    expect(openBy(hubs, ["P0", "P1"])).toEqual([2, 0]);
  });

  it("four processes starting one after another with bots of four apps run one app's stream each; a dead one's goes to a survivor within its share, and back to the process that restarts", async () => {
    const hubs: Array<{ by: string; app: string; closed?: boolean }> = [];
    const processes: Process[] = [];
    // Every process announced itself before any starts its bots (as processes started together do).
    for (const owner of ["P0", "P1", "P2", "P3"]) processes.push(await processOf("share:", owner, hubs));
    for (const p of processes) {
      await hostEvery(p);
      p.streams.start();
      await firstRenewal(p);
    }
    await until("every app's hub started", () => hubs.length === 4, 10_000, 10);
    // Two more renewals each: nobody takes a stream another runs, nor one more of its own.
    for (let i = 0; i < 2; i++) await Promise.all(processes.map((p) => p.renewal()));
    expect(heldBy(hubs, ["P0", "P1", "P2", "P3"])).toEqual([1, 1, 1, 1]);
    expect(new Set(hubs.map((h) => h.app)).size).toBe(4);

    // P2 dies (kill -9): its connection gone; its member entry and its stream lease run out.
    const dead = processes[2]!;
    const orphan = hubs.find((h) => h.by === "P2")!.app;
    dead.redis.disconnect();
    hubs.find((h) => h.by === "P2")!.closed = true; // the service sees a dead process's connection go
    const admin = await connectRedis(server.url);
    connections.push(admin);
    await admin.zrem(dead.leases.membersKey, "P2");
    await admin.del(dead.leases.key(`stream:${orphan}`));
    const survivors = processes.filter((p) => p !== dead);
    await Promise.all(survivors.map((p) => p.renewal()));
    await until(
      "a survivor runs the orphaned stream",
      () => hubs.filter((h) => h.app === orphan).length === 2,
      10_000,
      10,
    );
    for (let i = 0; i < 2; i++) await Promise.all(survivors.map((p) => p.renewal()));
    // Three processes, four streams: a share of two; the orphan went to one survivor, the others kept theirs.
    expect(heldBy(hubs, ["P0", "P1", "P3"]).sort()).toEqual([1, 1, 2]);
    expect(hubs.filter((h) => h.app === orphan && h.by !== "P2")).toHaveLength(1);

    // P2 comes back (a restart: a new process): the survivor running two streams hands one to it.
    const back = await processOf("share:", "P4", hubs);
    for (const app of APPS)
      await back.streams.host(`P2-${app}`, { userId: "1", username: "x", rules: [], mentions: true });
    back.streams.start();
    await firstRenewal(back);
    const four = [...survivors, back];
    for (let i = 0; i < 5 && openBy(hubs, ["P4"])[0] === 0; i++) await Promise.all(four.map((p) => p.renewal()));
    await until(
      "each of the four runs one stream",
      () => openBy(hubs, ["P0", "P1", "P3", "P4"]).join() === "1,1,1,1",
      10_000,
      10,
    );
    for (let i = 0; i < 3; i++) await Promise.all(four.map((p) => p.renewal()));
    expect(openBy(hubs, ["P0", "P1", "P3", "P4"])).toEqual([1, 1, 1, 1]);
    expect(hubs).toHaveLength(6); // the first four, the orphan's at a survivor, then at P4
    expect(twice).toEqual([]);
  });

  it("keeps its renewals an interval apart when a busy process's look at a free lease is slow", async () => {
    const hubs: Array<{ by: string; app: string }> = [];
    const apps = new Map([
      ["P0-app0", "app0"],
      ["P0-app1", "app1"],
    ]);
    const p = await processOf("pace:", "P0", hubs, { everyMs: 3_000, appOf: apps });
    await processOf("pace:", "P1", hubs, { appOf: apps }); // a member: P0's share is one stream of two
    const admin = await connectRedis(server.url);
    connections.push(admin);
    await admin.set(p.leases.key("stream:app1"), "7|P1", "PX", 600_000);
    await hostEvery(p, ["app0", "app1"]);
    p.streams.start();
    await firstRenewal(p);
    await until("app0's hub started", () => hubs.length === 1, 10_000, 10);
    // From the next renewal on, P0 is at its share and looks whether app1's lease is free; the
    // look takes a second of its time (its cores busy starting thousands of bots).
    const holder = p.leases.holder.bind(p.leases);
    let slow = true;
    p.leases.holder = async (name: string) => {
      if (slow) {
        slow = false;
        await p.clock.advance(1_000);
      }
      return await holder(name);
    };
    const renewals = () =>
      p.clock
        .waiting()
        .filter((w) => w.by.includes("SharedStreams.run"))
        .map((w) => p.clock.now() + w.inMs);
    const began = Math.max(...renewals());
    await p.clock.advance(began - p.clock.now());
    await until(
      "the look done and the next renewal waiting",
      () => !slow && renewals().some((d) => d > began),
      10_000,
      10,
    );
    // Due an interval after the renewal began: not the look's second and then a whole interval
    // (renewals over ttl - every apart stop the hubs).
    expect(Math.max(...renewals())).toBe(began + 3_000);
  });

  it("a process at its share takes a stream left free for two renewals: none under its share runs a bot of the app", async () => {
    const hubs: Array<{ by: string; app: string }> = [];
    const a = await processOf("overdue:", "P0", hubs);
    // P1 is a member running no bot of any app: the share is two streams of four.
    await processOf("overdue:", "P1", hubs);
    await hostEvery(a);
    a.streams.start();
    await firstRenewal(a);
    await until("two hubs started", () => hubs.length === 2, 10_000, 10);
    await a.renewal();
    expect(hubs).toHaveLength(2);
    for (let i = 0; i < 3 && hubs.length < 4; i++) await a.renewal();
    await until("every app's hub started", () => hubs.length === 4, 10_000, 10);
    expect(heldBy(hubs, ["P0", "P1"])).toEqual([4, 0]);
  });

  it("a process at its share claims a dead member's stream as soon as the member's entry runs out, not at the next renewal", async () => {
    const hubs: Array<{ by: string; app: string }> = [];
    const s = await processOf("wake:", "P0", hubs, {
      everyMs: 20_000,
      appOf: new Map([
        ["P0-app0", "app0"],
        ["P0-app1", "app1"],
      ]),
    });
    const admin = await connectRedis(server.url);
    connections.push(admin);
    // P1 died holding app1's stream: its entry in the members and its lease run out in 1.5 s (Redis's clock).
    const [sec, micro] = await admin.time();
    await admin.zadd(s.leases.membersKey, Number(sec) * 1000 + Math.floor(Number(micro) / 1000) + 1_500, "P1");
    await admin.set(s.leases.key("stream:app1"), "7|P1", "PX", 1_500);
    await s.streams.host("P0-app0", { userId: "1", username: "x", rules: [], mentions: true });
    s.streams.start(); // two members, two apps: its share is one, app0's stream
    await firstRenewal(s);
    await until("app0's hub started", () => hubs.length === 1, 10_000, 10);
    await s.streams.host("P0-app1", { userId: "2", username: "y", rules: [], mentions: true });
    await until(
      "P1's entry and lease ran out in Redis",
      async () =>
        (await admin.exists(s.leases.key("stream:app1"))) === 0 && (await s.leases.liveMembers("P0")).live === 1,
      10_000,
      20,
    );
    // Short of the next renewal (20 s on), a little after the entry's end.
    await s.clock.advance(2_000);
    await until("P0 runs app1's hub", () => hubs.some((h) => h.app === "app1"), 10_000, 10);
    expect(s.clock.now()).toBeLessThan(T0 + 20_000);
  });
});

describe("shared streams: a stream lease's renewal answered late", () => {
  /**
   * A process on a frozen clock (ttl 9 s, renewed every 3 s) whose stream renewals' answers
   * wait for the test once `holdAnswers` is set: each renewal reaches Redis at once and is run
   * there, but the process reads its answer late, as a process busy with a start does.
   */
  const holderOf = async (prefix: string) => {
    const clock = createClock({ frozen: true, start: T0 });
    const redis = await connectRedis(server.url);
    const line = await connectRedis(server.url);
    connections.push(redis, line);
    const leases = new Leases(redis, { prefix });
    const renewals = new Leases(line, { prefix });
    const answers: Array<() => void> = [];
    const state = { holdAnswers: false };
    const renew = renewals.renew.bind(renewals);
    renewals.renew = async (lease, ttlMs) => {
      const held = await renew(lease, ttlMs);
      if (state.holdAnswers) await new Promise<void>((r) => answers.push(r));
      return held;
    };
    const { hubs, startHub } = recordedHubs();
    const streams = new SharedStreams({
      redis,
      leases,
      renewals,
      owner: "A",
      clock,
      log: silentLogger,
      appOf: new Map([["greeter", "app1"]]),
      prefix,
      ttlMs: 9_000,
      everyMs: 3_000,
      startHub,
      onControl: () => {},
    });
    running.push(streams);
    await streams.host("greeter", { userId: "1", username: "greeter", rules: [], mentions: true });
    streams.start(); // claims the lease at T0: surely this process's until T0 + 9 s
    await until("the hub started", () => hubs.length === 1, 10_000, 10);
    const token = (await leases.holder("stream:app1"))!.token;
    return { clock, leases, answers, state, hubs, streams, token };
  };

  it("a renewal that found the lease still this process's keeps the stream, however late its answer is read", async () => {
    const p = await holderOf("late:");
    p.state.holdAnswers = true;
    await p.clock.advance(3_000); // the renewal is sent (and run by Redis); its answer waits
    await until("the renewal's answer read late", () => p.answers.length === 1, 10_000, 10);
    // Past `ttl - every` since the claim was sent: the renewal on its way decides.
    await p.clock.advance(3_500);
    expect(p.hubs.map((h) => h.closed)).toEqual([false]);
    p.state.holdAnswers = false;
    p.answers.shift()!();
    await p.clock.advance(4_000); // past the claim's own 9 s: the late renewal's hold is what counts
    expect(p.hubs.map((h) => h.closed)).toEqual([false]);
    // The same claim all along: no new token, no new hub, no gap search.
    expect((await p.leases.holder("stream:app1"))!.token).toBe(p.token);
    await p.streams.close();
  });

  it("a renewal that finds the lease lost stops the stream when its answer is read", async () => {
    const p = await holderOf("late-lost:");
    p.state.holdAnswers = true;
    await p.leases.redis.set(p.leases.key("stream:app1"), "99|B", "PX", 60_000);
    await p.clock.advance(3_000);
    await until("the renewal's answer read late", () => p.answers.length === 1, 10_000, 10);
    expect(p.hubs.map((h) => h.closed)).toEqual([false]);
    p.answers.shift()!();
    await until("the hub stopped", () => p.hubs[0]!.closed, 10_000, 10);
    await p.streams.close();
  });

  it("a renewal whose answer never comes stops the stream a margin before the lease's end", async () => {
    const p = await holderOf("late-never:");
    p.state.holdAnswers = true;
    await p.clock.advance(3_000);
    await until("the renewal's answer read late", () => p.answers.length === 1, 10_000, 10);
    await p.clock.advance(4_900); // T0 + 7.9 s: the claim's 9 s less the margin (1 s) not yet reached
    expect(p.hubs.map((h) => h.closed)).toEqual([false]);
    await p.clock.advance(200);
    await until("the hub stopped", () => p.hubs[0]!.closed, 10_000, 10);
    p.state.holdAnswers = false;
    for (const answer of p.answers.splice(0)) answer();
    await p.streams.close();
  });
});
