/**
 * The verbs of the plugin API, on a test bed: one per intent, each acting on the event's post
 * or user unless its options name another (`{ post }`, `{ user }`), each resolving with its
 * typed outcome; `ctx.publish` on every event; a verb with no target to act on (JavaScript
 * ignores the types) says which option it needs.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/api/client.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { definePlugin, type DmOutcome, type LikeOutcome, type ReplyOutcome } from "../../src/plugins/plugin.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("publishing", () => {
  it("ctx.publish posts on a schedule, each run anew even with the same text", async () => {
    let run = 0;
    const news = definePlugin({
      name: "news",
      setup: (bot) =>
        bot.on("schedule", async (ctx) => {
          await ctx.publish(`news ${++run}`);
          await ctx.publish("the same every other day");
        }),
    });
    bed = await createTestBed({
      bots: [
        {
          name: "paper",
          plan: "pro",
          // Every other day: the service refuses a text repeated within 24 hours.
          triggers: { schedule: [{ name: "daily", cron: "0 9 */2 * *" }] },
          plugins: { news: {} },
        },
      ],
      plugins: { news },
    });
    for (const hours of [24, 48]) {
      await bed.advance(hours * 3_600_000);
      await bed.settle();
    }
    expect(bed.postsBy("paper").map((p) => p.text)).toEqual([
      "news 1",
      "the same every other day",
      "news 2",
      "the same every other day",
    ]);
  });
});

describe("a mention's verbs", () => {
  it("act on the event's post and author, or on what their options name; outcomes carry the service's answer", async () => {
    const replies: ReplyOutcome[] = [];
    const likes: LikeOutcome[] = [];
    let budget = 0;
    let client: ApiClient | undefined;
    const answer = definePlugin({
      name: "answer",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          replies.push(await ctx.reply(`hi @${ctx.author.username}`));
          likes.push(await ctx.like());
          const earlier = bot.store.get<string>("earlier");
          if (earlier) likes.push(await ctx.like({ post: earlier }));
          bot.store.set("earlier", ctx.post.id);
          budget = ctx.budget.remaining("like");
          client = ctx.unbudgetedApi;
        });
      },
    });
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {} } }],
      plugins: { answer },
    });
    const host = await bed.user(sandboxUsername("host"));
    const first = await bed.post(await bed.user("alice"), `@${host.username} one`);
    await bed.advance(3_000);
    await bed.settle();
    const second = await bed.post(await bed.user("bob"), `@${host.username} two`);
    await bed.advance(3_000);
    await bed.settle();
    const posted = bed.postsBy("host").map((p) => p.id);
    expect(replies.map((o) => (o.status === "sent" ? o.result.data.id : o.status))).toEqual(posted);
    expect(likes.map((o) => [o.status, o.status === "sent" ? o.result.data.liked : undefined])).toEqual([
      ["sent", true],
      ["sent", true],
      ["duplicate", undefined], // the first mention, named by { post }, was liked already
    ]);
    expect(budget).toBeGreaterThan(0);
    expect((await client!.users.me()).data?.username).toBe(host.username);
    expect(second.id).not.toBe(first.id);
  });

  it("dm the author a text written when it goes, once per event", async () => {
    const dms: DmOutcome[] = [];
    const writer = definePlugin({
      name: "writer",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          dms.push(await ctx.dm(async () => `about "${ctx.post.text}"`));
        });
      },
    });
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { writer: {} } }],
      plugins: { writer },
    });
    const host = await bed.user(sandboxUsername("host"));
    const alice = await bed.user("alice");
    await bed.post(alice, `@${host.username} one`);
    await bed.post(alice, `@${host.username} two`);
    await bed.advance(3_000);
    await bed.settle();
    expect(dms.map((o) => o.status)).toEqual(["sent", "sent"]);
    expect(bed.dmsWith(alice, "host").map((m) => m.text)).toEqual([
      `about "@${host.username} one"`,
      `about "@${host.username} two"`,
    ]);
  });
});

describe("a verb with no target", () => {
  it("says which option it needs, as the plugin's error", async () => {
    const { lines, logger } = captureLogs();
    const careless = definePlugin({
      name: "careless",
      setup(bot) {
        // JavaScript, or a cast, gets past the types: the verb still says what it needs.
        bot.on("schedule", async (ctx) => void (await (ctx.like as (o?: object) => Promise<unknown>)()));
      },
    });
    bed = await createTestBed({
      logger,
      bots: [
        {
          name: "paper",
          plan: "pro",
          triggers: { schedule: [{ name: "hourly", cron: "0 * * * *" }] },
          plugins: { careless: {} },
        },
      ],
      plugins: { careless },
    });
    await bed.advance(3_600_000);
    await bed.settle();
    expect(lines.find((l) => l.plugin === "careless" && l.level === 50)?.msg).toContain(
      "ctx.like on a schedule event needs { post }: the event has no post of its own",
    );
  });
});
