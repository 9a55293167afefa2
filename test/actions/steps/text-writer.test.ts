/**
 * The text writer step (src/actions/steps/text-writer.ts), alone and behind the ledger step:
 * a text written when its action goes is written at most once per key, recorded with the
 * ledger entry (durably) before the action goes on, and the recorded text is what a retry or
 * a restart sends.
 */
import { describe, expect, it } from "vitest";
import { TextRefused, type Action } from "../../../src/actions/action.ts";
import { Ledger } from "../../../src/actions/mechanics/idempotency-ledger.ts";
import type { Perform } from "../../../src/actions/pipeline.ts";
import { ledgerStep } from "../../../src/actions/steps/ledger.ts";
import { textWriter } from "../../../src/actions/steps/text-writer.ts";
import { createClock } from "../../../src/clock.ts";
import { createMemoryStore, type Store } from "../../../src/store/store.ts";
import { actionOf, BOT, deferred, fakeNext, jobOf, START } from "./helpers.ts";

/** A reply whose text is still to be written, as the layer builds one for `ctx.reply(write)`. */
const unwritten = (target = "500"): Action => {
  const a = actionOf("reply", target);
  return { ...a, body: { reply: { in_reply_to_post_id: target } } };
};

const textOf = (action: Action) => (action.body as { text?: string }).text;

/** The ledger step and the text writer, in the pipeline's order, in front of `next`. */
function pipeline(store: Store, next: Perform) {
  const clock = createClock({ frozen: true, start: START });
  const ledger = new Ledger(store, clock);
  const perform = ledgerStep({
    ledger,
    clock,
    check: async () => ({ done: false }),
    giveBack: () => undefined,
  })(textWriter()(next));
  return { ledger, perform };
}

/** A memory store that counts its flushes, to see that a text is durable before what follows depends on it. */
function countingFlushes() {
  const store = createMemoryStore();
  let flushed = 0;
  const flush = store.flush.bind(store);
  store.flush = async () => {
    flushed++;
    return flush();
  };
  return { store, flushes: () => flushed };
}

describe("text writer step", () => {
  it("writes the text and hands the action on with it", async () => {
    const { next, jobs } = fakeNext();
    const outcome = await textWriter()(next)(jobOf(unwritten(), { write: async () => "Written by the model." }));
    expect(outcome.status).toBe("sent");
    expect(textOf(jobs[0]!.action)).toBe("Written by the model.");
    expect(jobs[0]!.write).toBeUndefined();
  });

  it("leaves an action with a text alone: the writer is not called", async () => {
    const { next, jobs } = fakeNext();
    let calls = 0;
    const action = actionOf("reply", "501");
    await textWriter()(next)(jobOf(action, { write: async () => (calls++, "other") }));
    expect(calls).toBe(0);
    expect(textOf(jobs[0]!.action)).toBe(textOf(action));
  });

  it("refuses what the writer refuses, fails what it cannot write, and sends nothing then", async () => {
    const { next, jobs } = fakeNext();
    const refused = await textWriter()(next)(
      jobOf(unwritten(), {
        write: async () => {
          throw new TextRefused("the moderation classifier refused the model's text");
        },
      }),
    );
    expect(refused).toMatchObject({ status: "refused", reason: "the moderation classifier refused the model's text" });
    const failed = await textWriter()(next)(
      jobOf(unwritten(), {
        write: async () => {
          throw new Error("the model answered 500");
        },
      }),
    );
    expect(failed).toMatchObject({ status: "failed", maybeSent: false });
    expect(failed.status === "failed" && failed.reason).toContain("the model answered 500");
    expect(jobs).toHaveLength(0);
  });

  it("refuses an action without a text and without a writer (nothing could write it)", async () => {
    const { next, jobs } = fakeNext();
    const outcome = await textWriter()(next)(jobOf(unwritten()));
    expect(outcome.status).toBe("refused");
    expect(jobs).toHaveLength(0);
  });

  it("records the written text with the ledger entry, flushed, before the action goes on", async () => {
    const { store, flushes } = countingFlushes();
    const seen: Array<{ state?: string; text?: string; flushed: number }> = [];
    const { perform, ledger } = pipeline(store, async (job) => {
      const entry = ledger.get(job.action.key!);
      seen.push({ state: entry?.state, text: entry?.action && textOf(entry.action), flushed: flushes() });
      return { status: "sent", result: { data: { id: "9" } } };
    });
    await perform(jobOf(unwritten(), { write: async () => "Recorded first." }));
    expect(seen).toEqual([{ state: "queued", text: "Recorded first.", flushed: 1 }]);
  });

  it("tells the writer once its text is durable (`recorded`), not before; and at once when nothing will be recorded", async () => {
    const store = createMemoryStore();
    const disk = deferred<void>();
    let durable = false;
    const flush = store.flush.bind(store);
    store.flush = async () => {
      await disk.promise;
      await flush();
      durable = true;
    };
    const { perform } = pipeline(store, async () => ({ status: "sent", result: { data: { id: "9" } } }));
    const told: boolean[] = [];
    let given: Promise<void> | undefined;
    const write = async (_signal: AbortSignal, recorded?: Promise<void>) => {
      given = recorded;
      void recorded?.then(() => told.push(durable));
      return "Held until durable.";
    };
    const outcome = perform(jobOf(unwritten(), { write }));
    await new Promise((r) => setImmediate(r));
    expect(given).toBeDefined();
    expect(told).toEqual([]);
    disk.resolve();
    expect((await outcome).status).toBe("sent");
    expect(told).toEqual([true]);

    // A write that fails, or is refused: told at once (nothing will be recorded).
    for (const thrown of [new Error("the model answered 500"), new TextRefused("refused")]) {
      let settled = false;
      const failing = async (_signal: AbortSignal, recorded?: Promise<void>) => {
        void recorded?.then(() => (settled = true));
        throw thrown;
      };
      await textWriter()(fakeNext().next)(jobOf(unwritten("502"), { write: failing }));
      await new Promise((r) => setImmediate(r));
      expect(settled, thrown.message).toBe(true);
    }
  });

  it("after a stop while sending, the recorded text is sent again and the writer is not asked", async () => {
    const store = createMemoryStore();
    const sent: string[] = [];
    let stop = true;
    const { perform } = pipeline(store, async (job) => {
      if (stop) return { status: "deferred", reason: "stopping" };
      sent.push(textOf(job.action)!);
      return { status: "sent", result: { data: { id: "9" } } };
    });
    let writes = 0;
    const write = async () => `answer number ${++writes}`;
    expect((await perform(jobOf(unwritten(), { write }))).status).toBe("deferred");
    // The next run: a new ledger step over the same store (the event asks again with its writer).
    stop = false;
    const again = pipeline(store, async (job) => {
      sent.push(textOf(job.action)!);
      return { status: "sent", result: { data: { id: "9" } } };
    });
    expect((await again.perform(jobOf(unwritten(), { write }))).status).toBe("sent");
    expect({ writes, sent }).toEqual({ writes: 1, sent: ["answer number 1"] });
  });

  it("a writer's check runs once the text is recorded (flushed, marked unchecked); a text it refuses is not sent", async () => {
    const { store, flushes } = countingFlushes();
    const sent: string[] = [];
    const { perform, ledger } = pipeline(store, async (job) => {
      sent.push(textOf(job.action)!);
      return { status: "sent", result: { data: { id: "9" } } };
    });
    const atCheck: Array<{ text?: string; unchecked?: boolean; flushed: number }> = [];
    const judged = (verdict: "pass" | "refuse") =>
      Object.assign(async () => `a text to ${verdict}`, {
        check: async (text: string) => {
          const entry = ledger.get(`${BOT}:reply:${verdict === "pass" ? "510" : "511"}`)!;
          atCheck.push({
            text: textOf(entry.action!),
            unchecked: entry.action!.context?.unchecked,
            flushed: flushes(),
          });
          expect(text).toBe(`a text to ${verdict}`);
          if (verdict === "refuse") throw new TextRefused("the judge refused it");
        },
      });
    const refused = await perform(jobOf(unwritten("511"), { write: judged("refuse"), check: judged("refuse").check }));
    expect(refused).toMatchObject({ status: "refused", reason: "the judge refused it" });
    const passed = await perform(jobOf(unwritten("510"), { write: judged("pass"), check: judged("pass").check }));
    expect(passed.status).toBe("sent");
    expect(atCheck).toEqual([
      { text: "a text to refuse", unchecked: true, flushed: 1 },
      { text: "a text to pass", unchecked: true, flushed: 2 },
    ]);
    expect(sent).toEqual(["a text to pass"]);
  });

  it("a recorded text whose check had not passed when the run stopped is checked again, never written again", async () => {
    const store = createMemoryStore();
    const sent: string[] = [];
    const first = pipeline(store, async () => ({ status: "sent", result: { data: { id: "9" } } }));
    let writes = 0;
    let checks = 0;
    const write = async () => `answer number ${++writes}`;
    const stop = new AbortController();
    const hanging = async (_text: string, signal: AbortSignal) => {
      checks++;
      stop.abort();
      throw signal.reason;
    };
    const stopped = await first.perform(jobOf(unwritten(), { write, check: hanging, signal: stop.signal }));
    expect(stopped.status).toBe("deferred");
    expect(first.ledger.get(`${BOT}:reply:500`)!.action!.context?.unchecked).toBe(true);
    // The next run: the event asks again with its writer and its check.
    const again = pipeline(store, async (job) => {
      sent.push(textOf(job.action)!);
      expect(job.action.context?.unchecked).toBeUndefined();
      return { status: "sent", result: { data: { id: "9" } } };
    });
    const passing = async (text: string) => {
      checks++;
      expect(text).toBe("answer number 1");
    };
    expect((await again.perform(jobOf(unwritten(), { write, check: passing }))).status).toBe("sent");
    expect({ writes, checks, sent }).toEqual({ writes: 1, checks: 2, sent: ["answer number 1"] });
  });

  it("the same key asked for twice at once is written once; a key done is not written again", async () => {
    const store = createMemoryStore();
    const gate = deferred<void>();
    const { perform } = pipeline(store, async () => {
      await gate.promise;
      return { status: "sent", result: { data: { id: "9" } } };
    });
    let writes = 0;
    const write = async () => `answer ${++writes}`;
    const first = perform(jobOf(unwritten(), { write }));
    const second = perform(jobOf(unwritten(), { write }));
    gate.resolve();
    expect([(await first).status, (await second).status]).toEqual(["sent", "duplicate"]);
    expect((await perform(jobOf(unwritten(), { write }))).status).toBe("duplicate");
    expect(writes).toBe(1);
  });
});
