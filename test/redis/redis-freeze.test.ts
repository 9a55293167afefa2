/**
 * Redis hangs (SIGSTOP: connections stay open, nothing answers) for less than a lease's
 * time-to-live, several times, while three runtimes ("processes") share seven bots on it:
 * every bot stays where it was. A process's heartbeat may run out in Redis meanwhile (a
 * renewal cannot reach a frozen Redis, and up to `every` of the ttl had passed since the last
 * one), but its renewal, queued first, sets it again as Redis wakes, and its claims (which have
 * no ttl) are still its own: no bot is claimed again, none moves. Fencing still refuses a
 * writer carrying another claim. Mentions made during a freeze are answered once. Real time,
 * bounded (Redis's TTLs are real).
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
      // No claim changed hands, nor was made again: a heartbeat that ran out during a freeze was
      // set again by its process, whose claims nobody had taken meanwhile.
      const now = new Map(await Promise.all(NAMES.map(async (b) => [b, await claimOf(b)] as const)));
      for (const bot of NAMES) expect(now.get(bot), bot).toEqual(first.get(bot));
      const revived = ps.flatMap((p) => p.lines.filter((l) => /heartbeat had run out/.test(String(l.msg))));
      console.log(`heartbeats that ran out during a freeze and were set again by their process: ${revived.length}`);
      // A writer carrying another claim than the bot's is refused.
      const stale = { ...first.get(NAMES[0]!)!, token: first.get(NAMES[0]!)!.token + 1_000 };
      await expect(leases.fenced(stale, [["SET", "postbot:stale-write", "x"]])).rejects.toBeInstanceOf(FencedError);
      expect(await admin.get("postbot:stale-write")).toBeNull();
    } finally {
      w.redis.thaw();
      admin.disconnect();
    }
  }, 90_000);
});
