import { describe, expect, it } from "vitest";
import { ids, useWorld } from "./world.ts";

const w = useWorld();

describe("likes", () => {
  it("likes idempotently, lists liked posts newest like first, unlikes", async () => {
    const alice = await w.user("lk_a");
    const bob = await w.user("lk_b");
    const p1 = await w.post(alice, "first");
    const p2 = await w.post(alice, "second");
    for (const p of [p1, p2, p1]) {
      await w.t.clock.advance(1000);
      const res = await w.call(bob, "POST", `/2/users/${bob.user.id}/likes`, { json: { post_id: p.id } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { liked: true } });
    }
    expect(ids(await w.get(alice, `/2/users/${bob.user.id}/liked_posts`))).toEqual([p2.id, p1.id]);
    const liking = await w.get(alice, `/2/posts/${p1.id}/liking_users`);
    expect(liking.body.data).toEqual([{ id: bob.user.id, name: "lk_b", username: "lk_b" }]);
    const un = await w.call(bob, "DELETE", `/2/users/${bob.user.id}/likes/${p1.id}`);
    expect(un.body).toEqual({ data: { liked: false } });
    expect(ids(await w.get(alice, `/2/users/${bob.user.id}/liked_posts`))).toEqual([p2.id]);
  });

  it("requires :id to be the caller, a post that exists, and a well-formed body", async () => {
    const alice = await w.user("lk_c");
    const bob = await w.user("lk_d");
    const p = await w.post(alice, "x");
    const asOther = await w.call(bob, "POST", `/2/users/${alice.user.id}/likes`, { json: { post_id: p.id } });
    expect(asOther.status).toBe(403);
    expect(asOther.body.detail).toMatch(/must be the authenticated user's id/);
    const missing = await w.call(bob, "POST", `/2/users/${bob.user.id}/likes`, { json: { post_id: "99" } });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe("Could not find post with post_id: [99].");
    const bad = await w.call(bob, "POST", `/2/users/${bob.user.id}/likes`, { json: { tweet_id: p.id } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toContain("$.post_id: is missing but it is required");
  });
});

describe("reposts", () => {
  it("creates a repost post (referenced_posts reposted), idempotently, and undoes it", async () => {
    const alice = await w.user("rp_a");
    const bob = await w.user("rp_b");
    const p = await w.post(alice, "share me");
    const created: string[] = [];
    const listener = (x: { id: string }) => created.push(x.id);
    w.t.sandbox.context.events.on("post:created", listener);
    const res = await w.call(bob, "POST", `/2/users/${bob.user.id}/reposts`, { json: { post_id: p.id } });
    const again = await w.call(bob, "POST", `/2/users/${bob.user.id}/reposts`, { json: { post_id: p.id } });
    w.t.sandbox.context.events.off("post:created", listener);
    expect(res.body).toEqual({ data: { id: expect.any(String), reposted: true } });
    expect(again.body.data.id).toBe(res.body.data.id);
    expect(created).toEqual([res.body.data.id]);
    const view = await w.get(bob, `/2/posts/${res.body.data.id}`, {
      "post.fields": "referenced_posts,author_id",
      expansions: "referenced_posts.id",
    });
    expect(view.body.data).toMatchObject({
      text: "RT @rp_a: share me",
      author_id: bob.user.id,
      referenced_posts: [{ type: "reposted", id: p.id }],
    });
    expect(view.body.includes.posts[0].id).toBe(p.id);
    expect((await w.get(alice, `/2/posts/${p.id}/reposted_by`)).body.data[0].id).toBe(bob.user.id);
    const undo = await w.call(bob, "DELETE", `/2/users/${bob.user.id}/reposts/${p.id}`);
    expect(undo.body).toEqual({ data: { reposted: false } });
    expect((await w.get(alice, `/2/posts/${p.id}/reposted_by`)).body).toEqual({ meta: { result_count: 0 } });
  });

  it("refuses to repost a protected account's post", async () => {
    const owner = await w.user("rp_p");
    const fan = await w.user("rp_f");
    await w.admin("PATCH", "/_sandbox/users", { id: owner.user.id, protected: true });
    await w.admin("POST", "/_sandbox/follows", { source_user_id: fan.user.id, target_user_id: owner.user.id });
    const p = await w.post(owner, "mine only");
    const res = await w.call(fan, "POST", `/2/users/${fan.user.id}/reposts`, { json: { post_id: p.id } });
    expect(res.status).toBe(403);
  });
});

describe("bookmarks (PKCE only)", () => {
  it("bookmarks, lists and removes bookmarks with a PKCE token", async () => {
    const alice = await w.user("bm_a");
    const p = await w.post(alice, "read later");
    const token = await w.t.pkce(w.app, alice.user, ["post.read", "users.read", "bookmark.read", "bookmark.write"]);
    const add = await w.t.bearer(token.access_token, "POST", `/2/users/${alice.user.id}/bookmarks`, {
      json: { post_id: p.id },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ data: { bookmarked: true } });
    const list = await w.t.bearer(token.access_token, "GET", `/2/users/${alice.user.id}/bookmarks`);
    expect(ids(list)).toEqual([p.id]);
    expect(list.body.meta).toEqual({ result_count: 1 });
    const metrics = await w.get(alice, `/2/posts/${p.id}`, { "post.fields": "public_metrics" });
    expect(metrics.body.data.public_metrics.bookmark_count).toBe(1);
    const del = await w.t.bearer(token.access_token, "DELETE", `/2/users/${alice.user.id}/bookmarks/${p.id}`);
    expect(del.body).toEqual({ data: { bookmarked: false } });
    expect((await w.t.bearer(token.access_token, "GET", `/2/users/${alice.user.id}/bookmarks`)).body).toEqual({
      meta: { result_count: 0 },
    });
    const bob = await w.user("bm_b");
    const other = await w.t.bearer(token.access_token, "GET", `/2/users/${bob.user.id}/bookmarks`);
    expect(other.status).toBe(403);
  });
});

describe("reposts of me", () => {
  it("lists others' reposts of the caller's posts, newest first", async () => {
    const alice = await w.user("rom_a");
    const bob = await w.user("rom_b");
    const carol = await w.user("rom_c");
    const p = await w.post(alice, "popular");
    const q = await w.post(bob, "bob's own");
    const r1 = await w.call(bob, "POST", `/2/users/${bob.user.id}/reposts`, { json: { post_id: p.id } });
    await w.t.clock.advance(1000);
    const r2 = await w.call(carol, "POST", `/2/users/${carol.user.id}/reposts`, { json: { post_id: p.id } });
    await w.call(alice, "POST", `/2/users/${alice.user.id}/reposts`, { json: { post_id: q.id } });
    const res = await w.get(alice, "/2/users/reposts_of_me", { "post.fields": "author_id" });
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([r2.body.data.id, r1.body.data.id]);
    expect(res.body.meta).toEqual({ result_count: 2 });
  });
});
