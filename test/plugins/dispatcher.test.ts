import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { dispatch } from "../../src/plugins/stage.ts";
import { captureLogs } from "../helpers/log.ts";

function capture() {
  const { lines, logger } = captureLogs();
  return { lines, log: logger.child({ bot: "greeter", event: "mention" }) };
}

describe("dispatch", () => {
  it("runs handlers in order and goes on past one that throws", async () => {
    const { lines, log } = capture();
    const seen: string[] = [];
    const report = await dispatch(
      [
        { plugin: "a", handler: () => void seen.push("a") },
        {
          plugin: "b",
          handler: async () => {
            throw new Error("kaput");
          },
        },
        { plugin: "c", handler: async () => void seen.push("c") },
      ],
      {},
      { clock: createClock({ frozen: true }), log },
    );
    expect(seen).toEqual(["a", "c"]);
    expect(report.ran).toEqual(["a", "c"]);
    expect(report.failed).toMatchObject([{ plugin: "b", reason: "threw" }]);
    const line = lines.find((l) => l.plugin === "b");
    expect(line).toMatchObject({ bot: "greeter", event: "mention", plugin: "b", msg: "plugin b threw: kaput" });
  });

  it("abandons a handler that outlives its time limit on the clock", async () => {
    const { lines, log } = capture();
    const clock = createClock({ frozen: true });
    const seen: string[] = [];
    const done = dispatch(
      [
        { plugin: "slow", handler: () => new Promise(() => {}) },
        { plugin: "next", handler: () => void seen.push("next") },
      ],
      {},
      { clock, log, timeoutMs: 5_000 },
    );
    await clock.advance(4_999);
    expect(seen).toEqual([]);
    await clock.advance(1);
    const report = await done;
    expect(seen).toEqual(["next"]);
    expect(report.failed).toEqual([{ plugin: "slow", reason: "timed out" }]);
    expect(lines.some((l) => l.plugin === "slow" && String(l.msg).includes("did not finish within 5000 ms"))).toBe(
      true,
    );
    expect(clock.pending()).toBe(0);
  });

  it("does not count time the handler spends waiting for the budget", async () => {
    const clock = createClock({ frozen: true });
    const ctx = { waiting: true };
    let finish!: () => void;
    const done = dispatch([{ plugin: "reply", handler: () => new Promise<void>((r) => (finish = r)) }], ctx, {
      clock,
      log: capture().log,
      timeoutMs: 1_000,
      busy: (c) => c.waiting,
    });
    await clock.advance(10_000);
    ctx.waiting = false;
    await clock.advance(999);
    finish();
    expect((await done).failed).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it("stops when asked after a handler", async () => {
    const ctx = { hidden: false };
    const seen: string[] = [];
    const report = await dispatch(
      [
        { plugin: "moderate", handler: (c: typeof ctx) => void (c.hidden = true) },
        { plugin: "reply", handler: () => void seen.push("reply") },
      ],
      ctx,
      { clock: createClock({ frozen: true }), log: capture().log, stop: (c) => c.hidden },
    );
    expect(seen).toEqual([]);
    expect(report.stoppedAfter).toBe("moderate");
  });
});
