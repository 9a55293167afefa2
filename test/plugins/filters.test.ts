/**
 * Filters run whether or not a handler follows (issue 10, item 1): a bot whose only plugin
 * for `reply` events is a filter (moderation hiding abusive replies) still sees those events.
 */
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { gate } from "../helpers/plugins.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** Answers mentions only: no handler for `reply`. */
const answer = definePlugin({
  name: "answer",
  setup(bot) {
    bot.on("mention", (ctx) => ctx.reply(`thanks @${ctx.author.username} for ${ctx.post.id}`));
  },
});

describe("filters", () => {
  it("run for an event that no plugin handles", async () => {
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {}, gate: {} } }],
      plugins: { answer, gate },
    });
    const host = await bed.user(sandboxUsername("host"));
    const alice = await bed.user("alice");
    const root = await bed.post(host, "what do you think?");
    const rude = await bed.post(alice, "@host rude answer", root.id);
    const kind = await bed.post(alice, "@host kind answer", root.id);
    await bed.advance(3_000);
    await bed.settle();
    const posts = bed.sandbox.context.data.world.posts;
    expect(posts[rude.id]!.hidden).toBe(true);
    expect(posts[kind.id]!.hidden).not.toBe(true);
    // Replies are not mentions: the answering plugin left both alone.
    expect(bed.postsBy("host").map((p) => p.text)).toEqual(["what do you think?"]);
  });
});
