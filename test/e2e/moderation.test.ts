import { afterEach, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import reply from "../../plugins/reply.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

const capture = captureLogs;

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const ANSWER = "Thanks for your answer, @{author.username}!";

/** The host bot, with `moderate` listed before or after `reply`. */
function host(order: "moderate first" | "reply first", moderateOptions: Record<string, unknown> = {}) {
  const replyOptions = { text: ANSWER, events: ["reply", "mention"] };
  const plugins =
    order === "moderate first"
      ? { moderate: moderateOptions, reply: replyOptions }
      : { reply: replyOptions, moderate: moderateOptions };
  // reply_cooldown 0s: the bot answers every benign reply of one thread, so that a missing
  // answer can only mean the reply was stopped.
  return { name: "host", plan: "pro" as const, reply_cooldown: "0s", triggers: { mentions: {} }, plugins };
}

async function thread(b: TestBed) {
  const me = await b.user(sandboxUsername("host"));
  const root = await b.post(me, "What are you building this week?");
  const [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map((n) => b.user(n)));
  const replies = {
    plain: await b.post(alice!, "@host you're an idiot", root.id),
    benign1: await b.post(bob!, "@host a bot that waters my plants", root.id),
    obfuscated: await b.post(carol!, "@host f u c k you, y0u 1d10t", root.id),
    harassment: await b.post(alice!, "@host go away, nobody likes you", root.id),
    benign2: await b.post(dave!, "@host this is fucking awesome, a weather bot", root.id),
  };
  return { root, replies };
}

describe("the moderate plugin, end to end", () => {
  for (const order of ["moderate first", "reply first"] as const) {
    it(`hides abusive replies (plain and obfuscated) and answers only benign ones, with ${order} in the bot file`, async () => {
      const { lines, logger } = capture();
      bed = await createTestBed({ logger, bots: [host(order)], plugins: { moderate, reply } });
      const { replies } = await thread(bed);
      await bed.advance(60_000);
      await bed.settle();

      const posts = bed.sandbox.context.data.world.posts;
      expect(posts[replies.plain.id]!.hidden).toBe(true);
      expect(posts[replies.obfuscated.id]!.hidden).toBe(true);
      expect(posts[replies.harassment.id]!.hidden).toBe(true);
      expect(posts[replies.benign1.id]!.hidden).toBeFalsy();
      expect(posts[replies.benign2.id]!.hidden).toBeFalsy();

      const answers = bed.postsBy("host").filter((p) => p.in_reply_to_post_id !== undefined);
      expect(answers.map((p) => p.in_reply_to_post_id).sort()).toEqual([replies.benign1.id, replies.benign2.id].sort());
      expect(answers.map((p) => p.text).sort()).toEqual([
        "Thanks for your answer, @bob!",
        "Thanks for your answer, @dave!",
      ]);

      const hides = lines.filter((l) => l.plugin === "moderate" && String(l.msg).startsWith("hid "));
      expect(hides.map((l) => [l.post, l.rule, l.match]).sort()).toEqual(
        [
          [replies.plain.id, "insult:idiot", "you're an idiot"],
          [replies.obfuscated.id, "insult:fuck-you", "f u c k you"],
          [replies.harassment.id, "harassment:nobody-likes-you", "nobody likes you"],
        ].sort(),
      );
      // A phrase rule's hide names the one pattern of its family that fired.
      expect(hides.map((l) => [l.rule, l.pattern]).sort()).toEqual(
        [
          ["insult:idiot", "insult:<word>/you-are-insult"],
          ["insult:fuck-you", "insult:fuck-you/fuck-you"],
          ["harassment:nobody-likes-you", "harassment:nobody-likes-you/nobody-likes-you"],
        ].sort(),
      );
      for (const line of hides) {
        expect(line).toMatchObject({ bot: "host", event: "reply", level: 30 });
        expect(line.score).toBeGreaterThanOrEqual(0.5);
        expect(String(line.msg)).toContain(`${line.rule} matched "${line.match}"`);
      }
      // Nothing tried to answer a hidden reply.
      const tried = lines.filter((l) => l.action === "reply").map((l) => l.target);
      expect(tried).not.toContain(replies.plain.id);
      expect(tried).not.toContain(replies.obfuscated.id);
    });
  }

  it("with hide: flagged, also hides swearing that is aimed at no one", async () => {
    bed = await createTestBed({ bots: [host("reply first", { hide: "flagged" })], plugins: { moderate, reply } });
    const { replies } = await thread(bed);
    await bed.advance(60_000);
    await bed.settle();
    const posts = bed.sandbox.context.data.world.posts;
    expect(posts[replies.benign2.id]!.hidden).toBe(true);
    expect(posts[replies.benign1.id]!.hidden).toBeFalsy();
    expect(
      bed
        .postsBy("host")
        .filter((p) => p.in_reply_to_post_id)
        .map((p) => p.text),
    ).toEqual(["Thanks for your answer, @bob!"]);
  });

  it("with hide: never, hides nothing and logs what it would hide, but still answers none of it", async () => {
    const { lines, logger } = capture();
    bed = await createTestBed({ logger, bots: [host("reply first", { hide: "never" })], plugins: { moderate, reply } });
    const { replies } = await thread(bed);
    await bed.advance(60_000);
    await bed.settle();
    const posts = bed.sandbox.context.data.world.posts;
    expect(Object.values(replies).filter((r) => posts[r.id]!.hidden)).toEqual([]);
    expect(
      lines
        .filter((l) => String(l.msg).startsWith("would hide"))
        .map((l) => l.rule)
        .sort(),
    ).toEqual(["harassment:nobody-likes-you", "insult:fuck-you", "insult:idiot"]);
    expect(
      bed
        .postsBy("host")
        .filter((p) => p.in_reply_to_post_id)
        .map((p) => p.text)
        .sort(),
    ).toEqual(["Thanks for your answer, @bob!", "Thanks for your answer, @dave!"]);
  });

  it("uses the bot's block and allow lists, and with events [mention] leaves abusive mentions unanswered", async () => {
    bed = await createTestBed({
      bots: [host("reply first", { block: ["crypto giveaway"], allow: ["idiot"], events: ["reply", "mention"] })],
      plugins: { moderate, reply },
    });
    const me = await bed.user(sandboxUsername("host"));
    const [erin, frank, gina] = await Promise.all(["erin", "frank", "gina"].map((n) => bed!.user(n)));
    const root = await bed.post(me, "Who wants to help test the new release?");
    const spam = await bed.post(erin!, "@host huge crypt0 g1veaway, click my profile", root.id);
    const allowed = await bed.post(frank!, "@host I'm the village idiot of testing, count me in", root.id);
    const mention = await bed.post(gina!, "@host you are a waste of space");
    await bed.advance(60_000);
    await bed.settle();
    const posts = bed.sandbox.context.data.world.posts;
    expect(posts[spam.id]!.hidden).toBe(true);
    expect(posts[allowed.id]!.hidden).toBeFalsy();
    // A mention that is not a reply cannot be hidden; it is only left unanswered.
    expect(posts[mention.id]!.hidden).toBeFalsy();
    expect(
      bed
        .postsBy("host")
        .filter((p) => p.in_reply_to_post_id)
        .map((p) => p.in_reply_to_post_id),
    ).toEqual([allowed.id]);
  });
});
