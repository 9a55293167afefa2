/**
 * Under `postbot/testing`, what a plugin logs shows with the test that ran it: a test bed
 * given no logger prints the lines that name a plugin (`ctx.log`, a handler that threw) to the
 * console, and nothing of postbot's own.
 */
import { afterEach, expect, it, vi } from "vitest";
import { definePlugin } from "../../src/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  vi.restoreAllMocks();
});

const chatty = definePlugin({
  name: "chatty",
  setup(bot) {
    bot.on("mention", async (ctx) => {
      const outcome = await ctx.reply(`@${ctx.author.username} hi ${ctx.post.id}`);
      ctx.log.info({ status: outcome.status }, "answered");
      if (ctx.post.text.includes("boom")) throw new Error("boom in the handler");
    });
  },
});

it("prints what a plugin logs, and a handler that threw, with the bot and plugin; nothing of postbot's own", async () => {
  const printed: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void printed.push(args.join(" ")));
  bed = await createTestBed({
    bots: [{ name: "loud", plan: "pro", triggers: { mentions: {} }, plugins: { chatty: {} } }],
    plugins: { chatty },
  });
  const alice = await bed.user("alice");
  await bed.post(alice, "@loud hello");
  await bed.advance(3_000);
  await bed.settle();
  await bed.post(alice, "@loud boom");
  await bed.advance(3_000);
  await bed.settle();

  expect(printed.filter((l) => l.startsWith("loud chatty: answered"))).toEqual([
    expect.stringMatching(/^loud chatty: answered \{"post":"\d+","status":"sent"\}$/),
    expect.stringMatching(/^loud chatty: answered \{"post":"\d+","status":"sent"\}$/),
  ]);
  expect(printed.some((l) => /^ERROR loud chatty: .*boom in the handler/.test(l))).toBe(true);
  // postbot's own lines (the capacity line at start, each action's line) are not printed.
  expect(printed.filter((l) => !l.includes("chatty"))).toEqual([]);
});
