/**
 * The hidden guard alone (src/actions/steps/hidden.ts): once the bot has hidden a reply, no
 * reply, like or repost of the bot reaches it, not after a restart either; a hide is recorded
 * only when the service confirmed it, and an unhide forgets it.
 */
import { describe, expect, it } from "vitest";
import type { StepOutcome } from "../../../src/actions/pipeline.ts";
import { hiddenGuard, isHidden } from "../../../src/actions/steps/hidden.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { actionOf, BOT, fakeNext, jobOf } from "./helpers.ts";

const hide = (id: string, hidden = true) =>
  jobOf(actionOf("hide", hidden ? id : `${id}:unhide`, { path: { id }, body: { hidden } }));

describe("the hidden guard", () => {
  it("refuses every reply, like and repost to a post the bot hid, without a request; other actions pass", async () => {
    const store = createMemoryStore();
    const { next, jobs } = fakeNext();
    const perform = hiddenGuard(store, BOT)(next);
    expect(await perform(hide("7"))).toMatchObject({ status: "sent" });
    for (const kind of ["reply", "like", "repost"] as const)
      expect(await perform(jobOf(actionOf(kind, "7")))).toEqual({
        status: "refused",
        key: `g:${kind}:7`,
        reason: "post 7 was hidden by this bot; it is not answered",
      });
    expect(jobs).toHaveLength(1);
    expect(await perform(jobOf(actionOf("reply", "8")))).toMatchObject({ status: "sent" });
    expect(await perform(hide("7"))).toMatchObject({ status: "sent" }); // hiding again is not answering
    expect(jobs).toHaveLength(3);
  });

  it("records a hide only when the service confirmed it (sent, done already, or a dry run)", async () => {
    const cases: Array<[StepOutcome, boolean]> = [
      [{ status: "sent", result: {} }, true],
      [{ status: "duplicate", key: "g:hide:7" }, true],
      [{ status: "dry-run", result: {} }, true],
      [{ status: "failed", reason: "403", maybeSent: false }, false],
      [{ status: "refused", reason: "not on this plan" }, false],
      [{ status: "dropped", reason: "too late" }, false],
    ];
    for (const [outcome, hidden] of cases) {
      const store = createMemoryStore();
      const { next } = fakeNext(() => outcome);
      await hiddenGuard(store, BOT)(next)(hide("7"));
      expect(isHidden(store, BOT, "7"), outcome.status).toBe(hidden);
    }
  });

  it("forgets a hide when the bot unhides the post, and remembers it across a restart (one record, read by isHidden)", async () => {
    const store = createMemoryStore();
    const { next } = fakeNext();
    await hiddenGuard(store, BOT)(next)(hide("7"));
    // A restart: a new guard over the same store.
    const again = hiddenGuard(store, BOT)(next);
    expect(await again(jobOf(actionOf("like", "7")))).toMatchObject({ status: "refused" });
    expect(isHidden(store, BOT, "7")).toBe(true);
    expect(isHidden(store, "other-bot", "7")).toBe(false);
    await again(hide("7", false));
    expect(isHidden(store, BOT, "7")).toBe(false);
    expect(await again(jobOf(actionOf("like", "7")))).toMatchObject({ status: "sent" });
  });
});
