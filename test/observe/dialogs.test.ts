/**
 * Open dialogs where a user looks: `/metrics`
 * (`postbot_dialogs_open{bot}`, steps, timeouts, started), the status page's data, and
 * `bot status`, with the quiz of issue 22 holding one conversation in a thread and one by DM.
 */
import { afterEach, expect, it } from "vitest";
import dialog from "../../plugins/dialog.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { QUIZ } from "../fixtures/quiz-bot.ts";
import { echoBot, observedBed, parseExposition, value, type ObservedBed } from "./bed.ts";

let t: ObservedBed | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

it("shows each bot's open dialogs, steps and timeouts in /metrics, the status page's data and bot status", async () => {
  t = await observedBed([QUIZ, echoBot("greeter")], { plugins: { dialog } });
  const { bed, server } = t;
  const [alice, bob, carol] = [await bed.user("alice"), await bed.user("bob"), await bed.user("carol")];
  await bed.post(carol, "@quiz quiz"); // carol never answers: her wait times out
  await bed.advance(60_000);
  await bed.settle();
  await bed.post(alice, "@quiz quiz");
  await bed.dm(bob, "quiz", "quiz");
  await bed.advance(60_000);
  await bed.settle();
  await bed.answer(alice, "quiz", "Ann");
  await bed.advance(9 * 60_000);
  await bed.settle();
  expect(bed.dialog("quiz", carol)).toBeUndefined();
  expect(bed.dialog("quiz", alice, "thread")).toMatchObject({ step: "2" });
  expect(bed.dialog("quiz", bob, "dm")).toMatchObject({ step: "1" });

  const m = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
  expect(value(m, "postbot_dialogs_open", { bot: "quiz" })).toBe(2);
  expect(value(m, "postbot_dialogs_started_total", { bot: "quiz" })).toBe(3);
  expect(value(m, "postbot_dialog_steps_total", { bot: "quiz" })).toBe(1);
  expect(value(m, "postbot_dialog_timeouts_total", { bot: "quiz" })).toBe(1);
  // A bot whose plugins hold no conversation has none of these series.
  expect(m.filter((s) => s.name.startsWith("postbot_dialog") && s.labels.bot === "greeter")).toEqual([]);

  const view = (await (await fetch(`${server.url}/api/status`)).json()) as {
    bots: Array<{ bot: string; dialogs?: unknown }>;
  };
  expect(view.bots.find((b) => b.bot === "quiz")?.dialogs).toEqual({
    open: { thread: 1, dm: 1 },
    started: 3,
    steps: 1,
    timeouts: 1,
  });
  expect(view.bots.find((b) => b.bot === "greeter")?.dialogs).toBeUndefined();

  await bed.stop(); // saves each bot's status, as bot status reads it
  const text = formatStatus(collectStatus(bed.store, bed.clock), bed.clock.now());
  expect(text).toContain(
    "  dialogs    2 dialogs open (1 in a thread, 1 by DM); since start 3 started, 1 step, 1 timeout",
  );
});
