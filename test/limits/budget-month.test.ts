import { describe, expect, it } from "vitest";
import { capPeriod, checkEnrolmentDay } from "../../src/limits/budget-month.ts";

const at = (iso: string) => Date.parse(iso);

describe("capPeriod", () => {
  it("runs from the enrolment day to the next one", () => {
    expect(capPeriod(at("2026-03-20T10:00:00Z"), 15)).toEqual({
      start: at("2026-03-15T00:00:00Z"),
      end: at("2026-04-15T00:00:00Z"),
    });
    expect(capPeriod(at("2026-03-10T10:00:00Z"), 15)).toEqual({
      start: at("2026-02-15T00:00:00Z"),
      end: at("2026-03-15T00:00:00Z"),
    });
  });

  it("starts on the enrolment day itself, at midnight UTC", () => {
    expect(capPeriod(at("2026-03-15T00:00:00Z"), 15).start).toBe(at("2026-03-15T00:00:00Z"));
  });

  it("falls on the last day of a short month and wraps the year", () => {
    expect(capPeriod(at("2026-02-28T12:00:00Z"), 31)).toEqual({
      start: at("2026-02-28T00:00:00Z"),
      end: at("2026-03-31T00:00:00Z"),
    });
    expect(capPeriod(at("2026-12-31T12:00:00Z"), 1)).toEqual({
      start: at("2026-12-01T00:00:00Z"),
      end: at("2027-01-01T00:00:00Z"),
    });
    expect(capPeriod(at("2027-01-03T12:00:00Z"), 5)).toEqual({
      start: at("2026-12-05T00:00:00Z"),
      end: at("2027-01-05T00:00:00Z"),
    });
  });

  it("refuses a day that is not a day of the month", () => {
    expect(() => checkEnrolmentDay(0)).toThrow(/1 to 31/);
    expect(() => checkEnrolmentDay(32)).toThrow(/enrolmentDay/);
    expect(checkEnrolmentDay(31)).toBe(31);
  });
});
