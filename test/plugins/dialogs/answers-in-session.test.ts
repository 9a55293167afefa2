/**
 * A dialog keeps its answers in the user's session: `turn.session` is the plugin's
 * `ctx.session` (read through the plugin's session schema), the same object within an event,
 * and what a turn saved is what a later handler of that user reads.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { sandboxUsername } from "../../../src/hosting/provision.ts";
import { definePlugin } from "../../../src/plugins/plugin.ts";
import { createTestBed, type TestBed } from "../../../src/testing.ts";
import { captureLogs } from "../../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("a dialog's answers", () => {
  it("live in the user's session: turn.session is ctx.session, and a later handler reads them", async () => {
    const same: boolean[] = [];
    const remembered: Array<string | undefined> = [];
    const order = definePlugin({
      name: "order",
      // The schema's default shows the session went through it before the turn saw it.
      session: z.object({ size: z.string().optional(), visits: z.number().default(0) }),
      setup(bot) {
        let seen: object | undefined;
        const dialog = bot.dialog("order", {
          start(turn) {
            same.push(turn.session === seen);
            turn.wait("size", { say: `Which size (visit ${turn.session.visits})?` });
          },
          steps: {
            size(turn) {
              turn.session.size = turn.text.toUpperCase();
              turn.say(`Size ${turn.session.size}, noted.`);
            },
          },
        });
        bot.on("mention", async (ctx) => {
          if (ctx.post.text.includes("order")) {
            ctx.session.visits++;
            seen = ctx.session;
            await dialog.start(ctx);
          } else {
            remembered.push(ctx.session.size);
            await ctx.reply(`@${ctx.author.username} you chose ${ctx.session.size ?? "nothing"}`);
          }
        });
      },
    });
    bed = await createTestBed({
      bots: [{ name: "shop", plan: "pro", triggers: { mentions: {} }, plugins: { order: {} } }],
      plugins: { order },
    });
    const shop = await bed.user(sandboxUsername("shop"));
    const alice = await bed.user("alice");
    await bed.post(alice, `@${shop.username} I'd like to order`);
    await bed.advance(3_000);
    await bed.settle();
    await bed.answer(alice, "shop", "m");
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.dialog("shop", alice)).toBeUndefined();
    await bed.post(alice, `@${shop.username} what did I choose?`);
    await bed.advance(3_000);
    await bed.settle();
    expect(same).toEqual([true]);
    expect(remembered).toEqual(["M"]);
    expect(bed.postsBy("shop").map((p) => p.text)).toEqual([
      "@alice Which size (visit 1)?",
      "@alice Size M, noted.",
      "@alice you chose M",
    ]);
  });

  it("a step that never finishes is given up at the handlers' time limit, and the dialog stays where it was", async () => {
    const quiz = definePlugin({
      name: "quiz",
      setup(bot) {
        const dialog = bot.dialog("quiz", {
          start(turn) {
            turn.wait("name", { say: "Your name?" });
          },
          steps: {
            async name(turn) {
              if (turn.text === "hang") await new Promise(() => {});
              turn.say(`Hi ${turn.text}!`);
            },
          },
        });
        bot.on("mention", async (ctx) => void (await dialog.start(ctx)));
      },
    });
    const { lines, logger } = captureLogs("warn");
    bed = await createTestBed({
      bots: [{ name: "quizzer", plan: "pro", triggers: { mentions: {} }, plugins: { quiz: {} } }],
      plugins: { quiz },
      logger,
      runtime: { handlerTimeoutMs: 5_000 },
    });
    const quizzer = await bed.user(sandboxUsername("quizzer"));
    const alice = await bed.user("alice");
    await bed.post(alice, `@${quizzer.username} quiz me`);
    await bed.advance(3_000);
    await bed.settle();
    await bed.answer(alice, "quizzer", "hang");
    await bed.advance(3_000);
    await bed.advance(10_000);
    await bed.settle();
    expect(lines.map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /plugin quiz, dialog "quiz": its step "name" threw: plugin quiz did not finish it within 5000 ms; the dialog stays as it was/,
      ),
    );
    expect(bed.dialog("quizzer", alice)).toMatchObject({ step: "name" });
    await bed.answer(alice, "quizzer", "Ann");
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("quizzer").map((p) => p.text)).toEqual(["@alice Your name?", "@alice Hi Ann!"]);
  });
});
