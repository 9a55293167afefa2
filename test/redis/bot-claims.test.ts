/**
 * How processes that start together claim their bots: each takes its share in its first look
 * for free bots (no lost races left for a later renewal), with a few scripts rather than one
 * round trip per bot. Real Redis; the claims' clocks are frozen, so no renewal comes between
 * and what each holds is what its first look claimed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { HOST_CONCURRENCY } from "../../src/redis/bot-claims.ts";
import { FencedError } from "../../src/fencing.ts";
import { connectRedis, type Redis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { openRedisStore } from "../../src/redis/store.ts";
import { myPart } from "../../src/redis/share-split.ts";
import { claimsOf, renewal, renewed } from "../helpers/claims.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectRedis(server.url);
});
afterAll(async () => {
  admin?.disconnect();
  await server?.close();
});

/** Scripts Redis ran so far (EVALSHA and EVAL). */
async function scriptsRun(): Promise<number> {
  const info = await admin.info("commandstats");
  return [...info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

const BOTS = Array.from({ length: 600 }, (_, i) => `bot${String(i).padStart(3, "0")}`);

/** A process's claims over its own connection, its bots "started" into `started`. */
async function processClaims(owner: string, prefix: string) {
  const redis = await connectRedis(server.url);
  const started = new Set<string>();
  const claims = claimsOf({
    redis,
    prefix,
    owner,
    bots: BOTS,
    async host(bot) {
      started.add(bot);
    },
    async unhost(bot) {
      started.delete(bot);
    },
  });
  return { claims, started, redis };
}

describe("bot claims of processes starting together", () => {
  it("each of three claims its share of 600 bots in its first look, in a few scripts", async () => {
    const procs = await Promise.all(["P1", "P2", "P3"].map((owner) => processClaims(owner, "together:")));
    try {
      for (const p of procs) await p.claims.announce();
      const before = await scriptsRun();
      await Promise.all(procs.map((p) => p.claims.start()));
      const scripts = (await scriptsRun()) - before;
      for (const p of procs) {
        expect(p.claims.bots()).toHaveLength(200);
        expect(p.started.size).toBe(200);
      }
      expect(new Set(procs.flatMap((p) => p.claims.bots())).size).toBe(600);
      // A heartbeat each, and a claim script a round (two or three rounds a process at most):
      // the 600 leases were claimed by a handful of scripts, not one each.
      expect(scripts).toBeLessThanOrEqual(12);
    } finally {
      for (const p of procs) {
        await p.claims.stop();
        p.redis.disconnect();
      }
    }
  });
});

describe("starting the bots claimed", () => {
  it("starts 64 at once by default: each start waits on Redis answers more than on the CPU", async () => {
    const redis = await connectRedis(server.url);
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    let entered = 0;
    const claims = claimsOf({
      redis,
      prefix: "starting:",
      owner: "P1",
      bots: BOTS,
      async host() {
        entered++;
        await gate;
      },
    });
    try {
      const starting = claims.start();
      await vi.waitFor(() => expect(entered).toBe(HOST_CONCURRENCY), { timeout: 10_000, interval: 5 });
      expect(HOST_CONCURRENCY).toBe(64);
      expect(claims.bots()).toHaveLength(600); // all claimed; the others wait their turn to start
      open();
      await starting;
      expect(entered).toBe(600);
    } finally {
      open();
      await claims.stop();
      redis.disconnect();
    }
  });
});

describe("the split of the free bots", () => {
  it("gives members of the same view disjoint parts up to each one's room below the share, covering every free bot", () => {
    const members = ["host:1:a", "host:2:b", "host:3:c"];
    // host:1:a holds 150 already: its room is 100 of a share of 250 (750 bots over three).
    const free = BOTS;
    const holding = new Map([["host:1:a", 150]]);
    const parts = members.map((me) => myPart({ free, members, me, holding, share: 250 }));
    expect(parts.map((p) => p.length)).toEqual([100, 250, 250]);
    expect(new Set(parts.flat()).size).toBe(600);
    // A member not yet listed counts itself in.
    const late = myPart({ free, members: members.slice(1), me: "host:1:a", holding, share: 250 });
    expect(late).toEqual(parts[0]);
  });
});

describe("renewals while a large start-up is in progress", () => {
  it("renews every lease and the membership on time while the start's commands hold the main connection", async () => {
    const redis = await connectRedis(server.url);
    const line = await connectRedis(server.url);
    const clock = createClock({ frozen: true, start: 0 });
    const prefix = "busy:";
    const leases = new Leases(redis, { prefix });
    let open = () => {};
    const gate = new Promise<void>((r) => (open = r));
    let entered = 0;
    const claims = claimsOf({
      redis,
      leases,
      renewals: new Leases(line, { prefix }),
      owner: "P1",
      bots: BOTS,
      clock,
      async host() {
        // The start's first bot holds the main connection (a BLPOP blocks it, as a queue of
        // thousands of start-up commands ahead of a renewal does until Redis has answered
        // them all); the others wait their turn.
        if (entered++ === 0) await redis.blpop(`${prefix}never`, 0);
        await gate;
      },
    });
    // The claims have no ttl of their own: P1's heartbeat (one key on a single Redis) keeps them.
    const leaseKeys = [...new Set(BOTS.map((bot) => leases.heartbeatKey({ name: `bot:${bot}`, owner: "P1" })))];
    try {
      const starting = claims.start();
      await vi.waitFor(() => expect(entered).toBe(HOST_CONCURRENCY), { timeout: 10_000, interval: 5 });
      expect(claims.bots()).toHaveLength(600);
      // The heartbeat four seconds from running out (real time: room for a renewal on a busy
      // machine), the membership gone: only a renewal brings them back above five.
      for (const key of leaseKeys) await admin.pexpire(key, 4_000);
      await admin.zadd(leases.membersKey, 0, "P1");
      await clock.advance(3_000); // the renewal is due
      await vi.waitFor(
        async () => {
          const ttls = await Promise.all(leaseKeys.map((key) => admin.pttl(key)));
          expect(Math.min(...ttls)).toBeGreaterThan(5_000);
          expect(Number(await admin.zscore(leases.membersKey, "P1"))).toBeGreaterThan(0);
        },
        { timeout: 5_000, interval: 20 },
      );
      await admin.lpush(`${prefix}never`, "go");
      open();
      await starting;
    } finally {
      await admin.lpush(`${prefix}never`, "go");
      open();
      await claims.stop();
      redis.disconnect();
      line.disconnect();
    }
  });
});

/** MGETs Redis ran so far: how a look for free bots reads the leases of the bots held elsewhere. */
async function mgetsRun(): Promise<number> {
  const info = await admin.info("commandstats");
  return Number(/^cmdstat_mget:calls=(\d+)/m.exec(info)?.[1] ?? 0);
}

/**
 * Two processes, P1 and P2, claiming {@link BOTS} on a frozen clock, started and past the
 * members' change at their start (a ttl and a renewal behind): `renewals(n)` advances a renewal
 * n times and waits for each process's (or those of `ps`); `close` stops both.
 */
async function twoProcesses(prefix: string) {
  const clock = createClock({ frozen: true, start: 0 });
  const procs = await Promise.all(
    ["P1", "P2"].map(async (owner) => {
      const redis = await connectRedis(server.url);
      return { claims: claimsOf({ redis, prefix, owner, bots: BOTS, clock }), redis };
    }),
  );
  const renewals = async (n: number, ps = procs) => {
    for (let i = 0; i < n; i++) {
      await clock.advance(3_000);
      for (const p of ps) await renewed(p.claims, clock);
    }
  };
  const close = async () => {
    for (const p of procs) {
      await p.claims.stop();
      p.redis.disconnect();
    }
  };
  try {
    for (const p of procs) await p.claims.announce();
    await Promise.all(procs.map((p) => p.claims.start()));
    await renewals(5);
  } catch (err) {
    await close();
    throw err;
  }
  const [p1, p2] = procs as [(typeof procs)[0], (typeof procs)[0]];
  return { p1, p2, renewals, close };
}

/**
 * Another process, `owner`, a member of the deployment until `entryMs` from now (Redis's clock),
 * holding `bots`: their leases as its claims left them.
 */
async function anotherHolds(leases: Leases, owner: string, bots: readonly string[], entryMs: number) {
  const [sec, micro] = await admin.time();
  await admin.zadd(leases.membersKey, Number(sec) * 1000 + Math.floor(Number(micro) / 1000) + entryMs, owner);
  return await leases.claimAll(
    bots.map((b) => `bot:${b}`),
    owner,
    600_000,
  );
}

describe("looking for free bots", () => {
  it("stops once every bot is held and the members stay; a process gone starts the looks again", async () => {
    const { p1, p2, renewals, close } = await twoProcesses("looks:");
    try {
      expect(p1.claims.bots().length + p2.claims.bots().length).toBe(600);
      const before = await mgetsRun();
      await renewals(5);
      expect(await mgetsRun()).toBe(before);
      // P2 gone as a kill -9 leaves it: its membership and its leases run out (here at once).
      await p2.claims.stop();
      await renewals(1, [p1]);
      await vi.waitFor(() => expect(p1.claims.bots()).toHaveLength(600), { timeout: 5_000 });
    } finally {
      await close();
    }
  });
});

describe("the backstop look for free bots", () => {
  it("reads no claim while the processes' counts say every bot is held; finds one given up without a word", async () => {
    const prefix = "backstop:";
    const { p1, p2, renewals, close } = await twoProcesses(prefix);
    try {
      const before = await mgetsRun();
      await renewals(12); // past the backstop's 10 renewals
      expect(await mgetsRun()).toBe(before);
      // P1 loses a bot (a write of it refused) and gives its claim back, telling nobody.
      const bot = p1.claims.bots()[0]!;
      p1.claims.refused(bot);
      const leases = new Leases(admin, { prefix });
      await vi.waitFor(async () => expect(await admin.get(leases.bots.claimKey(bot))).toBeNull(), { timeout: 5_000 });
      await renewals(2); // its count said, then looked for
      expect(p1.claims.bots().length + p2.claims.bots().length).toBe(600);
    } finally {
      await close();
    }
  }, 30_000);
});

/**
 * P1 on the first `count` bots beside D, a live member until `entryMs` from now holding the odd
 * ones (`theirs`), on a frozen clock (a lease of 9 s renewed every 3 s); `host` and
 * `hostConcurrency` are P1's. `dies` takes D's entry and the claims of `which` out, as Redis's
 * TTL would once D stopped; `close` stops P1.
 */
async function besideD(
  prefix: string,
  count: number,
  p1: Pick<Parameters<typeof claimsOf>[0], "host" | "hostConcurrency"> = {},
  entryMs = 3_600_000,
) {
  const bots = BOTS.slice(0, count);
  const redis = await connectRedis(server.url);
  const leases = new Leases(redis, { prefix });
  const theirs = bots.filter((_, i) => i % 2 === 1);
  await anotherHolds(leases, "D", theirs, entryMs);
  const clock = createClock({ frozen: true, start: 0 });
  const claims = claimsOf({ redis, leases, owner: "P1", bots, clock, ttlMs: 9_000, everyMs: 3_000, ...p1 });
  const dies = async (which: readonly string[] = theirs) => {
    await admin.zrem(leases.membersKey, "D");
    await admin.del(...which.map((b) => leases.key(`bot:${b}`)));
  };
  const close = async () => {
    await claims.stop();
    redis.disconnect();
  };
  return { bots, redis, leases, theirs, clock, claims, dies, close };
}

describe("a process that stops renewing", () => {
  it("has its bots looked for as soon as its entry in the members runs out, not at the next renewal", async () => {
    // Another process, D, holds half the bots; its entry runs out (Redis's clock) within a renewal's interval.
    const { bots, theirs, clock, claims, dies, close } = await besideD("gone:", 20, {}, 2_500);
    try {
      await claims.start();
      expect(claims.bots().sort()).toEqual(bots.filter((_, i) => i % 2 === 0));
      // D dies: its entry and its leases run out (here: taken out, as Redis's TTL would).
      await dies();
      // Short of the next renewal (due 3 s after the first), its bots are claimed here.
      await clock.advance(2_900);
      await vi.waitFor(() => expect(claims.bots()).toHaveLength(20), { timeout: 10_000, interval: 5 });
    } finally {
      await close();
    }
  });
});

describe("the bots of a process that died, with posts waiting for some", () => {
  it("start first those work came for before the claim, in the order it came, at once one it comes for while it waits; the others after", async () => {
    const started: string[] = [];
    let open = () => {};
    let gate = Promise.resolve();
    const { theirs, clock, claims, dies, close } = await besideD("hurry:", 100, {
      hostConcurrency: 1,
      async host(bot) {
        started.push(bot);
        await gate;
      },
    });
    try {
      await claims.start();
      expect(started).toHaveLength(50);
      // Posts are handed to two of D's last bots; then D dies (its entry and claims run out:
      // here taken out, as Redis's TTL would).
      claims.hurry(theirs[45]!);
      claims.hurry(theirs[40]!);
      await dies();
      gate = new Promise<void>((r) => (open = r));
      await clock.advance(3_000);
      await vi.waitFor(() => expect(started).toHaveLength(51), { timeout: 10_000, interval: 5 });
      // The first told starts first. A post for another while they wait for their turn: it starts at once.
      expect(started[50]).toBe(theirs[45]);
      claims.hurry(theirs[49]!);
      await vi.waitFor(() => expect(started).toHaveLength(52), { timeout: 10_000, interval: 5 });
      expect(started[51]).toBe(theirs[49]);
      open();
      await vi.waitFor(() => expect(started).toHaveLength(100), { timeout: 10_000, interval: 5 });
      const taken = started.slice(50);
      expect(taken[2]).toBe(theirs[40]);
      expect(taken.sort()).toEqual([...theirs].sort());
    } finally {
      open();
      await close();
    }
  });

  it("start those work came for by themselves, the others once they started or a second passed", async () => {
    const events: string[] = [];
    /** The bot whose start hangs until the test lets it go (none: every start takes a few turns). */
    let hanging: string | undefined;
    let release = () => {};
    const { redis, leases, theirs, clock, claims, dies, close } = await besideD("alone:", 40, {
      hostConcurrency: 8,
      async host(bot) {
        events.push(`start ${bot}`);
        if (bot === hanging) await new Promise<void>((r) => (release = r));
        else for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        events.push(`end ${bot}`);
      },
    });
    try {
      await claims.start();
      // Posts for two of D's bots, then D dies: those two start and end before any other starts.
      claims.hurry(theirs[12]!);
      claims.hurry(theirs[3]!);
      await dies(theirs);
      events.length = 0;
      await clock.advance(3_000);
      await vi.waitFor(() => expect(events.filter((e) => e.startsWith("end"))).toHaveLength(20), {
        timeout: 10_000,
        interval: 5,
      });
      expect(events.slice(0, 4).sort()).toEqual(
        [`end ${theirs[12]}`, `end ${theirs[3]}`, `start ${theirs[12]}`, `start ${theirs[3]}`].sort(),
      );

      // One of them hangs (its service slow): the others start a second later all the same.
      await anotherHolds(leases, "D", theirs, 3_600_000);
      await claims.stop();
      const again = claimsOf({
        redis,
        leases,
        owner: "P2",
        bots: theirs,
        clock,
        ttlMs: 9_000,
        everyMs: 3_000,
        hostConcurrency: 8,
        async host(bot) {
          events.push(`start ${bot}`);
          if (bot === hanging) await new Promise<void>((r) => (release = r));
          events.push(`end ${bot}`);
        },
      });
      try {
        await again.start();
        hanging = theirs[5];
        again.hurry(theirs[5]!);
        events.length = 0;
        await dies(theirs);
        await clock.advance(3_000);
        await vi.waitFor(() => expect(events).toContain(`start ${theirs[5]}`), { timeout: 10_000, interval: 5 });
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
        expect(events).toEqual([`start ${theirs[5]}`]);
        await clock.advance(1_000);
        await vi.waitFor(
          () => {
            const starts = events.filter((e) => e.startsWith("start"));
            expect(starts.length).toBeGreaterThan(2);
            expect(events.filter((e) => e.startsWith("end"))).toHaveLength(starts.length - 1);
          },
          { timeout: 10_000, interval: 5 },
        );
        release();
        await vi.waitFor(() => expect(events).toContain(`end ${theirs[5]}`), { timeout: 10_000, interval: 5 });
      } finally {
        release();
        await again.stop();
      }
    } finally {
      release();
      await close();
    }
  });
});

describe("the bots of a process that died, while a stream hub taken over here catches up", () => {
  it("start those with nothing waiting once it caught up (or 3 s passed); those work came for start at once", async () => {
    const prefix = "hubfirst:";
    const bots = BOTS.slice(0, 40);
    const redis = await connectRedis(server.url);
    const leases = new Leases(redis, { prefix });
    const theirs = bots.filter((_, i) => i % 2 === 1);
    const clock = createClock({ frozen: true, start: 0 });
    const started: string[] = [];
    const make = (owner: string) =>
      claimsOf({
        redis,
        leases,
        owner,
        bots,
        clock,
        ttlMs: 9_000,
        everyMs: 3_000,
        hostConcurrency: 8,
        async host(bot) {
          started.push(bot);
        },
      });
    // D's claims live while its heartbeats are there; when it dies they run out, the claims left.
    const beats = [...new Set(theirs.map((b) => leases.bots.heartbeatKey(b, "D")))];
    const dAlive = async () => {
      await anotherHolds(leases, "D", theirs, 3_600_000);
      for (const key of beats) await admin.set(key, "D", "PX", 3_600_000);
    };
    const dies = async () => {
      await admin.zrem(leases.membersKey, "D");
      await admin.del(...beats);
    };
    const turns = async () => {
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    };
    await dAlive();
    let claims = make("P1");
    try {
      // A process's first start is not held by its hubs: nothing was taken over.
      claims.holdStarts(new Promise(() => {}));
      await claims.start();
      await vi.waitFor(() => expect(started).toHaveLength(20), { timeout: 10_000, interval: 5 });
      await renewal(claims, clock);

      // D dies while the hub P1 took over has not caught up: nothing of D's starts but the bot
      // a post came for; once the hub caught up, the rest.
      started.length = 0;
      await dies();
      await clock.advance(1_000);
      let caughtUp = () => {};
      claims.holdStarts(new Promise<void>((r) => (caughtUp = r)));
      await clock.advance(2_000);
      await vi.waitFor(() => expect(claims.bots()).toHaveLength(40), { timeout: 10_000, interval: 5 });
      await turns();
      expect(started).toEqual([]);
      claims.hurry(theirs[7]!);
      await vi.waitFor(() => expect(started).toEqual([theirs[7]]), { timeout: 10_000, interval: 5 });
      caughtUp();
      await vi.waitFor(() => expect(started).toHaveLength(20), { timeout: 10_000, interval: 5 });
      expect(new Set(started)).toEqual(new Set(theirs));

      // A hub that never catches up holds them 3 s at most.
      await claims.stop();
      await dAlive();
      claims = make("P2");
      await claims.start();
      await vi.waitFor(() => expect(claims.bots()).toHaveLength(20), { timeout: 10_000, interval: 5 });
      started.length = 0;
      await dies();
      await clock.advance(1_000);
      claims.holdStarts(new Promise(() => {}));
      await clock.advance(2_000);
      await vi.waitFor(() => expect(claims.bots()).toHaveLength(40), { timeout: 10_000, interval: 5 });
      await turns();
      expect(started).toEqual([]);
      await clock.advance(999);
      await turns();
      expect(started).toEqual([]);
      await clock.advance(1);
      await vi.waitFor(() => expect(started).toHaveLength(20), { timeout: 10_000, interval: 5 });
    } finally {
      await claims.stop();
      redis.disconnect();
    }
  });
});

/**
 * P1 beside two live processes, D and Q: P1 starts (`atStart`: what it took), D claims `ofD`
 * of the bots P1 did not take and Q the others, for a long while, and six renewals pass while
 * the members are new (D's and Q's claims seen). `dies` takes D's entry and leases out, as
 * Redis's TTL would; `close` stops P1. `watch` sees P1's connection before anything runs.
 */
async function besideDAndQ(prefix: string, count: number, ofD: number, watch?: (redis: Redis) => void) {
  const bots = BOTS.slice(0, count);
  const redis = await connectRedis(server.url);
  watch?.(redis);
  const leases = new Leases(redis, { prefix });
  const [sec] = await admin.time();
  const far = Number(sec) * 1000 + 3_600_000;
  await admin.zadd(leases.membersKey, far, "D", far, "Q");
  const clock = createClock({ frozen: true, start: 0 });
  const claims = claimsOf({ redis, leases, owner: "P1", bots, clock, ttlMs: 9_000, everyMs: 3_000 });
  const close = async () => {
    await claims.stop();
    redis.disconnect();
  };
  try {
    await claims.start();
    const atStart = claims.bots();
    const rest = bots.filter((b) => !atStart.includes(b));
    const ofDBots = rest.slice(0, ofD);
    await leases.claimAll(
      ofDBots.map((b) => `bot:${b}`),
      "D",
      600_000,
    );
    await leases.claimAll(
      rest.slice(ofD).map((b) => `bot:${b}`),
      "Q",
      600_000,
    );
    for (let i = 0; i < 6; i++) await renewal(claims, clock);
    const dies = async () => {
      await admin.zrem(leases.membersKey, "D");
      await admin.del(...ofDBots.map((b) => leases.key(`bot:${b}`)));
    };
    return { claims, clock, atStart, dies, close };
  } catch (err) {
    await close();
    throw err;
  }
}

describe("the bots of a process that died, when the others had held them all along", () => {
  it("are shared by the survivors, not all taken by the first to look as if long free", async () => {
    const { claims, clock, atStart, dies, close } = await besideDAndQ("share-dead:", 30, 10);
    try {
      expect(atStart).toHaveLength(10);
      // D dies: its ten bots just became free.
      await dies();
      await renewal(claims, clock);
      // P1 takes its part of them up to its share (15 of 30 over two), Q the others.
      await vi.waitFor(() => expect(claims.bots().length).toBeGreaterThan(10), { timeout: 10_000, interval: 5 });
      expect(claims.bots().length).toBeLessThanOrEqual(15);
    } finally {
      await close();
    }
  });
});

describe("the look for the bots of a process that died", () => {
  it("reads the claims of the bots it held, not of every bot held elsewhere; the next look reads them all", async () => {
    // The keys this process reads with MGET (the claims a look reads, and their owners' heartbeats).
    let read = 0;
    const { claims, clock, dies, close } = await besideDAndQ("dead-look:", 60, 20, (redis) => {
      const mget = redis.mget.bind(redis) as (keys: string[]) => Promise<Array<string | null>>;
      (redis as unknown as { mget: typeof mget }).mget = (keys) => {
        read += keys.length;
        return mget(keys);
      };
    });
    try {
      await dies();
      read = 0;
      await renewal(claims, clock);
      // P1 takes its part of them, up to its share (30 of 60 over two), Q the others.
      await vi.waitFor(() => expect(claims.bots().length).toBeGreaterThan(20), { timeout: 10_000, interval: 5 });
      expect(claims.bots().length).toBeLessThanOrEqual(30);
      // Reading its 20 bots' claims (and a heartbeat or two), not Q's 20 besides (41 before).
      expect(read).toBeLessThanOrEqual(22);
      const elsewhere = 60 - claims.bots().length;
      read = 0;
      await renewal(claims, clock);
      // The next look reads every bot held elsewhere again.
      await vi.waitFor(() => expect(read).toBeGreaterThanOrEqual(elsewhere), { timeout: 10_000, interval: 5 });
    } finally {
      await close();
    }
  });
});

describe("bots given back for the others' shares", () => {
  it("are looked for by the others at their next renewal, not left to the one that gave them back", async () => {
    const prefix = "given-back:";
    const bots = BOTS.slice(0, 20);
    const redis = await connectRedis(server.url);
    const leases = new Leases(redis, { prefix });
    const clock = createClock({ frozen: true, start: 0 });
    const claims = claimsOf({ redis, leases, owner: "P1", bots, clock });
    // Q holds 12 of the 20 bots, two above its share of 10.
    const held = await anotherHolds(leases, "Q", bots.slice(0, 12), 3_600_000);
    try {
      await claims.start();
      expect(claims.bots()).toHaveLength(8);
      for (let i = 0; i < 5; i++) await renewal(claims, clock); // settled: every bot held, the members the same
      // Q gives two back (as a process above its share does) and says so.
      for (const lease of held.slice(0, 2)) await leases.release(lease!);
      await leases.announceReleased();
      await renewal(claims, clock);
      await vi.waitFor(() => expect(claims.bots()).toHaveLength(10), { timeout: 10_000, interval: 5 });
    } finally {
      await claims.stop();
      redis.disconnect();
    }
  });
});

/** Every command Redis ran so far (those inside scripts counted), INFO itself left out. */
async function commandsRun(): Promise<number> {
  const info = await admin.info("commandstats");
  return [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
    .filter((m) => m[1] !== "info")
    .reduce((n, m) => n + Number(m[2]), 0);
}

describe("an idle renewal", () => {
  it("renews one heartbeat for all the bots held, not each bot's lease", async () => {
    const p = await processClaims("P1", "idle:");
    const clock = p.claims["options"].clock as ReturnType<typeof createClock>;
    try {
      await p.claims.start();
      expect(p.claims.bots()).toHaveLength(600);
      for (let i = 0; i < 3; i++) await renewal(p.claims, clock); // settled: no look for free bots in the next renewals
      const before = await commandsRun();
      await renewal(p.claims, clock);
      const sent = (await commandsRun()) - before;
      // The heartbeat's SET and the membership's script (a handful of commands), for 600 bots.
      expect(sent).toBeLessThanOrEqual(12);
      const heartbeat = p.claims["line"].heartbeatKey({ name: `bot:${BOTS[0]}`, owner: "P1" });
      expect(await admin.pttl(heartbeat)).toBeGreaterThan(6_000);
    } finally {
      await p.claims.stop();
      p.redis.disconnect();
    }
  });
});

/** Counts the walks over `map` (its iterations), from now on. */
function walksOf(map: Map<unknown, unknown>): () => number {
  let walks = 0;
  const methods = ["keys", "values", "entries", "forEach", Symbol.iterator] as const;
  for (const method of methods) {
    const own = (map[method] as (...args: unknown[]) => unknown).bind(map);
    Object.defineProperty(map, method, {
      value: (...args: unknown[]) => {
        walks++;
        return own(...args);
      },
    });
  }
  return () => walks;
}

describe("idle renewals of many bots held", () => {
  it("walk none of the bots, each of which had a request (its lapse armed), and still cut them when late", async () => {
    const p = await processClaims("P1", "walks:");
    const clock = p.claims["options"].clock as ReturnType<typeof createClock>;
    try {
      await p.claims.start();
      const lapses = [];
      for (const bot of BOTS) lapses.push(await p.claims.hold(bot, new AbortController().signal));
      // Settled: the members' change at the start is a ttl and a renewal behind, then no look for free bots for a while.
      for (let i = 0; i < 5; i++) await renewal(p.claims, clock);
      const walks = walksOf(p.claims["held"]);
      for (let i = 0; i < 3; i++) await renewal(p.claims, clock);
      expect(walks()).toBe(0);
      expect(lapses.some((l) => l.aborted)).toBe(false);
      // Its heartbeat not renewed in time (Redis takes no write): every bot's request is cut.
      await admin.client("PAUSE", "60000", "WRITE");
      try {
        await clock.advance(9_000);
        expect(lapses.filter((l) => l.aborted)).toHaveLength(BOTS.length);
      } finally {
        await admin.client("UNPAUSE");
      }
    } finally {
      await p.claims.stop();
      p.redis.disconnect();
    }
  }, 30_000);
});

/** `owner`'s heartbeats of `bots` run out now, as Redis's TTL has them do once the process stops renewing. */
async function runOut(leases: Leases, bots: readonly string[], owner: string): Promise<void> {
  for (const key of new Set(bots.map((bot) => leases.heartbeatKey({ name: `bot:${bot}`, owner }))))
    await admin.pexpire(key, 1);
}

describe("a process paused past its heartbeat", () => {
  it("has its fenced writes refused as soon as the heartbeat runs out, before anyone claims its bots; back, it goes on", async () => {
    const prefix = "paused:";
    const bots = BOTS.slice(0, 20);
    const redis = await connectRedis(server.url);
    const leases = new Leases(redis, { prefix });
    // Its clock frozen: it renews nothing until it is advanced, as a process that SIGSTOP paused.
    const clock = createClock({ frozen: true, start: 0 });
    // A heartbeat that lasts (no real-time window between a renewal and the writes after it);
    // the test makes it run out when the process is "paused".
    const claims = claimsOf({ redis, leases, owner: "P1", bots, clock, ttlMs: 60_000, everyMs: 20_000 });
    try {
      await claims.start();
      expect(claims.bots()).toHaveLength(20);
      const lease = (await claims.current(bots[0]!))!;
      await leases.fenced(lease, [["SET", `${prefix}w`, "before"]]);
      // Paused past its heartbeat: Redis's TTL runs out (set to a millisecond here).
      await runOut(leases, bots, "P1");
      await vi.waitFor(async () => expect(await leases.holder(`bot:${bots[0]}`)).toBeUndefined(), {
        timeout: 5_000,
        interval: 20,
      });
      // Nobody claimed the bot (the claim is exactly as it was), yet the late write is refused.
      expect(await redis.get(leases.key(`bot:${bots[0]}`))).toBe(leases.value(lease));
      await expect(leases.fenced(lease, [["SET", `${prefix}w`, "late"]])).rejects.toBeInstanceOf(FencedError);
      expect(await redis.get(`${prefix}w`)).toBe("before");
      // Back: the renewal finds the heartbeat gone, sets it again and every claim still its own goes on.
      await renewal(claims, clock, 20_000);
      expect(await leases.holder(`bot:${bots[0]}`)).toMatchObject({ owner: "P1" });
      expect(claims.bots()).toHaveLength(20);
      await leases.fenced(lease, [["SET", `${prefix}w`, "after"]]);
      expect(await redis.get(`${prefix}w`)).toBe("after");
    } finally {
      await claims.stop();
      redis.disconnect();
    }
  });
});

describe("a write refused because this process's heartbeat ran out", () => {
  it("sets the heartbeat again and goes again with the same claim when nobody took the bot; is dropped when someone did", async () => {
    const prefix = "refused:";
    const bots = ["r1", "r2"];
    const redis = await connectRedis(server.url);
    const leases = new Leases(redis, { prefix });
    const clock = createClock({ frozen: true, start: 0 }); // no renewal: nothing sets the heartbeat again but the refusal
    const lost: string[] = [];
    // A heartbeat that lasts once set again (no real-time window before the checks after the
    // refusal); the test makes the first one run out.
    const claims = claimsOf({
      redis,
      leases,
      owner: "P1",
      bots,
      clock,
      ttlMs: 60_000,
      everyMs: 20_000,
      async unhost(bot) {
        lost.push(bot);
      },
    });
    const store = await openRedisStore({
      redis,
      prefix,
      closeConnection: false,
      fencing: {
        leases,
        current: (bot) => claims.current(bot),
        verify: (bot, lease) => claims.verify(bot, lease),
        refused: (bot) => claims.refused(bot),
      },
    });
    try {
      await claims.start();
      for (const bot of bots) await store.hold(bot);
      const first = (await claims.current("r1"))!;
      await runOut(leases, bots, "P1");
      await vi.waitFor(async () => expect(await leases.holder("bot:r1")).toBeUndefined(), {
        timeout: 5_000,
        interval: 20,
      });
      // Another process takes r2 meanwhile (P1's heartbeat is gone: r2 is free to it).
      expect(await leases.claim("bot:r2", "P2", 60_000)).toMatchObject({ owner: "P2", tookOver: true });
      store.set("kv:r1", "n", 1);
      store.set("kv:r2", "n", 1);
      await store.flush();
      // r1's write was refused, the heartbeat set again, and it went again with the same claim.
      expect(await claims.current("r1")).toEqual(first);
      expect(await leases.holder("bot:r1")).toMatchObject({ owner: "P1", token: first.token });
      // r2 is P2's now: stopped here, its write never made.
      await vi.waitFor(() => expect(lost).toEqual(["r2"]), { timeout: 10_000, interval: 5 });
      expect(claims.bots()).toEqual(["r1"]);
      const written = await openRedisStore({ redis, prefix, readOnly: true, closeConnection: false });
      expect(written.get("kv:r1", "n")).toBe(1);
      expect(written.get("kv:r2", "n")).toBeUndefined();
    } finally {
      await claims.stop();
      await store.close();
      redis.disconnect();
    }
  });
});
