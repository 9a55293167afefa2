/**
 * The ledger step alone (src/actions/steps/ledger.ts): an idempotency key is sent at most
 * once, and nothing asked for is lost. Driven with a fake `next` and a fake check with the
 * service, over the real idempotency ledger in a memory store.
 */
import { describe, expect, it } from "vitest";
import type { Action, SlotRecord } from "../../../src/actions/action.ts";
import { Ledger } from "../../../src/actions/mechanics/idempotency-ledger.ts";
import type { CheckWithService } from "../../../src/actions/mechanics/service-check.ts";
import type { Job, LedgerRider, StepOutcome } from "../../../src/actions/pipeline.ts";
import { ledgerStep } from "../../../src/actions/steps/ledger.ts";
import { createClock } from "../../../src/clock.ts";
import { createMemoryStore } from "../../../src/store/store.ts";
import { settled } from "../helpers.ts";
import { actionOf, deferred, fakeNext, jobOf, START } from "./helpers.ts";

const SLOT: SlotRecord = { at: START - 60_000, keys: ["POST /2/posts|u:100|24h"] };

function setup(options: { check?: CheckWithService; enabled?: boolean; settledAt?: number } = {}) {
  const clock = createClock({ frozen: true, start: START });
  const store = createMemoryStore();
  const ledger = new Ledger(store, clock);
  const checked: Action[] = [];
  const given: SlotRecord[] = [];
  const check: CheckWithService =
    options.check ??
    (async () => {
      throw new Error("the service was asked, and no check was expected");
    });
  const step = ledgerStep({
    ledger,
    clock,
    check: (action, signal) => (checked.push(action), check(action, signal)),
    giveBack: (slot) => void given.push(slot),
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
    ...(options.settledAt !== undefined ? { settledAt: () => options.settledAt } : {}),
  });
  return { clock, store, ledger, step, checked, given };
}

/** What an earlier run left: the action queued, then marked pending with its slot (its request may have left). */
async function leftPending(ledger: Ledger, action: Action): Promise<void> {
  ledger.queue(action);
  await ledger.begin(action.key!, SLOT);
}

describe("the ledger step", () => {
  it("writes the job's rider, plain data, with the record that queues the action, and only then", async () => {
    const { step, store } = setup();
    const rider: LedgerRider = { writes: [{ namespace: "session:g", key: "u", value: { v: 1 } }] };
    let recorded: unknown;
    const { next } = fakeNext(() => {
      recorded = {
        session: store.get("session:g", "u"),
        ledger: store.get<{ state: string }>("ledger", "g:reply:1")?.state,
      };
      return { status: "sent", result: { data: { id: "9" } } };
    });
    const perform = step(next);
    const sending = perform(jobOf(actionOf("reply", "1"), { rider }));
    // Synchronously within the call: the rider's values and the queued record, together.
    expect(store.get<{ state: string }>("ledger", "g:reply:1")?.state).toBe("queued");
    expect(store.get("session:g", "u")).toEqual({ v: 1 });
    expect(rider.taken).toBe(true);
    await sending;
    expect(recorded).toEqual({ session: { v: 1 }, ledger: "queued" });
    // A key already done is a duplicate: its rider is left for its owner to write.
    const late: LedgerRider = { writes: [{ namespace: "session:g", key: "u", value: { v: 2 } }] };
    expect(await perform(jobOf(actionOf("reply", "1"), { rider: late }))).toMatchObject({ status: "duplicate" });
    expect(late.taken).toBeUndefined();
    expect(store.get("session:g", "u")).toEqual({ v: 1 });
    // A rider its owner superseded (it wrote newer values itself) is never written.
    const old: LedgerRider = { writes: [{ namespace: "session:g", key: "u", value: { v: 0 } }], superseded: true };
    expect(await perform(jobOf(actionOf("reply", "2"), { rider: old }))).toMatchObject({ status: "sent" });
    expect(store.get("session:g", "u")).toEqual({ v: 1 });
    expect(store.get<{ state: string }>("ledger", "g:reply:2")?.state).toBe("done");
  });

  it("sends a key once when it is asked for twice at once: the second waits for the first and answers duplicate with its result", async () => {
    const { step, ledger } = setup();
    const answer = deferred<StepOutcome>();
    const { next, jobs } = fakeNext(() => answer.promise);
    const perform = step(next);
    const reply = actionOf("reply", "1");
    const first = perform(jobOf(reply));
    const second = perform(jobOf(reply));
    expect(await settled(second)).toBe(false);
    answer.resolve({ status: "sent", result: { data: { id: "77", text: "hello 1" } } });
    expect(await first).toMatchObject({ status: "sent", result: { data: { id: "77" } } });
    expect(await second).toEqual({
      status: "duplicate",
      key: "g:reply:1",
      result: { data: { id: "77", text: "hello 1" } },
    });
    expect(jobs).toHaveLength(1);
    expect(ledger.get("g:reply:1")).toMatchObject({ state: "done", result: { data: { id: "77" } } });
  });

  it("answers a key already done as duplicate, with what the ledger kept, without calling next", async () => {
    const { step } = setup();
    const { next, jobs } = fakeNext();
    const perform = step(next);
    expect(await perform(jobOf(actionOf("reply", "1")))).toMatchObject({ status: "sent" });
    expect(await perform(jobOf(actionOf("reply", "1", { body: { text: "another text" } })))).toEqual({
      status: "duplicate",
      key: "g:reply:1",
      result: { data: { id: "1001" } }, // the ids only: the ledger keeps no texts
    });
    expect(jobs).toHaveLength(1);
  });

  it("hands next the key's pending mark, which writes `pending` with the slot and resolves only once it is flushed", async () => {
    const { step, store, ledger } = setup();
    const flush = deferred<void>();
    const flushed: Array<string | undefined> = [];
    store.flush = () => (flushed.push(ledger.get("g:like:5")?.state), flush.promise);
    const answer = deferred<StepOutcome>();
    const { next, jobs } = fakeNext(() => answer.promise);
    const outcome = step(next)(jobOf(actionOf("like", "5")));
    await settled(outcome);
    expect(jobs).toHaveLength(1);
    expect(ledger.get("g:like:5")?.state).toBe("queued"); // asked for; not sent, so not flushed
    expect(flushed).toEqual([]);
    const written = jobs[0]!.pendingMark!.write(SLOT);
    expect(ledger.get("g:like:5")).toMatchObject({ state: "pending", slot: SLOT });
    expect(flushed).toEqual(["pending"]);
    expect(await settled(written)).toBe(false); // not durable yet: the request must not leave
    flush.resolve();
    await written;
    answer.resolve({ status: "sent", result: { data: { liked: true } } });
    expect(await outcome).toMatchObject({ status: "sent" });
    expect(ledger.get("g:like:5")).toMatchObject({ state: "done", result: { data: { liked: true } } });
  });

  it("checks a pending entry of an earlier run with the service first: found there, it is done and not sent again", async () => {
    const { step, ledger, checked, given } = setup({
      check: async () => ({ done: true, result: { data: { id: "55" } } }),
    });
    const earlier = actionOf("reply", "1");
    await leftPending(ledger, earlier);
    const { next, jobs } = fakeNext();
    expect(await step(next)(jobOf(actionOf("reply", "1")))).toEqual({
      status: "duplicate",
      key: "g:reply:1",
      result: { data: { id: "55" } },
    });
    expect(checked).toEqual([earlier]);
    expect(jobs).toHaveLength(0);
    expect(given).toEqual([]); // the request arrived: its slot stays counted
    expect(ledger.get("g:reply:1")).toMatchObject({ state: "done", result: { data: { id: "55" } } });
  });

  it("not found at the service, gives the lost request's slot back and sends the earlier run's action", async () => {
    const { step, ledger, checked, given } = setup({ check: async () => ({ done: false }) });
    const earlier = actionOf("reply", "1", { body: { text: "as first asked" }, expiresAt: START + 3_600_000 });
    await leftPending(ledger, earlier);
    const { next, jobs } = fakeNext();
    expect(await step(next)(jobOf(actionOf("reply", "1")))).toMatchObject({ status: "sent" });
    expect(checked).toHaveLength(1);
    expect(given).toEqual([SLOT]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.action).toMatchObject({ body: { text: "as first asked" }, expiresAt: START + 3_600_000 });
    expect(ledger.get("g:reply:1")?.state).toBe("done");
  });

  it("taken over from a process that stopped answering: checks its pending action only once that process's requests can no longer arrive", async () => {
    const { step, ledger, clock, checked } = setup({ check: async () => ({ done: false }), settledAt: START + 32_000 });
    await leftPending(ledger, actionOf("dm", "7"));
    const { next, jobs } = fakeNext();
    const sending = step(next)(jobOf(actionOf("dm", "7")));
    await clock.advance(31_000);
    expect(await settled(sending)).toBe(false);
    expect(checked).toEqual([]);
    expect(jobs).toEqual([]);
    await clock.advance(1_000);
    expect(await sending).toMatchObject({ status: "sent" });
    expect(checked).toHaveLength(1);

    // Stopped while it waits: deferred, still pending for whoever runs the bot next; nothing asked.
    const stopping = new AbortController();
    const second = setup({ check: async () => ({ done: false }), settledAt: START + 32_000 });
    await leftPending(second.ledger, actionOf("dm", "8"));
    const waiting = second.step(next)(jobOf(actionOf("dm", "8"), { stopping: stopping.signal }));
    await second.clock.advance(5_000);
    stopping.abort();
    expect(await waiting).toMatchObject({ status: "deferred" });
    expect(second.checked).toEqual([]);
    expect(second.ledger.get("g:dm:8")?.state).toBe("pending");
  });

  it("when the service cannot tell, never sends a pending action again: it ends unknown, final", async () => {
    const { step, ledger } = setup({ check: async () => ({ unknown: "no verifier can tell" }) });
    await leftPending(ledger, actionOf("reply", "1"));
    const { next, jobs } = fakeNext();
    const perform = step(next);
    expect(await perform(jobOf(actionOf("reply", "1")))).toEqual({
      status: "failed",
      key: "g:reply:1",
      reason: "no verifier can tell",
      maybeSent: true,
    });
    expect(ledger.get("g:reply:1")?.state).toBe("unknown");
    expect(await perform(jobOf(actionOf("reply", "1")))).toMatchObject({ status: "duplicate" });
    expect(jobs).toHaveLength(0);
  });

  it("drops a pending action past its time-to-live without asking the service", async () => {
    const { step, ledger, clock, checked } = setup({ check: async () => ({ done: false }) });
    await leftPending(ledger, actionOf("like", "5", { expiresAt: START + 60_000 }));
    await clock.advance(60_000);
    const { next, jobs } = fakeNext();
    expect(await step(next)(jobOf(actionOf("like", "5")))).toMatchObject({ status: "dropped", key: "g:like:5" });
    expect(checked).toEqual([]);
    expect(jobs).toEqual([]);
    expect(ledger.get("g:like:5")?.state).toBe("unknown");
  });

  it("resumes a queued action of an earlier run as it was asked for (its time-to-live kept), without asking the service", async () => {
    const { step, ledger, checked } = setup();
    ledger.queue(actionOf("follow", "u1", { expiresAt: START + 1_000 }));
    const { next, jobs } = fakeNext();
    expect(await step(next)(jobOf(actionOf("follow", "u1")))).toMatchObject({ status: "sent" });
    expect(checked).toEqual([]);
    expect(jobs[0]!.action.expiresAt).toBe(START + 1_000);
  });

  it("records how each outcome ends the key: what may be asked for again, what never is", async () => {
    const { step, ledger } = setup();
    const cases: Array<[string, StepOutcome, string | undefined]> = [
      ["refused", { status: "refused", reason: "a rule" }, undefined], // forgotten: it never left
      ["dropped", { status: "dropped", reason: "too late" }, "dropped"],
      ["not-sent", { status: "failed", reason: "refused by the service", maybeSent: false }, "failed"],
      ["maybe-sent", { status: "failed", reason: "no answer", maybeSent: true }, "unknown"],
      ["deferred", { status: "deferred", reason: "stopping" }, "queued"], // kept for the next start
      ["dry-run", { status: "dry-run", result: { data: { id: "dry-run-1" } } }, "done"],
    ];
    for (const [target, outcome, state] of cases) {
      const { next } = fakeNext(() => outcome);
      expect(await step(next)(jobOf(actionOf("post", target))), target).toEqual(outcome);
      expect(ledger.get(`g:post:${target}`)?.state, target).toBe(state);
    }
    // Only `done` and `unknown` are final: the others are sent when asked for again.
    for (const [target, , state] of cases) {
      const { next, jobs } = fakeNext();
      await step(next)(jobOf(actionOf("post", target)));
      expect(jobs.length, target).toBe(state === "done" || state === "unknown" ? 0 : 1);
    }
  });

  it("off (to measure it), or for a job without a key, passes the job on untouched and records nothing", async () => {
    for (const [enabled, action] of [
      [false, actionOf("like", "5")],
      [true, { ...actionOf("like", "6"), key: undefined }],
    ] as const) {
      const { step, ledger } = setup({ enabled });
      const { next, jobs } = fakeNext();
      const job: Job = jobOf(action);
      await step(next)(job);
      expect(jobs).toEqual([job]);
      expect(ledger.entries()).toEqual([]);
    }
  });
});
