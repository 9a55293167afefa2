import { describe, expect, it } from "vitest";
import { SlidingWindow } from "../../src/limits/window.ts";

const MIN = 60_000;

describe("SlidingWindow", () => {
  it("allows N in any interval, not 2N across a boundary", () => {
    const w = new SlidingWindow(3, 15 * MIN);
    w.record(0);
    w.record(14 * MIN, 2);
    expect(w.remaining(14 * MIN)).toBe(0);
    // The first event leaves at 15m: one slot is free then, not a fresh three.
    expect(w.remaining(15 * MIN - 1)).toBe(0);
    expect(w.remaining(15 * MIN)).toBe(1);
    expect(w.remaining(29 * MIN - 1)).toBe(1);
    expect(w.remaining(29 * MIN)).toBe(3);
  });

  it("says when the next event will be allowed", () => {
    const w = new SlidingWindow(2, 1_000);
    expect(w.nextFreeAt(0)).toBe(0);
    w.record(100);
    w.record(300);
    expect(w.nextFreeAt(400)).toBe(1_100);
    expect(w.nextFreeAt(400, 2)).toBe(1_300);
    expect(w.nextFreeAt(400, 3)).toBe(Infinity);
    expect(w.resetAt(400)).toBe(1_100);
  });

  it("takes the service's lower remaining figure, never a higher one", () => {
    const w = new SlidingWindow(10, 1_000);
    w.record(0, 2);
    w.correct(10, 5);
    expect(w.remaining(10)).toBe(5);
    w.correct(10, 9);
    expect(w.remaining(10)).toBe(5);
  });

  it("survives a snapshot and restore", () => {
    const w = new SlidingWindow(5, 1_000);
    w.record(0);
    w.record(500, 2);
    const restored = new SlidingWindow(5, 1_000, w.snapshot(600));
    expect(restored.remaining(600)).toBe(2);
    expect(restored.remaining(999)).toBe(2);
    expect(restored.remaining(1_000)).toBe(3);
    expect(restored.remaining(1_500)).toBe(5);
  });
});
