/**
 * The package's public surface is deliberate: api-report.md lists every name `postbot`,
 * `postbot/testing` and `postbot/sandbox` export, with its type, and must match the code.
 * A change to what users import then shows in review, as a change to that file.
 */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { apiReport, REPORT_FILE } from "../../scripts/api-report.ts";

it("api-report.md lists what the three entries export, as the code has it (npm run api:report writes it)", () => {
  const checkedIn = readFileSync(REPORT_FILE, "utf8");
  const current = apiReport();
  expect(
    current === checkedIn,
    "the exports of postbot, postbot/testing or postbot/sandbox changed: if that is meant, run npm run api:report and commit api-report.md",
  ).toBe(true);
  expect(current).toContain("## postbot/testing");
}, 180_000);
