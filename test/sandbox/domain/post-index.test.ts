import { describe, expect, it } from "vitest";
import { createPost, deletePost, livePostsNewestFirst, repost, unrepost } from "../../../src/sandbox/domain/posts.ts";
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

  it("is built from a state loaded from a file", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    createPost(ctx, { author_id: alice.id, text: "kept" });
    const loaded = { ...ctx, data: structuredClone(ctx.data) };
    expect(livePostsNewestFirst(loaded).map((p) => p.text)).toEqual(["kept"]);
    expect(() => createPost(loaded, { author_id: alice.id, text: "kept" })).toThrow(/duplicate content/);
  });
});
