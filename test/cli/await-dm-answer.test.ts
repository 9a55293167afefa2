/**
 * `bot say --dm --wait` prints all a bot says at once: a dialog's turn may be several
 * messages, sent one after the other, and a look may come between them. It goes on looking
 * (through the sandbox's admin API, which costs the user nothing) until a look finds nothing
 * new, and never prints what the bot says after that (the next message's answer).
 */
import { afterEach, expect, it } from "vitest";
import { awaitDmAnswer, type DmWaited } from "../../src/cli/await-dm-answer.ts";
import { createClock } from "../../src/clock.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

it("prints every message of the bot's turn, the second sent after a look saw the first", async () => {
  sandbox = await createSandbox();
  const s = sandbox;
  const ann = await s.admin.createUser({ username: "ann" });
  const bot = await s.admin.createUser({ username: "quiz" });
  const say = (text: string) => s.admin.sendDm({ sender_id: bot.id, recipient_id: ann.id, text });
  await say("an earlier answer");
  const message = await s.admin.sendDm({ sender_id: ann.id, recipient_id: bot.id, text: "quiz" });
  await say("Welcome to the quiz.");

  // The wait's own clock, moved by the test: each look, then a sleep of a second.
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-01T10:00:00Z") });
  let waited: DmWaited | undefined;
  const done = awaitDmAnswer({
    access: { url: s.url, admin_token: s.adminToken },
    clock,
    userId: ann.id,
    botId: bot.id,
    messageId: message.id,
    timeoutMs: 30_000,
  }).then((w) => (waited = w));
  /** Lets the wait look, and waits until it sleeps again. */
  const looked = () => expect.poll(() => clock.pending()).toBe(1);

  await looked(); // the first look saw the welcome
  await say("What's your name?"); // the rest of the turn, after that look
  await clock.advance(1_000);
  await looked(); // saw the question
  await clock.advance(1_000); // nothing new: done
  await done;
  await say("Hi Ann!"); // the answer to her next message: not this wait's
  expect(waited!.answers.map((a) => a.text)).toEqual(["Welcome to the quiz.", "What's your name?"]);
  expect(waited!.sentAt).toBe(Date.parse(message.created_at!));
});
