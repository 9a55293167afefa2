/**
 * `schedule-post`: publishes a post when one of the bot's schedules fires.
 *
 * ```yaml
 * triggers:
 *   schedule:
 *     - { name: morning, cron: "0 9 * * *", timezone: Europe/Berlin }
 *     - { name: tip, cron: "0 12 * * 1" }
 * plugins:
 *   schedule-post:
 *     timezone: Europe/Berlin      # for {date}, {time} and {weekday}
 *     posts:
 *       morning: "Good morning! It's {weekday}, {date}."
 *       tip:                       # a list is used in turn, one text per run
 *         - "Tip: mention me with a question."
 *         - "Tip: follow me and I'll follow you back."
 * ```
 *
 * `posts` maps a schedule's name (from `triggers.schedule`) to a text or a list of texts.
 * A schedule with no entry here is left to the bot's other plugins.
 *
 * Placeholders: `{date}` (2026-03-02), `{time}` (09:00), `{weekday}` (Monday), all of the
 * moment the schedule fired in `timezone`, and `{schedule}` (its name). The service refuses
 * the same text from one account twice within 24 hours, so a schedule that fires more than
 * once a day needs a `{time}`, or a list longer than its runs per day.
 *
 * Each run posts once, even across a crash: the post's idempotency key is the run, not the
 * text, so the same text on two days is two posts.
 */
import { definePlugin } from "postbot";
import { z } from "zod";
import { nextText, render, templates } from "./lib/template.ts";

/** The placeholders a scheduled post may use. */
export const SCHEDULE_PLACEHOLDERS = ["date", "time", "weekday", "schedule"] as const;

const timezone = z
  .string({ error: "expected an IANA time zone such as Europe/Berlin or UTC" })
  .refine(isTimeZone, {
    error: (iss) => `unknown time zone ${JSON.stringify(iss.input)}: use an IANA name such as Europe/Berlin or UTC`,
  })
  .optional()
  .meta({ description: "IANA time zone of {date}, {time} and {weekday}; default: the process's, as for schedules" });

/** The options of `schedule-post` (exported so a bot's own tests, or a plugin built on this one, can reuse them). */
export const schedulePostOptions = z.strictObject({
  posts: z
    .record(
      z.string().min(1, { error: "must not be empty; use the name of one of the bot's schedules" }),
      templates(SCHEDULE_PLACEHOLDERS, "the post"),
    )
    .refine((posts) => Object.keys(posts).length > 0, {
      error: "is empty; give each schedule name (from triggers.schedule) the text to post",
    })
    .meta({
      description: "Schedule name (from triggers.schedule) -> the text to post, or a list of texts used in turn",
    }),
  timezone,
});

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The date placeholders of a moment, in a time zone (undefined: the process's). */
export function dateValues(at: Date, timeZone: string | undefined): { date: string; time: string; weekday: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      weekday: "long",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}`,
    weekday: parts.weekday!,
  };
}

export default definePlugin({
  name: "schedule-post",
  options: schedulePostOptions,
  setup(bot, options) {
    bot.on("schedule", async (ctx) => {
      const { name, at } = ctx.schedule;
      const texts = options.posts[name];
      if (!texts) return;
      const text = render(nextText(bot.store, `schedule-post.next.${name}`, texts), {
        ...dateValues(at, options.timezone),
        schedule: name,
      });
      await ctx.publish(text);
    });
  },
});
