import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { checkSchedule, nextOccurrence, startSchedule } from "../../src/triggers/schedule.ts";

const at = (iso: string) => Date.parse(iso);

describe("nextOccurrence", () => {
  it("honours the time zone", () => {
    // 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer.
    expect(nextOccurrence({ cron: "0 9 * * *", timezone: "Europe/Berlin" }, at("2026-01-05T00:00:00Z"))).toBe(
      at("2026-01-05T08:00:00Z"),
    );
    expect(nextOccurrence({ cron: "0 9 * * *", timezone: "Europe/Berlin" }, at("2026-07-05T00:00:00Z"))).toBe(
      at("2026-07-05T07:00:00Z"),
    );
    expect(nextOccurrence({ cron: "0 9 * * *", timezone: "UTC" }, at("2026-07-05T09:00:00Z"))).toBe(
      at("2026-07-06T09:00:00Z"),
    );
  });

  it("handles half-hour offsets, weekdays, seconds and rare dates", () => {
    expect(nextOccurrence({ cron: "30 9 * * *", timezone: "Asia/Kolkata" }, at("2026-03-01T00:00:00Z"))).toBe(
      at("2026-03-01T04:00:00Z"),
    );
    // 2026-11-22 is a Sunday: the next weekday 10:00 UTC is Monday.
    expect(nextOccurrence({ cron: "0 10 * * mon-fri", timezone: "UTC" }, at("2026-11-22T12:00:00Z"))).toBe(
      at("2026-11-23T10:00:00Z"),
    );
    expect(nextOccurrence({ cron: "*/20 * * * * *", timezone: "UTC" }, at("2026-01-01T00:00:05Z"))).toBe(
      at("2026-01-01T00:00:20Z"),
    );
    expect(nextOccurrence({ cron: "0 0 29 2 *", timezone: "UTC" }, at("2026-03-01T00:00:00Z"))).toBe(
      at("2028-02-29T00:00:00Z"),
    );
  });
});

describe("checkSchedule", () => {
  it("names what is wrong", () => {
    expect(checkSchedule({ cron: "61 * * * *" })).toMatch(/invalid cron expression "61 \* \* \* \*": .*minute/);
    expect(checkSchedule({ cron: "0 9 * * *", timezone: "Mars/Olympus" })).toMatch(/unknown time zone "Mars\/Olympus"/);
    expect(checkSchedule({ cron: "0 9 * * *", timezone: "Europe/Berlin" })).toBeUndefined();
  });
});

describe("startSchedule", () => {
  it("fires every occurrence when the clock is moved across them", async () => {
    const clock = createClock({ frozen: true, start: at("2026-01-05T07:30:00Z") });
    const runs: string[] = [];
    const handle = startSchedule(
      { name: "morning", cron: "0 9 * * *", timezone: "Europe/Berlin" },
      { clock, run: async (t) => void runs.push(new Date(t).toISOString()) },
    );
    expect(handle.nextRun()).toBe(at("2026-01-05T08:00:00Z"));
    await clock.advance(3 * 24 * 3_600_000);
    expect(runs).toEqual(["2026-01-05T08:00:00.000Z", "2026-01-06T08:00:00.000Z", "2026-01-07T08:00:00.000Z"]);
    handle.stop();
    await clock.advance(24 * 3_600_000);
    expect(runs).toHaveLength(3);
  });

  it("skips an occurrence while the previous run is still going, and survives a throwing run", async () => {
    const clock = createClock({ frozen: true, start: at("2026-01-01T00:00:00Z") });
    const skipped: number[] = [];
    const errors: unknown[] = [];
    let runs = 0;
    let release!: () => void;
    const handle = startSchedule(
      { name: "slow", cron: "* * * * *", timezone: "UTC" },
      {
        clock,
        run: async () => {
          runs++;
          if (runs === 1) await new Promise<void>((r) => (release = r));
          if (runs === 2) throw new Error("boom");
        },
        onSkip: (t) => skipped.push(t),
        onError: (e) => errors.push(e),
      },
    );
    await clock.advance(3 * 60_000); // 00:01 runs and hangs; 00:02 and 00:03 are skipped
    expect(runs).toBe(1);
    expect(skipped).toEqual([at("2026-01-01T00:02:00Z"), at("2026-01-01T00:03:00Z")]);
    release();
    await clock.advance(60_000); // 00:04 runs and throws
    await clock.advance(60_000); // 00:05 runs
    expect(runs).toBe(3);
    expect(errors).toHaveLength(1);
    handle.stop();
  });
});
