import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { startSchedule, type ScheduleInbox } from "../../src/runtime/schedules.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { captureLogs } from "../helpers/log.ts";

const at = (iso: string) => Date.parse(iso);

/** An event loop that records what it is given and says each event handled when the test does. */
function fakeInbox(handledAtOnce = true) {
  const delivered: BotEvent[] = [];
  const finish = new Map<string, () => void>();
  const loop: ScheduleInbox = {
    deliver(events) {
      delivered.push(...events);
    },
    handled(id) {
      return handledAtOnce ? Promise.resolve() : new Promise<void>((resolve) => finish.set(id, resolve));
    },
  };
  return { loop, delivered, finish };
}

describe("startSchedule", () => {
  it("puts a schedule event in the loop at every occurrence the clock is moved across", async () => {
    const clock = createClock({ frozen: true, start: at("2026-01-05T07:30:00Z") });
    const { loop, delivered } = fakeInbox();
    const handle = startSchedule(
      { name: "morning", cron: "0 9 * * *", timezone: "Europe/Berlin" },
      clock,
      loop,
      silentLogger,
    );
    expect(handle.nextRun()).toBe(at("2026-01-05T08:00:00Z"));
    await clock.advance(3 * 24 * 3_600_000);
    expect(delivered.map((e) => e.kind === "schedule" && new Date(e.schedule.at).toISOString())).toEqual([
      "2026-01-05T08:00:00.000Z",
      "2026-01-06T08:00:00.000Z",
      "2026-01-07T08:00:00.000Z",
    ]);
    expect(delivered[0]).toEqual({
      kind: "schedule",
      id: `schedule:morning:${at("2026-01-05T08:00:00Z")}`,
      schedule: { name: "morning", cron: "0 9 * * *", at: at("2026-01-05T08:00:00Z") },
    });
    handle.stop();
    await clock.advance(24 * 3_600_000);
    expect(delivered).toHaveLength(3);
  });

  it("skips an occurrence while the previous one's event is still being handled, and says so", async () => {
    const clock = createClock({ frozen: true, start: at("2026-01-01T00:00:00Z") });
    const { loop, delivered, finish } = fakeInbox(false);
    const { lines, logger } = captureLogs();
    const handle = startSchedule({ name: "slow", cron: "* * * * *", timezone: "UTC" }, clock, loop, logger);
    await clock.advance(3 * 60_000); // 00:01 is handed over and not yet handled; 00:02 and 00:03 are skipped
    expect(delivered).toHaveLength(1);
    expect(lines.filter((l) => String(l.msg).includes("skipping")).map((l) => l.at)).toEqual([
      "2026-01-01T00:02:00.000Z",
      "2026-01-01T00:03:00.000Z",
    ]);
    finish.get(delivered[0]!.id)!();
    await clock.advance(60_000); // 00:04 runs
    expect(delivered.map((e) => e.id)).toEqual([
      `schedule:slow:${at("2026-01-01T00:01:00Z")}`,
      `schedule:slow:${at("2026-01-01T00:04:00Z")}`,
    ]);
    handle.stop();
  });

  it("refuses an expression the trigger cannot read, naming the schedule", () => {
    const clock = createClock({ frozen: true, start: 0 });
    expect(() => startSchedule({ name: "bad", cron: "61 * * * *" }, clock, fakeInbox().loop, silentLogger)).toThrow(
      /schedule bad: invalid cron expression/,
    );
  });
});
