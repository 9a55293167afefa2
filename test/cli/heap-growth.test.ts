import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, keepHeapNearLive } from "../../src/cli/heap-growth.ts";

describe("bot start's heap growth", () => {
  it("is set to a fixed percentage past the live heap with the state shared", () => {
    const set: string[] = [];
    expect(keepHeapNearLive({ shared: true }, [], (flags) => set.push(flags))).toBe(
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
    expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("is left to V8 for a process with its state in a directory", () => {
    const set: string[] = [];
    expect(keepHeapNearLive({ shared: false }, [], (flags) => set.push(flags))).toBeUndefined();
    expect(set).toEqual([]);
  });

  it("leaves one given to node as it is", () => {
    const set: string[] = [];
    for (const given of ["--heap-growing-percent=50", "--heap_growing_percent=0"])
      expect(
        keepHeapNearLive({ shared: true }, ["--enable-source-maps", given], (flags) => set.push(flags)),
      ).toBeUndefined();
    expect(set).toEqual([]);
  });
});
