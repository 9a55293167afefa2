/**
 * What is wrong with a cron expression, in the words of the bot file: which field, what it
 * allows, and how the fields were counted (5, or 6 with seconds first), so a 6-field
 * expression is never told to "write 5 fields". node-cron finds the problem; this words it.
 */
import { nodeCron } from "../node-cron.ts";

/** The fields in order, with what each allows. */
const FIELDS: Record<string, { name: string; allows: string }> = {
  second: { name: "second", allows: "0-59" },
  minute: { name: "minute", allows: "0-59" },
  hour: { name: "hour", allows: "0-23" },
  dayOfMonth: { name: "day-of-month", allows: "1-31" },
  month: { name: "month", allows: "1-12 or jan-dec" },
  dayOfWeek: { name: "day-of-week", allows: "0-7 or sun-sat" },
};

const FIVE = "minute hour day-of-month month day-of-week";
const SIX = `second ${FIVE}`;

/**
 * The problem with `expression`, or undefined when node-cron accepts it.
 *
 * @example
 * ```ts
 * cronProblem("0 61 9 * * *");
 * // '"61" is not a valid minute (0-59); the 6 fields are read as second minute hour day-of-month month day-of-week'
 * ```
 */
export function cronProblem(expression: string): string | undefined {
  const detail = nodeCron().validateDetailed(expression);
  if (detail.valid) return undefined;
  const count = expression.trim().split(/\s+/).filter(Boolean).length;
  if (count !== 5 && count !== 6) {
    return `"${expression}" has ${count} field${count === 1 ? "" : "s"}; write 5 (${FIVE}), e.g. "0 9 * * *", or 6 with seconds first (${SIX})`;
  }
  const bad = detail.errors
    .map((e) => {
      const field = FIELDS[e.field];
      return field ? `"${e.value}" is not a valid ${field.name} (${field.allows})` : e.message;
    })
    .join(", ");
  return `${bad || `"${expression}" is not a cron expression`}; the ${count} fields are read as ${count === 5 ? FIVE : SIX}`;
}
