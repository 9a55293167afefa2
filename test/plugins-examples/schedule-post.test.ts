import { afterEach, describe, expect, it } from "vitest";
import schedulePost, { dateValues } from "../../plugins/schedule-post.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const DAY = 24 * 3_600_000;

function morning(posts: Record<string, unknown>) {
  return {
    name: "morning",
    plan: "free" as const,
    triggers: {
      schedule: [
        { name: "morning", cron: "0 9 * * *", timezone: "Europe/Berlin" },
        { name: "other", cron: "30 9 * * *", timezone: "Europe/Berlin" },
      ],
    },
    plugins: { "schedule-post": { timezone: "Europe/Berlin", posts } },
  };
}

describe("the schedule-post plugin", () => {
  it("posts when the schedule fires on a moved clock, with the date of its time zone", async () => {
    // Monday 2026-01-05, 07:00 UTC: 08:00 in Berlin.
    bed = await createTestBed({
      start: Date.parse("2026-01-05T07:00:00Z"),
      bots: [morning({ morning: "Good morning! {weekday} {date}, {time} ({schedule})" })],
      plugins: { "schedule-post": schedulePost },
    });
    await bed.advance(59 * 60_000);
    await bed.settle();
    expect(bed.postsBy("morning")).toEqual([]);
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("morning").map((p) => p.text)).toEqual(["Good morning! Monday 2026-01-05, 09:00 (morning)"]);
    // The same text on the next day would be a duplicate; the date keeps each day's unique.
    await bed.advance(DAY);
    await bed.settle();
    expect(bed.postsBy("morning").map((p) => p.text)).toEqual([
      "Good morning! Monday 2026-01-05, 09:00 (morning)",
      "Good morning! Tuesday 2026-01-06, 09:00 (morning)",
    ]);
  });

  it("uses a list of texts in turn, one per run, going on after a restart; a schedule it has no text for is left alone", async () => {
    const posts = { morning: ["First", "Second", "Third"] };
    bed = await createTestBed({
      start: Date.parse("2026-01-05T07:00:00Z"),
      bots: [morning(posts)],
      plugins: { "schedule-post": schedulePost },
    });
    await bed.advance(2 * DAY);
    await bed.settle();
    expect(bed.postsBy("morning").map((p) => p.text)).toEqual(["First", "Second"]);
    const { sandbox, store } = bed;
    await bed.stop();
    bed = await createTestBed({ sandbox, store, bots: [morning(posts)], plugins: { "schedule-post": schedulePost } });
    await bed.advance(2 * DAY);
    await bed.settle();
    // The fourth run starts the list again: "First" was posted more than 24 hours before.
    expect(bed.postsBy("morning").map((p) => p.text)).toEqual(["First", "Second", "Third", "First"]);
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });

  it("formats the date placeholders in the chosen time zone", () => {
    const at = new Date("2026-03-01T23:30:00Z");
    expect(dateValues(at, "UTC")).toEqual({ date: "2026-03-01", time: "23:30", weekday: "Sunday" });
    expect(dateValues(at, "Europe/Berlin")).toEqual({ date: "2026-03-02", time: "00:30", weekday: "Monday" });
    expect(dateValues(at, "America/New_York")).toEqual({ date: "2026-03-01", time: "18:30", weekday: "Sunday" });
  });
});
