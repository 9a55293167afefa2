/**
 * A dialog's bot file edited while users are in the middle of it (plugins/dialog.ts on the
 * engine's versions, src/plugins/dialogs/versions.ts): against the sandbox, on a frozen clock.
 * The steps reordered while the bot runs, with 20 users mid-quiz; a step removed while the
 * bot was stopped, on a file store (the version a dialog started on comes back from the
 * state); and a placeholder with no value (the session expired under `session.ttl`), which is
 * never posted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import dialog from "../../plugins/dialog.ts";
import type { BotFileInput } from "../../src/config/index.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { createTestBed, testBotConfig, type TestBed, type TestUser } from "../../src/testing.ts";
import { QUIZ } from "../fixtures/quiz-bot.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

type Step = Record<string, unknown>;
const quizOptions = (QUIZ.plugins as { dialog: { steps: Step[] } }).dialog;
const [askName, askColour, thanks] = quizOptions.steps as [Step, Step, Step];

/** The quiz with other steps. */
const quizWith = (steps: Step[]): BotFileInput => ({
  ...QUIZ,
  plugins: { dialog: { ...quizOptions, steps } },
});

/** The steps reordered: the colour first, then the name (each text still valid for `bot validate`). */
const REORDERED = quizWith([{ ...askColour, ask: "Favourite colour: red, green or blue?" }, askName, thanks]);

/** The name's question removed: the colour is asked first, and the thanks no longer names anyone. */
const NAME_REMOVED = quizWith([
  { ...askColour, ask: "Favourite colour: red, green or blue?" },
  { say: "Thanks, {session.colour} it is. Bye!" },
]);

/** The bot's last post to each user, by username. */
const lastTo = (users: readonly TestUser[]) => {
  const posts = bed!.postsBy("quiz");
  return Object.fromEntries(
    users.map((u) => [u.username, posts.filter((p) => p.text.startsWith(`@${u.username} `)).at(-1)?.text]),
  );
};

/** Messages of the captured log that contain `words`. */
const logged = (lines: Array<Record<string, unknown>>, words: string) =>
  lines.map((l) => String(l.msg)).filter((m) => m.includes(words));

/** `n` users who started the quiz; the first `answered` of them gave their name too. */
async function midQuiz(n: number, answered: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let i = 0; i < n; i++) users.push(await bed!.user(`quser${i}`));
  for (const u of users) await bed!.post(u, "@quiz quiz");
  await bed!.settle();
  for (const u of users.slice(0, answered)) await bed!.answer(u, "quiz", `Name${u.username.slice(5)}`);
  await bed!.settle();
  return users;
}

describe("a dialog's bot file edited while users are in it", () => {
  it("steps reordered while running: the 20 open quizzes finish on the steps they started with, new ones start on the new", async () => {
    const { lines, logger } = captureLogs("info");
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog }, logger });
    const users = await midQuiz(20, 10); // quser0-9 at the colour question, quser10-19 at the name's
    expect(bed.dialog("quiz", users[0]!)).toMatchObject({ step: "2" });
    expect(bed.dialog("quiz", users[10]!)).toMatchObject({ step: "1" });

    // The file edited: the runtime restarts the bot with its new configuration.
    const hosted = bed.runtime.hosted("quiz")!;
    await bed.runtime.replace({ ...hosted, config: testBotConfig(REORDERED, { dialog }) });
    await bed.settle();
    expect(logged(lines, "20 open dialogs")).toHaveLength(1);
    expect(logged(lines, "20 open dialogs")[0]).toMatch(/finish on the version they started with/);

    for (const u of users.slice(0, 10)) await bed.answer(u, "quiz", "red");
    for (const u of users.slice(10)) await bed.answer(u, "quiz", `Name${u.username.slice(5)}`);
    await bed.settle();
    const last = lastTo(users);
    for (const u of users.slice(0, 10))
      expect(last[u.username]).toBe(`@${u.username} Thanks Name${u.username.slice(5)}, red it is. Bye!`);
    for (const u of users.slice(10))
      expect(last[u.username]).toBe(
        `@${u.username} Hi Name${u.username.slice(5)}! Favourite colour: red, green or blue?`,
      );
    for (const u of users.slice(10)) await bed.answer(u, "quiz", "blue");
    await bed.settle();
    for (const u of users.slice(10))
      expect(lastTo([u])[u.username]).toBe(`@${u.username} Thanks Name${u.username.slice(5)}, blue it is. Bye!`);
    for (const u of users) expect(bed.dialog("quiz", u)).toBeUndefined();

    // A quiz started now is the new one.
    const late = await bed.user("late");
    await bed.post(late, "@quiz quiz");
    await bed.settle();
    expect(lastTo([late]).late).toBe("@late Favourite colour: red, green or blue?");
    expect(bed.postsBy("quiz").filter((p) => p.text.includes("{"))).toEqual([]);
  });

  it("a step removed while the bot was stopped: after the restart, the 10 open quizzes finish as they began", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-dialog-edit-"));
    dirs.push(dir);
    const first = await createTestBed({ bots: [QUIZ], plugins: { dialog }, store: await openFileStore(dir) });
    bed = first;
    const users = await midQuiz(10, 10); // every one at the colour question
    await first.stop();
    await first.store.close();
    bed = undefined;

    const { lines, logger } = captureLogs("info");
    bed = await createTestBed({
      bots: [NAME_REMOVED],
      plugins: { dialog },
      store: await openFileStore(dir),
      sandbox: first.sandbox,
      logger,
    });
    await bed.settle();
    expect(logged(lines, "10 open dialogs")).toHaveLength(1);
    for (const u of users) await bed.answer(u, "quiz", "green");
    await bed.settle();
    const last = lastTo(users);
    for (const u of users)
      expect(last[u.username]).toBe(`@${u.username} Thanks Name${u.username.slice(5)}, green it is. Bye!`);
    expect(logged(lines, "has no step")).toEqual([]);
    expect(bed.postsBy("quiz").filter((p) => p.text.includes("{"))).toEqual([]);
    await bed.close();
    await bed.store.close();
    bed = undefined;
  });
});

describe("a placeholder with no value", () => {
  it("is never posted: the turn's message is not sent, the log says which text lacked what, and the dialog ends", async () => {
    const { lines, logger } = captureLogs("info");
    // Sessions unchanged for a minute read as new: the name is gone by the colour's answer.
    bed = await createTestBed({ bots: [{ ...QUIZ, session: { ttl: "1m" } }], plugins: { dialog }, logger });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiz quiz");
    await bed.settle();
    await bed.answer(alice, "quiz", "Ann");
    await bed.settle();
    await bed.advance(2 * 60_000);
    await bed.answer(alice, "quiz", "red");
    await bed.settle();
    expect(bed.postsBy("quiz").map((p) => p.text)).toEqual([
      "@alice What's your name?",
      "@alice Hi Ann! Favourite colour: red, green or blue?",
    ]);
    const said = logged(lines, "{session.name}");
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/steps\[2\]\.say/);
    expect(said[0]).toMatch(/not sent/);
    expect(bed.dialog("quiz", alice)).toBeUndefined();
  });
});
