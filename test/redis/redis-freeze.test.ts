/**
 * Redis hangs (SIGSTOP: connections stay open, nothing answers) for less than a lease's
 * time-to-live, several times, while three runtimes ("processes") share six bots on it: every
 * bot stays where it was. A lease may run out in Redis meanwhile (a renewal cannot reach a
 * frozen Redis, and up to `every` of the ttl had passed since the last one), but its holder,
 * still a live member, claims it again first: nobody else may claim it until the holder has
 * been silent for a whole ttl. Fencing still refuses a stale writer: the claim's token grew,
 * so the handle from before the freeze is refused. Mentions made during a freeze are answered
 * once. Real time, bounded (Redis's TTLs are real).
 */
import { describe, expect, it } from "vitest";
import { FencedError, type Lease } from "../../src/fencing.ts";
import { echo } from "../helpers/echo-plugin.ts";
import { connectRedis } from "../../src/redis/connect.ts";
import { Leases } from "../../src/redis/leases.ts";
import { EVERY, scaleWorld, TTL, until } from "../helpers/scale-world.ts";

// Seven: the shares are uneven (3, 2, 2), so a process below its share would take a bot it finds free.
const NAMES = ["f1", "f2", "f3", "f4", "f5", "f6", "f7"];
const w = scaleWorld({ names: NAMES, plugin: echo, mentions: "poll" });
const { balanced, settle, repliesOf, mentionEach } = w;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Redis frozen for less than a lease", () => {
  it("keeps every bot where it is; a stale writer is still refused; mentions made meanwhile are answered once", async () => {
    await w.start();
    const ps = await Promise.all([w.proc("P1"), w.proc("P2"), w.proc("P3")]);
    await until("every bot running once", () => balanced(ps));
    await settle(ps);
    const where = () => new Map(ps.flatMap((p) => [...p.runtime.bots.keys()].map((b) => [b, p.name] as const)));
    const before = where();
    const startLines = new Map(ps.map((p) => [p, p.lines.length]));
    const admin = await connectRedis(w.redis.url);
    const leases = new Leases(admin);
    const claimOf = async (bot: string): Promise<Lease> => {
      const holder = (await leases.holder(`bot:${bot}`))!;
      return { name: `bot:${bot}`, owner: holder.owner, token: holder.token };
    };
    const first = new Map(await Promise.all(NAMES.map(async (b) => [b, await claimOf(b)] as const)));
    const mentions: Array<Map<string, string>> = [];
    try {
      for (let round = 0; round < 4; round++) {
        // At a different point of the renewal cycle each time; a little shorter than the ttl.
        await sleep((round * EVERY) / 4);
        w.redis.freeze();
        mentions.push(await mentionEach(`while Redis hangs (${round})`));
        // The bots poll, find the mentions and answer: their writes (inbox, ledger marks) wait for Redis.
        await w.clock.advance(15_000);
        await sleep(TTL - 100);
        w.redis.thaw();
        await sleep(3 * EVERY); // renewals, re-claims and the others' balancing rounds
        expect(where(), `after freeze ${round}`).toEqual(before);
      }
      await settle(ps);
      await until("every mention answered", () => NAMES.every((bot) => repliesOf(bot).length === mentions.length));
      for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual(mentions.map((m) => m.get(bot)));
      for (const p of ps) {
        expect(
          p.lines
            .slice(startLines.get(p))
            .filter((l) => /lease lost|giving back|claimed \d+ bots/.test(String(l.msg)))
            .map((l) => l.msg),
          p.name,
        ).toEqual([]);
      }
      expect(where()).toEqual(before);
      // Every lease that ran out during a freeze was claimed again by its holder: a new token,
      // and a write carrying the claim from before is refused.
      const now = new Map(await Promise.all(NAMES.map(async (b) => [b, await claimOf(b)] as const)));
      const reclaimed = NAMES.filter((b) => now.get(b)!.token > first.get(b)!.token);
      console.log(`leases that ran out during a freeze and were claimed again by their holder: ${reclaimed.length}`);
      for (const bot of NAMES) {
        expect(now.get(bot)!.owner, bot).toBe(first.get(bot)!.owner);
        if (!reclaimed.includes(bot)) continue;
        await expect(leases.fenced(first.get(bot)!, [["SET", "postbot:stale-write", bot]])).rejects.toBeInstanceOf(
          FencedError,
        );
      }
      expect(await admin.get("postbot:stale-write")).toBeNull();
    } finally {
      w.redis.thaw();
      admin.disconnect();
    }
  }, 90_000);
});
