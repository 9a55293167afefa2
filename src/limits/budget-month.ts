/**
 * The calendar of the basic plan's monthly read cap (spec 8.1 rule 5): a cap period runs
 * from the app's enrolment day of one month to the day before the enrolment day of the next
 * (UTC). An enrolment day past the end of a short month falls on that month's last day.
 */

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

const enrolmentIn = (year: number, month: number, day: number) =>
  Date.UTC(year, month, Math.min(day, daysIn(year, month)));

/** Checks an enrolment day of the month (1 to 31), naming the option when it is wrong. */
export function checkEnrolmentDay(day: number): number {
  if (!Number.isInteger(day) || day < 1 || day > 31)
    throw new RangeError(`enrolmentDay must be a day of the month (1 to 31), got ${day}`);
  return day;
}

/** The cap period holding `now`: its start and the next enrolment day (when a spent cap resets), in ms. */
export function capPeriod(now: number, enrolmentDay: number): { start: number; end: number } {
  const d = new Date(now);
  let year = d.getUTCFullYear();
  let month = d.getUTCMonth();
  if (now < enrolmentIn(year, month, enrolmentDay)) {
    month -= 1;
    if (month < 0) (month = 11), (year -= 1);
  }
  const start = enrolmentIn(year, month, enrolmentDay);
  const end = month === 11 ? enrolmentIn(year + 1, 0, enrolmentDay) : enrolmentIn(year, month + 1, enrolmentDay);
  return { start, end };
}
