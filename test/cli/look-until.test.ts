/**
 * When `bot say --wait` looks for an answer (lookUntil): at once and every N ms for posts; for
 * a DM conversation, whose read the plan allows 15 times in 15 minutes, first 2 s after the
 * message and then on the tens of seconds, as many reads in 90 s as before. A rate limit
 * moves the next look to the window's reset; the last look is at the deadline.
 */
import { describe, expect, it } from "vitest";
import { RateLimitError } from "../../src/api/errors.ts";
import { DM_LOOK_WAITS_MS } from "../../src/cli/await-dm-answer.ts";
import { lookUntil } from "../../src/cli/await-replies.ts";
import { createClock } from "../../src/clock.ts";

const T0 = Date.parse("2026-03-01T10:00:00Z");

/** Runs lookUntil on a frozen clock moved a second at a time; the times (s) it looked at, and what it returned. */
async function looks(
  timeoutMs: number,
  waits: number | readonly number[],
  answer: (at: number, i: number) => string[] = () => [],
) {
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

  it("a DM's waits: first at 2 s, then at 10 s, 20 s...: 10 reads in 90 s, as reading at once and every 10 s did", async () => {
    const { at, result } = await looks(90_000, DM_LOOK_WAITS_MS);
    expect(at).toEqual([2, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(result).toEqual([]);
    expect((await looks(90_000, 10_000)).at).toHaveLength(at.length);
  });

  it("returns what a look found, as soon as one finds something", async () => {
    const { at, result } = await looks(90_000, DM_LOOK_WAITS_MS, (ms) => (ms >= 1_000 ? ["hi"] : []));
    expect({ at, result }).toEqual({ at: [2], result: ["hi"] });
  });

  it("a rate limit: the next look waits for the window's reset, within the time left", async () => {
    const request = { method: "GET", path: "/2/dm_conversations/with/1/dm_events" };
    const { at } = await looks(60_000, DM_LOOK_WAITS_MS, (ms, i) => {
      if (i === 0) throw new RateLimitError(request, { limit: 15, remaining: 0, resetAt: T0 + ms + 30_000 });
      return [];
    });
    expect(at).toEqual([2, 32, 42, 52, 60]);
  });
});
