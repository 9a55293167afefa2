/**
 * The queue step alone (src/actions/steps/queue.ts): no request leaves without a slot in every
 * window that applies to it, and every answer corrects the slot it was counted in. Driven with
 * a fake `next` (the executor) over a real budget and budget queue on a frozen clock.
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../../src/actions/action.ts";
import { ActionQueue } from "../../../src/actions/mechanics/budget-queue.ts";
import type { ActionEvent } from "../../../src/actions/observe.ts";
import type { Job, PendingMark, StepOutcome } from "../../../src/actions/pipeline.ts";
import { queueStep } from "../../../src/actions/steps/queue.ts";
import { RateLimitError } from "../../../src/api/errors.ts";
import { createClock } from "../../../src/clock.ts";
import { BudgetBook } from "../../../src/limits/budget.ts";
import type { Plan } from "../../../src/limits/types.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { settled } from "../helpers.ts";
import { actionOf, fakeNext, jobOf, START, USER } from "./helpers.ts";

const FOLLOW = "POST /2/users/:id/following" as const; // basic: 5 per 15 minutes a user
const QUARTER = 15 * 60_000;

function setup(plan: Plan = "basic") {
  const clock = createClock({ frozen: true, start: START });
  const book = new BudgetBook({ store: createMemoryStore(), clock });
  const budget = book.account({ appId: "app", userId: USER, plan, bot: "g" });
  const queue = new ActionQueue({ clock });
  const events: ActionEvent[] = [];
  const step = queueStep({ queue, budget, clock, bot: "g", observe: (e) => void events.push(e) });
  return { clock, budget, queue, step, events };
}

const follow = (target: string, extra: Partial<Action> = {}) => actionOf("follow", target, extra);

describe("the queue step", () => {
  it("sends nothing while a window is full, and serves the waiting jobs by priority when it frees", async () => {
    const { clock, step } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    for (let i = 0; i < 5; i++) await perform(jobOf(follow(`u${i}`)));
    const later = perform(jobOf(follow("late", { priority: 5 })));
    const urgent = perform(jobOf(follow("urgent", { priority: 1 })));
    expect(await settled(later)).toBe(false);
    expect(await settled(urgent)).toBe(false);
    expect(jobs).toHaveLength(5);
    await clock.advance(QUARTER - 1);
    expect(jobs).toHaveLength(5);
    await clock.advance(1);
    await Promise.all([later, urgent]);
    expect(jobs.slice(5).map((j) => j.action.target)).toEqual(["urgent", "late"]);
  });

  it("drops a job whose time-to-live passed, or ends before its turn can come, without sending it", async () => {
    const { clock, step } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    expect(await perform(jobOf(follow("stale", { expiresAt: START })))).toMatchObject({
      status: "dropped",
      reason: expect.stringContaining("waited past its time-to-live"),
    });
    for (let i = 0; i < 5; i++) await perform(jobOf(follow(`u${i}`)));
    expect(await perform(jobOf(follow("short", { expiresAt: START + 60_000 })))).toMatchObject({
      status: "dropped",
      reason: expect.stringContaining("would wait past its time-to-live"),
    });
    await clock.advance(QUARTER);
    expect(jobs.map((j) => j.action.target)).toEqual(["u0", "u1", "u2", "u3", "u4"]);
  });

  it("hands out no slot before the job's notBefore (a retry's back-off), even with room", async () => {
    const { clock, step } = setup();
    const { next, jobs } = fakeNext();
    const waiting = step(next)(jobOf(follow("u1"), { notBefore: START + 10_000 }));
    await clock.advance(9_999);
    expect(jobs).toHaveLength(0);
    await clock.advance(1);
    expect(await waiting).toMatchObject({ status: "sent" });
  });

  it("writes the ledger's mark with the slot before the request, and hands the executor no mark", async () => {
    const { step } = setup();
    const order: string[] = [];
    const mark: PendingMark = {
      write: async (slot) => void order.push(`marked ${slot.at - START} ${slot.keys.join(",")}`),
      stage: async () => undefined,
    };
    const { next, jobs } = fakeNext(() => (order.push("sent"), { status: "sent", result: {} }));
    await step(next)(jobOf(follow("u1"), { pendingMark: mark }));
    expect(order).toEqual([`marked 0 ${FOLLOW}|u:${USER}|15m`, "sent"]);
    expect(jobs[0]!.pendingMark).toBeUndefined();
  });

  it("sends nothing when the mark cannot be written, and gives the slot back", async () => {
    const { step, budget } = setup();
    const mark: PendingMark = {
      write: async () => {
        throw new Error("disk full");
      },
      stage: async () => undefined,
    };
    const { next, jobs } = fakeNext();
    const outcome = await step(next)(jobOf(follow("u1"), { pendingMark: mark }));
    expect(outcome).toEqual({
      status: "failed",
      reason: "not sent: could not record it in the ledger first (disk full)",
      maybeSent: false,
    });
    expect(jobs).toHaveLength(0);
    expect(budget.remaining(FOLLOW, "follow")).toBe(5);
  });

  it("corrects the slot with the answer: a 429's reset pauses the endpoint, and the observer hears the answer", async () => {
    const { step, budget, events } = setup();
    const error = new RateLimitError({ method: "POST", path: "/2/users/100/following" }, { resetAt: START + 60_000 });
    const { next } = fakeNext(
      (): StepOutcome => ({ status: "failed", reason: error.message, maybeSent: false, error }),
    );
    await step(next)(jobOf(follow("u1")));
    expect(budget.remaining(FOLLOW, "follow")).toBe(0);
    expect(budget.check(FOLLOW, "follow")).toMatchObject({ ok: false, readyAt: START + 60_000 });
    expect(events).toEqual([
      { type: "response", bot: "g", endpoint: FOLLOW, kind: "follow", status: 429, waitedMs: 0 },
    ]);
  });

  it("corrects the slot by a success's rate-limit headers, and counts the posts a capped read delivered", async () => {
    const { step, budget } = setup();
    const search = "GET /2/posts/search/recent" as const;
    const read: Action = { ...follow("search"), kind: "read", key: undefined, endpoint: search };
    const { next } = fakeNext(
      (): StepOutcome => ({
        status: "sent",
        result: { meta: { result_count: 42 } },
        headers: {
          "x-rate-limit-limit": "60",
          "x-rate-limit-remaining": "0",
          "x-rate-limit-reset": String((START + 600_000) / 1000),
        },
      }),
    );
    const job: Job = jobOf(read, {
      postsDelivered: (r) => (r as { meta: { result_count: number } }).meta.result_count,
    });
    await step(next)(job);
    expect(budget.monthlyUsage()).toMatchObject({ used: 42 });
    expect(budget.remaining(search)).toBe(0);
  });

  it("refuses what the plan never allows, and defers what waits when postbot stops", async () => {
    const free = setup("free");
    const { next, jobs } = fakeNext();
    expect(await free.step(next)(jobOf(actionOf("dm", "5")))).toMatchObject({
      status: "refused",
      reason: expect.stringContaining("not available on the free plan"),
    });
    const { step, queue } = setup();
    const perform = step(next);
    for (let i = 0; i < 5; i++) await perform(jobOf(follow(`u${i}`)));
    const waiting = perform(jobOf(follow("late")));
    expect(await settled(waiting)).toBe(false);
    queue.close();
    expect(await waiting).toMatchObject({ status: "deferred" });
    expect(jobs.map((j) => j.action.target)).toEqual(["u0", "u1", "u2", "u3", "u4"]);
  });
});
