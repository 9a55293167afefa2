/**
 * What plugins get of the action layer, on a test bed: one verb per intent on the context,
 * each tracked like `ctx.reply`; a reply template
 * without variation spends no request on the service's duplicate refusals (item 3); and a
 * budget that runs out says so once, with when it refills, and `bot status` shows what waits
 * (issue 11, item 4).
 */
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe("the context's verbs", () => {
  it("are one per intent, and the removed spellings are gone", async () => {
    let verbs: string[] = [];
    let removed: string[] = [];
    const peek = definePlugin({
      name: "peek",
      setup(bot) {
        bot.on("mention", (ctx) => {
          verbs = ["reply", "dm", "like", "repost", "hide", "follow", "mute", "publish"].filter(
            (v) => typeof (ctx as unknown as Record<string, unknown>)[v] === "function",
          );
          removed = ["actions", "api", "store", "replyWith"].filter((v) => v in ctx);
        });
      },
    });
    bed = await createTestBed({
      bots: [{ name: "p", plan: "pro", triggers: { mentions: {} }, plugins: { peek: {} } }],
      plugins: { peek },
    });
    await bed.post(await bed.user("alice"), "@p hi");
    await bed.advance(3_000);
    await bed.settle();
    expect(verbs).toEqual(["reply", "dm", "like", "repost", "hide", "follow", "mute", "publish"]);
    expect(removed).toEqual([]);
  });

  it("with a named target are tracked like ctx.reply: a handler waiting for the budget lets the bed settle and is not timed out", async () => {
    const { lines, logger } = captureLogs();
    const liked: string[] = [];
    const liker = definePlugin({
      name: "liker",
      setup(bot) {
        bot.on("mention", async (ctx) => void liked.push((await ctx.like({ post: ctx.post.id })).status));
      },
    });
    bed = await createTestBed({
      logger,
      bots: [{ name: "free", plan: "free", triggers: { mentions: {} }, plugins: { liker: {} } }],
      plugins: { liker },
    });
    const alice = await bed.user("alice");
    await bed.post(alice, "@free one");
    await bed.post(alice, "@free two");
    await bed.advance(15 * 60_000); // the free plan's mentions poll
    await bed.settle(); // one like sent; the other waits 15 minutes for the free plan's like window
    expect(liked).toEqual(["sent"]);
    await bed.advance(15 * 60_000);
    await bed.settle();
    expect(liked).toEqual(["sent", "sent"]);
    expect(lines.filter((l) => String(l.msg).includes("did not finish"))).toEqual([]);
  });
});

describe("a reply template without variation", () => {
  it("is refused locally from the second reply on: no request spent, one warning with the fix", async () => {
    const { lines, logger } = captureLogs();
    const thanks = definePlugin({
      name: "thanks",
      setup(bot) {
        bot.on("mention", (ctx) => ctx.reply("thanks!"));
      },
    });
    bed = await createTestBed({
      logger,
      bots: [
        { name: "polite", plan: "free", triggers: { mentions: {} }, reply_cooldown: "0s", plugins: { thanks: {} } },
      ],
      plugins: { thanks },
    });
    for (const name of ["alice", "bob", "carol", "dave"])
      await bed.post(await bed.user(name), `@polite hello from ${name}`);
    await bed.advance(15 * 60_000);
    await bed.settle();
    expect(bed.postsBy("polite").map((p) => p.text)).toEqual(["thanks!"]);
    const stats = (await bed.sandbox.admin.stats()).routes as Record<string, Record<string, number>>;
    expect(stats["POST /2/posts"]).toEqual({ "201": 1 }); // no 403 duplicate spent a slot
    expect(bed.runtime.bots.get("polite")!.status().bot).toBe("polite");
    expect(bed.runtime.status().length).toBe(1);
    const refused = lines.filter((l) => l.status === "refused");
    expect(refused).toHaveLength(3);
    const warnings = lines.filter((l) => String(l.msg).includes("Vary the text"));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toContain("{post.text}");
  });
});

describe("a budget that runs out", () => {
  it("logs once when work starts waiting, with when it refills, and bot status shows what waits", async () => {
    const { lines, logger } = captureLogs();
    const echo = definePlugin({
      name: "echo",
      setup(bot) {
        bot.on("mention", (ctx) => ctx.reply(`hi @${ctx.author.username}`));
      },
    });
    bed = await createTestBed({
      logger,
      bots: [
        {
          name: "hello",
          plan: "pro",
          budget: { reply: { max: 1, per: "1h" } },
          triggers: { mentions: {} },
          plugins: { echo: {} },
        },
      ],
      plugins: { echo },
      runtime: { statusEveryMs: 1_000 },
    });
    for (const name of ["alice", "bob", "carol"]) await bed.post(await bed.user(name), `@hello hi from ${name}`);
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("hello")).toHaveLength(1);
    const waits = lines.filter((l) => String(l.msg).includes("waits for budget"));
    expect(waits).toHaveLength(1);
    const refill = new Date(bed.clock.now() - 3_000 + 3_600_000).toISOString().slice(0, 16);
    expect(String(waits[0]!.msg)).toContain(refill);
    expect(String(waits[0]!.msg)).toContain("cap of 1 reply");
    await bed.advance(1_000); // the status is saved
    await bed.settle();
    const report = collectStatus(bed.store, bed.clock).find((r) => r.bot === "hello")!;
    expect(report.waiting).toHaveLength(2);
    expect(formatStatus([report], bed.clock.now())).toMatch(
      /waiting +2 for budget, the next in 60m: reply \d+, reply \d+ \(the bot's cap of 1 reply/,
    );
  });
});

describe("bot status", () => {
  it("says what each bot did last and what its app's monthly read cap counts", async () => {
    const echo = definePlugin({
      name: "echo",
      setup(bot) {
        bot.on("mention", (ctx) => ctx.reply(`hi @${ctx.author.username}`));
      },
    });
    bed = await createTestBed({
      bots: [
        { name: "hello", plan: "basic", triggers: { mentions: {} }, plugins: { echo: {} } },
        { name: "quiet", plan: "basic", triggers: { mentions: {} }, plugins: { echo: {} } },
      ],
      plugins: { echo },
      runtime: { statusEveryMs: 1_000 },
    });
    const mention = await bed.post(await bed.user("alice"), "@hello hi");
    await bed.advance(120_000);
    await bed.settle();
    expect(bed.postsBy("hello")).toHaveLength(1);
    await bed.advance(60_000);
    await bed.settle();
    const reports = collectStatus(bed.store, bed.clock);
    const hello = reports.find((r) => r.bot === "hello")!;
    expect(hello.lastAction).toMatchObject({ kind: "reply", target: mention.id, state: "done" });
    const text = formatStatus(reports, bed.clock.now());
    expect(text).toContain(`  last       reply to post ${mention.id}: sent 1m ago`);
    expect(text).toContain("  last       no action yet");
    expect(text).toMatch(
      new RegExp(
        `  monthly    0 of 500,000 posts read by app ${hello.appId} this period: every post that recent search and the filtered stream return counts, for all the app's bots \\(mention polls do not\\); resets on \\d{4}-\\d\\d-\\d\\d, in \\d+d`,
      ),
    );
  });
});

describe("saving the bots' status", () => {
  it("saves a bot's status when it changed, and an unchanged one never again: bot status reads it current while its rounds go on", async () => {
    const noop = definePlugin({ name: "noop", setup: (bot) => bot.on("schedule", () => {}) });
    const names = Array.from({ length: 10 }, (_, i) => `idle${i}`);
    bed = await createTestBed({
      bots: names.map((name) => ({ name, plan: "pro" as const, plugins: { noop: {} } })),
      plugins: { noop },
      runtime: { statusEveryMs: 1_000 },
    });
    await bed.settle();
    const savedAt = () => names.map((n) => bed!.store.get<{ updatedAt: number }>("status", n)!.updatedAt);
    const start = bed.clock.now();
    expect(savedAt()).toEqual(names.map(() => start)); // the first round saves every bot
    for (let i = 0; i < 9; i++) {
      await bed.advance(1_000);
      await bed.settle();
    }
    // Nothing changed: no bot saved again, and yet each reads as saved in the last round.
    expect(savedAt()).toEqual(names.map(() => start));
    expect(collectStatus(bed.store, bed.clock).map((r) => r.updatedAt)).toEqual(names.map(() => bed!.clock.now()));
    // A pause is a change: saved at the next round.
    bed.runtime.bots.get("idle3")!.pause("test");
    await bed.advance(1_000);
    await bed.settle();
    expect(bed.store.get<{ paused?: unknown; updatedAt: number }>("status", "idle3")).toMatchObject({
      paused: { reason: "test" },
      updatedAt: bed.clock.now(),
    });
    expect(bed.store.get<{ updatedAt: number }>("status", "idle2")!.updatedAt).toBe(start);
  });

  it("a saved status holds the figures of its round: a later event changes the live status, not the saved one", async () => {
    const echo = definePlugin({
      name: "echo",
      setup: (bot) => bot.on("mention", (ctx) => ctx.reply(`hi @${ctx.author.username}`)),
    });
    bed = await createTestBed({
      bots: [{ name: "hello", plan: "pro", triggers: { mentions: {} }, plugins: { echo: {} } }],
      plugins: { echo },
      runtime: { statusEveryMs: 60_000 },
    });
    await bed.advance(61_000); // the second round: after the first polls
    await bed.settle();
    type Saved = { triggers: { mentions?: { events: number; lastCheckAt?: number } }; updatedAt: number };
    const saved = structuredClone(bed.store.get<Saved>("status", "hello")!);
    await bed.post(await bed.user("alice"), "@hello hi");
    await bed.advance(30_000); // a poll or two and the mention, before the next round
    await bed.settle();
    expect(bed.postsBy("hello")).toHaveLength(1);
    expect(bed.runtime.status().find((s) => s.bot === "hello")!.triggers.mentions!.events).toBe(
      saved.triggers.mentions!.events + 1,
    );
    expect(bed.store.get<Saved>("status", "hello")).toEqual(saved);
  });
});
