/**
 * The retry step alone (src/actions/steps/retry.ts): a failure is tried again only when that
 * can help, never sooner than the service allows (the job's `notBefore`, which the queue step
 * honours), and a write that may have arrived is checked with the service before it is sent
 * again. Driven with a fake `next` standing for the queue and the executor.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY } from "../../../src/actions/mechanics/retry-policy.ts";
import type { CheckWithService } from "../../../src/actions/mechanics/service-check.ts";
import type { PendingMark, StepOutcome } from "../../../src/actions/pipeline.ts";
import { retryStep } from "../../../src/actions/steps/retry.ts";
import {
  InvalidTokenError,
  NetworkError,
  ProblemError,
  RateLimitError,
  UsageCappedError,
} from "../../../src/api/errors.ts";
import { createClock } from "../../../src/clock.ts";
import { captureLogs } from "../../helpers/log.ts";
import { actionOf, fakeNext, jobOf, START } from "./helpers.ts";

const req = { method: "POST", path: "/2/posts" };
const failed = (error: unknown): StepOutcome => ({ status: "failed", reason: String(error), maybeSent: true, error });
const sent: StepOutcome = { status: "sent", result: { data: { id: "9" } } };
const mark: PendingMark = { write: async () => {}, stage: async () => undefined };

function setup(options: { check?: CheckWithService; maxAttempts?: number } = {}) {
  const clock = createClock({ frozen: true, start: START });
  const { lines, logger } = captureLogs();
  const revoked: unknown[] = [];
  const step = retryStep({
    policy: { ...DEFAULT_RETRY, ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) },
    clock,
    log: logger,
    ...(options.check ? { check: options.check } : {}),
    onRevoked: (error) => void revoked.push(error),
  });
  return { clock, lines, step, revoked };
}

describe("the retry step", () => {
  it("after a 429 with a reset, tries again not before the reset, without the ledger's mark (the first attempt wrote it)", async () => {
    const { step, lines } = setup();
    const reset = START + 60_000;
    const { next, jobs } = fakeNext((_job, call) =>
      call === 1 ? failed(new RateLimitError(req, { limit: 100, remaining: 0, resetAt: reset })) : sent,
    );
    expect(await step(next)(jobOf(actionOf("reply", "1"), { pendingMark: mark }))).toEqual(sent);
    expect(jobs.map((j) => [j.notBefore, j.pendingMark])).toEqual([
      [undefined, mark],
      [reset, undefined],
    ]);
    expect(lines.some((l) => String(l.msg).includes("429 from the service; reply 1 waits and tries again"))).toBe(true);
  });

  it("after a 429 whose reset comes sooner than the back-off, or that has none, waits the back-off: 5 s, then 10 s", async () => {
    const { step } = setup();
    const { next, jobs } = fakeNext((_job, call) =>
      call === 1
        ? failed(new RateLimitError(req, { resetAt: START + 1_000 }))
        : call === 2
          ? failed(new RateLimitError(req, {}))
          : sent,
    );
    await step(next)(jobOf(actionOf("like", "1")));
    expect(jobs.map((j) => j.notBefore)).toEqual([undefined, START + 5_000, START + 10_000]);
  });

  it("gives up after the policy's last attempt and says so; nothing was sent", async () => {
    const { step } = setup({ maxAttempts: 3 });
    const { next, jobs } = fakeNext(() => failed(new RateLimitError(req, {})));
    expect(await step(next)(jobOf(actionOf("like", "1")))).toMatchObject({
      status: "failed",
      maybeSent: false,
      reason: expect.stringContaining("(gave up after 3 attempts)"),
    });
    expect(jobs).toHaveLength(3);
  });

  it("ends a reply the service refused (4xx) at once, unsent: sending it again cannot help", async () => {
    const { step } = setup();
    const refusal = new ProblemError(req, 403, {
      type: "about:blank",
      title: "Forbidden",
      detail: "You are not allowed to create a Post with duplicate content.",
    });
    const { next, jobs } = fakeNext(() => failed(refusal));
    expect(await step(next)(jobOf(actionOf("reply", "1")))).toMatchObject({
      status: "failed",
      maybeSent: false,
      error: refusal,
      reason: expect.stringContaining("duplicate content"),
    });
    expect(jobs).toHaveLength(1);
  });

  it("returns a failure decided before anything was sent (no error: the ledger could not write) as it is", async () => {
    const { step } = setup();
    const unsent: StepOutcome = { status: "failed", reason: "not sent: disk full", maybeSent: false };
    const { next, jobs } = fakeNext(() => unsent);
    expect(await step(next)(jobOf(actionOf("like", "1")))).toBe(unsent);
    expect(jobs).toHaveLength(1);
  });

  it("after a failure that may have arrived, asks the service first: found there, it is sent, and not sent again", async () => {
    const asked: string[] = [];
    const { step } = setup({
      check: async (action) => (asked.push(action.key!), { done: true, result: { data: { id: "77" } } }),
    });
    const { next, jobs } = fakeNext(() => failed(new NetworkError(req, "socket hang up", { code: "UND_ERR_SOCKET" })));
    expect(await step(next)(jobOf(actionOf("reply", "1")))).toEqual({ status: "sent", result: { data: { id: "77" } } });
    expect(asked).toEqual(["g:reply:1"]);
    expect(jobs).toHaveLength(1);
  });

  it("not found at the service, backs off and sends it again; when the service cannot tell, it is not sent again", async () => {
    const lost = () => failed(new NetworkError(req, "socket hang up", { code: "UND_ERR_SOCKET" }));
    const notFound = setup({ check: async () => ({ done: false }) });
    const a = fakeNext((_job, call) => (call === 1 ? lost() : sent));
    expect(await notFound.step(a.next)(jobOf(actionOf("reply", "1")))).toEqual(sent);
    expect(a.jobs.map((j) => j.notBefore)).toEqual([undefined, START + 5_000]);

    const cannotTell = setup({ check: async () => ({ unknown: "no verifier for reply can tell" }) });
    const b = fakeNext(lost);
    expect(await cannotTell.step(b.next)(jobOf(actionOf("reply", "1")))).toMatchObject({
      status: "failed",
      maybeSent: true,
      reason: "POST /2/posts: socket hang up; no verifier for reply can tell",
    });
    expect(b.jobs).toHaveLength(1);
  });

  it("sends again without asking when the request never left (connection refused), and for reads (no check)", async () => {
    const asked: string[] = [];
    const { step } = setup({ check: async (a) => (asked.push(a.key!), { done: false }) });
    const { next, jobs } = fakeNext((_job, call) =>
      call === 1 ? failed(new NetworkError(req, "connect ECONNREFUSED", { code: "ECONNREFUSED" })) : sent,
    );
    expect(await step(next)(jobOf(actionOf("reply", "1")))).toEqual(sent);
    expect(asked).toEqual([]);
    expect(jobs).toHaveLength(2);

    const reads = setup(); // the read pipeline's retry step has no check
    const r = fakeNext((_job, call) => (call === 1 ? failed(new NetworkError(req, "socket hang up")) : sent));
    const read = { ...actionOf("like", "1"), kind: "read" as const, key: undefined, target: "mentions poll" };
    expect(await reads.step(r.next)(jobOf(read))).toEqual(sent);
    expect(r.jobs).toHaveLength(2);
  });

  it("a refused token pauses the bot (onRevoked); the action waits for the new token (deferred), a read fails", async () => {
    const { step, revoked } = setup();
    const error = new InvalidTokenError(req);
    const { next, jobs } = fakeNext(() => failed(error));
    expect(await step(next)(jobOf(actionOf("like", "1")))).toMatchObject({
      status: "deferred",
      reason: expect.stringMatching(/401 code 89.*; it waits for the account's new token and is sent with it$/),
    });
    expect(revoked).toEqual([error]);
    expect(jobs).toHaveLength(1);
    const read = { ...actionOf("like", "1"), kind: "read" as const, key: undefined, target: "mentions poll" };
    expect(await step(next)(jobOf(read))).toMatchObject({ status: "failed", maybeSent: false });
  });

  it("a spent monthly cap tries again with no time of its own (dropping a 429's): the budget holds capped reads until the enrolment day", async () => {
    const { step } = setup();
    const reset = START + 60_000;
    const capped = new UsageCappedError(req, {
      type: "https://api.x.com/2/problems/usage-capped",
      title: "UsageCapExceeded",
    });
    const { next, jobs } = fakeNext((_job, call) =>
      call === 1 ? failed(new RateLimitError(req, { resetAt: reset })) : call === 2 ? failed(capped) : sent,
    );
    expect(await step(next)(jobOf(actionOf("like", "1")))).toEqual(sent);
    expect(jobs.map((j) => j.notBefore)).toEqual([undefined, reset, undefined]);
  });

  it("a request stopped by its own signal (shutdown) is deferred, not retried", async () => {
    const { step } = setup();
    const stop = new AbortController();
    const { next, jobs } = fakeNext(() => (stop.abort(), failed(new NetworkError(req, "aborted", { aborted: true }))));
    expect(await step(next)(jobOf(actionOf("reply", "1"), { signal: stop.signal }))).toMatchObject({
      status: "deferred",
    });
    expect(jobs).toHaveLength(1);
  });
});
