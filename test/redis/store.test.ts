import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FencedError, type Lease } from "../../src/fencing.ts";
import { Leases } from "../../src/redis/leases.ts";
import { connectRedis, type Redis, type SingleRedis } from "../../src/redis/connect.ts";
import { FIELDS_PER_TRANSACTION } from "../../src/redis/store-flushing.ts";
import { openRedisStore, readRedisState, type Fencing } from "../../src/redis/store.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { socketWrites } from "../helpers/socket-writes.ts";
import { until } from "../helpers/until.ts";

let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect();
  const admin = await connectRedis(server.url);
  await admin.flushdb();
  admin.disconnect();
});
afterAll(() => server?.close());

const connect = async () => {
  const c = await connectRedis(server.url);
  clients.push(c);
  return c;
};

/** Fencing by a fixed table of leases, as the bot claims would give. */
function fencingOf(leases: Leases, held: Map<string, Lease>, refused: string[]): Fencing {
  return { leases, current: async (bot) => held.get(bot), refused: (bot) => void refused.push(bot) };
}

describe("the state in Redis", () => {
  it("writes and deletes a shard's 150,000 changed fields in one flush, as a deployment's shared accounts", async () => {
    const a = await openRedisStore({ redis: await connect(), closeConnection: false });
    const keys = Array.from({ length: 150_000 }, (_, i) => `account-${i}`);
    for (const key of keys) a.set("auth:accounts", key, { token: "t" });
    await a.flush();
    const b = await openRedisStore({ redis: await connect(), closeConnection: false });
    expect(b.entries("auth:accounts")).toHaveLength(150_000);
    for (const key of keys) b.delete("auth:accounts", key);
    await b.flush();
    const c = await readRedisState(server.url);
    expect(c.entries("auth:accounts")).toEqual([]);
    await c.close();
    // 300,000 field writes and reads: 7 s on a quiet machine, 15-21 s in a full run on two cores.
  }, 60_000);

  it("writes thousands of statuses in transactions of at most FIELDS_PER_TRANSACTION fields, sent in order", async () => {
    const redis = await connect();
    const store = await openRedisStore({ redis, closeConnection: false });
    const transactions: number[] = [];
    // monitor() opens a connection of its own, in MONITOR mode: that one is closed after the test
    // (left open, it followed Redis's restart in a later test and broke its command queue).
    const monitor = await (redis as SingleRedis).monitor();
    clients.push(monitor);
    let open: number | undefined;
    let seen = "";
    let roundIn: number | undefined;
    monitor.on("monitor", (_t: string, args: string[]) => {
      const command = args[0]!.toLowerCase();
      if (command === "multi") open = 0;
      else if (command === "exec") transactions.push(open!);
      else if (command === "hset" && open !== undefined) {
        open += (args.length - 2) / 2;
        if (args.some((a) => a.startsWith("status.rounds"))) roundIn = transactions.length;
      } else if (command === "echo") seen = args[1]!;
    });
    // A status round's save: every bot's status (a process's first round), then its round record.
    for (let i = 0; i < 2_500; i++) store.set("status", `bot${i}`, { bot: `bot${i}`, running: true });
    store.set("status.rounds", "saver", { at: 1 });
    await store.flush();
    // MONITOR reports late: once it reports a command sent after the flush, it has reported it all.
    await redis.echo("flushed");
    await until("the flush reported", async () => seen === "flushed");
    expect(transactions.reduce((a, b) => a + b, 0)).toBe(2_501);
    expect(Math.max(...transactions)).toBeLessThanOrEqual(FIELDS_PER_TRANSACTION);
    // In order: the round record, set last, in the last transaction, after every status.
    expect(roundIn).toBe(transactions.length - 1);
    const reader = await openRedisStore({ redis: await connect(), closeConnection: false, readOnly: true });
    expect(reader.entries("status")).toHaveLength(2_500);
    expect(reader.get("status.rounds", "saver")).toEqual({ at: 1 });
  });

  it("keeps values across opens, in insertion order, with deletes and retention", async () => {
    const a = await openRedisStore({ redis: await connect(), closeConnection: false });
    a.set("ledger", "greeter:1", { state: "done" });
    a.set("ledger", "echo:1", { state: "queued" });
    a.set("ledger", "greeter:2", { state: "done" });
    a.set("auth:accounts", "main", { token: "t0ken" });
    a.set("kv:greeter", "count", 3);
    await a.flush();
    a.delete("kv:greeter", "count");
    a.set("ledger", "greeter:1", { state: "failed" }); // an update keeps its place
    await a.flush();
    const b = await openRedisStore({ redis: await connect(), closeConnection: false });
    expect(b.entries("ledger")).toEqual([
      ["greeter:1", { state: "failed" }],
      ["echo:1", { state: "queued" }],
      ["greeter:2", { state: "done" }],
    ]);
    expect(b.get("kv:greeter", "count")).toBeUndefined();
    expect(b.get("auth:accounts", "main")).toEqual({ token: "t0ken" });
    b.retain!("ledger", { maxEntries: 2 });
    await b.flush();
    const c = await readRedisState(server.url);
    expect(c.entries("ledger").map(([k]) => k)).toEqual(["echo:1", "greeter:2"]);
    await c.close();
    // One hash per file of the file store's table; the token only in the credentials one.
    const redis = await connect();
    expect((await redis.keys("postbot:state:*")).sort()).toEqual([
      "postbot:state:bots/echo",
      "postbot:state:bots/greeter",
      "postbot:state:credentials",
    ]);
  });

  it("adopts a value as it is (no copy, as the ledger's own entries are stored) and writes it like a set one", async () => {
    const a = await openRedisStore({ redis: await connect(), closeConnection: false });
    const entry = { state: "pending", kind: "like" };
    a.adopt!("ledger", "greeter:1", entry);
    expect(a.get("ledger", "greeter:1")).toBe(entry);
    await a.flush();
    const b = await openRedisStore({ redis: await connect(), closeConnection: false });
    expect(b.entries("ledger")).toEqual([["greeter:1", { state: "pending", kind: "like" }]]);
  });

  it("with fencing: a bot's values are read when held, written only under its lease, and refused once another holds it", async () => {
    const redis = await connect();
    const leases = new Leases(redis);
    const held = new Map<string, Lease>();
    const refused: string[] = [];
    const seed = await openRedisStore({ redis, closeConnection: false });
    seed.set("cursors", "greeter:mentions", { since_id: "5" });
    seed.set("auth:accounts", "main", { token: "x" });
    await seed.flush();

    const store = await openRedisStore({ redis, closeConnection: false, fencing: fencingOf(leases, held, refused) });
    expect(store.get("auth:accounts", "main")).toEqual({ token: "x" });
    expect(store.get("cursors", "greeter:mentions")).toBeUndefined(); // not held: not read
    held.set("greeter", (await leases.claim("bot:greeter", "P1", 60_000))!);
    await store.hold("greeter");
    expect(store.get("cursors", "greeter:mentions")).toEqual({ since_id: "5" });

    store.set("cursors", "greeter:mentions", { since_id: "6" });
    store.set("cursors", "echo:mentions", { since_id: "99" }); // echo is not held here: dropped
    await store.flushFor("cursors", "greeter:mentions");
    expect(await redis.hkeys("postbot:state:bots/echo")).toEqual([]);

    // Another process takes greeter over (this one's lease expired meanwhile).
    await leases.release(held.get("greeter")!);
    const other = (await leases.claim("bot:greeter", "P2", 60_000))!;
    store.set("ledger", "greeter:reply-1", { state: "pending" });
    store.set("auth:accounts", "second", { token: "y" });
    await expect(store.flushFor("ledger", "greeter:reply-1")).rejects.toBeInstanceOf(FencedError);
    expect(refused).toEqual(["greeter"]);
    await store.flush(); // the others' values: a bot's flush writes its own part only
    const after = await readRedisState(server.url);
    expect(after.get("ledger", "greeter:reply-1")).toBeUndefined();
    expect(after.get("cursors", "greeter:mentions")).toEqual({ since_id: "6" });
    expect(after.get("auth:accounts", "second")).toEqual({ token: "y" }); // other values went on
    await after.close();
    expect(other.token).toBeGreaterThan(held.get("greeter")!.token);

    // Dropped and held again (with a new lease): read fresh, written again.
    store.drop("greeter");
    expect(store.get("ledger", "greeter:reply-1")).toBeUndefined();
    await leases.release(other);
    held.set("greeter", (await leases.claim("bot:greeter", "P1", 60_000))!);
    await store.hold("greeter");
    store.set("kv:greeter", "n", 1);
    await store.flushFor("kv:greeter", "n");
    expect(await redis.hkeys("postbot:state:bots/greeter")).toContain("kv:greeter\u0000n");
  });

  it("holds and rereads asked in one turn (a start's bots) go to Redis in one write each, not one a bot; a bad key fails only its bot", async () => {
    const redis = await connect();
    const leases = new Leases(redis);
    const held = new Map<string, Lease>();
    const bots = Array.from({ length: 64 }, (_, i) => `bot${i}`);
    const seed = await openRedisStore({ redis, closeConnection: false });
    for (const bot of bots) {
      seed.set("cursors", `${bot}:mentions`, { since_id: bot });
      seed.set("status", bot, { ran: bot });
    }
    await seed.flush();
    const store = await openRedisStore({ redis, closeConnection: false, fencing: fencingOf(leases, held, []) });
    for (const bot of bots) held.set(bot, (await leases.claim(`bot:${bot}`, "P1", 60_000))!);
    await redis.hset("postbot:state:status", "status\u0000bot3", JSON.stringify([999_999, { ran: "again" }]));

    const writes = socketWrites(redis);
    await Promise.all(bots.map((bot) => store.hold(bot)));
    expect(writes()).toBe(1); // one a bot before: 64
    await Promise.all(bots.map((bot) => store.reread("status", bot)));
    expect(writes()).toBe(2);
    for (const bot of bots) expect(store.get("cursors", `${bot}:mentions`)).toEqual({ since_id: bot });
    expect(store.get("status", "bot3")).toEqual({ ran: "again" });
    expect(store.get("status", "bot4")).toEqual({ ran: "bot4" });

    // A key of the wrong type among them: its bot's hold fails as it would alone, the others are read.
    for (const bot of bots) store.drop(bot);
    await redis.set("postbot:state:bots/bot7", "not a hash");
    const holds = await Promise.allSettled(bots.map((bot) => store.hold(bot)));
    expect(holds.filter((h) => h.status === "rejected")).toHaveLength(1);
    expect(holds[7]).toMatchObject({ status: "rejected", reason: { message: expect.stringMatching(/WRONGTYPE/) } });
    expect(store.get("cursors", "bot8:mentions")).toEqual({ since_id: "bot8" });
  });

  it("a flush while Redis is down waits and completes when it is back", async () => {
    const store = await openRedisStore({ redis: await connect(), closeConnection: false });
    await server.stop();
    store.set("kv:greeter", "during", "outage");
    let done = false;
    const flushed = store.flush().then(() => (done = true));
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    await server.restart();
    await flushed;
    const check = await readRedisState(server.url);
    expect(check.get("kv:greeter", "during")).toBe("outage");
    await check.close();
  });

  it("a key of the wrong type (WRONGTYPE) is named, with what to do, when read and when written", async () => {
    const redis = await connect();
    await redis.set("postbot:state:bots/greeter", "not a hash");
    const opening = openRedisStore({ redis, closeConnection: false });
    await expect(opening).rejects.toThrow(
      /^Redis refused HGETALL on the key postbot:state:bots\/greeter: it holds another kind of value than postbot keeps there \(WRONGTYPE\)\. .*redis-cli TYPE postbot:state:bots\/greeter.*redis-cli DEL postbot:state:bots\/greeter/,
    );
    await redis.del("postbot:state:bots/greeter");
    const store = await openRedisStore({ redis, closeConnection: false });
    await redis.set("postbot:state:bots/greeter", "not a hash"); // damaged while it runs
    store.set("ledger", "greeter:reply:1", { state: "pending" });
    await expect(store.flush()).rejects.toThrow(
      /^Redis refused .* on the key postbot:state:bots\/greeter: .*WRONGTYPE/,
    );
  });

  it("a Redis out of memory (OOM) is named with the key and what to do, and what was not written is written later", async () => {
    const redis = await connect();
    const store = await openRedisStore({ redis, closeConnection: false });
    await redis.config("SET", "maxmemory-policy", "noeviction");
    await redis.config("SET", "maxmemory", "1");
    try {
      store.set("ledger", "greeter:reply:1", { state: "pending" });
      await expect(store.flush()).rejects.toThrow(
        "Redis refused EXEC on the key postbot:state:bots/greeter: Redis is out of memory (OOM: its maxmemory is reached and it evicts nothing). Nothing of this write was kept; it is tried again at the next save. Raise maxmemory (redis-cli CONFIG SET maxmemory ...) or free memory in that Redis",
      );
    } finally {
      await redis.config("SET", "maxmemory", "0");
    }
    await store.flush();
    const check = await openRedisStore({ redis: await connect(), closeConnection: false });
    expect(check.get("ledger", "greeter:reply:1")).toEqual({ state: "pending" });
    await check.close();
  });

  it("refuses a value it cannot read, naming the key and how to remove it", async () => {
    const redis = await connect();
    await redis.hset("postbot:state:shared", "junk", "not json");
    await expect(openRedisStore({ redis, closeConnection: false })).rejects.toThrow(
      /Redis key postbot:state:shared field "junk" is not a postbot value; remove it \(redis-cli HDEL postbot:state:shared <field>\)/,
    );
    // Read again while it runs (a bot's status, before the bot starts): the same words.
    await redis.hdel("postbot:state:shared", "junk");
    const store = await openRedisStore({ redis, closeConnection: false });
    await redis.hset("postbot:state:status", "status\u0000greeter", "{not json");
    await expect(store.reread("status", "greeter")).rejects.toThrow(
      'Redis key postbot:state:status field "status greeter" is not a postbot value; remove it (redis-cli HDEL postbot:state:status <field>) and start again',
    );
  });
});

/**
 * `redis` whose transactions naming `hash` wait for `gate` before they are sent: a slow write
 * of that one key (every bot's status, a megabyte at 25,000 bots) on the real Redis.
 */
function holdingBack(redis: Redis, hash: string, gate: Promise<void>): Redis {
  const multi = () => {
    const m = redis.multi();
    let named = false;
    const call = (...args: [string, ...string[]]) => {
      named ||= args[1] === hash;
      m.call(...args);
      return proxy;
    };
    const exec = async () => {
      if (named) await gate;
      return await m.exec();
    };
    const proxy: object = new Proxy(m, {
      get: (t, p) => (p === "call" ? call : p === "exec" ? exec : Reflect.get(t, p)),
    });
    return proxy;
  };
  return new Proxy(redis, { get: (t, p) => (p === "multi" ? multi : Reflect.get(t, p)) });
}

describe("a bot's own flush", () => {
  it("does not wait for the status of every bot on its way; a flush of everything still does", async () => {
    const redis = await connect();
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const store = await openRedisStore({
      redis: holdingBack(redis, "postbot:state:status", gate),
      closeConnection: false,
    });
    store.set("status", "greeter", { bot: "greeter" });
    let statusWritten = false;
    const statusRound = store.flush().then(() => (statusWritten = true));
    // A streamed mention meanwhile: its inbox entry, then its ledger mark, each made durable alone.
    store.set("inbox:greeter", "post:1", { id: "post:1" });
    await store.flushPartOf("inbox:greeter", "post:1");
    store.set("ledger", "greeter:reply:1", { state: "pending" });
    await store.flushFor("ledger", "greeter:reply:1");
    const reader = await connect();
    expect(await reader.hexists("postbot:state:bots/greeter", "ledger\u0000greeter:reply:1")).toBe(1);
    expect(await reader.hexists("postbot:state:bots/greeter", "inbox:greeter\u0000post:1")).toBe(1);
    expect(await reader.exists("postbot:state:status")).toBe(0);
    expect(statusWritten).toBe(false);
    // A flush of everything asked now resolves only once the status it follows is written too.
    let allWritten = false;
    const all = store.flush().then(() => (allWritten = true));
    await store.flushFor("ledger", "greeter:reply:1");
    expect(allWritten).toBe(false);
    open();
    await Promise.all([statusRound, all]);
    expect(await reader.hexists("postbot:state:status", "status\u0000greeter")).toBe(1);
  });
});
