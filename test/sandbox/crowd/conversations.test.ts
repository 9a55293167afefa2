/**
 * The demo's crowd takes the quiz (issue 22 item 5): its people start the quiz bot's dialog
 * with one of its start words, in a thread or by DM, and answer each question where it was
 * asked, with one of the choices it offers; the quiz runs to its end for them.
 */
import { afterEach, describe, expect, it } from "vitest";
import dialog from "../../../plugins/dialog.ts";
import { silentLogger } from "../../../src/log.ts";
import { answerTo } from "../../../src/sandbox/crowd/conversations.ts";
import { startCrowd, type Crowd } from "../../../src/sandbox/crowd/index.ts";
import { seededRandom } from "../../../src/seeded-random.ts";
import { createTestBed, type TestBed } from "../../../src/testing.ts";
import { QUIZ } from "../../fixtures/quiz-bot.ts";

let bed: TestBed | undefined;
let crowd: Crowd | undefined;
afterEach(async () => {
  crowd?.stop();
  crowd = undefined;
  await bed?.close();
  bed = undefined;
});

describe("the crowd and a bot's conversations", () => {
  it("answers with one of the choices a question offers, else a first name", () => {
    const rng = seededRandom(7);
    const ann = { name: "Ann Lee", username: "ann" };
    for (let i = 0; i < 20; i++)
      expect(["red", "green", "blue"]).toContain(
        answerTo("@ann Please answer red, green or blue.\nHi Ann! Favourite colour: red, green or blue? (2)", ann, rng),
      );
    expect(answerTo("@ann What's your name?", ann, rng)).toBe("Ann");
  });

  it("takes the quiz bot's quiz to its end, in threads and by DM, answering each question once", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const quiz = await bed.user("quiz");
    const talker = { username: "quiz", userId: quiz.id, streamRules: [], mentions: true, followers: false, dms: true };
    crowd = await startCrowd({
      sandbox: bed.sandbox,
      clock: bed.clock,
      logger: silentLogger,
      bots: [{ ...talker, starts: ["quiz", "start"] }],
      seed: 3,
      size: 3,
      everyMs: 20_000,
    });
    for (let i = 0; i < 90; i++) {
      await bed.advance(20_000);
      await bed.settle();
    }
    const thanks = /^(?:@\w+ )?Thanks \w+, (red|green|blue) it is\. Bye!$/;
    const inThreads = bed.postsBy("quiz").filter((p) => thanks.test(p.text));
    const byDm = crowd.users.flatMap((u) =>
      bed!.dmsWith(u, "quiz").filter((m) => m.sender_id === quiz.id && thanks.test(m.text)),
    );
    expect(inThreads.length, "quizzes finished in threads").toBeGreaterThan(0);
    expect(byDm.length, "quizzes finished by DM").toBeGreaterThan(0);
    // Each question was answered once: no bot post has two answers from the user it asked.
    const posts = Object.values(bed.sandbox.context.data.world.posts);
    for (const q of bed.postsBy("quiz")) {
      const answers = posts.filter((p) => p.in_reply_to_post_id === q.id && p.author_id !== quiz.id);
      expect(answers.length, q.text).toBeLessThanOrEqual(1);
    }
  }, 60_000);
});
