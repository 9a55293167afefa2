/**
 * What a failing test says of its frozen clocks (./frozen-timers.ts, every test file's setup):
 * a reply whose send failed for a moment waits for its retry on the test's frozen clock, and
 * the list names where it waits and how far ahead, so a test stuck behind it says so.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createClock, frozenClocks } from "../../src/clock.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { echo } from "./echo-plugin.ts";
import { describeWaiting } from "./frozen-timers.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("the frozen clocks' timers, listed when a test fails", () => {
  it("name the retry a reply waits for after a 503, and how far ahead it is due", async () => {
    bed = await createTestBed({
      bots: [{ name: "greeter", plan: "basic", triggers: { mentions: {} }, plugins: { echo: {} } }],
      plugins: { echo },
    });
    expect(frozenClocks()).toContain(bed.clock);
    await bed.sandbox.admin.addFault({ route: "POST /2/posts", kind: "error", status: 503, count: 1 });
    const alice = await bed.user("alice");
    await bed.post(alice, "@greeter hello");
    await bed.advance(90_000); // the mentions poll: the reply gets a 503 and waits 5 s to try again
    await bed.settle();
    expect(bed.postsBy("greeter")).toEqual([]);

    const lines = describeWaiting(bed.clock);
    expect(lines[0]).toBe(`  the clock at ${new Date(bed.clock.now()).toISOString()} (${bed.clock.pending()} timers):`);
    // Earliest first: the action queue's retry of the reply, 5 s ahead.
    expect(lines[1]).toMatch(/^ {4}in 5 s: src\/actions\/mechanics\/budget-queue\.ts:\d+ \(ActionQueue\.arm\)$/);
    expect(lines.slice(2).some((l) => /in 90 s: src\/runtime\/poll-loop\.ts:\d+/.test(l))).toBe(true);

    await bed.advance(5_000);
    await bed.settle();
    expect(bed.postsBy("greeter")).toHaveLength(1);
    expect(describeWaiting(bed.clock).join("\n")).not.toContain("in 5 s");
  });

  it("count the timers of one place, and list no clock that waits for nothing", () => {
    const clock = createClock({ frozen: true, start: 0 });
    expect(describeWaiting(clock)).toEqual([]);
    for (const ms of [60_000, 120_000, 180_000]) clock.setTimeout(() => {}, ms);
    expect(describeWaiting(clock)).toEqual([
      "  the clock at 1970-01-01T00:00:00.000Z (3 timers):",
      expect.stringMatching(/^ {4}in 60 s \(and 2 more, later\): test\/helpers\/frozen-timers\.test\.ts:\d+$/),
    ]);
  });
});
