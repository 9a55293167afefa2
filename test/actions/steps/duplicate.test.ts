/**
 * The duplicate guard alone (src/actions/steps/duplicate.ts): the bot never spends a request
 * on a text the service will refuse as a duplicate (the same text from one account within 24
 * hours): a repeat is refused locally, and the log says once per text how to vary it.
 */
import { describe, expect, it } from "vitest";
import type { StepOutcome } from "../../../src/actions/pipeline.ts";
import { duplicateGuard, DUPLICATE_TEXT_MS } from "../../../src/actions/steps/duplicate.ts";
import { ProblemError } from "../../../src/api/errors.ts";
import { createClock } from "../../../src/clock.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { captureLogs } from "../../helpers/log.ts";
import { settled } from "../helpers.ts";
import { actionOf, BOT, deferred, fakeNext, jobOf, START } from "./helpers.ts";

function setup() {
  const clock = createClock({ frozen: true, start: START });
  const store = createMemoryStore();
  const { lines, logger } = captureLogs();
  const make = () => duplicateGuard({ store, clock, log: logger, bot: BOT });
  return { clock, store, lines, step: make(), make };
}

/** A post (or reply to `replyTo`) of `text`, keyed by `key`. */
const post = (key: string, text: string) => jobOf(actionOf("post", key, { body: { text } }));
const reply = (to: string, text: string) =>
  jobOf(actionOf("reply", to, { body: { text, reply: { in_reply_to_post_id: to } } }));

describe("the duplicate guard", () => {
  it("refuses a text the bot posted within 24 hours, without a request, and says once how to vary it", async () => {
    const { clock, step, lines } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    expect(await perform(post("a", "good morning"))).toMatchObject({ status: "sent" });
    await clock.advance(3_600_000);
    for (const job of [reply("7", "good morning"), post("b", "good morning")])
      expect(await perform(job)).toMatchObject({
        status: "refused",
        key: job.action.key,
        reason: expect.stringContaining(
          "the service refuses the same text from one account until 2026-01-06T12:00:00.000Z",
        ),
      });
    expect(jobs).toHaveLength(1);
    expect(lines.filter((l) => String(l.msg).includes("Vary the text"))).toHaveLength(1);
    await clock.advance(DUPLICATE_TEXT_MS - 3_600_000);
    expect(await perform(post("c", "good morning"))).toMatchObject({ status: "sent" });
  });

  it("compares texts as the service does (NFC), and lets other kinds and other texts through", async () => {
    const { step } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    await perform(post("a", "caf\u00e9"));
    expect(await perform(post("b", "cafe\u0301"))).toMatchObject({ status: "refused" });
    expect(await perform(post("c", "tea"))).toMatchObject({ status: "sent" });
    expect(await perform(jobOf(actionOf("like", "1")))).toMatchObject({ status: "sent" });
    expect(jobs).toHaveLength(3);
  });

  it("does not refuse the same action resumed (its own key), as after a restart", async () => {
    const { step, make } = setup();
    const { next, jobs } = fakeNext();
    await step(next)(post("a", "hello"));
    expect(await make()(next)(post("a", "hello"))).toMatchObject({ status: "sent" });
    expect(jobs).toHaveLength(2);
  });

  it("holds the same text asked for meanwhile until the first is decided: refused if it was posted, sent if not", async () => {
    const { step } = setup();
    const first = deferred<StepOutcome>();
    const { next, jobs } = fakeNext((_job, call) => (call === 1 ? first.promise : { status: "sent", result: {} }));
    const perform = step(next);
    const a = perform(post("a", "same"));
    const b = perform(post("b", "same"));
    expect(await settled(b)).toBe(false);
    first.resolve({ status: "dropped", reason: "too late" });
    expect(await a).toMatchObject({ status: "dropped" });
    expect(await b).toMatchObject({ status: "sent" });
    const c = await perform(post("c", "same"));
    expect(c).toMatchObject({ status: "refused" });
    expect(jobs.map((j) => j.action.key)).toEqual(["g:post:a", "g:post:b"]);
  });

  it("remembers a text the service refused as a duplicate, so it is not spent on again", async () => {
    const { step } = setup();
    const error = new ProblemError({ method: "POST", path: "/2/posts" }, 403, {
      type: "about:blank",
      title: "Forbidden",
      detail: "You are not allowed to create a Post with duplicate content.",
    });
    const { next, jobs } = fakeNext(
      (_job, call): StepOutcome =>
        call === 1
          ? { status: "failed", reason: error.message, maybeSent: false, error }
          : { status: "sent", result: {} },
    );
    const perform = step(next);
    expect(await perform(post("a", "posted elsewhere"))).toMatchObject({ status: "failed" });
    expect(await perform(post("a", "posted elsewhere"))).toMatchObject({ status: "refused" }); // even under its own key
    expect(jobs).toHaveLength(1);
  });
});
