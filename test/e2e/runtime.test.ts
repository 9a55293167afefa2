import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { openFileStore } from "../../src/store/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { gate } from "../helpers/plugins.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(options.text.replace("{author.username}", ctx.author.username));
    });
  },
});

/** Records every event it sees, per bot. */
const seen: Array<{ bot: string; event: string; detail: string }> = [];
const recorder = definePlugin({
  name: "recorder",
  setup(bot) {
    bot.on(
      "post",
      (ctx) => void seen.push({ bot: bot.name, event: "post", detail: `${ctx.rule.tag}:${ctx.post.text}` }),
    );
    bot.on(
      "schedule",
      (ctx) =>
        void seen.push({
          bot: bot.name,
          event: "schedule",
          detail: `${ctx.schedule.name}@${ctx.schedule.at.toISOString()}`,
        }),
    );
    bot.on("mention", (ctx) => void seen.push({ bot: bot.name, event: "mention", detail: ctx.post.text }));
    bot.on("reply", (ctx) => void seen.push({ bot: bot.name, event: "reply", detail: ctx.post.text }));
    bot.on("follow", (ctx) => void seen.push({ bot: bot.name, event: "follow", detail: ctx.user.username }));
  },
});

const capture = captureLogs;

let bed: TestBed | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  seen.length = 0;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("a YAML bot on the runtime", () => {
  it("answers mentions, once each, at the plan's polling pace", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "greeter",
          plan: "basic",
          triggers: { mentions: {} },
          plugins: { echo: { text: "Hello @{author.username}!" } },
        },
      ],
      plugins: { echo },
    });
    const alice = await bed.user("alice");
    const mention = await bed.post(alice, "@greeter hi there");
    // Basic allows 10 mention polls per 15 minutes per user: one every 90 s.
    await bed.advance(89_000);
    await bed.settle();
    expect(bed.postsBy("greeter")).toEqual([]);
    await bed.advance(1_000);
    await bed.settle();
    const replies = bed.postsBy("greeter");
    expect(replies.map((p) => p.text)).toEqual(["Hello @alice!"]);
    expect(replies[0]!.in_reply_to_post_id).toBe(mention.id);
    // Later polls do not answer it again.
    await bed.advance(5 * 90_000);
    await bed.settle();
    expect(bed.postsBy("greeter")).toHaveLength(1);
  });

  it("reaches back one hour on the first run, not the account's whole history", async () => {
    bed = await createTestBed({ bots: [], plugins: {} });
    const alice = await bed.user("alice");
    const user = await bed.sandbox.admin.createUser({ username: "historian" });
    await bed.post(alice, "@historian from long ago");
    await bed.advance(2 * 3_600_000);
    await bed.post(alice, "@historian recent");
    await bed.stop();
    bed = await createTestBed({
      sandbox: bed.sandbox,
      bots: [{ name: "historian", plan: "pro", triggers: { mentions: {} }, plugins: { recorder: {} } }],
      plugins: { recorder },
    });
    await bed.settle();
    expect(user.username).toBe("historian");
    expect(seen.filter((s) => s.event === "mention").map((s) => s.detail)).toEqual(["@historian recent"]);
    await bed.sandbox.close();
  });

  it("sends each stream post to the bots whose rules matched, with their own tags", async () => {
    bed = await createTestBed({
      bots: [
        {
          name: "cats",
          plan: "pro",
          triggers: { stream: [{ value: "#cats", tag: "felines" }] },
          plugins: { recorder: {} },
        },
        {
          name: "dogs",
          plan: "pro",
          triggers: {
            stream: [
              { value: "#dogs", tag: "canines" },
              { value: "#pets", tag: "all" },
            ],
          },
          plugins: { recorder: {} },
        },
        {
          name: "birds",
          plan: "pro",
          triggers: { stream: [{ value: "#pets", tag: "any" }] },
          plugins: { recorder: {} },
        },
      ],
      plugins: { recorder },
    });
    const alice = await bed.user("alice");
    await bed.advance(1_000);
    await bed.post(alice, "look at my #cats");
    await bed.post(alice, "a #dogs and #pets post");
    await bed.advance(1_000);
    await bed.settle();
    const posts = seen
      .filter((s) => s.event === "post")
      .map((s) => `${s.bot} ${s.detail}`)
      .sort();
    expect(posts).toEqual([
      "birds any:a #dogs and #pets post",
      "cats felines:look at my #cats",
      "dogs canines:a #dogs and #pets post",
    ]);
    // The app's rules were merged: one per value, tagged with every bot that wants it.
    const rules = Object.values(bed.sandbox.context.data.world.stream_rules)
      .map((r) => `${r.value} ${r.tag}`)
      .sort();
    expect(rules).toEqual(["#cats cats/felines", "#dogs dogs/canines", "#pets dogs/all,birds/any"]);
  });

  it("fires schedules on a moved clock, in their time zone", async () => {
    bed = await createTestBed({
      start: Date.parse("2026-01-05T07:00:00Z"),
      bots: [
        {
          name: "clock",
          plan: "free",
          triggers: { schedule: [{ name: "morning", cron: "0 9 * * *", timezone: "Europe/Berlin" }] },
          plugins: { recorder: {} },
        },
      ],
      plugins: { recorder },
    });
    await bed.advance(2 * 24 * 3_600_000);
    await bed.settle();
    expect(seen.map((s) => s.detail)).toEqual(["morning@2026-01-05T08:00:00.000Z", "morning@2026-01-06T08:00:00.000Z"]);
  });

  it("never overlaps runs of a schedule: one still going makes the next skip", async () => {
    const { lines, logger } = capture();
    let started = 0;
    let release!: () => void;
    const slow = definePlugin({
      name: "slow",
      setup(bot) {
        bot.on("schedule", async () => {
          started++;
          if (started === 1) await new Promise<void>((r) => (release = r));
        });
      },
    });
    bed = await createTestBed({
      logger,
      start: Date.parse("2026-01-05T07:00:00Z"),
      bots: [
        {
          name: "ticker",
          plan: "free",
          triggers: { schedule: [{ name: "tick", cron: "*/10 * * * * *", timezone: "UTC" }] },
          plugins: { slow: {} },
        },
      ],
      plugins: { slow },
    });
    await bed.advance(25_000); // 07:00:10 starts and hangs; 07:00:20 comes while it runs
    expect(started).toBe(1);
    expect(
      lines.some(
        (l) =>
          l.bot === "ticker" &&
          String(l.msg).includes("schedule tick: the previous run is still going; skipping this one"),
      ),
    ).toBe(true);
    release();
    await bed.advance(10_000); // 07:00:30 runs
    await bed.settle();
    expect(started).toBe(2);
  });

  it("continues from its cursor after a restart: nothing missed, nothing repeated", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-restart-"));
    dirs.push(dir);
    const bots = [
      {
        name: "greeter",
        plan: "basic" as const,
        triggers: { mentions: {} },
        plugins: { echo: { text: "Hi @{author.username}" } },
      },
    ];
    bed = await createTestBed({ bots, plugins: { echo }, store: await openFileStore(dir) });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.post(alice, "@greeter one");
    await bed.advance(90_000);
    await bed.settle();
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["Hi @alice"]);
    await bed.stop();
    await bed.store.close();
    // While the bot is down, another mention arrives.
    await bed.post(bob, "@greeter two");
    const sandbox = bed.sandbox;
    bed = await createTestBed({ sandbox, bots, plugins: { echo }, store: await openFileStore(dir) });
    await bed.settle();
    await bed.advance(3 * 90_000);
    await bed.settle();
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["Hi @alice", "Hi @bob"]);
    await bed.stop();
    await bed.store.close();
    await sandbox.close();
    bed = undefined;
  });

  it("handles first what an earlier run fetched but did not finish (a crash mid-handling)", async () => {
    const bots = [
      {
        name: "greeter",
        plan: "basic" as const,
        triggers: { mentions: {} },
        plugins: { echo: { text: "Hi @{author.username}" } },
      },
    ];
    bed = await createTestBed({ bots: [], plugins: {} });
    const alice = await bed.user("alice");
    await bed.sandbox.admin.createUser({ username: "greeter" });
    const mention = await bed.post(alice, "@greeter are you there?");
    const post = bed.sandbox.context.data.world.posts[mention.id]!;
    await bed.stop();
    // The earlier run had this event in its inbox, and its cursor past it.
    const store = bed.store;
    const event = {
      kind: "mention",
      id: `mention:${post.id}`,
      post: {
        id: post.id,
        text: post.text,
        author_id: alice.id,
        created_at: new Date(post.created_at).toISOString(),
        conversation_id: post.conversation_id,
        edit_history_post_ids: [post.id],
      },
      author: { id: alice.id, username: "alice", name: "alice" },
    };
    store.set("inbox:greeter", event.id, event);
    store.set("cursors", "greeter:mentions", { since_id: post.id });
    const sandbox = bed.sandbox;
    bed = await createTestBed({ sandbox, store, bots, plugins: { echo } });
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["Hi @alice"]);
    expect(store.entries("inbox:greeter")).toEqual([]);
    await bed.stop();
    await sandbox.close();
    bed = undefined;
  });

  it("goes on past a plugin that throws, and logs it with the bot, plugin and event", async () => {
    const { lines, logger } = capture();
    const thrower = definePlugin({
      name: "thrower",
      setup(bot) {
        bot.on("mention", () => {
          throw new Error("boom");
        });
      },
    });
    bed = await createTestBed({
      logger,
      bots: [
        {
          name: "sturdy",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { thrower: {}, echo: { text: "still here" } },
        },
      ],
      plugins: { thrower, echo },
    });
    const alice = await bed.user("alice");
    await bed.post(alice, "@sturdy hey");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("sturdy").map((p) => p.text)).toEqual(["still here"]);
    const error = lines.find((l) => l.plugin === "thrower" && l.level === 50);
    expect(error).toMatchObject({ bot: "sturdy", event: "mention", msg: "plugin thrower threw: boom" });
  });

  it("tells replies to its own posts from mentions; a filter stops an event for every plugin", async () => {
    bed = await createTestBed({
      bots: [{ name: "host", plan: "pro", triggers: { mentions: {} }, plugins: { recorder: {}, gate: {} } }],
      plugins: { recorder, gate },
    });
    const host = await bed.user(sandboxUsername("host"));
    const alice = await bed.user("alice");
    const root = await bed.post(host, "what do you think?");
    await bed.post(alice, "@host nice question", root.id);
    const rude = await bed.post(alice, "@host rude answer", root.id);
    await bed.post(alice, "@host just a mention");
    await bed.advance(60_000);
    await bed.settle();
    // The recorder comes first in the file, yet never sees the reply the filter stopped.
    // (Events are handled concurrently, so their order is not asserted.)
    expect(seen.map((s) => `${s.event}: ${s.detail}`).sort()).toEqual([
      "mention: @host just a mention",
      "reply: @host nice question",
    ]);
    expect(bed.sandbox.context.data.world.posts[rude.id]!.hidden).toBe(true);
  });

  it("turns new followers into follow events, but not those from before its first run", async () => {
    const back = definePlugin({
      name: "back",
      setup(bot) {
        bot.on("follow", (ctx) => ctx.follow());
      },
    });
    bed = await createTestBed({ bots: [], plugins: {} });
    const early = await bed.user("early");
    await bed.sandbox.admin.createUser({ username: "popular" });
    await bed.follow(early, "popular");
    await bed.stop();
    bed = await createTestBed({
      sandbox: bed.sandbox,
      bots: [{ name: "popular", plan: "pro", triggers: { followers: {} }, plugins: { recorder: {}, back: {} } }],
      plugins: { recorder, back },
    });
    const late = await bed.user("late");
    await bed.follow(late, "popular");
    await bed.advance(60_000);
    await bed.settle();
    expect(seen.map((s) => `${s.event}: ${s.detail}`)).toEqual(["follow: late"]);
    const follows = bed.sandbox.context.data.world.follows.map((f) => `${f.source_id}->${f.target_id}`);
    const popular = bed.runtime.bots.get("popular")!.identity.userId;
    expect(follows).toContain(`${popular}->${late.id}`);
    expect(follows).not.toContain(`${popular}->${early.id}`);
    await bed.sandbox.close();
  });

  it("pauses a bot whose token was revoked; the others go on", async () => {
    const { lines, logger } = capture();
    bed = await createTestBed({
      logger,
      bots: [
        { name: "doomed", plan: "pro", triggers: { mentions: {} }, plugins: { echo: { text: "doomed answers" } } },
        { name: "fine", plan: "pro", triggers: { mentions: {} }, plugins: { echo: { text: "fine answers" } } },
      ],
      plugins: { echo },
    });
    const doomed = bed.runtime.bots.get("doomed")!.identity.userId;
    for (const t of Object.values(bed.sandbox.context.data.auth.access_tokens))
      if (t.user_id === doomed) t.invalidated_at = bed.clock.now();
    const alice = await bed.user("alice");
    await bed.post(alice, "@doomed @fine hello both");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("fine").map((p) => p.text)).toEqual(["fine answers"]);
    expect(bed.postsBy("doomed")).toEqual([]);
    const status = bed.runtime.status().find((s) => s.bot === "doomed")!;
    expect(status.paused?.reason).toMatch(
      /refused the account.s token \(401, code 89\); sign it in again \(bot auth login --account doomed\)/,
    );
    expect(lines.some((l) => l.bot === "doomed" && String(l.msg).includes("is paused"))).toBe(true);
  });

  it("pauses a bot whose token the service no longer knows (401, code 32) when its poll is refused; the others go on", async () => {
    bed = await createTestBed({
      bots: [
        // Polled (not through the stream), so the refusal comes to its poll, not to a reply.
        {
          name: "forgotten",
          plan: "pro",
          triggers: { mentions: { via: "poll" } },
          plugins: { echo: { text: "forgotten answers" } },
        },
        { name: "fine", plan: "pro", triggers: { mentions: {} }, plugins: { echo: { text: "fine answers" } } },
      ],
      plugins: { echo },
    });
    await bed.advance(60_000);
    await bed.settle();
    // While it runs, its token disappears from the service (the app's keys were regenerated).
    const forgotten = bed.runtime.bots.get("forgotten")!.identity.userId;
    const tokens = bed.sandbox.context.data.auth.access_tokens;
    for (const [key, t] of Object.entries(tokens)) if (t.user_id === forgotten) delete tokens[key];
    const alice = await bed.user("alice");
    await bed.post(alice, "@forgotten @fine hello both");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("fine").map((p) => p.text)).toEqual(["fine answers"]);
    const status = bed.runtime.status().find((s) => s.bot === "forgotten")!;
    expect(status.paused?.reason).toMatch(/refused the account.s token \(401, code 32\)/);
    expect(bed.runtime.status().find((s) => s.bot === "fine")!.paused).toBeUndefined();
    expect(bed.postsBy("forgotten")).toEqual([]);
  });

  it("stops at once while actions wait for the budget, keeping them for the next start", async () => {
    const { lines, logger } = capture();
    const bots = [
      {
        name: "capped",
        plan: "pro" as const,
        budget: { reply: { max: 1, per: "1h" } },
        triggers: { mentions: {} },
        plugins: { echo: { text: "once an hour: @{author.username}" } },
      },
    ];
    bed = await createTestBed({ logger, bots, plugins: { echo } });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.post(alice, "@capped first");
    await bed.post(bob, "@capped second");
    await bed.advance(3_000);
    await bed.settle();
    expect(bed.postsBy("capped")).toHaveLength(1);
    // The second reply waits an hour for the cap; stopping does not wait for it (the clock is frozen).
    await bed.stop();
    expect(lines.some((l) => l.bot === "capped" && l.status === "deferred")).toBe(true);
    // The next start sends it once the cap allows, and never the first one again.
    const sandbox = bed.sandbox;
    bed = await createTestBed({ sandbox, store: bed.store, bots, plugins: { echo } });
    await bed.advance(3_600_000);
    await bed.settle();
    expect(
      bed
        .postsBy("capped")
        .map((p) => p.text)
        .sort(),
    ).toEqual(["once an hour: @alice", "once an hour: @bob"]);
    await bed.stop();
    await sandbox.close();
    bed = undefined;
  });

  it("warns when a plugin handles events that none of the bot's triggers produce", async () => {
    const { lines, logger } = capture();
    bed = await createTestBed({
      logger,
      bots: [{ name: "deaf", plan: "pro", plugins: { echo: { text: "unheard" } } }],
      plugins: { echo },
    });
    const warning = lines.find((l) => l.bot === "deaf" && l.level === 40);
    expect(warning?.msg).toBe(
      'a plugin handles "mention" events but the bot has no mentions trigger, so none will come; add triggers: { mentions: {} } to deaf.yaml',
    );
  });

  it("sends nothing in a dry run, but logs and counts the actions", async () => {
    const { lines, logger } = capture();
    bed = await createTestBed({
      logger,
      runtime: { dryRun: true },
      bots: [{ name: "quiet", plan: "pro", triggers: { mentions: {} }, plugins: { echo: { text: "would say this" } } }],
      plugins: { echo },
    });
    const alice = await bed.user("alice");
    await bed.post(alice, "@quiet hello");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("quiet")).toEqual([]);
    expect(lines.some((l) => l.bot === "quiet" && l.dry_run === true && l.action === "reply")).toBe(true);
  });
});
