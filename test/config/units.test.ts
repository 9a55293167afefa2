import { describe, expect, it } from "vitest";
import { didYouMean, editDistance } from "../../src/config/did-you-mean.ts";
import { formatDuration, parseDuration } from "../../src/config/duration.ts";
import { formatPath, showValue } from "../../src/config/messages.ts";
import { fastestMentionIntervalMs, planHasStream } from "../../src/config/plan-rules.ts";

describe("durations", () => {
  it("parse to milliseconds and format back in the shortest exact unit", () => {
    expect([
      parseDuration("250ms"),
      parseDuration("30s"),
      parseDuration("15m"),
      parseDuration("1h"),
      parseDuration("7d"),
    ]).toEqual([250, 30_000, 900_000, 3_600_000, 604_800_000]);
    for (const bad of ["15", "15 m", "1.5h", "-1s", "1w", "", "1h30m"]) expect(parseDuration(bad)).toBeUndefined();
    expect([
      formatDuration(90_000),
      formatDuration(900_000),
      formatDuration(86_400_000),
      formatDuration(1_500),
    ]).toEqual(["90s", "15m", "1d", "1500ms"]);
  });
});

describe("plan rules (from the part 8 table)", () => {
  it("give each plan's fastest mention polling interval", () => {
    // pro: 300/15m per user (3 s) is tighter than 450/15m per app (2 s).
    expect(fastestMentionIntervalMs("pro")).toBe(3_000);
    // basic: 10/15m per user; free: 1/15m.
    expect(fastestMentionIntervalMs("basic")).toBe(90_000);
    expect(fastestMentionIntervalMs("free")).toBe(900_000);
  });

  it("share the app's window among the bots of one app", () => {
    // pro with 3 bots: 450/15m per app over 3 pollers is one poll each 6 s.
    expect(fastestMentionIntervalMs("pro", 3)).toBe(6_000);
    // basic with 2 bots: 15/15m per app over 2 is one each 120 s, slower than the user's 90 s.
    expect(fastestMentionIntervalMs("basic", 2)).toBe(120_000);
    expect(fastestMentionIntervalMs("free", 4)).toBe(3_600_000);
  });

  it("know which plans have the filtered stream", () => {
    expect([planHasStream("pro"), planHasStream("basic"), planHasStream("free")]).toEqual([true, false, false]);
  });
});

describe("message helpers", () => {
  it("suggest only plausible corrections", () => {
    expect(editDistance("rpely", "reply")).toBe(1);
    expect(didYouMean("mentoins", ["mentions", "stream", "schedule"])).toBe("mentions");
    expect(didYouMean("Plan", ["name", "plan"])).toBe("plan");
    expect(didYouMean("weather", ["mentions", "stream", "schedule"])).toBeUndefined();
    expect(didYouMean("x", [])).toBeUndefined();
  });

  it("show values and paths in YAML's terms", () => {
    expect([
      showValue("gold"),
      showValue(42),
      showValue(null),
      showValue(undefined),
      showValue([1]),
      showValue({ a: 1 }),
      showValue(true),
    ]).toEqual(['"gold"', "42", "nothing", "nothing", "a list", "a mapping", "true"]);
    expect(showValue("x".repeat(200))).toHaveLength(60);
    expect(formatPath(["triggers", "schedule", 0, "cron"])).toBe("triggers.schedule[0].cron");
    expect(formatPath([])).toBe("");
  });
});
