/**
 * The budget gate alone (src/actions/steps/budget-gate.ts): what the plan or the bot file can
 * never allow (an endpoint the plan lacks, a cap of 0) is refused at once, without waiting and
 * without a request; everything else goes on to the queue, which waits for room.
 */
import { describe, expect, it } from "vitest";
import { budgetGate } from "../../../src/actions/steps/budget-gate.ts";
import { createClock } from "../../../src/clock.ts";
import { BudgetBook, type BudgetPolicy } from "../../../src/limits/budget.ts";
import type { Plan } from "../../../src/limits/types.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { actionOf, fakeNext, jobOf, START, USER } from "./helpers.ts";

function budgetOf(plan: Plan, policy: BudgetPolicy = {}) {
  const book = new BudgetBook({ store: createMemoryStore(), clock: createClock({ frozen: true, start: START }) });
  return book.account({ appId: "app", userId: USER, plan, bot: "g" }, policy);
}

describe("the budget gate", () => {
  it("refuses at once an action whose endpoint the plan does not offer, naming the plan", async () => {
    const { next, jobs } = fakeNext();
    expect(await budgetGate(budgetOf("free"))(next)(jobOf(actionOf("dm", "5")))).toEqual({
      status: "refused",
      key: "g:dm:5",
      reason: "POST /2/dm_conversations/with/:participant_id/messages is not available on the free plan (spec part 8)",
    });
    expect(jobs).toHaveLength(0);
  });

  it("refuses at once an action the bot file turned off (a cap of 0); other kinds on the same endpoint pass", async () => {
    const budget = budgetOf("basic", { caps: { reply: { max: 0, per: 3_600_000 } } });
    const { next, jobs } = fakeNext();
    const gate = budgetGate(budget)(next);
    expect(await gate(jobOf(actionOf("reply", "1")))).toEqual({
      status: "refused",
      key: "g:reply:1",
      reason: "reply is turned off by the bot's budget (max 0)",
    });
    expect(await gate(jobOf(actionOf("post", "1")))).toMatchObject({ status: "sent" });
    expect(jobs.map((j) => j.action.kind)).toEqual(["post"]);
  });

  it("lets a job through when its budget is only spent for now: the queue waits for room", async () => {
    const budget = budgetOf("basic"); // follows: 5 per 15 minutes
    for (let i = 0; i < 5; i++) budget.take("POST /2/users/:id/following", "follow");
    expect(budget.check("POST /2/users/:id/following", "follow").ok).toBe(false);
    const { next, jobs } = fakeNext();
    const job = jobOf(actionOf("follow", "u9"));
    expect(await budgetGate(budget)(next)(job)).toMatchObject({ status: "sent" });
    expect(jobs).toEqual([job]);
  });

  it("refuses a budgeted read the plan lacks, without a key (reads are not in the ledger)", async () => {
    const { next, jobs } = fakeNext();
    const read = {
      ...actionOf("like", "1"),
      kind: "read" as const,
      key: undefined,
      endpoint: "GET /2/dm_events" as const,
    };
    expect(await budgetGate(budgetOf("free"))(next)(jobOf(read))).toEqual({
      status: "refused",
      reason: "GET /2/dm_events is not available on the free plan (spec part 8)",
    });
    expect(jobs).toHaveLength(0);
  });
});
