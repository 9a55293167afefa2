/**
 * A process that claims more bots than it can start within a lease's ttl (10,000 bots over 3
 * processes: each claims ~3,300 and starts them 16 at a time). Every claimed bot's lease must
 * be renewed from its claim on, not from its turn to start: otherwise the leases of the bots
 * waiting their turn expire, another process claims them, and the bots move back and forth
 * between the processes (each move refuses the replies under way and hands their mentions
 * to the next process: the unanswered mentions of the 10,000-bot bench). Real Redis (its TTL
 * is real time, kept short), a sandbox on a frozen clock, runtimes in this test process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { scaleWorld, TTL, until } from "../helpers/scale-world.ts";

/** The setups that start while `holding` wait at the gate: the process is "still starting its bots". */
let gate: Promise<void> | undefined;
let openGate = () => {};
let holding = false;
let entered = 0;
const slow = definePlugin({
  name: "slow",
  options: z.object({}),
  async setup(bot) {
    entered++;
    if (holding) await gate;
    bot.on("mention", async (ctx) => {
      await ctx.reply(`hi @${ctx.author.username} from ${bot.name}`);
    });
  },
});

/** More bots than a process starts at once (16 here), so some wait their turn. */
const NAMES = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);
const w = scaleWorld({ names: NAMES, plugin: slow, mentions: "poll" });
afterEach(() => {
  openGate();
  gate = undefined;
  holding = false;
  entered = 0;
});

describe("claiming more bots than start within a lease's ttl", () => {
  it("keeps every claimed bot's lease while the bots wait their turn to start; none moves, every mention answered once", async () => {
    await w.start();
    gate = new Promise((r) => (openGate = r));
    holding = true;
    // P1 alone claims all twenty; sixteen start at once and wait at the gate, four wait their turn.
    const starting = w.proc("P1", { settleMs: 0, hostConcurrency: 16 });
    await until("sixteen bots starting", () => entered === 16);
    holding = false;
    // Three ttls of real time (Redis expires leases by its own clock) with P1 still starting.
    const until3Ttl = Date.now() + 3 * TTL;
    await until("three lease ttls passed", () => Date.now() >= until3Ttl);
    const p2 = await w.proc("P2", { settleMs: 0 });
    const tookAtOnce = p2.runtime.bots.size;
    openGate();
    const p1 = await starting;
    // P1 still held all twenty (renewed while they started): nothing was free for P2 to take.
    expect(tookAtOnce).toBe(0);
    const ps = [p1, p2];
    await until("every bot runs in one process, ten each", () => w.balanced(ps, 10));
    await w.settle(ps);
    const posts = await w.mentionEach("hello");
    await w.clock.advance(60_000); // twenty bots poll the app's mentions window in turns
    await w.settle(ps);
    for (const bot of NAMES) expect(w.repliesOf(bot), bot).toEqual([posts.get(bot)]);
    // No bot's lease ran out under P1 (it gave ten back to P2 instead): nothing lost, refused or claimed again.
    for (const p of ps)
      expect(
        p.lines.map((l) => String(l.msg)).filter((m) => /lease lost|lease had expired|was refused/.test(m)),
        p.name,
      ).toEqual([]);
  }, 60_000);
});
