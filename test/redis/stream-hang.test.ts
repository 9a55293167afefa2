/**
 * The app's stream when the process holding it hangs with its connection open (its renewals
 * stand still; the service still has its connection): its lease runs out in Redis, another
 * process takes the stream over and is refused a connection (429, TooManyConnections: the
 * service allows one per app). It connects again as soon as the hung process, running again,
 * closes its connection (its lease gone), not after the rate limit's back-off of a minute
 * (the bots' clock, which that back-off would wait on, never moves here); and the log says it
 * reconnects, never that the stream gave up.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { scaleWorld, TTL, until, type ScaleProc } from "../helpers/scale-world.ts";

const liker = definePlugin({
  name: "liker",
  setup(bot) {
    bot.on("post", async (ctx) => {
      await ctx.like();
    });
  },
});

const NAMES = ["h1", "h2"];
const w = scaleWorld({ names: NAMES, plugin: liker, mentions: "poll", rule: "#cats" });
let pump: NodeJS.Timeout | undefined;
afterEach(() => clearInterval(pump));

const stream = (p: ScaleProc) => p.runtime.apps()[0]?.stream;

describe("the app's stream when its holder hangs", () => {
  it("the next holder connects as soon as the hung one closes its connection; the log never says it gave up", async () => {
    await w.start();
    // The first process's timers run while the test moves its clock, and stand still when it stops.
    const hungClock = createClock({ frozen: true });
    pump = setInterval(() => void hungClock.advance(100), 100);
    const hung = await w.proc("hung", { claimsClock: hungClock, settleMs: 0 });
    await until("the first process runs the app's stream", () => stream(hung)?.state === "connected", 20_000);
    const other = await w.proc("other");

    clearInterval(pump); // it hangs: no renewal, its connection stays open
    await until(
      "the other process holds the stream and is refused a connection",
      () =>
        (stream(other)?.state === "reconnecting" && /429/.test(stream(other)?.lastError?.message ?? "")) || undefined,
      20_000,
    );
    expect(stream(hung)?.state).toBe("connected"); // as the service sees it, still
    expect(stream(other)!.retryAt! - w.clock.now()).toBe(60_000);

    // It runs again: its lease is past its time, so it closes its connection.
    await hungClock.advance(TTL);
    await until("the other process's stream connected", () => stream(other)?.state === "connected", 10_000);
    expect(w.clock.now() - Date.parse("2026-03-02T12:00:00Z")).toBeLessThan(60_000);
    for (const p of [hung, other])
      expect(
        p.lines.filter((l) => /gave up/.test(String(l.msg))),
        p.name,
      ).toEqual([]);
    expect(other.lines.map((l) => String(l.msg))).toContain(
      `stream of app ${w.hosted[0]!.app.id}: the connection that held the app's stream closed; connecting again now`,
    );
  }, 60_000);
});
