/**
 * When `bot say --wait` looks for an answer (lookUntil): at once and every N ms. A rate limit
 * moves the next look to the window's reset; the last look is at the deadline.
 */
import { describe, expect, it } from "vitest";
import { RateLimitError } from "../../src/api/errors.ts";
import { lookUntil } from "../../src/cli/await-replies.ts";
import { createClock } from "../../src/clock.ts";

const T0 = Date.parse("2026-03-01T10:00:00Z");

/** Runs lookUntil on a frozen clock moved a second at a time; the times (s) it looked at, and what it returned. */
async function looks(timeoutMs: number, waits: number, answer: (at: number, i: number) => string[] = () => []) {
  const clock = createClock({ frozen: true, start: T0 });
  const at: number[] = [];
  let result: string[] | undefined;
  const done = lookUntil(clock, timeoutMs, waits, async () => {
    at.push((clock.now() - T0) / 1000);
    return answer(clock.now() - T0, at.length - 1);
  }).then((r) => (result = r));
  for (let s = 0; s <= timeoutMs / 1000 + 1 && result === undefined; s++) await clock.advance(1_000);
  await done;
  return { at, result };
}

describe("lookUntil (bot say --wait)", () => {
  it("a number: looks at once and every so often, the last time at the deadline", async () => {
    expect(await looks(9_000, 2_000)).toEqual({ at: [0, 2, 4, 6, 8, 9], result: [] });
  });

  it("returns what a look found, as soon as one finds something", async () => {
    const { at, result } = await looks(90_000, 2_000, (ms) => (ms >= 3_000 ? ["hi"] : []));
    expect({ at, result }).toEqual({ at: [0, 2, 4], result: ["hi"] });
  });

  it("a rate limit: the next look waits for the window's reset, within the time left", async () => {
    const request = { method: "GET", path: "/2/dm_conversations/with/1/dm_events" };
    const { at } = await looks(60_000, 10_000, (ms, i) => {
      if (i === 0) throw new RateLimitError(request, { limit: 15, remaining: 0, resetAt: T0 + ms + 30_000 });
      return [];
    });
    expect(at).toEqual([0, 30, 40, 50, 60]);
  });
});
