import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { FENCE_CHECK_LUA, FencedError, isFenced, type Lease } from "../../src/fencing.ts";
import { Leases } from "../../src/redis/leases.ts";
import { RedisScript } from "../../src/redis/script.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer;
let redis: Redis;
let leases: Leases;

beforeAll(async () => {
  server = await startRedisServer();
  redis = await connectRedis(server.url);
  leases = new Leases(redis, { prefix: "t:" });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.close();
});

/** Waits (bounded) until Redis's own TTL has removed lease `name`: real time must pass for a real TTL. */
async function expired(name: string, boundMs = 5_000): Promise<void> {
  const until = Date.now() + boundMs;
  while ((await leases.holder(name)) !== undefined) {
    if (Date.now() > until) throw new Error(`lease ${name} still held after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("leases", () => {
  it("one claim at a time; tokens only grow, across holders and re-claims", async () => {
    const a = await leases.claim("bot:greeter", "A", 10_000);
    expect(a?.token).toBe(1);
    expect(await leases.claim("bot:greeter", "B", 10_000)).toBeUndefined();
    expect(await leases.holder("bot:greeter")).toMatchObject({ owner: "A", token: 1 });
    const again = await leases.claim("bot:greeter", "A", 10_000);
    expect(again?.token).toBe(2);
    expect(again?.tookOver).toBe(false); // its own
    // The older handle is fenced off by the re-claim.
    expect(await leases.renew(a!, 10_000)).toBe(false);
    expect(await leases.release(again!)).toBe(true);
    const b = await leases.claim("bot:greeter", "B", 10_000);
    // Given back: not taken over from anyone.
    expect(b).toEqual({ name: "bot:greeter", owner: "B", token: 3, tookOver: false });
    // Another name has its own counter.
    expect((await leases.claim("bot:other", "A", 10_000))?.token).toBe(1);
  });

  it("a stream lease nobody renews expires by Redis's TTL and can then be claimed; renewing keeps it", async () => {
    const kept = await leases.claim("stream:kept", "A", 300);
    const lost = await leases.claim("stream:lost", "A", 300);
    expect(await leases.renew(kept!, 60_000)).toBe(true);
    await expired("stream:lost");
    expect(await leases.renew(lost!, 300)).toBe(false);
    expect((await leases.holder("stream:kept"))?.owner).toBe("A");
    const taken = await leases.claim("stream:lost", "B", 10_000);
    expect(taken?.token).toBe(lost!.token + 1);
    // Ran out, never given back: taken over (its holder may have had requests on their way).
    expect(taken?.tookOver).toBe(true);
  });

  it("renewing many at once says which are still held and extends only those", async () => {
    const mine = await Promise.all(Array.from({ length: 1_200 }, (_, i) => leases.claim(`bot:many${i}`, "A", 60_000)));
    // One taken over by B, one released and claimed again by A (the old handle is stale).
    await leases.release(mine[7]!);
    await leases.claim("bot:many7", "B", 60_000);
    await leases.claim("bot:many900", "A", 60_000);
    const held = await leases.renewAll(
      mine.map((l) => l!),
      120_000,
    );
    expect(held).toHaveLength(1_200);
    expect(held.map((h, i) => (h ? -1 : i)).filter((i) => i >= 0)).toEqual([7, 900]);
    expect((await leases.holder("bot:many1199"))!.ttlMs).toBeGreaterThan(60_000);
    expect(await leases.holder("bot:many7")).toMatchObject({ owner: "B" });
    expect((await leases.holder("bot:many7"))!.ttlMs).toBeLessThanOrEqual(60_000);
  });

  it("a fenced write applies all its commands only while the claim is current", async () => {
    const a = (await leases.claim("bot:f", "A", 300))!;
    expect(
      await leases.fenced(a, [
        ["SET", "t:x", "1"],
        ["HSET", "t:h", "k", 42],
        ["GET", "t:missing"],
        ["GET", "t:x"],
      ]),
    ).toEqual(["OK", 1, null, "1"]);
    await expired("bot:f");
    // Expired and not yet claimed again: a stale holder is refused all the same.
    await expect(leases.fenced(a, [["SET", "t:x", "2"]])).rejects.toBeInstanceOf(FencedError);
    const b = (await leases.claim("bot:f", "B", 10_000))!;
    await expect(
      leases.fenced(a, [
        ["SET", "t:x", "3"],
        ["SET", "t:y", "3"],
      ]),
    ).rejects.toThrow(/bot:f.*token 1.*refused/);
    expect(await redis.mget("t:x", "t:y")).toEqual(["1", null]);
    await leases.fenced(b, [["SET", "t:x", "4"]]);
    expect(await redis.get("t:x")).toBe("4");
    // Large numbers go through as they are.
    await leases.fenced(b, [["SET", "t:n", 17_639_424_000_001]]);
    expect(await redis.get("t:n")).toBe("17639424000001");
  });

  it("a stream lease that ran out stays its last holder's while that holder is a live member; a stale handle is still refused", async () => {
    const members = leases.membersKey;
    const alive = async (owner: string, forMs: number) => {
      const [s, us] = await redis.time();
      await redis.zadd(members, Number(s) * 1000 + Math.floor(Number(us) / 1000) + forMs, owner);
    };
    await alive("A", 60_000);
    await alive("B", 60_000);
    const a = (await leases.claim("stream:p", "A", 300))!;
    await expired("stream:p"); // as when Redis hung longer than the lease had left
    // B, a live member too, may not take it: A may still come back for it.
    expect(await leases.claim("stream:p", "B", 10_000)).toBeUndefined();
    const again = (await leases.claim("stream:p", "A", 300))!;
    expect(again.token).toBe(a.token + 1);
    await expect(leases.fenced(a, [["SET", "t:p", "stale"]])).rejects.toBeInstanceOf(FencedError);
    expect(await redis.get("t:p")).toBeNull();
    // Given back (even once run out): anyone may claim it at once.
    await expired("stream:p");
    expect(await leases.release(again)).toBe(false);
    expect((await leases.claim("stream:p", "B", 300))?.owner).toBe("B");
    // A holder that is no longer a live member (dead: its membership expired) keeps nothing.
    await alive("B", -1);
    await expired("stream:p");
    expect((await leases.claim("stream:p", "A", 10_000))?.owner).toBe("A");
    // Without members at all (no bot claims), a lease that ran out is free as it always was.
    await redis.del(members);
    const c = (await leases.claim("stream:free", "A", 300))!;
    await expired("stream:free");
    expect((await leases.claim("stream:free", "B", 10_000))?.token).toBe(c.token + 1);
  });

  it("a bot's claim has no ttl: its owner's heartbeat, one key a bucket, keeps every claim of it live", async () => {
    const bots = Array.from({ length: 50 }, (_, i) => `beat${i}`);
    const mine = (await leases.claimAll(
      bots.map((b) => `bot:${b}`),
      "A",
      300,
    )) as Lease[];
    expect(mine.every((l) => l?.owner === "A")).toBe(true);
    expect(await redis.pttl(leases.key("bot:beat0"))).toBe(-1);
    const heartbeat = leases.heartbeatKey(mine[0]!);
    expect(new Set(mine.map((l) => leases.heartbeatKey(l)))).toEqual(new Set([heartbeat]));
    expect(await redis.pttl(heartbeat)).toBeGreaterThan(0);
    await leases.fenced(mine[0]!, [["SET", "t:beat", "1"]]);
    // A stalls: its heartbeat runs out, its claims stay as they were.
    await expired("bot:beat0");
    expect(await redis.get(leases.key("bot:beat0"))).toBe(leases.value(mine[0]!));
    // Refused before anyone claimed the bot: a stalled holder's late write never lands.
    await expect(leases.fenced(mine[0]!, [["SET", "t:beat", "2"]])).rejects.toBeInstanceOf(FencedError);
    expect(await redis.get("t:beat")).toBe("1");
    // B takes one (taken over: A never gave it back); A's heartbeat back, its other claims are live again, that one is not.
    const taken = (await leases.claim("bot:beat1", "B", 60_000))!;
    expect(taken).toMatchObject({ owner: "B", tookOver: true, token: mine[1]!.token + 1 });
    expect(await leases.renewAll(mine.slice(0, 3), 60_000)).toEqual([true, false, true]);
    await leases.fenced(mine[0]!, [["SET", "t:beat", "3"]]);
    await expect(leases.fenced(mine[1]!, [["SET", "t:beat", "4"]])).rejects.toBeInstanceOf(FencedError);
    expect(await redis.get("t:beat")).toBe("3");
    // Alive, A keeps what it holds; given back, a bot is free at once (not taken over).
    expect(await leases.claim("bot:beat2", "B", 60_000)).toBeUndefined();
    expect(await leases.release(mine[2]!)).toBe(true);
    expect(await leases.claim("bot:beat2", "B", 60_000)).toMatchObject({ owner: "B", tookOver: false });
    // A leaves: its heartbeat deleted, its bots are free at once.
    await leases.bots.stopBeating([heartbeat]);
    expect(await leases.holder("bot:beat3")).toBeUndefined();
    expect((await leases.claim("bot:beat3", "B", 60_000))?.owner).toBe("B");
  });

  it("scripts of one's own can start with the fence check", async () => {
    const setIfHolder = new RedisScript(`${FENCE_CHECK_LUA}\nreturn redis.call('SET', KEYS[3], ARGV[2])`);
    const a = (await leases.claim("stream:app", "A", 10_000))!;
    const fence = (lease: typeof a) => [leases.key(lease.name), leases.heartbeatKey(lease), "t:since"];
    await setIfHolder.run(redis, fence(a), [leases.value(a), "99"]);
    expect(await redis.get("t:since")).toBe("99");
    await leases.claim("stream:app", "A", 10_000);
    const refused = await setIfHolder.run(redis, fence(a), [leases.value(a), "100"]).catch((err: unknown) => err);
    expect(isFenced(refused)).toBe(true);
    expect(await redis.get("t:since")).toBe("99");
  });

  it("scripts survive a Redis restart that emptied its script cache", async () => {
    const a = (await leases.claim("bot:r", "A", 60_000))!;
    await server.restart();
    expect(await leases.renew(a, 60_000)).toBe(true);
    expect(await redis.script("EXISTS", new RedisScript("return 1").sha)).toEqual([0]);
  });
});
