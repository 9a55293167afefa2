/**
 * The stream handoff on a real redis-server: the hub's process hands each bot's posts to
 * the process that runs the bot, which acknowledges them once handled; a process killed
 * between delivery and acknowledgement loses nothing, and nothing acknowledged comes back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { connectRedis, type Redis, type SingleRedis } from "../../src/redis/connect.ts";
import {
  HANDOFF_GROUP,
  HandoffReader,
  HandoffWriter,
  handoffKeys,
  type HandedEntry,
  type HandoffControl,
  type HandoffEntry,
} from "../../src/redis/stream-handoff.ts";
import { handing } from "../helpers/handoff.ts";
import { PullQueue } from "../../src/pull-queue.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { socketWrites } from "../helpers/socket-writes.ts";

let server: RedisServer;
let clock: AdjustableClock;
const connections: Redis[] = [];
const readers: HandoffReader[] = [];
let app = 0;

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  for (const r of readers) await r.close();
  for (const c of connections) c.disconnect();
  await server?.close();
});
beforeEach(() => {
  clock = createClock({ frozen: true, start: Date.parse("2026-01-05T12:00:00Z") });
  app++;
});

/** A connection of its own, as each process has. */
async function connection(): Promise<Redis> {
  const c = await connectRedis(server.url);
  connections.push(c);
  return c;
}

const mention = (n: number): BotEvent => ({
  kind: "mention",
  id: `mention:${n}`,
  post: {
    id: String(n),
    text: `@bot hello ${n}`,
    author_id: "9",
    created_at: "2026-01-05T12:00:00.000Z",
    conversation_id: String(n),
    edit_history_post_ids: [String(n)],
  } as never,
  author: { id: "9", name: "Crowd", username: "crowd" },
});

/** One process's reader: what it was handed, and a handler the test controls. */
async function process_(
  consumer: string,
  handle: (bot: string, entry: HandoffEntry) => Promise<void>,
  onControl?: (what: HandoffControl) => void,
  more: { fullSweepMs?: number; redis?: Redis } = {},
) {
  const { fullSweepMs, redis = await connection() } = more;
  const reader = new HandoffReader({
    redis,
    appId: `app${app}`,
    consumer,
    clock,
    log: silentLogger,
    ...handing(handle),
    ...(onControl ? { onControl } : {}),
    ...(fullSweepMs ? { fullSweepMs } : {}),
  });
  readers.push(reader);
  return reader;
}

/** Waits (bounded by real time: a hang guard, not a speed check) until `done()` holds. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Both readers' rounds: each has its sweep timer armed, the clock moves to it, and what it started ends. */
async function rounds(readers_: HandoffReader[], count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await until(() => clock.pending() >= readers_.length && readers_.every((r) => !r.busy()), "the sweep timers armed");
    await clock.advance(5_000);
    await until(() => readers_.every((r) => !r.busy()), "the round's reads done");
  }
}

const idsOf = (entries: Array<{ entry: HandoffEntry }>) => entries.flatMap((e) => e.entry.events.map((ev) => ev.id));

describe("stream handoff", () => {
  it("hands each bot's posts to the process that runs the bot, and acknowledges them once handled", async () => {
    const seen: Record<string, Array<{ bot: string; entry: HandoffEntry }>> = { a: [], b: [] };
    const a = await process_("proc-a", async (bot, entry) => void seen.a!.push({ bot, entry }));
    const b = await process_("proc-b", async (bot, entry) => void seen.b!.push({ bot, entry }));
    a.start();
    b.start();
    await a.own(["greeter"]);
    await b.own(["liker"]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    for (let i = 1; i <= 20; i++)
      await writer.send(i % 2 ? "greeter" : "liker", { kind: "mentions", events: [mention(i)] });
    await until(() => a.handled + b.handled === 20, "20 entries acknowledged");
    expect(seen.a!.every((s) => s.bot === "greeter")).toBe(true);
    expect(seen.b!.every((s) => s.bot === "liker")).toBe(true);
    expect(idsOf(seen.a!).sort()).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19].map((n) => `mention:${n}`).sort());
    expect(idsOf(seen.b!)).toHaveLength(10);
    const redis = await connection();
    const keys = handoffKeys(`app${app}`);
    // Acknowledged entries are gone: nothing pending, nothing left in the streams.
    expect(await redis.xlen(keys.bot("greeter"))).toBe(0);
    expect(await redis.xlen(keys.bot("liker"))).toBe(0);
  });

  it("calls no bot: each entry waits in the reader's queue for hosting to take it, and is acknowledged only once said handled", async () => {
    const handed = new PullQueue<HandedEntry>();
    const reader = new HandoffReader({
      redis: await connection(),
      appId: `app${app}`,
      consumer: "proc-a",
      clock,
      log: silentLogger,
      handed,
    });
    readers.push(reader);
    reader.start();
    await reader.own(["greeter"]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("greeter", { kind: "mentions", events: [mention(1)] });
    await until(() => handed.size === 1, "the entry in the queue");
    const redis = await connection();
    const key = handoffKeys(`app${app}`).bot("greeter");
    const pending = async () => ((await redis.xpending(key, HANDOFF_GROUP)) as [number])[0];
    expect(reader.busy()).toBe(true);
    expect(await pending()).toBe(1);
    const [entry] = (await handed.take())!;
    expect(entry!.bot).toBe("greeter");
    expect(idsOf([entry!])).toEqual(["mention:1"]);
    // Taken, not yet handled: still unacknowledged.
    expect(await pending()).toBe(1);
    entry!.handled();
    await until(() => reader.handled === 1, "acknowledged");
    expect(await pending()).toBe(0);
    expect(reader.busy()).toBe(false);
  });

  it("a process killed between delivery and acknowledgement loses nothing: the next owner takes over what it had not finished", async () => {
    const handledByA: string[] = [];
    // Process A handles the first 5 posts; then it is stuck (it will be killed) holding the rest.
    const a = await process_("proc-a", (_bot, entry) => {
      if (handledByA.length < 5) {
        handledByA.push(...entry.events.map((e) => e.id));
        return Promise.resolve();
      }
      handledByA.push(...entry.events.map((e) => `stuck ${e.id}`));
      return new Promise<void>(() => {});
    });
    a.start();
    await a.own(["greeter"]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    for (let i = 1; i <= 20; i++) await writer.send("greeter", { kind: "mentions", events: [mention(i)] });
    await until(() => handledByA.length === 20 && a.handled === 5, "A was handed all 20 and finished 5");
    // kill -9: A's connections go, nothing of it acknowledges anything any more.
    await a.close();
    const redis = await connection();
    const pending = (await redis.xpending(handoffKeys(`app${app}`).bot("greeter"), HANDOFF_GROUP)) as [number];
    expect(pending[0]).toBe(15);

    const byB: string[] = [];
    const b = await process_("proc-b", async (_bot, entry) => void byB.push(...entry.events.map((e) => e.id)));
    b.start();
    await b.own(["greeter"]); // B won greeter's lease
    await until(() => b.handled === 15, "B finished the 15 A left");
    expect(byB.sort()).toEqual(Array.from({ length: 15 }, (_, i) => `mention:${i + 6}`).sort());
    // What A had acknowledged never comes back; posts after the takeover go to B.
    await writer.send("greeter", { kind: "mentions", events: [mention(21)] });
    await until(() => b.handled === 16, "B handles a new post");
    expect(byB.filter((id) => id === "mention:1")).toHaveLength(0);
    expect(byB.filter((id) => id === "mention:21")).toHaveLength(1);
    expect(((await redis.xpending(handoffKeys(`app${app}`).bot("greeter"), HANDOFF_GROUP)) as [number])[0]).toBe(0);
  });

  it("a process taking many bots over at once takes their streams in a few writes to Redis, not a few a bot; each gets what was left and what is new", async () => {
    const bots = Array.from({ length: 64 }, (_, i) => `bot${i}`);
    // Process A is given a post of each bot and finishes none: it dies with them all pending.
    const a = await process_("proc-a", () => new Promise<void>(() => {}));
    await a.own(bots);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    for (const [i, bot] of bots.entries()) await writer.send(bot, { kind: "mentions", events: [mention(i)] });
    await a.sweep();
    await a.close();
    for (const [i, bot] of bots.entries()) await writer.send(bot, { kind: "mentions", events: [mention(100 + i)] });

    const got = new Map<string, string[]>();
    const redis = await connection();
    const b = new HandoffReader({
      redis,
      appId: `app${app}`,
      consumer: "proc-b",
      clock,
      log: silentLogger,
      ...handing(async (bot, entry) => void got.set(bot, [...(got.get(bot) ?? []), ...entry.events.map((e) => e.id)])),
    });
    readers.push(b);
    const writes = socketWrites(redis, /xack/i); // the acknowledgements of what is handled meanwhile aside
    await b.own(bots);
    await until(() => b.handled === 128, "B handled what A left and what is new");
    expect(writes()).toBeLessThanOrEqual(3); // the groups, what A left, what is new; three a bot before: 192
    for (const [i, bot] of bots.entries())
      expect(got.get(bot)?.sort()).toEqual([`mention:${i}`, `mention:${100 + i}`].sort());
  });

  it("one bot's bad key in Redis fails only that bot's taking of its stream: the others of the batch get what was left and what is new", async () => {
    const bots = ["bot0", "bot1", "bot2", "bot3"];
    const writer = new HandoffWriter(await connection(), `app${app}`);
    for (const [i, bot] of bots.entries())
      if (bot !== "bot2") await writer.send(bot, { kind: "mentions", events: [mention(i)] });
    const redis = await connection();
    await redis.set(handoffKeys(`app${app}`).bot("bot2"), "not a stream"); // XGROUP CREATE: WRONGTYPE
    const got: string[] = [];
    const reader = await process_("proc-a", async (_bot, entry) => void got.push(...entry.events.map((e) => e.id)));
    const failed = await reader.own(bots);
    expect([...failed.keys()]).toEqual(["bot2"]);
    expect(failed.get("bot2")?.message).toMatch(/WRONGTYPE/);
    await until(() => reader.handled === 3, "the three other bots' posts handled");
    expect(got.sort()).toEqual(["mention:0", "mention:1", "mention:3"]);
    // Not run here: once its key is put right, owning it again takes its stream.
    await redis.del(handoffKeys(`app${app}`).bot("bot2"));
    await writer.send("bot2", { kind: "mentions", events: [mention(2)] });
    expect((await reader.own(["bot2"])).size).toBe(0);
    await until(() => reader.handled === 4, "bot2's post handled once owned again");
  });

  it("says which bots were handed posts though it does not read for them: a process about to take a dead one's bots starts those first", async () => {
    const unowned: string[] = [];
    const reader = new HandoffReader({
      redis: await connection(),
      appId: `app${app}`,
      consumer: "proc-a",
      clock,
      log: silentLogger,
      ...handing(async () => {}),
      onUnowned: (bot) => unowned.push(bot),
    });
    readers.push(reader);
    reader.start();
    await reader.own(["greeter"]);
    await until(() => !reader.busy(), "own's read done");
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("liker", { kind: "mentions", events: [mention(1)] });
    await writer.send("greeter", { kind: "mentions", events: [mention(2)] });
    await until(() => reader.handled === 1 && unowned.length === 1, "greeter's post handled, liker's told");
    expect(unowned).toEqual(["liker"]);
  });

  it("a read of many bots' streams that fails for one bot (its group gone) still reads the others at once", async () => {
    const got: string[] = [];
    const reader = await process_("proc-a", async (_bot, entry) => void got.push(...entry.events.map((e) => e.id)));
    await reader.own(["gone", "greeter"]); // not started: the bell's first position reads them both again
    await until(() => !reader.busy(), "own's read done");
    const redis = await connection();
    await redis.del(handoffKeys(`app${app}`).bot("gone")); // its group with it: XREADGROUP answers NOGROUP
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("greeter", { kind: "mentions", events: [mention(1)] });
    reader.start(); // listens from after that post's bell, and reads both bots' streams in one read
    // The clock (and so the sweep) stands still: only the reader's own reads can find it.
    await until(() => reader.handled === 1, "greeter's post handled without a sweep");
    expect(got).toEqual(["mention:1"]);
    await until(
      async () => (await redis.exists(handoffKeys(`app${app}`).bot("gone"))) === 1,
      "gone's group made again",
    );
  });

  it("a post written after the reader read its bots but before its bell found where to listen from is handled at once, not at the next sweep", async () => {
    // The bell finds its start on a connection of its own: hold that answer until the post is written.
    const redis = await connection();
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const duplicate = redis.duplicate.bind(redis);
    redis.duplicate = (() => {
      const bell = duplicate();
      const xrevrange = bell.xrevrange.bind(bell) as (...a: unknown[]) => Promise<unknown>;
      bell.xrevrange = (async (...a: unknown[]) => {
        await held;
        return await xrevrange(...a);
      }) as never;
      connections.push(bell);
      return bell;
    }) as typeof redis.duplicate;
    const got: string[] = [];
    const reader = await process_(
      "proc-a",
      async (_bot, entry) => void got.push(...entry.events.map((e) => e.id)),
      undefined,
      { redis },
    );
    reader.start();
    await reader.own(["greeter"]);
    await until(() => !reader.busy(), "own's read done");
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("greeter", { kind: "mentions", events: [mention(1)] });
    release();
    // The clock (and so the sweep) stands still: only the reader's own reads can find it.
    await until(() => reader.handled === 1, "the post handled without a sweep");
    expect(got).toEqual(["mention:1"]);
  });

  it("a bot stopped here while its post was being handled, then run here again, is handed that post again", async () => {
    const handed: string[] = [];
    // The first handling never ends: the bot was stopped under it (its lease went to another process).
    const a = await process_("proc-a", (_bot, entry) => {
      handed.push(...entry.events.map((e) => e.id));
      return handed.length === 1 ? new Promise<void>(() => {}) : Promise.resolve();
    });
    a.start();
    await a.own(["greeter"]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("greeter", { kind: "mentions", events: [mention(1)] });
    await until(() => handed.length === 1, "handed once");
    a.disown(["greeter"]);
    expect(a.busy()).toBe(false); // the cut-off handling is not waited for
    // The bot's lease comes back to this process: what it had not finished is handed to it again.
    await a.own(["greeter"]);
    await until(() => a.handled === 1, "handled and acknowledged after the bot came back");
    expect(handed).toEqual(["mention:1", "mention:1"]);
    expect(await (await connection()).xlen(handoffKeys(`app${app}`).bot("greeter"))).toBe(0);
  });

  it("two bots' posts handed over in the same millisecond (the same entry id in their two streams) are both handled at once", async () => {
    // Ids are per stream: the hub writing to two bots' streams within a millisecond gives both
    // entries one id. The first being handled must not hold the second back (until a sweep).
    let release = () => {};
    const handed: Array<[string, string]> = [];
    const a = await process_("proc-a", (bot, entry) => {
      handed.push([bot, entry.events[0]!.id]);
      return bot === "greeter" ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    });
    a.start();
    await a.own(["greeter", "liker"]);
    const redis = await connection();
    const keys = handoffKeys(`app${app}`);
    // As HandoffWriter.send writes them, with the ids Redis gives two entries of one millisecond.
    for (const [bot, n] of [
      ["greeter", 1],
      ["liker", 2],
    ] as const) {
      await redis
        .multi()
        .xadd(keys.bot(bot), "1795631477495-0", "e", JSON.stringify({ kind: "mentions", events: [mention(n)] }))
        .xadd(keys.bell, "*", "bot", bot)
        .exec();
    }
    // The clock (and so the sweep) stands still: only the bells read them.
    await until(() => a.handled === 1, "liker's post handled while greeter's is still being handled");
    expect(handed).toEqual([
      ["greeter", "mention:1"],
      ["liker", "mention:2"],
    ]);
    release();
    await until(() => a.handled === 2, "greeter's handled too");
  });

  it("posts written while nobody listened to the bell are read by the sweep; a failed handling is handed out again", async () => {
    let fail = true;
    const got: string[] = [];
    const a = await process_("proc-a", async (_bot, entry) => {
      if (fail) {
        fail = false;
        throw new Error("handler crashed");
      }
      got.push(...entry.events.map((e) => e.id));
    });
    await a.own(["greeter"]); // not started: no bell, no timer
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await writer.send("greeter", { kind: "post", events: [mention(1)] });
    await writer.send("greeter", { kind: "post", events: [mention(2)] });
    await a.sweep();
    await until(() => !a.busy(), "the sweep's entries handled");
    expect(got).toEqual(["mention:2"]); // the first failed, stays unacknowledged
    await a.sweep();
    await until(() => got.length === 2 && !a.busy(), "the failed one handed out again");
    expect(got).toEqual(["mention:2", "mention:1"]);
    expect(a.handled).toBe(2);
  });

  it("an idle round sends Redis nothing for the bots' streams, however many bots the process runs", async () => {
    const heard = { small: 0, big: 0 };
    const small = await process_(
      "proc-small",
      async () => {},
      () => void heard.small++,
    );
    const big = await process_(
      "proc-big",
      async () => {},
      () => void heard.big++,
    );
    small.start();
    big.start();
    const bots = (n: number, name: string) => Array.from({ length: n }, (_, i) => `${name}${i}`);
    await small.own(bots(10, "s"));
    await big.own(bots(1_200, "b")); // more than one sweep command's worth of streams
    // Both listen to the bell once they hear the hub; that (and starting) makes the next round sweep.
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await until(async () => {
      await writer.control("connected");
      return heard.small > 0 && heard.big > 0;
    }, "both readers hear the bell");
    // Bells are read in order: once both heard one more, no earlier one is still on its way.
    const before = { ...heard };
    await writer.control("connected");
    await until(() => heard.small > before.small && heard.big > before.big, "the last bell heard");
    await rounds([small, big], 2);

    // The commands on the bots' streams, as Redis sees them, over three idle rounds.
    const streams = `handoff:app${app}:bot:`;
    const sent = { small: 0, big: 0 };
    let marker = "";
    const m = await ((await connection()) as SingleRedis).monitor();
    connections.push(m);
    m.on("monitor", (_t: string, args: string[]) => {
      if (args[0] === "echo") marker = args[1]!;
      else if (args.some((a) => a.includes(`${streams}s`))) sent.small++;
      else if (args.some((a) => a.includes(`${streams}b`))) sent.big++;
    });
    await rounds([small, big], 3);
    const redis = await connection();
    await redis.echo(`idle-${app}`);
    await until(() => marker === `idle-${app}`, "the monitor caught up");
    expect(sent).toEqual({ small: 0, big: 0 });

    // A post still reaches its bot by its bell alone.
    await writer.send("b1199", { kind: "mentions", events: [mention(1)] });
    await until(() => big.handled === 1, "the post handled by its bell");
    m.disconnect();
  });

  it("what may have slipped past the bell is swept in the next round; without a sign, within the longest time between sweeps", async () => {
    let fail = true;
    const got: string[] = [];
    const heard: HandoffControl[] = [];
    const a = await process_(
      "proc-a",
      async (_bot, entry) => {
        if (fail && entry.events[0]!.id === "mention:3") {
          fail = false;
          throw new Error("handler crashed");
        }
        got.push(...entry.events.map((e) => e.id));
      },
      (w) => heard.push(w),
      { fullSweepMs: 60_000 },
    );
    a.start();
    await a.own(["greeter"]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    await until(async () => {
      await writer.control("connected");
      return heard.length > 0;
    }, "the reader hears the bell");
    // Bells are read in order: once it heard this one, no earlier one is still on its way.
    await writer.control("interrupted");
    await until(() => heard.at(-1) === "interrupted", "the last bell heard");
    await rounds([a], 1);
    const redis = await connection();
    const stream = handoffKeys(`app${app}`).bot("greeter");
    const unrung = (n: number) =>
      redis.xadd(stream, "*", "e", JSON.stringify({ kind: "mentions", events: [mention(n)] }));

    // An entry whose bell was refused (a cluster's hub died between the two): idle rounds do not read it...
    await unrung(1);
    await rounds([a], 2);
    expect(got).toEqual([]);
    // ...the next hub's word does, in the round after.
    heard.length = 0;
    await writer.control("connected");
    await until(() => heard.length > 0, "the hub's word heard");
    await rounds([a], 1);
    expect(got).toEqual(["mention:1"]);

    // A failed handling: the round after hands it out again.
    await writer.send("greeter", { kind: "mentions", events: [mention(3)] });
    await until(() => !fail && !a.busy(), "the handling failed");
    expect(got).toEqual(["mention:1"]);
    await rounds([a], 1);
    await until(() => a.handled === 2, "handed out again and handled");
    expect(got).toEqual(["mention:1", "mention:3"]);

    // With no sign at all, the longest time between two sweeps (here a minute) reads it anyway.
    await unrung(4);
    await rounds([a], 11);
    expect(got).not.toContain("mention:4");
    await rounds([a], 1);
    await until(() => got.includes("mention:4"), "swept a minute after the last sweep");
    expect(got).toEqual(["mention:1", "mention:3", "mention:4"]);
  });

  it("the hub's word about the connection reaches every process", async () => {
    const heard: Array<[string, HandoffControl]> = [];
    const a = await process_(
      "proc-a",
      async () => {},
      (w) => heard.push(["a", w]),
    );
    const b = await process_(
      "proc-b",
      async () => {},
      (w) => heard.push(["b", w]),
    );
    a.start();
    b.start();
    await a.own([]);
    const writer = new HandoffWriter(await connection(), `app${app}`);
    // The readers start listening from the newest bell; give them that first answer.
    await until(async () => {
      await writer.control("connected");
      return heard.length >= 2 && heard.some(([p]) => p === "a") && heard.some(([p]) => p === "b");
    }, "both processes heard the hub");
    await writer.control("interrupted");
    const interrupted = () => heard.filter(([, w]) => w === "interrupted").map(([p]) => p);
    await until(() => interrupted().length === 2, "both heard the interruption");
    expect(interrupted().sort()).toEqual(["a", "b"]);
  });
});
