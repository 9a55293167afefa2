/**
 * The `dialog` plugin (plugins/dialog.ts) end to end against the sandbox, on a frozen clock,
 * with the bot file of issue 22 (the quiz): in a thread, two users at once, a wrong answer,
 * a timeout (also one that passes while the bot is stopped), cancel; and its options checked
 * with the step and field named.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import dialog, { dialogOptions } from "../../plugins/dialog.ts";
import { seedInbox } from "../helpers/inbox.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { mentionsCursorKey } from "../../src/triggers/mentions.ts";
import { formatProblem, loadBots } from "../../src/config/index.ts";
import { QUIZ, QUIZ_YAML } from "../fixtures/quiz-bot.ts";
import { captureLogs } from "../helpers/log.ts";
import { createTestBed, testBotConfig, type TestBed } from "../../src/testing.ts";

let bed: TestBed | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** The quiz bot's posts, as text. */
const said = () => bed!.postsBy("quiz").map((p) => p.text);

/** Posts, then lets the stream deliver it and the bot answer. */
async function settle() {
  await bed!.settle();
}

/** The quiz started again on the state `first` left in `dir` and its sandbox, once it settled. */
async function restart(first: TestBed, dir: string): Promise<TestBed> {
  const next = await createTestBed({
    bots: [QUIZ],
    plugins: { dialog },
    store: await openFileStore(dir),
    sandbox: first.sandbox,
  });
  await next.settle();
  return next;
}

/**
 * A bed with its state in a new directory: alice starts the quiz, the bot asks its first
 * question, and the bot stops (its store still open: the caller closes it, or reads what a
 * crash would leave), for a test of what the next start does.
 */
async function askedThenStopped() {
  const dir = await mkdtemp(join(tmpdir(), "postbot-dialog-"));
  dirs.push(dir);
  const first = await createTestBed({ bots: [QUIZ], plugins: { dialog }, store: await openFileStore(dir) });
  const alice = await first.user("alice");
  await first.post(alice, "@quiz quiz");
  await first.settle();
  await first.stop();
  return { dir, first, alice };
}

/** Stops the restarted bed, then the sandbox it shared with `first`. */
async function stopBoth(first: TestBed): Promise<void> {
  await bed!.close();
  await first.sandbox.close();
  await bed!.store.close();
  bed = undefined;
}

describe("the dialog plugin in a thread", () => {
  it("takes the quiz of issue 22 end to end: each question a reply in the thread, the answers saved", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    const start = await bed.post(alice, "@quiz let's do the quiz");
    await settle();
    expect(said()).toEqual(["@alice What's your name?"]);
    const question = bed.postsBy("quiz")[0]!;
    expect(question.in_reply_to_post_id).toBe(start.id);
    expect(bed.dialog("quiz", alice)).toMatchObject({ step: "1", channel: "thread", place: start.id });

    await bed.answer(alice, "quiz", "@quiz Ann");
    await settle();
    await bed.answer(alice, "quiz", "@quiz blue");
    await settle();
    expect(said()).toEqual([
      "@alice What's your name?",
      "@alice Hi Ann! Favourite colour: red, green or blue?",
      "@alice Thanks Ann, blue it is. Bye!",
    ]);
    // Every message in the one thread, each answering the user's last message.
    expect(new Set(bed.postsBy("quiz").map((p) => p.conversation_id))).toEqual(new Set([start.id]));
    expect(bed.dialog("quiz", alice)).toBeUndefined();
  });

  it("asks again after a wrong answer, with the retry text, and takes the right one", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiz quiz");
    await settle();
    await bed.answer(alice, "quiz", "Ann");
    await settle();
    await bed.answer(alice, "quiz", "purple");
    await settle();
    expect(said().at(-1)).toBe(
      "@alice Please answer red, green or blue.\nHi Ann! Favourite colour: red, green or blue?",
    );
    expect(bed.dialog("quiz", alice)).toMatchObject({ step: "2" });
    await bed.answer(alice, "quiz", "Green!");
    await settle();
    expect(said().at(-1)).toBe("@alice Thanks Ann, green it is. Bye!");
  });

  it("holds two users' quizzes at once, in their own threads, though the questions are the same words", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.post(alice, "@quiz quiz");
    await bed.post(bob, "@quiz start");
    await settle();
    await bed.answer(bob, "quiz", "Bob");
    await bed.answer(alice, "quiz", "Ann");
    await settle();
    await bed.answer(alice, "quiz", "red");
    await bed.answer(bob, "quiz", "green");
    await settle();
    const texts = said();
    for (const who of [
      ["alice", "Ann", "red"],
      ["bob", "Bob", "green"],
    ])
      expect(texts).toEqual(
        expect.arrayContaining([
          `@${who[0]} What's your name?`,
          `@${who[0]} Hi ${who[1]}! Favourite colour: red, green or blue?`,
          `@${who[0]} Thanks ${who[1]}, ${who[2]} it is. Bye!`,
        ]),
      );
    expect(texts).toHaveLength(6);
  });

  it("says the timeout text when no answer comes within 10 minutes, and ends", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiz quiz");
    await settle();
    await bed.advance(10 * 60_000 - 1_000);
    await settle();
    expect(said()).toHaveLength(1);
    await bed.advance(1_000);
    await settle();
    expect(said()).toEqual(["@alice What's your name?", "@alice No answer, so I stopped. Say quiz to start again."]);
    // In reply to the question, in its thread; and the quiz can be taken again.
    const [question, stopped] = bed.postsBy("quiz");
    expect(stopped!.in_reply_to_post_id).toBe(question!.id);
    expect(bed.dialog("quiz", alice)).toBeUndefined();
    await bed.post(alice, "@quiz quiz again", stopped!.id);
    await settle();
    expect(said().at(-1)).toBe("@alice What's your name? (2)"); // the same words within 24 h: counted
  });

  it("ends at a cancel word, and the next start word begins anew", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiz quiz");
    await settle();
    await bed.answer(alice, "quiz", "@quiz Stop");
    await settle();
    expect(said()).toEqual(["@alice What's your name?"]);
    expect(bed.dialog("quiz", alice)).toBeUndefined();
  });

  it("fires at start a timeout that passed while the bot was stopped", async () => {
    const { dir, first, alice } = await askedThenStopped();
    await first.store.close();
    await first.advance(60 * 60_000); // the bot is down for an hour
    bed = await restart(first, dir);
    expect(said()).toEqual(["@alice What's your name?", "@alice No answer, so I stopped. Say quiz to start again."]);
    await stopBoth(first);
  });
});

describe("the dialog plugin by DM", () => {
  /** The DM conversation of a user and the quiz, as `who: text` lines, oldest first. */
  const dms = (user: { id: string; username: string }) =>
    bed!.dmsWith(user, "quiz").map((m) => `${m.sender_id === user.id ? user.username : "quiz"}: ${m.text}`);
  /** One DM polling interval on pro (15 per 15 min): the bot reads what came, and answers. */
  const poll = async () => {
    await bed!.advance(60_000);
    await bed!.settle();
  };

  it("takes the quiz started by a DM in that DM conversation, in the author's words, and posts nothing", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.dm(alice, "quiz", "Can I take the quiz?");
    await poll();
    expect(dms(alice)).toEqual(["alice: Can I take the quiz?", "quiz: What's your name?"]);
    expect(bed.dialog("quiz", alice)).toMatchObject({ step: "1", channel: "dm" });
    await bed.dm(alice, "quiz", "Ann");
    await poll();
    await bed.dm(alice, "quiz", "purple");
    await poll();
    await bed.dm(alice, "quiz", "Blue.");
    await poll();
    expect(dms(alice)).toEqual([
      "alice: Can I take the quiz?",
      "quiz: What's your name?",
      "alice: Ann",
      "quiz: Hi Ann! Favourite colour: red, green or blue?",
      "alice: purple",
      "quiz: Please answer red, green or blue.\nHi Ann! Favourite colour: red, green or blue?",
      "alice: Blue.",
      "quiz: Thanks Ann, blue it is. Bye!",
    ]);
    expect(bed.dialog("quiz", alice)).toBeUndefined();
    expect(bed.postsBy("quiz")).toEqual([]);
    // Taken again at once: the same words to the same person are no duplicate in DMs.
    await bed.dm(alice, "quiz", "quiz");
    await poll();
    expect(dms(alice).at(-1)).toBe("quiz: What's your name?");
  });

  it("holds two users' quizzes by DM at once, each asked the same questions word for word", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.dm(alice, "quiz", "quiz");
    await bed.dm(bob, "quiz", "start");
    await poll();
    await bed.dm(bob, "quiz", "Bob");
    await bed.dm(alice, "quiz", "Ann");
    await poll();
    await bed.dm(alice, "quiz", "red");
    await bed.dm(bob, "quiz", "green");
    await poll();
    for (const [user, name, colour] of [
      [alice, "Ann", "red"],
      [bob, "Bob", "green"],
    ] as const)
      expect(dms(user).filter((line) => line.startsWith("quiz: "))).toEqual([
        "quiz: What's your name?",
        `quiz: Hi ${name}! Favourite colour: red, green or blue?`,
        `quiz: Thanks ${name}, ${colour} it is. Bye!`,
      ]);
  });

  it("keeps a DM quiz and a thread quiz of one user apart, and cancels the DM one at its word", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiz quiz");
    await bed.dm(alice, "quiz", "quiz");
    await poll();
    expect(bed.dialog("quiz", alice, "thread")).toMatchObject({ step: "1" });
    expect(bed.dialog("quiz", alice, "dm")).toMatchObject({ step: "1" });
    await bed.dm(alice, "quiz", "cancel");
    await poll();
    expect(bed.dialog("quiz", alice, "dm")).toBeUndefined();
    await bed.answer(alice, "quiz", "Ann");
    await bed.settle();
    expect(said()).toEqual(["@alice What's your name?", "@alice Hi Ann! Favourite colour: red, green or blue?"]);
    expect(dms(alice)).toEqual(["alice: quiz", "quiz: What's your name?", "alice: cancel"]);
  });

  it("times out by DM: the timeout text in the DM conversation, once the bot has read its DMs past the deadline", async () => {
    bed = await createTestBed({ bots: [QUIZ], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.dm(alice, "quiz", "quiz");
    await poll();
    await bed.advance(10 * 60_000 + 60_000);
    await bed.settle();
    expect(dms(alice)).toEqual([
      "alice: quiz",
      "quiz: What's your name?",
      "quiz: No answer, so I stopped. Say quiz to start again.",
    ]);
    expect(bed.dialog("quiz", alice)).toBeUndefined();
  });

  it("on basic (DMs read once a day): an answer written in time counts though the bot reads it a day later; no answer times out", async () => {
    const DAY = 24 * 60 * 60_000;
    // DMs only: a day of mention polls would only slow the test.
    bed = await createTestBed({ bots: [{ ...QUIZ, plan: "basic", triggers: { dms: {} } }], plugins: { dialog } });
    const alice = await bed.user("alice");
    await bed.dm(alice, "quiz", "quiz");
    await bed.advance(DAY);
    await bed.settle();
    expect(dms(alice)).toEqual(["alice: quiz", "quiz: What's your name?"]);
    // She answers two minutes later; the bot reads it at its next poll, a day on: well past the 10 minutes.
    await bed.advance(2 * 60_000);
    await bed.dm(alice, "quiz", "Ann");
    await bed.advance(DAY - 2 * 60_000);
    await bed.settle();
    expect(dms(alice)).toEqual([
      "alice: quiz",
      "quiz: What's your name?",
      "alice: Ann",
      "quiz: Hi Ann! Favourite colour: red, green or blue?",
    ]);
    // No answer this time: the next day's poll finds none, and the quiz ends.
    await bed.advance(DAY);
    await bed.settle();
    expect(dms(alice).at(-1)).toBe("quiz: No answer, so I stopped. Say quiz to start again.");
    expect(bed.dialog("quiz", alice)).toBeUndefined();
  });
});

describe("the dialog plugin across a restart", () => {
  it("takes an answer a crash left in the inbox, first thing at the next start", async () => {
    const { dir, first, alice } = await askedThenStopped();
    // The answer came, was put in the inbox (and the cursor moved past it), and the process died.
    const question = first.postsBy("quiz")[0]!;
    const answer = await first.post(alice, "@quiz Ann", question.id);
    const event: BotEvent = {
      kind: "reply",
      id: `reply:${answer.id}`,
      post: {
        id: answer.id,
        text: answer.text,
        author_id: alice.id,
        created_at: new Date(first.clock.now()).toISOString(),
        conversation_id: question.conversation_id,
        edit_history_post_ids: [answer.id],
      },
      author: { id: alice.id, username: "alice", name: "alice" },
      inReplyTo: question.id,
    };
    seedInbox(first.store, "quiz", [event], { key: mentionsCursorKey("quiz"), value: { since_id: answer.id } });
    await first.store.close();
    bed = await restart(first, dir);
    expect(said()).toEqual(["@alice What's your name?", "@alice Hi Ann! Favourite colour: red, green or blue?"]);
    await stopBoth(first);
  });
});

describe("the dialog plugin's options", () => {
  const problems = (options: unknown) => {
    const parsed = dialogOptions.safeParse(options);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("names the step and the field of a mistake", () => {
    expect(
      problems({
        start: ["quiz"],
        steps: [
          { ask: "Name?", save: "Name" },
          { ask: "Hi {session.name}!", retry: "again" },
          { say: "Bye", expect: ["x"] },
        ],
      }),
    ).toEqual([
      "steps.0.save: must be a name: lower-case letters, digits and _, starting with a letter",
      'steps.2: "expect" is not part of a say step, which takes only say',
      "steps.1.ask: {session.name} is not saved by an earlier step; add save: name to a step before this one",
      "steps.1.retry: is said when an answer is not one of expect; give expect too, or remove retry",
    ]);
    expect(problems({ start: ["quiz"], steps: [{ ask: "Name?", save: "name" }, { say: "{user.nick}" }] })).toEqual([
      "steps.1.say: unknown placeholder {user.nick}; the placeholders here are {user.username}, {user.name} and {session.NAME} of an earlier step's save",
    ]);
    expect(problems({ start: [], steps: [{ say: "hi" }], timeout: "10 minutes", colour: 1 })).toEqual([
      "start: needs at least one word (a mention or a DM containing one of them starts the dialog)",
      "timeout: is not a duration; write a whole number and a unit: ms, s, m, h or d (30s, 15m, 1h, 1d)",
      ': unknown option "colour"; dialog takes start, steps, timeout, timeout_text, cancel and cancel_text',
      "steps: has no ask: a dialog needs at least one question",
    ]);
  });

  it("at start, advises the dms trigger to a quiz without it, except on free, where DMs cannot be read", async () => {
    const warned = async (plan: "pro" | "free") => {
      const { lines, logger } = captureLogs();
      const test = await createTestBed({
        bots: [{ ...QUIZ, plan, triggers: { mentions: {} } }],
        plugins: { dialog },
        logger,
      });
      await test.close();
      return lines.map((l) => String(l.msg)).filter((m) => m.includes("no dms trigger"));
    };
    expect(await warned("pro")).toHaveLength(1);
    expect(await warned("free")).toEqual([]);
  });

  it("takes the bot file of issue 22 as written", () => {
    expect(() => testBotConfig(QUIZ, { dialog })).not.toThrow();
  });

  it("bot validate takes the issue's file as written, and points at a mistake's step and field by line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-dialog-validate-"));
    dirs.push(dir);
    const plugins = join(process.cwd(), "plugins");
    await writeFile(join(dir, "quiz.yaml"), QUIZ_YAML);
    const good = await loadBots({ botsDir: dir, pluginsDir: plugins, env: {} });
    expect(good.problems.map(formatProblem)).toEqual([]);
    expect(good.bots.map((b) => b.name)).toEqual(["quiz"]);
    await writeFile(
      join(dir, "quiz.yaml"),
      QUIZ_YAML.replace('retry: "Please answer red, green or blue."', 'retyr: "Please answer red, green or blue."'),
    );
    const bad = await loadBots({ botsDir: dir, pluginsDir: plugins, env: {} });
    expect(bad.problems.map(formatProblem)).toEqual([
      `${join(dir, "quiz.yaml")}:17:9 plugins.dialog.steps[1].retyr: unknown key; did you mean "retry"? Allowed here: ask, expect, retry, save`,
    ]);
  });
});
