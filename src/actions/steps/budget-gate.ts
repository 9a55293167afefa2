/**
 * Budget gate. Invariant: what the plan or the bot file can never allow (an endpoint the plan
 * lacks, a cap of 0) is refused at once, without waiting and without a request; everything
 * else goes on to the queue, which waits for room.
 */
import type { AccountBudget } from "../../limits/budget.ts";
import type { Step } from "../pipeline.ts";

export function budgetGate(budget: AccountBudget): Step {
  return (next) => async (job) => {
    const { endpoint, kind, key } = job.action;
    const r = budget.check(endpoint, kind === "read" ? undefined : kind);
    if (!r.ok && r.readyAt === Infinity) return { status: "refused", ...(key ? { key } : {}), reason: r.reason };
    return next(job);
  };
}
