/**
 * A mentions cursor the service refuses (issue 10, item 7): a state whose `since_id` is not a
 * post id made every poll fail forever. The bot drops the cursor, says so once, and goes on.
 */
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { mentionsCursorKey } from "../../src/triggers/mentions.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const answer = definePlugin({
  name: "answer",
  setup(bot) {
    bot.on("mention", (ctx) => ctx.reply(`hi @${ctx.author.username}`));
  },
});

describe("a mentions cursor that is not a post id", () => {
  it("is dropped with one log line, and the bot answers mentions again", async () => {
    const store = createMemoryStore();
    store.set("cursors", mentionsCursorKey("greeter"), { since_id: "not-a-post-id" });
    const { lines, logger } = captureLogs();
    bed = await createTestBed({
      store,
      logger,
      bots: [{ name: "greeter", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {} } }],
      plugins: { answer },
    });
    const alice = await bed.user("alice");
    await bed.post(alice, "@greeter hello");
    for (let i = 0; i < 5; i++) await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["hi @alice"]);
    expect(lines.filter((l) => String(l.msg).includes("cursor")).map((l) => l.msg)).toEqual([
      expect.stringMatching(/since_id "not-a-post-id".*dropped it/),
    ]);
    expect(lines.filter((l) => String(l.msg).includes("poll failed"))).toEqual([]);
    expect(store.get<{ since_id: string }>("cursors", mentionsCursorKey("greeter"))?.since_id).toMatch(/^\d+$/);
  });
});
