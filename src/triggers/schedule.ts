/**
 * The schedule trigger: cron expressions with time zones, fired on the injected clock.
 *
 * node-cron decides what an expression means (its parser, its day-of-month/day-of-week
 * rules, its time-zone handling through `task.match`). What node-cron cannot do is run on
 * a clock other than the wall clock, so the waiting is ours: we find the next instant that
 * node-cron matches, and the runtime sleeps on the injected clock until then. Moving a test clock past
 * 09:00 fires the 09:00 schedule; nothing waits in real time.
 *
 * The trigger only says when an expression fires ({@link nextOccurrence}); the runtime's
 * timer (src/runtime/schedules.ts) waits for it on the clock and puts the `schedule` event in
 * the bot's inbox itself, so nothing here calls back into the runtime.
 */
import { nodeCron } from "../node-cron.ts";

export interface ScheduleSpec {
  name: string;
  cron: string;
  /** IANA time zone (default: the process's). */
  timezone?: string;
}

/** How far ahead to look for a matching instant: five years covers every cron expression. */
const HORIZON_HOURS = 24 * 366 * 5;
const HOUR = 3_600_000;

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
function localHourMonth(
  at: number,
  timezone: string | undefined,
): { hour: number; month: number; minute: number; second: number } {
  const key = timezone ?? "";
  let fmt = partsFormatters.get(key);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      month: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    partsFormatters.set(key, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(at))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return { hour: parts.hour!, month: parts.month!, minute: parts.minute!, second: parts.second! };
}

/**
 * The first instant strictly after `after` at which the expression fires, or undefined when
 * none comes within five years. Walks local hours, and within an hour whose hour and month
 * can match, asks node-cron about each allowed minute and second.
 */
export function nextOccurrence(spec: Pick<ScheduleSpec, "cron" | "timezone">, after: number): number | undefined {
  const task = nodeCron().createTask(spec.cron, () => {}, { timezone: spec.timezone });
  const fields = nodeCron().parse(spec.cron);
  const start = Math.floor(after / 1000) * 1000;
  const local = localHourMonth(start, spec.timezone);
  let hourStart = start - (local.minute * 60 + local.second) * 1000;
  for (let i = 0; i < HORIZON_HOURS; i++, hourStart += HOUR) {
    const { hour, month } = localHourMonth(hourStart, spec.timezone);
    if (!fields.hour.includes(hour) || !fields.month.includes(month)) continue;
    for (const minute of fields.minute) {
      for (const second of fields.second) {
        const t = hourStart + (minute * 60 + second) * 1000;
        if (t > after && task.match(new Date(t))) return t;
      }
    }
  }
  return undefined;
}

/** Checks an expression and a time zone, returning what is wrong with them, if anything. */
export function checkSchedule(spec: Pick<ScheduleSpec, "cron" | "timezone">): string | undefined {
  const detail = nodeCron().validateDetailed(spec.cron);
  if (!detail.valid) {
    const first = detail.errors[0];
    return first
      ? `invalid cron expression "${spec.cron}": ${first.message} (field ${first.field})`
      : `invalid cron expression "${spec.cron}"`;
  }
  if (spec.timezone !== undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: spec.timezone });
    } catch {
      return `unknown time zone "${spec.timezone}": use an IANA name such as Europe/Berlin or UTC`;
    }
  }
  return undefined;
}
