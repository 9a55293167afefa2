/**
 * The apps' streams spread again when a process joins, with runtimes ("processes") sharing one
 * real Redis: a process that started alone runs both apps' streams; when a second one starts
 * (a restart), the first hands one stream back through the stream handoff, and each runs one.
 * Mentions made all along, while the stream moves, are answered once each. The sandbox and
 * the bots run on one frozen clock; leases renew on a running clock and expire by Redis's real
 * TTL (bounded waits).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { handoffState } from "../../src/redis/stream-handoff.ts";
import { scaleWorld, until, type ScaleProc } from "../helpers/scale-world.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({}),
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(`hi @${ctx.author.username} from ${bot.name}: ${ctx.post.text}`);
    });
  },
});

const NAMES = ["h1", "h2", "h3", "h4"];
const w = scaleWorld({ names: NAMES, plugin: echo, mentions: "stream", apps: 2 });

/** The apps whose stream runs connected in the process. */
const streamsOf = (p: ScaleProc) => p.runtime.apps().filter((a) => a.stream?.state === "connected").length;

describe("the apps' streams when a process joins", () => {
  it("a process that runs both apps' streams hands one back to a process that starts later; mentions meanwhile answered once each", async () => {
    await w.start();
    const appIds = [...new Set(w.hosted.map((h) => h.app.id))];
    expect(appIds).toHaveLength(2);
    const first = await w.proc("P1");
    await until("P1 runs every bot", () => w.balanced([first], NAMES.length));
    await until("P1 runs both apps' streams, connected", async () => {
      for (const appId of appIds) if ((await handoffState(first.shared.redis, appId)) !== "connected") return false;
      return streamsOf(first) === 2;
    });

    // Mentions go on all along: before the second process starts, while the bots and a stream
    // move, and after.
    const asked = new Map<string, string[]>(NAMES.map((n) => [n, []]));
    let mentioning = true;
    const alice = await w.sandbox.admin.createUser({ username: "alice", name: "alice" });
    const mentions = (async () => {
      for (let i = 0; mentioning; i++) {
        const bot = NAMES[i % NAMES.length]!;
        asked.get(bot)!.push((await w.sandbox.admin.createPost({ author_id: alice.id, text: `@${bot} ${i}` })).id);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const second = await w.proc("P2");
    await until(
      "each process runs one app's stream, connected",
      () => streamsOf(first) === 1 && streamsOf(second) === 1,
    );
    await new Promise((r) => setTimeout(r, 500));
    mentioning = false;
    await mentions;
    const total = [...asked.values()].reduce((n, ids) => n + ids.length, 0);
    expect(total).toBeGreaterThan(10);
    await until(
      "every mention answered",
      () => NAMES.every((bot) => w.repliesOf(bot).length >= asked.get(bot)!.length),
      30_000,
    );
    await w.settle([first, second]);
    for (const bot of NAMES) expect(w.repliesOf(bot), bot).toEqual(asked.get(bot));
    expect(first.lines.some((l) => /handing this one back/.test(String(l.msg)))).toBe(true);
  }, 90_000);
});
