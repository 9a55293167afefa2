/**
 * The plugin API's spellings (issue 21, item 3): `ctx.publish(text)` on every event, a sent
 * reply's outcome carrying the new post's id, `ctx.budget.remaining(kind)`, and
 * `ctx.unbudgetedApi`; and the old spellings (`ctx.post(text)` on schedule and follow events,
 * `ctx.actions.remaining`, `ctx.api`) still working, each with one warning in the log naming
 * the plugin and what to write instead.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ApiClient } from "../../src/api/client.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { definePlugin, type ReplyOutcome } from "../../src/plugins/plugin.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const deprecations = (lines: Array<Record<string, unknown>>) =>
  lines.filter((l) => typeof l.deprecated === "string").map((l) => ({ plugin: l.plugin, msg: l.msg }));

describe("publishing", () => {
  it("ctx.publish posts on a schedule; the old ctx.post(text) still does, warning once per plugin", async () => {
    const { lines, logger } = captureLogs();
    let run = 0;
    const news = definePlugin({
      name: "news",
      setup: (bot) => bot.on("schedule", async (ctx) => void (await ctx.publish(`news ${++run}`))),
    });
    const oldNews = definePlugin({
      name: "old-news",
      setup: (bot) => bot.on("schedule", async (ctx) => void (await ctx.post(`old news ${run}`))),
    });
    bed = await createTestBed({
      logger,
      bots: [
        {
          name: "paper",
          plan: "pro",
          triggers: { schedule: [{ name: "hourly", cron: "0 * * * *" }] },
          plugins: { news: {}, "old-news": {} },
        },
      ],
      plugins: { news, "old-news": oldNews },
    });
    for (let hour = 0; hour < 2; hour++) {
      await bed.advance(3_600_000);
      await bed.settle();
    }
    expect(bed.postsBy("paper").map((p) => p.text)).toEqual(["news 1", "old news 1", "news 2", "old news 2"]);
    expect(deprecations(lines)).toEqual([
      {
        plugin: "old-news",
        msg: "plugin old-news uses ctx.post(text), which is deprecated and goes in the next release; write ctx.publish(text)",
      },
    ]);
  });
});

describe("a reply's outcome, the budget and the unbudgeted client", () => {
  it("carries the new post's id; ctx.actions.remaining and ctx.api still answer, each warning once", async () => {
    const { lines, logger } = captureLogs();
    const outcomes: ReplyOutcome[] = [];
    const seen: Array<{ remaining: number; budget: number; same: boolean }> = [];
    let client: ApiClient | undefined;
    const answer = definePlugin({
      name: "answer",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          outcomes.push(await ctx.reply(`hi @${ctx.author.username}`));
          client = ctx.unbudgetedApi;
          seen.push({
            remaining: ctx.actions.remaining("like"),
            budget: ctx.budget.remaining("like"),
            same: ctx.api === ctx.unbudgetedApi,
          });
        });
      },
    });
    bed = await createTestBed({
      logger,
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {} } }],
      plugins: { answer },
    });
    const host = await bed.user(sandboxUsername("host"));
    await bed.post(await bed.user("alice"), `@${host.username} one`);
    await bed.post(await bed.user("bob"), `@${host.username} two`);
    await bed.advance(3_000);
    await bed.settle();
    const replies = bed.postsBy("host").map((p) => p.id);
    expect(replies).toHaveLength(2);
    expect(outcomes.map((o) => (o.status === "sent" ? o.result.data.id : o.status)).sort()).toEqual(replies.sort());
    expect(seen).toEqual([
      { remaining: seen[0]!.budget, budget: seen[0]!.budget, same: true },
      { remaining: seen[1]!.budget, budget: seen[1]!.budget, same: true },
    ]);
    expect(seen[0]!.budget).toBeGreaterThan(0);
    expect((await client!.users.me()).data?.username).toBe(host.username);
    expect(deprecations(lines)).toEqual([
      {
        plugin: "answer",
        msg: "plugin answer uses ctx.actions.remaining(kind), which is deprecated and goes in the next release; write ctx.budget.remaining(kind)",
      },
      {
        plugin: "answer",
        msg: "plugin answer uses ctx.api, which is deprecated and goes in the next release; write ctx.unbudgetedApi",
      },
    ]);
  });
});
