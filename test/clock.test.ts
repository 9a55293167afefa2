import { describe, expect, it, vi } from "vitest";
import { createClock } from "../src/clock.ts";

describe("createClock (frozen)", () => {
  it("does not move by itself", async () => {
    const clock = createClock({ frozen: true, start: 1_000 });
    await new Promise((r) => setTimeout(r, 5));
    expect(clock.now()).toBe(1_000);
  });

  it("fires timers in due order, each at its own time", async () => {
    const clock = createClock({ frozen: true, start: 0 });
    const seen: Array<[string, number]> = [];
    clock.setTimeout(() => seen.push(["b", clock.now()]), 200);
    clock.setTimeout(() => seen.push(["a", clock.now()]), 100);
    clock.setTimeout(() => seen.push(["c", clock.now()]), 300);
    await clock.advance(250);
    expect(seen).toEqual([
      ["a", 100],
      ["b", 200],
    ]);
    expect(clock.now()).toBe(250);
    expect(clock.pending()).toBe(1);
  });

  it("runs timers scheduled by async continuations within the same advance", async () => {
    const clock = createClock({ frozen: true, start: 0 });
    const ticks: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(1_000);
        ticks.push(clock.now());
      }
    };
    const done = loop();
    await clock.advance(5_000);
    await done;
    expect(ticks).toEqual([1_000, 2_000, 3_000]);
  });

  it("cancels timers and aborts sleeps", async () => {
    const clock = createClock({ frozen: true, start: 0 });
    let fired = false;
    const cancel = clock.setTimeout(() => (fired = true), 10);
    cancel();
    const ac = new AbortController();
    const sleeping = clock.sleep(1_000, ac.signal);
    ac.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    await clock.advance(2_000);
    expect(fired).toBe(false);
    expect(clock.pending()).toBe(0);
  });

  it("refuses to go backwards", async () => {
    await expect(createClock({ frozen: true }).advance(-1)).rejects.toThrow(RangeError);
  });
});

describe("createClock (many timers)", () => {
  it("fires thousands of timers in due order, creation order on ties, skipping the cancelled", async () => {
    const clock = createClock({ frozen: true, start: 0 });
    const fired: number[] = [];
    const cancels: Array<() => void> = [];
    // Pseudo-random due times with many ties; five timers in six cancelled (enough to compact the heap).
    for (let i = 0; i < 6_000; i++) cancels.push(clock.setTimeout(() => fired.push(i), (i * 7919) % 500));
    for (let i = 0; i < 6_000; i++) if (i % 6 !== 1) cancels[i]!();
    expect(clock.pending()).toBe(1_000);
    await clock.advance(500);
    const expected = Array.from({ length: 6_000 }, (_, i) => i)
      .filter((i) => i % 6 === 1)
      .sort((a, b) => ((a * 7919) % 500) - ((b * 7919) % 500) || a - b);
    expect(fired).toEqual(expected);
    expect(clock.pending()).toBe(0);
  });

  it("cancelling a fired timer changes nothing", async () => {
    const clock = createClock({ frozen: true });
    const cancel = clock.setTimeout(() => {}, 1);
    clock.setTimeout(() => {}, 10);
    await clock.advance(5);
    cancel();
    expect(clock.pending()).toBe(1);
  });
});

describe("createClock (running)", () => {
  it("follows real time plus what it was advanced by", async () => {
    const clock = createClock({ start: 0 });
    await clock.advance(60_000);
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(clock.now()).toBeLessThan(61_000);
  });

  it("fires a timer when real time reaches it, or earlier when advanced past it", async () => {
    const clock = createClock();
    const real = new Promise<string>((r) => clock.setTimeout(() => r("real"), 5));
    expect(await real).toBe("real");
    let fired = false;
    clock.setTimeout(() => (fired = true), 3_600_000);
    await clock.advance(3_600_000);
    expect(fired).toBe(true);
  });

  it("a system clock stepped back or forward neither holds its timers nor fires them early; now() follows it", async () => {
    const clock = createClock();
    const realNow = Date.now;
    let step = 0;
    const spy = vi.spyOn(Date, "now").mockImplementation(() => realNow() + step);
    try {
      const started = performance.now();
      const back = new Promise<number>((r) => clock.setTimeout(() => r(performance.now() - started), 50));
      step = -600_000; // stepped back 10 minutes
      const before = clock.now();
      expect(before).toBeLessThan(realNow() - 590_000);
      // Fires after its 50 ms, not 10 minutes later.
      expect(await back).toBeLessThan(5_000);
      step = 3_600_000; // stepped forward an hour
      let early = false;
      const forward = new Promise<void>((r) => clock.setTimeout(() => r(), 200));
      clock.setTimeout(() => (early = true), 60_000);
      await forward;
      expect(early).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("what a clock's timers wait for", () => {
  it("a frozen clock lists them earliest first with what scheduled them; a running one by default does not trace", async () => {
    const frozen = createClock({ frozen: true, start: 0 });
    const retry = () => frozen.sleep(5_000);
    void retry();
    const cancel = frozen.setTimeout(() => {}, 1_000);
    frozen.setTimeout(() => {}, 60_000);
    cancel();
    expect(frozen.waiting()).toEqual([
      { inMs: 5_000, by: expect.stringMatching(/^test\/clock\.test\.ts:\d+ \(retry\)$/) },
      { inMs: 60_000, by: expect.stringMatching(/^test\/clock\.test\.ts:\d+$/) },
    ]);
    await frozen.advance(5_000);
    expect(frozen.waiting()).toEqual([{ inMs: 55_000, by: expect.stringMatching(/^test\/clock\.test\.ts:\d+$/) }]);

    const running = createClock();
    const stop = running.setTimeout(() => {}, 60_000);
    expect(running.waiting()).toEqual([{ inMs: expect.any(Number), by: "unknown" }]);
    stop();
    const traced = createClock({ trace: true });
    const stopTraced = traced.setTimeout(() => {}, 60_000);
    expect(traced.waiting()[0]!.by).toMatch(/^test\/clock\.test\.ts:\d+$/);
    stopTraced();
  });
});
