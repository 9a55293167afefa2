import { describe, expect, it } from "vitest";
import { timeSlicer } from "../src/time-slice.ts";

describe("timeSlicer", () => {
  it("says a slice is due once it has run its time, and gives the event loop a turn before the next", async () => {
    expect(timeSlicer(60_000).due()).toBe(false);
    const slice = timeSlicer(0);
    expect(slice.due()).toBe(true);
    let turned = false;
    setImmediate(() => (turned = true));
    await slice.next();
    expect(turned).toBe(true);
  });
});
