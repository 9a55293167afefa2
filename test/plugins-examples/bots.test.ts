import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { formatProblem, loadBots, type BotConfig } from "../../src/config/index.ts";
import { silentLogger } from "../../src/log.ts";
import { createClassifier } from "../../src/moderation/index.ts";
import { provisionBots } from "../../src/hosting/provision.ts";
// The package entry, as an embedder imports it (the runtime loads when startRuntime is called).
import { startRuntime } from "../../src/index.ts";
import type { Runtime } from "../../src/hosting/types.ts";
import { standInText } from "../../src/sandbox/chat/compose.ts";
import { startCrowd, type Crowd } from "../../src/sandbox/crowd/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { EXAMPLE_BOTS, exampleBotsDir } from "../helpers/examples.ts";

// A copy of the example files: a bot a user adds to bots/ is not one of them.
const botsDir = await exampleBotsDir();
afterAll(() => rm(dirname(botsDir), { recursive: true, force: true }));

async function exampleBots(): Promise<BotConfig[]> {
  const { bots, problems, files } = await loadBots({ botsDir, pluginsDir: "plugins", env: {} });
  expect(problems.map(formatProblem)).toEqual([]);
  expect(files.length).toBe(bots.length);
  return bots;
}

describe("the example bots in bots/", () => {
  it("all validate with the plugins in plugins/, with nothing from the environment", async () => {
    const bots = await exampleBots();
    expect(bots.map((b) => b.name).sort()).toEqual([...EXAMPLE_BOTS]);
    for (const bot of bots) {
      // Each opens with a comment that says what it shows, and needs no credentials.
      const text = readFileSync(bot.file, "utf8");
      expect(
        text.split("\n").filter((l) => l.startsWith("#") && !l.includes("$schema") && l.length > 2).length,
        bot.file,
      ).toBeGreaterThan(2);
      expect(bot.account).toEqual({ kind: "stored", stored: bot.name });
      expect(bot.file).toBe(join(botsDir, `${bot.name}.yaml`));
    }
  });
});

describe("the demo: every example bot with the simulated crowd", () => {
  let sandbox: Sandbox | undefined;
  let runtime: Runtime | undefined;
  let crowd: Crowd | undefined;
  afterEach(async () => {
    crowd?.stop();
    await runtime?.stop();
    await sandbox?.close();
  });

  it("shows each bot at work within three minutes", async () => {
    const bots = await exampleBots();
    // 07:59:30 in Berlin on a Monday: the morning bot's schedule fires 30 s in.
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T06:59:30Z") });
    sandbox = await createSandbox({ clock });
    const hosted = await provisionBots(sandbox, bots);
    runtime = await startRuntime({
      baseUrl: sandbox.url,
      bots: hosted,
      store: createMemoryStore(),
      clock,
      logger: silentLogger,
    });
    await runtime.idle();
    const id = (name: string) => runtime!.bots.get(name)!.identity;
    crowd = await startCrowd({
      sandbox,
      clock,
      logger: silentLogger,
      seed: 1,
      bots: bots.map((b) => ({
        username: id(b.name).username,
        userId: id(b.name).userId,
        streamRules: b.triggers.stream.map((r) => r.value),
        mentions: !!b.triggers.mentions,
        followers: !!b.triggers.followers,
        // The dialog's start words, as the demo gives them (the crowd takes the quiz now and then).
        ...startWords(b),
      })),
    });
    for (let i = 0; i < 36; i++) {
      await clock.advance(5_000);
      await runtime.idle();
    }
    // The crowd stops; the bots get one more moment to handle what it last said.
    crowd.stop();
    await clock.advance(5_000);
    await runtime.idle();

    const world = sandbox.context.data.world;
    const posts = Object.values(world.posts);
    const by = (name: string) => posts.filter((p) => p.author_id === id(name).userId);
    const crowdIds = new Set(crowd.users.map((u) => u.id));

    // greeter answered mentions from the crowd.
    const greetings = by("greeter").filter((p) => p.in_reply_to_post_id);
    expect(greetings.length).toBeGreaterThan(0);
    for (const g of greetings) expect(crowdIds.has(world.posts[g.in_reply_to_post_id!]!.author_id)).toBe(true);

    // helpdesk answered mentions with llm-reply, its model the sandbox's stand-in (url: sandbox).
    const written = by("helpdesk").filter((p) => p.in_reply_to_post_id);
    expect(written.length).toBeGreaterThan(0);
    for (const w of written) {
      const mention = world.posts[w.in_reply_to_post_id!]!;
      expect(crowdIds.has(mention.author_id)).toBe(true);
      // Labelled, and numbered by the stand-in: no two answers are the same text.
      const number = Number(/^\(sandbox stand-in, reply (\d+)\) /.exec(w.text)?.[1]);
      expect(w.text).toBe(standInText(mention.text, number));
    }
    expect(new Set(written.map((w) => w.text)).size).toBe(written.length);

    // host asked questions, hid abusive answers, thanked some others, and never an abusive one.
    const questions = by("host").filter((p) => !p.in_reply_to_post_id);
    expect(questions.length).toBeGreaterThanOrEqual(2);
    const answers = posts.filter((p) => crowdIds.has(p.author_id) && p.in_reply_to_user_id === id("host").userId);
    const hidden = answers.filter((p) => p.hidden);
    expect(hidden.length).toBeGreaterThan(0);
    // Exactly the abusive answers are hidden.
    const classifier = createClassifier();
    expect(answers.map((p) => [p.text, p.hidden])).toEqual(
      answers.map((p) => [p.text, classifier.classify(p.text).abusive]),
    );
    const thanked = by("host")
      .filter((p) => p.in_reply_to_post_id)
      .map((p) => p.in_reply_to_post_id!);
    expect(thanked.length).toBeGreaterThan(0);
    for (const t of thanked) expect(world.posts[t]!.hidden).toBe(false);

    // fan liked what its rules deliver, and reposted only #postbot posts.
    expect(world.likes.filter((l) => l.user_id === id("fan").userId).length).toBeGreaterThan(0);
    const reposts = by("fan").filter((p) => p.repost_of_id);
    expect(reposts.length).toBeGreaterThan(0);
    for (const r of reposts) expect(world.posts[r.repost_of_id!]!.text).toContain("#postbot");

    // friendly followed back its new followers and welcomed each once.
    const followedBack = world.follows.filter((f) => f.source_id === id("friendly").userId).map((f) => f.target_id);
    expect(followedBack.length).toBeGreaterThan(0);
    const welcomes = Object.values(world.dm_events).filter((e) => e.sender_id === id("friendly").userId);
    expect(welcomes.length).toBe(followedBack.length);
    expect(new Set(welcomes.map((w) => w.dm_conversation_id)).size).toBe(welcomes.length);

    // quiz held its conversation with people of the crowd, to its end: asked, answered, thanked.
    const quizzed = by("quiz").map((p) => p.text);
    expect(quizzed.some((t) => /^@\w+ What's your name\?/.test(t))).toBe(true);
    expect(quizzed.some((t) => /^@\w+ Thanks \w+, (red|green|blue) it is\. Bye!$/.test(t))).toBe(true);

    // morning said good morning at 8:00 in Berlin.
    expect(by("morning").map((p) => p.text)).toEqual([
      "Good morning! It is Monday, 2026-03-02. What is on your list today?",
    ]);
  });
});

/** The words that start a bot's `dialog`, when it has one: the crowd starts its conversation with them. */
function startWords(bot: BotConfig): { starts?: string[] } {
  const options = bot.plugins.find((p) => p.name === "dialog")?.options as { start?: string[] } | undefined;
  return options?.start ? { starts: options.start } : {};
}
