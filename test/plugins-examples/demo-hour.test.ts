/**
 * The demo left running for an hour (its example bots, its crowd, the stand-in model; the
 * clock moved instead of waited for) refuses nothing of its own making. The crowd says the
 * same few things over and over, and the service refuses a bot the same text twice within 24
 * hours: the stand-in's answers, a few fixed texts once, were refused after ten minutes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start } from "../../src/hosting/start.ts";
import { exampleBotsDir } from "../helpers/examples.ts";
import { captureLogs } from "../helpers/log.ts";

const botsDir = await exampleBotsDir();
const data = await mkdtemp(join(tmpdir(), "postbot-demo-hour-"));
afterAll(async () => {
  await rm(dirname(botsDir), { recursive: true, force: true });
  await rm(data, { recursive: true, force: true });
});

it("an hour of the demo's crowd: no action is refused or fails, and no two of helpdesk's answers are the same text", async () => {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T09:00:00Z") });
  const { lines, logger } = captureLogs("info");
  const started = await start({ bots: botsDir, plugins: "plugins", data, clock, logger, env: {}, watch: false });
  try {
    for (let i = 0; i < 360; i++) {
      await clock.advance(10_000);
      await started.runtime.idle();
    }
  } finally {
    await started.stop();
  }
  const outcomes = lines.filter((l) => typeof l.action === "string" && typeof l.status === "string");
  expect(
    outcomes.filter((l) => l.status === "refused" || l.status === "failed").map((l) => `${l.bot}: ${l.msg}`),
  ).toEqual([]);
  const helpdesk = outcomes.filter((l) => l.bot === "helpdesk" && l.action === "reply" && l.status === "sent");
  expect(helpdesk.length).toBeGreaterThan(20);
  expect(new Set(helpdesk.map((l) => l.msg)).size).toBe(helpdesk.length);
}, 300_000);
