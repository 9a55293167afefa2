/**
 * Several runtimes ("processes") in this test process sharing one real Redis: who runs which
 * bot, the fencing of a stale holder, and a Redis outage. The sandbox and the bots run on one
 * frozen clock; each process's lease renewals run on its own clock (a running one, or a frozen
 * one for a process that stalls), and lease expiry is Redis's real TTL, kept short.
 */
import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { echo } from "../helpers/echo-plugin.ts";
import { scaleWorld, TTL, until } from "../helpers/scale-world.ts";

const NAMES = ["b1", "b2", "b3", "b4", "b5", "b6"];
const w = scaleWorld({ names: NAMES, plugin: echo, mentions: "poll" });
const { balanced, running, settle, repliesOf, mentionEach } = w;
const proc = w.proc;

describe("bots shared by processes on one Redis", () => {
  it("three processes share six bots, two each, none twice; every mention is answered once", async () => {
    await w.start();
    const ps = await Promise.all([proc("P1"), proc("P2"), proc("P3")]);
    // Started together: each waited to see the others, then took its share; nobody gave any back.
    await until("two bots each", () => balanced(ps, 2));
    for (const p of ps)
      expect(
        p.lines.filter((l) => /giving back/.test(String(l.msg))),
        p.name,
      ).toEqual([]);
    // An API client (a connection pool of its own) for each bot it runs, none for the others'.
    for (const p of ps)
      expect((p.runtime as unknown as { clients: Map<string, unknown> }).clients.size, p.name).toBe(2);
    await settle(ps); // each bot's first poll, at its start, is done
    const first = await mentionEach("hello");
    await w.clock.advance(15_000);
    await settle(ps);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([first.get(bot)]);
    expect(balanced(ps, 2)).toBe(true);

    // P3 stops (Ctrl-C): its bots, saved, go to the other two.
    const p3 = w.procs.splice(w.procs.indexOf(ps[2]!), 1)[0]!;
    const gone = [...p3.runtime.bots.keys()];
    await p3.shared.stop();
    await until("P1 and P2 run all", () => balanced(ps.slice(0, 2), 3));
    await settle(ps.slice(0, 2));
    const second = await mentionEach("again");
    await w.clock.advance(15_000);
    await settle(ps.slice(0, 2));
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([first.get(bot), second.get(bot)]);
    expect(gone.every((bot) => running(ps.slice(0, 2)).includes(bot))).toBe(true);
  }, 60_000);

  it("a process that stalls loses its bots to the others; its own writes are refused and it stops them, one line each", async () => {
    await w.start();
    const stalled = await proc("stalled", { claimsClock: createClock({ frozen: true }), settleMs: 0 }); // never renews
    expect(stalled.runtime.bots.size).toBe(NAMES.length);
    const mentions = await mentionEach("who answers?");
    const live = await proc("live");
    // The stalled process's leases and membership expire by Redis's TTL: the live one takes all.
    await until("live runs all six", () => live.runtime.bots.size === NAMES.length, 10_000);
    // The stalled one still believes it runs them: both poll, both see the mentions.
    expect(stalled.runtime.bots.size).toBe(NAMES.length);
    await w.clock.advance(15_000);
    await settle([live, stalled]);
    await until("the stalled process stops all six", () => stalled.runtime.bots.size === 0);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([mentions.get(bot)]);
    // A refused write finds its heartbeat gone and the bots' claims another's: every bot of that
    // heartbeat is stopped then, those not yet refused with the others (one line each).
    const refusals = stalled.lines.filter((l) => /another process runs it now/.test(String(l.msg)));
    expect(refusals.length).toBeGreaterThan(0);
    expect(new Set(refusals.map((l) => l.bot)).size).toBe(refusals.length);
    const stops = stalled.lines.filter((l) => /lease lost/.test(String(l.msg)));
    expect(stops.map((l) => l.bot).sort()).toEqual(NAMES);
  }, 60_000);

  it("Redis away longer than the leases: nothing is sent meanwhile, the log says so once, and all resumes once it is back", async () => {
    await w.start();
    const ps = [await proc("P1"), await proc("P2")];
    await until("three bots each", () => balanced(ps, 3));
    await settle(ps); // the first polls of the bots' new hosts are saved: their next ones are due in 12 s
    await w.redis.stop();
    const during = await mentionEach("while Redis is away");
    await w.clock.advance(15_000);
    // The polls found the mentions, but their handlers cannot record a reply: none is sent.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([]);
    // Longer than the leases' TTL (they expire by Redis's clock, also while it is down).
    await new Promise((r) => setTimeout(r, TTL + 200));
    await w.redis.restart();
    await until("every mention answered", () => NAMES.every((bot) => repliesOf(bot).length === 1), 15_000);
    await settle(ps);
    await w.clock.advance(15_000);
    await settle(ps);
    for (const bot of NAMES) expect(repliesOf(bot), bot).toEqual([during.get(bot)]);
    expect(balanced(ps)).toBe(true);
    for (const p of ps) {
      expect(
        p.lines.filter((l) => /lost the connection to Redis/.test(String(l.msg))),
        p.name,
      ).toHaveLength(1);
      expect(
        p.lines.filter((l) => /is back: resuming/.test(String(l.msg))),
        p.name,
      ).toHaveLength(1);
    }
  }, 60_000);
});
