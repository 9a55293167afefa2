import { describe, expect, it } from "vitest";
import { countWorld } from "../../../src/sandbox/domain/metrics.ts";
import {
  createPost,
  deletePost,
  liveMentionsOf,
  livePostsNewestFirst,
  liveQuotesOf,
  liveRepostsOf,
  repost,
  unrepost,
} from "../../../src/sandbox/domain/posts.ts";
import { createUser } from "../../../src/sandbox/domain/users.ts";
import { context } from "./world.ts";

describe("the post index behind timelines, search and the duplicate check", () => {
  it("stays right through creates, deletes and un-reposts", async () => {
    const { ctx, clock } = context();
    const alice = createUser(ctx, { username: "alice" });
    const bob = createUser(ctx, { username: "bob" });
    const texts = () => livePostsNewestFirst(ctx).map((p) => p.text);
    const a = createPost(ctx, { author_id: alice.id, text: "first" });
    await clock.advance(1);
    createPost(ctx, { author_id: bob.id, text: "second" });
    expect(texts()).toEqual(["second", "first"]);
    await clock.advance(1);
    const shared = repost(ctx, bob, a.id);
    expect(livePostsNewestFirst(ctx)[0]).toBe(shared);
    unrepost(ctx, bob.id, a.id);
    expect(texts()).toEqual(["second", "first"]);
    // Reposting again works: the undone repost is not found as still live.
    expect(repost(ctx, bob, a.id).id).not.toBe(shared.id);
    deletePost(ctx, alice.id, a.id);
    expect(texts()).toEqual(["second"]);
    // A deleted post's text may be posted again; a live one's may not.
    expect(createPost(ctx, { author_id: alice.id, text: "first" }).text).toBe("first");
    expect(() => createPost(ctx, { author_id: alice.id, text: "first" })).toThrow(/duplicate content/);
  });

  it("keeps each post's replies, quotes, reposts and mentions, and each author's post count, through creates and deletes", async () => {
    const { ctx, clock } = context();
    const alice = createUser(ctx, { username: "alice" });
    const bob = createUser(ctx, { username: "bob" });
    const a = createPost(ctx, { author_id: alice.id, text: "counted" });
    const counts = () => {
      const m = countWorld(ctx);
      return [
        m.replies.get(a.id) ?? 0,
        m.quotes.get(a.id) ?? 0,
        m.reposts.get(a.id) ?? 0,
        m.postsBy(bob.id),
        m.newestBy(bob.id),
      ];
    };
    expect(counts()).toEqual([0, 0, 0, 0, undefined]);
    await clock.advance(1);
    const reply = createPost(ctx, { author_id: bob.id, text: "a reply", in_reply_to_post_id: a.id });
    await clock.advance(1);
    const quote = createPost(ctx, { author_id: bob.id, text: "a quote", quote_post_id: a.id });
    await clock.advance(1);
    const shared = repost(ctx, bob, a.id);
    expect(counts()).toEqual([1, 1, 1, 3, shared.id]);
    expect([liveQuotesOf(ctx, a.id), liveRepostsOf(ctx, a.id), liveMentionsOf(ctx, alice.id, "ALICE")]).toEqual([
      [quote],
      [shared],
      [reply],
    ]);
    await clock.advance(1);
    const mention = createPost(ctx, { author_id: bob.id, text: "hey @Alice and @alice" });
    expect(liveMentionsOf(ctx, alice.id, "alice")).toEqual([mention, reply]);
    unrepost(ctx, bob.id, a.id);
    deletePost(ctx, bob.id, quote.id);
    deletePost(ctx, bob.id, mention.id);
    expect(counts()).toEqual([1, 0, 0, 1, reply.id]);
    expect([liveQuotesOf(ctx, a.id), liveRepostsOf(ctx, a.id), liveMentionsOf(ctx, alice.id, "alice")]).toEqual([
      [],
      [],
      [reply],
    ]);
    // The same numbers as a count from scratch (a state loaded from a file).
    const loaded = { ...ctx, data: structuredClone(ctx.data) };
    const m = countWorld(loaded);
    expect([m.replies.get(a.id), m.quotes.get(a.id) ?? 0, m.reposts.get(a.id) ?? 0, m.postsBy(bob.id)]).toEqual([
      1, 0, 0, 1,
    ]);
  });

  it("is built from a state loaded from a file", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    createPost(ctx, { author_id: alice.id, text: "kept" });
    const loaded = { ...ctx, data: structuredClone(ctx.data) };
    expect(livePostsNewestFirst(loaded).map((p) => p.text)).toEqual(["kept"]);
    expect(() => createPost(loaded, { author_id: alice.id, text: "kept" })).toThrow(/duplicate content/);
  });
});
