/**
 * The executor step alone (src/actions/steps/executor.ts): it sends exactly one request (the
 * bot's executor for an action; a read brings its own) and reports what came back, body and
 * headers or the error; it decides nothing. In a dry run the executor answers as the service
 * would and the outcome says `dry-run`.
 */
import { describe, expect, it } from "vitest";
import type { Action, Executor } from "../../../src/actions/action.ts";
import { dryRunExecutor } from "../../../src/actions/dry-run.ts";
import { executorStep } from "../../../src/actions/steps/executor.ts";
import { NetworkError } from "../../../src/api/errors.ts";
import { actionOf, jobOf } from "./helpers.ts";

function recording(answer: (action: Action) => ReturnType<Executor>) {
  const sent: Action[] = [];
  const executor: Executor = (action) => (sent.push(action), answer(action));
  return { sent, executor };
}

describe("the executor step", () => {
  it("sends the action once through the bot's executor and reports the answer's body and headers", async () => {
    const headers = { "x-rate-limit-remaining": "99" };
    const { sent, executor } = recording(async () => ({ result: { data: { id: "9" } }, headers }));
    const reply = actionOf("reply", "1");
    expect(await executorStep(executor, false)(jobOf(reply))).toEqual({
      status: "sent",
      result: { data: { id: "9" } },
      headers,
    });
    expect(sent).toEqual([reply]);
  });

  it("reports a failure with the error and maybeSent (it decides nothing: the retry step sorts it)", async () => {
    const error = new NetworkError({ method: "POST", path: "/2/posts" }, "socket hang up");
    const { sent, executor } = recording(async () => {
      throw error;
    });
    expect(await executorStep(executor, false)(jobOf(actionOf("reply", "1")))).toEqual({
      status: "failed",
      reason: "POST /2/posts: socket hang up",
      maybeSent: true,
      error,
    });
    expect(sent).toHaveLength(1);
  });

  it("sends a read's own request, not the bot's executor", async () => {
    const { sent, executor } = recording(async () => ({ result: "not this" }));
    let reads = 0;
    const read = { ...actionOf("like", "1"), kind: "read" as const, key: undefined };
    const outcome = await executorStep(
      executor,
      false,
    )(jobOf(read, { send: async () => (reads++, { result: { data: [] } }) }));
    expect(outcome).toEqual({ status: "sent", result: { data: [] } });
    expect([reads, sent.length]).toEqual([1, 0]);
  });

  it("in a dry run answers as the service would, never sending, and says dry-run", async () => {
    const step = executorStep(dryRunExecutor(), true);
    expect(await step(jobOf(actionOf("reply", "1")))).toEqual({
      status: "dry-run",
      result: { data: { id: "dry-run-1", text: "hello 1", edit_history_post_ids: ["dry-run-1"] } },
    });
    expect(await step(jobOf(actionOf("like", "2")))).toEqual({ status: "dry-run", result: { data: { liked: true } } });
  });
});
