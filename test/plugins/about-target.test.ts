/**
 * What a plugin does to an event's post or user is logged with who or what that is: a like
 * names the post's author and its first words, a follow the user's @name, not a bare id; and
 * `bot status` names them so too, after the action has ended.
 */
import { afterEach, expect, it } from "vitest";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { definePlugin } from "../../src/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const fan = definePlugin({
  name: "fan",
  setup(bot) {
    bot.on("mention", async (ctx) => {
      await ctx.like();
      await ctx.follow();
    });
  },
});

it("logs a like with the post's author and words, and a follow with the user's @name", async () => {
  const { lines, logger } = captureLogs("info");
  bed = await createTestBed({
    logger,
    bots: [{ name: "liker", plan: "pro", triggers: { mentions: {} }, plugins: { fan: {} } }],
    plugins: { fan },
  });
  const alice = await bed.user("alice");
  const post = await bed.post(alice, "@liker any tips for a first week in Lisbon, where to eat and what to see?");
  await bed.advance(3_000);
  await bed.settle();
  const said = lines.filter((l) => l.bot === "liker" && l.status === "sent").map((l) => l.msg);
  expect(said).toEqual([
    `like post ${post.id} (@alice: "@liker any tips for a first week in Lis…"): sent`,
    `follow user ${alice.id} (@alice): sent`,
  ]);
});

it("bot status names whom its last follow was for", async () => {
  bed = await createTestBed({
    bots: [{ name: "liker", plan: "pro", triggers: { mentions: {} }, plugins: { fan: {} } }],
    plugins: { fan },
  });
  const alice = await bed.user("alice");
  await bed.post(alice, "@liker hello");
  await bed.advance(3_000);
  await bed.settle();
  const [report] = collectStatus(bed.store, bed.clock);
  expect(report!.lastAction).toMatchObject({ kind: "follow", target: alice.id, state: "done", about: "@alice" });
  expect(formatStatus([report!], bed.clock.now())).toContain(`  last       follow of user ${alice.id} (@alice): sent`);
});
