/**
 * The stream hub's search for mention bots that just joined its rules (StreamHub.backfill):
 * the bots asked for together share their searches, their usernames packed into as few
 * queries as recent search's 4,096 characters allow, and each bot gets exactly its own
 * mentions from them. On the sandbox with a frozen clock; the sandbox counts the searches.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { packUsernames } from "../../src/triggers/mention-rules.ts";
import { startStreamHub } from "../../src/triggers/stream-hub.ts";
import type { MentionBot } from "../../src/triggers/stream/routing.ts";
import { recordTaken, SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";

const t = new SandboxHubs();
afterEach(() => t.close());

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });
const SEARCH = "GET /2/posts/search/recent";

describe("the stream hub's searches for bots that joined", () => {
  it("120 bots asked for one by one at once cost one search per pack of usernames, and each gets exactly its own mentions", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, connection } = await t.open(clock);
    const fan = await sandbox.admin.createUser({ username: "fan", name: "fan" });
    const other = await sandbox.admin.createUser({ username: "bystander", name: "bystander" });
    // 15-character usernames: about 95 to a 4,096-character query, so 120 bots make two packs.
    const bots: MentionBot[] = [];
    for (let i = 0; i < 120; i++) {
      const username = `joinedbot${String(i).padStart(6, "0")}`;
      const user = await sandbox.admin.createUser({ username, name: username });
      bots.push({ bot: `b${i}`, userId: user.id, username });
    }
    const packs = packUsernames(
      bots.map((b) => b.username),
      4096,
    );
    expect(packs.length).toBe(2);
    const post = async (author: string, text: string, inReplyTo?: string) =>
      (
        await sandbox.admin.createPost({
          author_id: author,
          text,
          ...(inReplyTo ? { in_reply_to_post_id: inReplyTo } : {}),
        })
      ).id;
    const name = (i: number) => bots[i]!.username;

    // Before the bots' `since`: not theirs to get.
    await post(fan.id, `@${name(6)} too old`);
    await clock.advance(10 * 60_000);
    const since = clock.now();
    const expected = new Map<string, string[]>();
    const expect_ = (i: number, id: string) => expected.set(`b${i}`, [...(expected.get(`b${i}`) ?? []), id]);
    // Every fourth bot mentioned once (30 posts, under a page in each pack).
    for (let i = 0; i < 120; i += 4) expect_(i, `mention:${await post(fan.id, `@${name(i)} hello ${i}`)}`);
    // One post naming two bots, in different packs: to both, once each.
    const both = await post(fan.id, `@${name(1)} and @${name(117)} both`);
    expect_(1, `mention:${both}`);
    expect_(117, `mention:${both}`);
    // A reply to a bot that does not name it (the rule's `to:`): a reply event for that bot.
    const own = await post(bots[3]!.userId, "my own post");
    const reply = await post(fan.id, "a reply that names nobody", own);
    expect_(3, `reply:${reply}`);
    // A bot naming another: the other's; a bot naming itself: nobody's; a bystander: nobody's.
    expect_(7, `mention:${await post(bots[5]!.userId, `@${name(7)} from a bot`)}`);
    await post(bots[9]!.userId, `@${name(9)} myself`);
    await post(fan.id, `@${other.username} not a bot`);
    await clock.advance(60_000);

    const delivered = new Map<string, string[]>();
    const hub = (t.hub = startStreamHub({
      appId: "app",
      clock,
      log: silentLogger,
      ...connection,
      wants: [],
      mentionBots: bots,
    }));
    recordTaken(hub, {
      mentions: (bot, events) => void delivered.set(bot, [...(delivered.get(bot) ?? []), ...events.map((e) => e.id)]),
    });
    await eventually(() => expect(hub.status().state).toBe("connected"));
    const searches = async () => (await sandbox.admin.stats()).routes[SEARCH]?.["200"] ?? 0;
    expect(await searches()).toBe(0);

    // As 120 follow-ups of one fleet change call it: once per bot, at the same moment.
    const found = await Promise.all(bots.map((b) => hub.backfill([b.bot], since)));

    expect(await searches()).toBe(packs.length);
    expect(await searches()).toBeLessThanOrEqual(Math.ceil(120 / packs[0]!.length));
    expect(Object.fromEntries([...delivered].sort())).toEqual(Object.fromEntries([...expected].sort()));
    expect(found.reduce((a, b) => a + b, 0)).toBe([...expected.values()].flat().length);
    expect([found[0], found[1], found[3], found[6], found[9]]).toEqual([1, 1, 1, 0, 0]);
    expect(hub.busy()).toBe(false);
  });
  it("a bot that newly wants a rule gets what matched it since `since`, once: what the stream gave it meanwhile is not handed out again", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, connection } = await t.open(clock);
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    const keeper = await sandbox.admin.createUser({ username: "keeper", name: "keeper" });
    const liker = await sandbox.admin.createUser({ username: "liker", name: "liker" });
    const post = async (text: string) => (await sandbox.admin.createPost({ author_id: alice.id, text })).id;
    const delivered: string[] = [];
    let streamedMeanwhile: string | undefined;
    const hub = (t.hub = startStreamHub({
      appId: "app",
      clock,
      log: silentLogger,
      ...connection,
      // The search waits until the stream has routed the post made after the change.
      budgeted: async (endpoint, run) => {
        if (endpoint === SEARCH)
          await vi.waitFor(() => expect(streamedMeanwhile && hub.has(streamedMeanwhile)).toBe(true));
        return (await run(new AbortController().signal)).result;
      },
      wants: [{ bot: "keeper", userId: keeper.id, rules: [{ value: "#cats" }] }],
    }));
    recordTaken(hub, {
      post: (bot, event) => void delivered.push(`${bot} ${event.kind === "post" ? event.post.text : event.id}`),
    });
    await eventually(() => expect(hub.status().state).toBe("connected"));
    await post("#cats too old");
    await clock.advance(60_000);
    const since = clock.now();
    await post("#cats before the change");
    await clock.advance(60_000);
    const both = [
      { bot: "keeper", userId: keeper.id, rules: [{ value: "#cats" }] },
      { bot: "liker", userId: liker.id, rules: [{ value: "#cats", tag: "likes" }, { value: "#dogs" }] },
    ];
    const applied = hub.update(both, [], { since });
    streamedMeanwhile = await post("#cats after the change");
    await applied;
    await eventually(() => expect(delivered).toContain("liker #cats before the change"));
    await eventually(() => expect(hub.busy()).toBe(false));
    expect(delivered.sort()).toEqual(
      [
        "keeper #cats too old",
        "keeper #cats before the change",
        "keeper #cats after the change",
        "liker #cats after the change",
        "liker #cats before the change",
      ].sort(),
    );
    // One search per value the liker newly wants; none for the keeper, who wanted #cats already.
    expect((await sandbox.admin.stats()).routes[SEARCH]?.["200"]).toBe(2);
  });
});
