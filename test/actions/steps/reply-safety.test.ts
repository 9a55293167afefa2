/**
 * Reply safety alone (src/actions/steps/reply-safety.ts): a bot never replies to itself or to
 * another bot of the process unless its file says `reply_to_bots: true`, and never twice in one
 * conversation within its cooldown (kept across a restart); a reply that was not sent frees
 * the conversation again.
 */
import { describe, expect, it } from "vitest";
import type { StepOutcome } from "../../../src/actions/pipeline.ts";
import { replySafety, type ReplySafetyOptions } from "../../../src/actions/steps/reply-safety.ts";
import { createClock } from "../../../src/clock.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { actionOf, fakeNext, jobOf, START, USER } from "./helpers.ts";

const OTHER_BOT = "300";
const COOLDOWN = 600_000;

function setup(options: Partial<ReplySafetyOptions> = {}) {
  const clock = createClock({ frozen: true, start: START });
  const store = createMemoryStore();
  const make = (more: Partial<ReplySafetyOptions> = {}) =>
    replySafety({
      store,
      clock,
      selfId: USER,
      botIds: new Set([USER, OTHER_BOT]),
      cooldownMs: COOLDOWN,
      ...options,
      ...more,
    });
  return { clock, store, step: make(), make };
}

/** A reply to post `id` by `author`, in conversation `conversation`. */
const replyTo = (id: string, author = "200", conversation = `c${id}`) =>
  jobOf(actionOf("reply", id, { context: { authorId: author, conversationId: conversation } }));

describe("reply safety", () => {
  it("refuses a reply to the bot's own post and to another bot of the process, without a request", async () => {
    const { step } = setup();
    const { next, jobs } = fakeNext();
    expect(await step(next)(replyTo("1", USER))).toEqual({
      status: "refused",
      key: "g:reply:1",
      reason: "post 1 is the bot's own; a bot does not reply to itself unless its file says reply_to_bots: true",
    });
    expect(await step(next)(replyTo("2", OTHER_BOT))).toMatchObject({
      status: "refused",
      reason: expect.stringContaining(`is by another bot of this process (user ${OTHER_BOT})`),
    });
    expect(jobs).toHaveLength(0);
  });

  it("inside a conversation the bot holds: no cooldown, and the bot may answer its own question; other bots stay refused", async () => {
    const { step } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    const held = (id: string, author: string) =>
      jobOf(actionOf("reply", id, { context: { authorId: author, conversationId: "thread", conversation: "quiz1" } }));
    expect(await perform(held("10", "200"))).toMatchObject({ status: "sent" }); // the first question
    expect(await perform(held("11", "200"))).toMatchObject({ status: "sent" }); // the next one, at once
    expect(await perform(held("12", USER))).toMatchObject({ status: "sent" }); // "no answer, so I stopped"
    expect(await perform(held("13", OTHER_BOT))).toMatchObject({ status: "refused" });
    expect(jobs).toHaveLength(3);
    // Outside the conversation, the thread's cooldown holds as always.
    expect(await perform(replyTo("14", "200", "thread"))).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("reply_cooldown"),
    });
  });

  it("lets them through when the bot file says reply_to_bots: true", async () => {
    const { make } = setup();
    const { next, jobs } = fakeNext();
    const step = make({ replyToBots: true })(next);
    expect(await step(replyTo("1", USER))).toMatchObject({ status: "sent" });
    expect(await step(replyTo("2", OTHER_BOT))).toMatchObject({ status: "sent" });
    expect(jobs).toHaveLength(2);
  });

  it("refuses a second reply in one conversation within the cooldown, and across a restart; after it, replies again", async () => {
    const { clock, step, make } = setup();
    const { next, jobs } = fakeNext();
    expect(await step(next)(replyTo("1", "200", "c"))).toMatchObject({ status: "sent" });
    await clock.advance(COOLDOWN - 1);
    const restarted = make()(next);
    expect(await restarted(replyTo("2", "201", "c"))).toMatchObject({
      status: "refused",
      key: "g:reply:2",
      reason: expect.stringContaining("its reply_cooldown is 600 s"),
    });
    expect(await restarted(replyTo("3", "200", "another conversation"))).toMatchObject({ status: "sent" });
    await clock.advance(1);
    expect(await restarted(replyTo("4", "200", "c"))).toMatchObject({ status: "sent" });
    expect(jobs.map((j) => j.action.target)).toEqual(["1", "3", "4"]);
  });

  it("frees the conversation when the reply was not sent, and keeps it when it may have been", async () => {
    const cases: Array<[StepOutcome, boolean]> = [
      [{ status: "dropped", reason: "too late" }, false],
      [{ status: "refused", reason: "budget" }, false],
      [{ status: "failed", reason: "403", maybeSent: false }, false],
      [{ status: "failed", reason: "no answer", maybeSent: true }, true],
      [{ status: "duplicate", key: "g:reply:1" }, true],
    ];
    for (const [outcome, held] of cases) {
      const { step } = setup();
      await step(fakeNext(() => outcome).next)(replyTo("1", "200", "c"));
      const second = await step(fakeNext().next)(replyTo("2", "200", "c"));
      expect(second.status, `${outcome.status} ${held}`).toBe(held ? "refused" : "sent");
    }
  });

  it("does not refuse the same action resumed (its own mark), nor anything but replies; a cooldown of 0 is off", async () => {
    const { step, make } = setup();
    const { next, jobs } = fakeNext();
    // The process dies while the reply is on its way: its mark stays; after a restart the same reply is resumed.
    void step(fakeNext(() => new Promise<never>(() => {})).next)(replyTo("1", "200", "c"));
    expect(await make()(next)(replyTo("1", "200", "c"))).toMatchObject({ status: "sent" });
    expect(await make()(next)(replyTo("2", "200", "c"))).toMatchObject({ status: "refused" });
    // A like of the bot's own post, or of a post in a conversation it just replied in, is no reply.
    expect(await step(next)(jobOf(actionOf("like", "c", { context: { authorId: USER } })))).toMatchObject({
      status: "sent",
    });
    const off = make({ cooldownMs: 0 })(next);
    expect(await off(replyTo("5", "200", "d"))).toMatchObject({ status: "sent" });
    expect(await off(replyTo("6", "200", "d"))).toMatchObject({ status: "sent" });
    expect(jobs).toHaveLength(4);
  });
});
