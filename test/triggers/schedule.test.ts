import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { checkSchedule, nextOccurrence } from "../../src/triggers/schedule.ts";

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
