import { afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../../src/clock.ts";
import { createClassifier } from "../../../src/moderation/index.ts";
import { content, DM_GAP_MS, startCrowd, type Crowd, type CrowdBot } from "../../../src/sandbox/crowd/index.ts";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.ts";
import { captureLogs } from "../../helpers/log.ts";

const START = Date.parse("2026-03-02T12:00:00Z");
const EVERY = 2_000;

const capture = captureLogs;

const open: Array<{ sandbox: Sandbox; crowd?: Crowd }> = [];
afterEach(async () => {
  for (const { sandbox, crowd } of open.splice(0)) {
    crowd?.stop();
    await sandbox.close();
  }
});

/** A sandbox with three bot accounts (one posted a question), as `bot start` would make. */
async function world() {
  const clock = createClock({ frozen: true, start: START });
  const sandbox = await createSandbox({ clock });
  const entry: { sandbox: Sandbox; crowd?: Crowd } = { sandbox };
  open.push(entry);
  const [greeter, host, fan] = await Promise.all(
    ["greeter", "host", "fan"].map((username) => sandbox.admin.createUser({ username })),
  );
  const question = await sandbox.admin.createPost({ author_id: host!.id, text: "What are you building this week?" });
  const bots: CrowdBot[] = [
    { username: "greeter", userId: greeter!.id, streamRules: [], mentions: true, followers: false },
    { username: "host", userId: host!.id, streamRules: [], mentions: true, followers: true },
    {
      username: "fan",
      userId: fan!.id,
      streamRules: ["#postbot -is:repost", "(typescript OR #ts) bots"],
      mentions: false,
      followers: true,
    },
  ];
  return { clock, sandbox, bots, question, entry };
}

/** The crowd's actions as its log lines tell them. */
const actionsOf = (lines: Array<Record<string, unknown>>) =>
  lines
    .filter((l) => l.action !== undefined)
    .map((l) => ({
      user: l.user,
      action: l.action,
      to: l.to,
      text: l.text,
      abusive: l.abusive,
      in_reply_to: l.in_reply_to,
      post: l.post,
    }));

async function run(seed: number, ms: number) {
  const { clock, sandbox, bots, question, entry } = await world();
  const { lines, logger } = capture();
  const crowd = await startCrowd({ sandbox, clock, logger, bots, seed });
  entry.crowd = crowd;
  await clock.advance(ms);
  return { clock, sandbox, bots, question, crowd, lines, actions: actionsOf(lines) };
}

/** Every text the templates can produce for these bots and rules. */
function everyText(bots: CrowdBot[]): { benign: Set<string>; abusive: Set<string> } {
  const {
    MENTIONS,
    CITIES,
    ENDINGS,
    REPLY_OPENINGS,
    BENIGN_REPLIES,
    ABUSIVE_OPENINGS,
    ABUSIVE_REPLIES,
    TOPIC_POSTS,
    CHATTER,
  } = content;
  const fill = (t: string, slots: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => slots[k]!);
  const benign = new Set<string>();
  const abusive = new Set<string>();
  const topics = ["#postbot", "typescript bots", "#ts bots"];
  for (const e of ENDINGS) {
    for (const city of CITIES) {
      for (const t of [...CHATTER]) benign.add(fill(t, { city }) + e);
      for (const topic of topics) for (const t of TOPIC_POSTS) benign.add(fill(t, { city, topic }) + e);
      for (const { username: bot } of bots) for (const t of MENTIONS) benign.add(fill(t, { city, bot }) + e);
    }
    for (const { username: bot } of bots) {
      for (const o of REPLY_OPENINGS) for (const b of BENIGN_REPLIES) benign.add(`@${bot} ${o}${b}${e}`);
      for (const o of ABUSIVE_OPENINGS) for (const b of ABUSIVE_REPLIES) abusive.add(`@${bot} ${o}${b}${e}`);
    }
  }
  return { benign, abusive };
}

describe("the simulated crowd", () => {
  it("does the same things, in the same order, for the same seed; something else for another", async () => {
    const a = await run(42, 60 * EVERY);
    const b = await run(42, 60 * EVERY);
    const c = await run(43, 60 * EVERY);
    expect(a.actions.length).toBe(60);
    const shape = (r: typeof a) => r.actions.map(({ post: _post, in_reply_to: _r, ...rest }) => rest);
    expect(shape(b)).toEqual(shape(a));
    expect(a.crowd.users.map((u) => u.username)).toEqual(b.crowd.users.map((u) => u.username));
    expect(shape(c)).not.toEqual(shape(a));
    // Sixty actions of a mixed crowd: every kind shows up.
    expect(new Set(a.actions.map((x) => x.action))).toEqual(
      new Set(["mention", "reply", "follow", "topic", "chatter"]),
    );
  });

  it("acts on the clock: one action per interval, none before the first, none after stop()", async () => {
    const { clock, sandbox, bots, entry } = await world();
    const { lines, logger } = capture();
    const crowd = await startCrowd({ sandbox, clock, logger, bots, seed: 7, everyMs: 5_000, size: 3 });
    entry.crowd = crowd;
    expect(crowd.users).toHaveLength(3);
    await clock.advance(4_999);
    expect(crowd.actions).toBe(0);
    await clock.advance(1);
    expect(crowd.actions).toBe(1);
    await clock.advance(10 * 5_000);
    expect(crowd.actions).toBe(11);
    crowd.stop();
    await clock.advance(60_000);
    expect(crowd.actions).toBe(11);
    expect(actionsOf(lines)).toHaveLength(11);
    expect(clock.pending()).toBe(0);
  });

  it("posts only texts from its templates, abusive only in replies, each as labelled", async () => {
    const { sandbox, bots, actions, crowd } = await run(5, 300 * EVERY);
    const { benign, abusive } = everyText(bots);
    const classifier = createClassifier();
    const crowdIds = new Set(crowd.users.map((u) => u.id));
    const posts = Object.values(sandbox.context.data.world.posts).filter((p) => crowdIds.has(p.author_id));
    expect(posts.length).toBeGreaterThan(200);
    for (const post of posts) {
      const action = actions.find((x) => x.post === post.id)!;
      expect(action, post.text).toBeDefined();
      expect(action.text).toBe(post.text);
      if (action.abusive === true) {
        expect(action.action).toBe("reply");
        expect(abusive.has(post.text), post.text).toBe(true);
        expect(classifier.classify(post.text).abusive, post.text).toBe(true);
      } else {
        expect(benign.has(post.text), post.text).toBe(true);
        expect(classifier.classify(post.text).abusive, post.text).toBe(false);
      }
    }
    // Some replies are abusive; most are not.
    const replies = actions.filter((x) => x.action === "reply");
    const share = replies.filter((x) => x.abusive).length / replies.length;
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.5);
  });

  it("mentions and replies only to bots that read mentions, replying to their own threads; follows each bot once at most", async () => {
    const { sandbox, bots, actions, question, crowd } = await run(11, 300 * EVERY);
    const readers = new Set(bots.filter((b) => b.mentions).map((b) => b.username));
    const followed = new Set(bots.filter((b) => b.followers).map((b) => b.username));
    const posts = sandbox.context.data.world.posts;
    for (const x of actions) {
      if (x.action === "mention" || x.action === "reply") expect(readers.has(x.to as string)).toBe(true);
      if (x.action === "reply") {
        const target = posts[x.in_reply_to as string]!;
        const bot = bots.find((b) => b.username === x.to)!;
        expect(target.author_id).toBe(bot.userId);
        expect(posts[target.conversation_id]!.author_id).toBe(bot.userId);
      }
      if (x.action === "follow") expect(followed.has(x.to as string)).toBe(true);
    }
    expect(actions.some((x) => x.in_reply_to === question.id)).toBe(true);
    const follows = actions.filter((x) => x.action === "follow").map((x) => `${x.user}>${x.to}`);
    expect(new Set(follows).size).toBe(follows.length);
    // With 300 actions, every person ends up following every bot that watches followers.
    expect(follows.length).toBe(crowd.users.length * followed.size);
    const edges = sandbox.context.data.world.follows.map((f) => `${f.source_id}>${f.target_id}`);
    for (const bot of bots.filter((b) => b.followers))
      for (const u of crowd.users) expect(edges).toContain(`${u.id}>${bot.userId}`);
  });

  it("acts only through the sandbox's own world functions: no request to the service, every post made by the admin path", async () => {
    const { sandbox, crowd } = await run(3, 100 * EVERY);
    expect(crowd.actions).toBe(100);
    const stats = await sandbox.admin.stats();
    expect(stats.routes).toEqual({});
    const crowdIds = new Set(crowd.users.map((u) => u.id));
    const sources = new Set(
      Object.values(sandbox.context.data.world.posts)
        .filter((p) => crowdIds.has(p.author_id))
        .map((p) => p.source),
    );
    expect(sources).toEqual(new Set(["postbot sandbox"]));
  });

  it("sends direct messages only to bots that read them, from its templates, outside every budget, one per DM_GAP_MS at most", async () => {
    const { clock, sandbox, bots, entry } = await world();
    const desk = await sandbox.admin.createUser({ username: "desk" });
    const withDms = [
      ...bots,
      { username: "desk", userId: desk.id, streamRules: [], mentions: false, followers: false, dms: true },
    ];
    const { lines, logger } = capture();
    const crowd = await startCrowd({ sandbox, clock, logger, bots: withDms, seed: 9 });
    entry.crowd = crowd;
    await clock.advance(6 * DM_GAP_MS);
    const dms = actionsOf(lines).filter((x) => x.action === "dm");
    expect(dms.length).toBeGreaterThan(3);
    expect(dms.length).toBeLessThanOrEqual(6);
    expect(new Set(dms.map((x) => x.to))).toEqual(new Set(["desk"]));
    const texts = new Set(content.DMS.flatMap((t) => content.CITIES.map((city) => t.replace("{city}", city))));
    const crowdIds = new Set(crowd.users.map((u) => u.id));
    const sent = Object.values(sandbox.context.data.world.dm_events).filter((e) => crowdIds.has(e.sender_id));
    expect(sent).toHaveLength(dms.length);
    const times = sent.map((e) => e.created_at).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(DM_GAP_MS);
    for (const e of sent) {
      expect(e.dm_conversation_id.split("-")).toContain(desk.id);
      expect(
        [...content.ENDINGS].some((end) => texts.has(e.text!.slice(0, e.text!.length - end.length))),
        e.text,
      ).toBe(true);
    }
    expect((await sandbox.admin.stats()).routes).toEqual({});
  });

  it("finds its people again in a sandbox that already has them (a restored state file)", async () => {
    const { clock, sandbox, bots, entry } = await world();
    const first = await startCrowd({ sandbox, clock, logger: capture().logger, bots, seed: 1 });
    first.stop();
    const second = await startCrowd({ sandbox, clock, logger: capture().logger, bots, seed: 2 });
    entry.crowd = second;
    expect(second.users).toEqual(first.users);
    // No bot's account is taken for one of the crowd.
    const botIds = new Set(bots.map((b) => b.userId));
    expect(second.users.some((u) => botIds.has(u.id))).toBe(false);
  });

  it("gives up an action the service refuses, and goes on", async () => {
    const { clock, sandbox, bots, entry } = await world();
    const { lines, logger } = capture();
    const crowd = await startCrowd({ sandbox, clock, logger, bots, seed: 9, size: 2 });
    entry.crowd = crowd;
    // Suspended people cannot post: every post is refused, the crowd keeps ticking.
    for (const u of crowd.users) sandbox.context.data.world.users[u.id]!.suspended = true;
    await clock.advance(10 * EVERY);
    expect(lines.filter((l) => String(l.msg).startsWith("crowd: an action was given up")).length).toBeGreaterThan(0);
    for (const u of crowd.users) sandbox.context.data.world.users[u.id]!.suspended = false;
    const before = crowd.actions;
    await clock.advance(10 * EVERY);
    expect(crowd.actions).toBeGreaterThan(before);
  });
});
