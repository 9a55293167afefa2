import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();

describe("users lookup", () => {
  it("looks users up by ids, id, usernames, username and me, with partial errors", async () => {
    const alice = await w.user("ul_alice");
    const res = await w.get(alice, "/2/users", { ids: `${alice.user.id},31337` });
    expect(res.body.data).toEqual([{ id: alice.user.id, name: "ul_alice", username: "ul_alice" }]);
    expect(res.body.errors[0]).toMatchObject({ detail: "Could not find user with ids: [31337].", parameter: "ids" });
    expect((await w.get(alice, `/2/users/${alice.user.id}`)).body.data.username).toBe("ul_alice");
    const by = await w.get(alice, "/2/users/by", { usernames: "UL_ALICE,nobody_here" });
    expect(by.body.data[0].id).toBe(alice.user.id);
    expect(by.body.errors[0].detail).toBe("Could not find user with usernames: [nobody_here].");
    expect((await w.get(alice, "/2/users/by/username/ul_alice")).body.data.id).toBe(alice.user.id);
    const bad = await w.get(alice, "/2/users/by", { usernames: "not valid!" });
    expect(bad.status).toBe(400);
    const me = await w.get(alice, "/2/users/me", {
      "user.fields": "created_at,protected,public_metrics,description,profile_image_url,verified",
    });
    expect(me.body.data).toMatchObject({
      id: alice.user.id,
      protected: false,
      verified: false,
      description: "",
      created_at: expect.stringMatching(/Z$/),
      public_metrics: { followers_count: 0, following_count: 0, post_count: 0, listed_count: 0, like_count: 0 },
      profile_image_url: expect.stringMatching(/^https:/),
    });
  });

  it("answers suspended accounts with the service's partial error", async () => {
    const alice = await w.user("ul_b");
    const gone = await w.user("ul_gone");
    await w.admin("PATCH", "/_sandbox/users", { id: gone.user.id, suspended: true });
    const res = await w.get(alice, "/2/users/by/username/ul_gone");
    expect(res.body).toEqual({
      errors: [
        {
          value: "ul_gone",
          detail: "User has been suspended: [ul_gone].",
          title: "Forbidden",
          resource_type: "user",
          parameter: "username",
          resource_id: "ul_gone",
          type: "https://api.twitter.com/2/problems/resource-not-found",
        },
      ],
    });
  });

  it("expands pinned_post_id into includes.posts", async () => {
    const alice = await w.user("ul_pin");
    const p = await w.post(alice, "pinned!");
    await w.admin("PATCH", "/_sandbox/users", { id: alice.user.id, pinned_post_id: p.id });
    const res = await w.get(alice, `/2/users/${alice.user.id}`, {
      expansions: "pinned_post_id",
      "user.fields": "pinned_post_id",
    });
    expect(res.body.data.pinned_post_id).toBe(p.id);
    expect(res.body.includes.posts).toEqual([{ id: p.id, text: "pinned!", edit_history_post_ids: [p.id] }]);
  });

  it("searches users by username, name and description", async () => {
    const alice = await w.user("ul_search");
    await w.admin("POST", "/_sandbox/users", {
      username: "gardener1",
      name: "Rose Grower",
      description: "I love tulips",
    });
    const res = await w.get(alice, "/2/users/search", { query: "tulips" });
    expect(res.body.data.map((u: { username: string }) => u.username)).toEqual(["gardener1"]);
    expect((await w.get(alice, "/2/users/search", { query: "rose grower" })).body.data).toHaveLength(1);
    expect((await w.get(alice, "/2/users/search", { query: "cactus" })).body).toEqual({ meta: { result_count: 0 } });
  });
});

describe("follows", () => {
  it("follows (pending for protected targets), lists following and followers, unfollows", async () => {
    const alice = await w.user("fo_a");
    const bob = await w.user("fo_b");
    const priv = await w.user("fo_priv");
    await w.admin("PATCH", "/_sandbox/users", { id: priv.user.id, protected: true });
    const f = await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, {
      json: { target_user_id: bob.user.id },
    });
    expect(f.body).toEqual({ data: { following: true, pending_follow: false } });
    const p = await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, {
      json: { target_user_id: priv.user.id },
    });
    expect(p.body).toEqual({ data: { following: false, pending_follow: true } });
    const following = await w.get(alice, `/2/users/${alice.user.id}/following`, { "user.fields": "connection_status" });
    expect(following.body.data).toEqual([
      { id: bob.user.id, name: "fo_b", username: "fo_b", connection_status: ["following"] },
    ]);
    expect(following.body.meta).toEqual({ result_count: 1 });
    const followers = await w.get(bob, `/2/users/${bob.user.id}/followers`);
    expect(followers.body.data.map((u: { id: string }) => u.id)).toEqual([alice.user.id]);
    const status = await w.get(alice, `/2/users/${priv.user.id}`, { "user.fields": "connection_status" });
    expect(status.body.data.connection_status).toEqual(["follow_request_sent"]);
    const privFollowers = await w.get(alice, `/2/users/${priv.user.id}/followers`);
    expect(privFollowers.body.errors[0].type).toBe("https://api.twitter.com/2/problems/not-authorized-for-resource");
    const un = await w.call(alice, "DELETE", `/2/users/${alice.user.id}/following/${bob.user.id}`);
    expect(un.body).toEqual({ data: { following: false } });
    expect((await w.get(alice, `/2/users/${alice.user.id}/following`)).body).toEqual({ meta: { result_count: 0 } });
    const missing = await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, {
      json: { target_user_id: "5" },
    });
    expect(missing.status).toBe(404);
    const self = await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, {
      json: { target_user_id: alice.user.id },
    });
    expect(self.status).toBe(403);
    const asOther = await w.call(alice, "DELETE", `/2/users/${bob.user.id}/following/${alice.user.id}`);
    expect(asOther.status).toBe(403);
  });
});

describe("mutes and blocks", () => {
  it("mutes, lists mutes, unmutes; lists blocks; :id must be the caller", async () => {
    const alice = await w.user("mb_a");
    const bob = await w.user("mb_b");
    const m = await w.call(alice, "POST", `/2/users/${alice.user.id}/muting`, {
      json: { target_user_id: bob.user.id },
    });
    expect(m.body).toEqual({ data: { muting: true } });
    expect((await w.get(alice, `/2/users/${alice.user.id}/muting`)).body.data.map((u: { id: string }) => u.id)).toEqual(
      [bob.user.id],
    );
    const um = await w.call(alice, "DELETE", `/2/users/${alice.user.id}/muting/${bob.user.id}`);
    expect(um.body).toEqual({ data: { muting: false } });
    expect((await w.get(alice, `/2/users/${alice.user.id}/muting`)).body).toEqual({ meta: { result_count: 0 } });

    await w.admin("POST", "/_sandbox/blocks", { source_user_id: alice.user.id, target_user_id: bob.user.id });
    expect(
      (await w.get(alice, `/2/users/${alice.user.id}/blocking`)).body.data.map((u: { id: string }) => u.id),
    ).toEqual([bob.user.id]);
    expect((await w.get(bob, `/2/users/${alice.user.id}/blocking`)).status).toBe(403);
    expect((await w.get(bob, `/2/users/${alice.user.id}/muting`)).status).toBe(403);
    const blocked = await w.call(bob, "POST", `/2/users/${bob.user.id}/following`, {
      json: { target_user_id: alice.user.id },
    });
    expect(blocked.status).toBe(403);
  });
});

describe("admin world routes", () => {
  it("creates users with the username rules and posts outside the API", async () => {
    const made = await w.admin("POST", "/_sandbox/users", { username: "admin_made", name: "Made" });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.any(String), username: "admin_made", name: "Made" });
    const taken = await w.admin("POST", "/_sandbox/users", { username: "ADMIN_MADE" });
    expect(taken.status).toBe(400);
    expect(taken.body.errors[0].message).toMatch(/is taken/);
    const bad = await w.admin("POST", "/_sandbox/users", { username: "has space" });
    expect(bad.status).toBe(400);
    const long = await w.admin("POST", "/_sandbox/users", { username: "a".repeat(16) });
    expect(long.status).toBe(400);
    const post = await w.admin("POST", "/_sandbox/posts", { author_id: made.body.id, text: "from the crowd" });
    expect(post.status).toBe(201);
    expect(post.body).toMatchObject({
      id: expect.any(String),
      text: "from the crowd",
      author_id: made.body.id,
      conversation_id: post.body.id,
    });
    const reply = await w.admin("POST", "/_sandbox/posts", {
      author_id: made.body.id,
      text: "again",
      in_reply_to_post_id: post.body.id,
    });
    expect(reply.body).toMatchObject({
      in_reply_to_user_id: made.body.id,
      referenced_posts: [{ type: "replied_to", id: post.body.id }],
    });
    const noAuthor = await w.admin("POST", "/_sandbox/posts", { author_id: "1", text: "ghost" });
    expect(noAuthor.status).toBe(400);
  });
});
