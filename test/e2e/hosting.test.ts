/**
 * Hosting many bots in one process (issue 9): mentions through the app's stream, no lost
 * posts across a stream drop, a stream that never gives up, a bearer token kept across
 * restarts, and several apps side by side. All on the sandbox, with a frozen clock; where
 * the stream's delivery crosses a real socket, the tests wait for the outcome (never for
 * a time).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createClock } from "../../src/clock.ts";
import { definePlugin } from "../../src/runtime/plugin.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { T0 } from "../helpers/sandbox.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(options.text.replace("{author.username}", ctx.author.username).replace("{bot}", bot.name));
    });
  },
});

const seen: string[] = [];
const recorder = definePlugin({
  name: "recorder",
  setup(bot) {
    bot.on("post", (ctx) => void seen.push(`${bot.name} post ${ctx.post.text}`));
    bot.on("mention", (ctx) => void seen.push(`${bot.name} mention ${ctx.post.text}`));
  },
});

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  seen.length = 0;
});

/** Waits (on real time, polling) until the check passes: the stream crosses a socket. */
const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

const statsOf = async (b: TestBed, route: string) => {
  const stats = (await b.sandbox.admin.stats()) as { routes: Record<string, Record<string, number>> };
  return stats.routes[route] ?? {};
};

describe("hosting many bots", () => {
  it("gives 500 bots of one app their mentions through the stream, each answered once, with one catch-up poll each", { timeout: 60_000 }, async () => {
    const bots = Array.from({ length: 500 }, (_, i) => ({ name: `b${i}`, plan: "pro" as const, triggers: { mentions: {} }, plugins: { echo: { text: "hi @{author.username} from {bot}" } } }));
    bed = await createTestBed({ bots, plugins: { echo } });
    const alice = await bed.user("alice");
    // The mention rules pack the 500 names, within the pro caps.
    const rules = Object.values(bed.sandbox.context.data.world.stream_rules).filter((r) => r.tag === "postbot:mentions");
    expect(rules.length).toBeGreaterThan(1);
    expect(rules.length).toBeLessThan(50);
    expect(rules.every((r) => r.value.length <= 1024)).toBe(true);
    await eventually(() => expect(bed!.runtime.apps()[0]!.stream?.state).toBe("connected"));

    const mentions = [];
    for (let i = 0; i < 500; i++) mentions.push(await bed.post(alice, `@b${i} question number ${i}`));
    const replies = () => Object.values(bed!.sandbox.context.data.world.posts).filter((p) => p.in_reply_to_post_id !== undefined);
    await eventually(() => expect(replies()).toHaveLength(500));
    // Each mention answered once, by the bot it named, without the clock moving: the stream brought them.
    const byTarget = new Map(replies().map((p) => [p.in_reply_to_post_id!, p.text]));
    for (let i = 0; i < 500; i++) expect(byTarget.get(mentions[i]!.id)).toBe(`hi @alice from b${i}`);

    // The catch-up polls spread within the app's window (450 per 15 minutes): one per bot, no polling loop.
    await bed.advance(15 * 60_000);
    await bed.settle();
    const polls = Object.values(await statsOf(bed, "GET /2/users/:id/mentions")).reduce((a, b) => a + b, 0);
    expect(polls).toBe(500);
    await bed.advance(15 * 60_000);
    await bed.settle();
    expect(Object.values(await statsOf(bed, "GET /2/users/:id/mentions")).reduce((a, b) => a + b, 0)).toBe(polls);
    expect(replies()).toHaveLength(500);
  });

  it("loses nothing when the stream drops in the middle of a flood: the gap is recovered by search and mentions by the catch-up polls", async () => {
    const { lines, logger } = captureLogs("info");
    const sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
    // The first connection drops after 6 posts: in the middle of the flood below.
    await sandbox.admin.addFault({ route: "GET /2/posts/search/stream", count: 1, kind: "drop", after_messages: 6 });
    bed = await createTestBed({
      sandbox,
      logger,
      bots: [
        { name: "fan", plan: "pro", triggers: { stream: [{ value: "#flood", tag: "flood" }] }, plugins: { recorder: {} } },
        { name: "listener", plan: "pro", triggers: { mentions: {} }, plugins: { recorder: {} } },
      ],
      plugins: { recorder },
    });
    const alice = await bed.user("alice");
    const hub = () => bed!.runtime.apps()[0]!.stream!;
    await eventually(() => expect(hub().state).toBe("connected"));
    const posts: string[] = [];
    for (let i = 0; i < 30; i++) {
      const text = i % 3 === 0 ? `@listener mention ${i}` : `#flood post ${i}`;
      posts.push(text);
      await bed.post(alice, text);
    }
    await eventually(() => expect(hub().connects).toBe(2));
    await eventually(() => {
      const got = seen.map((s) => s.replace(/^\S+ \S+ /, ""));
      expect([...got].sort()).toEqual([...posts].sort());
    });
    await bed.settle();
    // Each once: no post handed out twice by the stream, the search and the catch-up poll.
    const counts = new Map<string, number>();
    for (const s of seen) counts.set(s, (counts.get(s) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(lines.some((l) => /^stream gap of [\d.]+ s closed: recent search recovered \d+ posts/.test(String(l.msg)))).toBe(true);
    expect(hub().gaps.count).toBe(1);
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });
});
