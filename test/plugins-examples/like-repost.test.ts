import { afterEach, describe, expect, it } from "vitest";
import like from "../../plugins/like.ts";
import repost from "../../plugins/repost.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const stream = [
  { value: "#postbot -is:repost", tag: "postbot" },
  { value: "#typescript -is:repost", tag: "ts" },
  { value: "#random -is:repost" },
];

async function fan(plugins: Record<string, unknown>) {
  bed = await createTestBed({
    bots: [{ name: "fan", plan: "pro", triggers: { stream }, plugins }],
    plugins: { like, repost },
  });
  const b = bed;
  const alice = await b.user("alice");
  await b.advance(1_000);
  const posts = {
    postbot: await b.post(alice, "trying #postbot today"),
    ts: await b.post(alice, "#typescript tips"),
    untagged: await b.post(alice, "something #random"),
    elsewhere: await b.post(alice, "nothing any rule wants"),
  };
  await b.advance(1_000);
  await b.settle();
  const fanId = b.runtime.bots.get("fan")!.identity.userId;
  const world = b.sandbox.context.data.world;
  return {
    posts,
    liked: () =>
      world.likes
        .filter((l) => l.user_id === fanId)
        .map((l) => l.post_id)
        .sort(),
    reposted: () =>
      b
        .postsBy("fan")
        .filter((p) => p.repost_of_id)
        .map((p) => p.repost_of_id!)
        .sort(),
    fanId,
  };
}

describe("the like plugin", () => {
  it("likes what every stream rule delivers when no tags are given", async () => {
    const { posts, liked } = await fan({ like: {} });
    expect(liked()).toEqual([posts.postbot.id, posts.ts.id, posts.untagged.id].sort());
  });

  it("likes only what the rules with the chosen tags deliver", async () => {
    const { posts, liked, reposted } = await fan({ like: { tags: ["postbot"] } });
    expect(liked()).toEqual([posts.postbot.id]);
    expect(reposted()).toEqual([]);
  });

  it("never likes the bot's own posts", async () => {
    const { liked } = await fan({ like: {} });
    const before = liked();
    const self = await bed!.user("fan");
    const own = await bed!.post(self, "my own #postbot post");
    await bed!.advance(1_000);
    await bed!.settle();
    expect(liked()).toEqual(before);
    expect(liked()).not.toContain(own.id);
  });
});

describe("the repost plugin", () => {
  it("reposts only what the rules with the chosen tags deliver, each once", async () => {
    const { posts, reposted, liked } = await fan({ repost: { tags: ["postbot", "ts"] } });
    expect(reposted()).toEqual([posts.postbot.id, posts.ts.id].sort());
    expect(liked()).toEqual([]);
    // The bot's reposts match no rule again (-is:repost), so nothing is reposted twice.
    await bed!.advance(60_000);
    await bed!.settle();
    expect(reposted()).toEqual([posts.postbot.id, posts.ts.id].sort());
  });

  it("works next to like on one bot: like everything, repost one tag", async () => {
    const { posts, reposted, liked } = await fan({ like: {}, repost: { tags: ["ts"] } });
    expect(liked()).toEqual([posts.postbot.id, posts.ts.id, posts.untagged.id].sort());
    expect(reposted()).toEqual([posts.ts.id]);
  });
});
