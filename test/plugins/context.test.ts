/**
 * The context a handler gets: its logger names the bot, the plugin and the event (made only
 * when used), and its verbs work destructured (`({ reply, log }) => ...`).
 */
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { until } from "../helpers/until.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("event context", () => {
  it("gives each plugin a logger naming it, and verbs that work destructured", async () => {
    const { lines, logger } = captureLogs();
    let remaining: number | undefined;
    const answer = definePlugin({
      name: "answer",
      setup(bot) {
        bot.on("mention", async ({ reply, log, author, budget }) => {
          log.info("answering");
          await reply(`hi @${author.username}`);
          remaining = budget.remaining("reply");
        });
      },
    });
    const quiet = definePlugin({
      name: "quiet",
      setup: (bot) => bot.on("mention", (ctx) => void ctx.log.warn("seen")),
    });
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {}, quiet: {} } }],
      plugins: { answer, quiet },
      logger,
    });
    const host = await bed.user(sandboxUsername("host"));
    const alice = await bed.user("alice");
    const mention = await bed.post(alice, `@${host.username} hello`);
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("host").map((p) => p.text)).toEqual(["hi @alice"]);
    expect(remaining).toBeGreaterThan(0);
    expect(lines.find((l) => l.msg === "answering")).toMatchObject({
      bot: "host",
      plugin: "answer",
      event: "mention",
      post: mention.id,
    });
    expect(lines.find((l) => l.msg === "seen")).toMatchObject({
      bot: "host",
      plugin: "quiet",
      event: "mention",
      post: mention.id,
    });
  });
});

describe("event context of a plugin alone on its event", () => {
  it("names the plugin in its logs too", async () => {
    const { lines, logger } = captureLogs();
    const solo = definePlugin({ name: "solo", setup: (bot) => bot.on("mention", ({ log }) => void log.info("alone")) });
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { solo: {} } }],
      plugins: { solo },
      logger,
    });
    const host = await bed.user(sandboxUsername("host"));
    const mention = await bed.post(await bed.user("alice"), `@${host.username} hello`);
    await bed.advance(3_000);
    await bed.settle();
    expect(lines.find((l) => l.msg === "alone")).toMatchObject({
      bot: "host",
      plugin: "solo",
      event: "mention",
      post: mention.id,
    });
  });
});

describe("ctx.meanwhile", () => {
  it("lets the plugins after it run at once; the event ends (leaves the inbox) with the work, whose failure is logged naming its plugin", async () => {
    const { lines, logger } = captureLogs();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const slow = definePlugin({
      name: "slow",
      setup: (bot) =>
        bot.on("mention", (ctx) =>
          ctx.meanwhile(
            gate.then(() => {
              ran.push("slow's work");
              throw new Error("the slow work broke");
            }),
          ),
        ),
    });
    const next = definePlugin({
      name: "next",
      setup: (bot) => bot.on("mention", () => void ran.push("next")),
    });
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { slow: {}, next: {} } }],
      plugins: { slow, next },
      logger,
    });
    const host = await bed.user(sandboxUsername("host"));
    const alice = await bed.user("alice");
    const mention = await bed.post(alice, `@${host.username} hello`);
    const inInbox = () => bed!.store.get("inbox:host", `mention:${mention.id}`) !== undefined;
    await bed.advance(3_000);
    await until("the next plugin ran", () => ran.includes("next"));
    expect(ran).toEqual(["next"]);
    expect(inInbox()).toBe(true);

    release();
    await bed.settle();
    expect(ran).toEqual(["next", "slow's work"]);
    expect(inInbox()).toBe(false);
    expect(lines.find((l) => l.msg === "plugin slow threw: the slow work broke")).toMatchObject({
      bot: "host",
      plugin: "slow",
      event: "mention",
    });
  });
});
