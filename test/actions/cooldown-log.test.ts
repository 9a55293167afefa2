/**
 * A reply refused by `reply_cooldown` (a second reply in one conversation) is logged at info
 * level, saying why and which setting changes it: the second step of a two-step exchange in a
 * thread was refused with the reason only in the action's outcome.
 */
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { Plugin } from "../../src/plugins/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

const reply = (await import(join(process.cwd(), "plugins", "reply.ts"))).default as Plugin;

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

it("logs a reply refused by reply_cooldown at info, naming the setting", async () => {
  const { lines, logger } = captureLogs("info");
  bed = await createTestBed({
    logger,
    bots: [
      {
        name: "greeter",
        plan: "pro",
        triggers: { mentions: {} },
        plugins: { reply: { text: ["hi {post.id}"], events: ["mention", "reply"] } },
      },
    ],
    plugins: { reply },
  });
  const alice = await bed.user("alice");
  await bed.post(alice, "@greeter hello");
  await bed.advance(3_000);
  await bed.settle();
  const answer = bed.postsBy("greeter")[0]!;
  const again = await bed.post(alice, "@greeter and again?", answer.id);
  await bed.advance(3_000);
  await bed.settle();

  expect(bed.postsBy("greeter")).toHaveLength(1);
  const refused = lines.filter((l) => l.bot === "greeter" && l.status === "refused");
  expect(refused.map((l) => [l.level, l.target])).toEqual([[30, again.id]]);
  expect(refused[0]!.msg).toMatch(
    /^reply to post \d+ ".*": refused: the bot replied in conversation \d+ \d+ s ago; its reply_cooldown is 900 s, one reply per conversation in that time: to change it, set reply_cooldown in its bot file \(0s turns it off\)$/,
  );
});
