import { describe, expect, it } from "vitest";
import { ids, useWorld } from "./world.ts";

const w = useWorld();

describe("user posts timeline", () => {
  it("lists a user's posts newest first, with exclude, meta and paging both ways", async () => {
    const alice = await w.user("tl_a");
    const bob = await w.user("tl_b");
    const other = await w.post(bob, "bob's post");
    const made: string[] = [];
    for (let i = 0; i < 6; i++) {
      await w.t.clock.advance(1000);
      made.push((await w.post(alice, `post number ${i}`)).id);
    }
    const reply = await w.post(alice, "a reply", { in_reply_to_post_id: other.id });
    const rp = await w.call(alice, "POST", `/2/users/${alice.user.id}/reposts`, { json: { post_id: other.id } });
    const all = await w.get(alice, `/2/users/${alice.user.id}/posts`);
    expect(ids(all)).toEqual([rp.body.data.id, reply.id, ...[...made].reverse()]);
    expect(all.body.meta).toEqual({ newest_id: rp.body.data.id, oldest_id: made[0], result_count: 8 });

    const own = await w.get(alice, `/2/users/${alice.user.id}/posts`, { exclude: "replies,reposts" });
    expect(ids(own)).toEqual([...made].reverse());

    const p1 = await w.get(alice, `/2/users/${alice.user.id}/posts`, { exclude: "replies,reposts", max_results: "5" });
    expect(ids(p1)).toEqual([made[5], made[4], made[3], made[2], made[1]]);
    expect(p1.body.meta.next_token).toEqual(expect.any(String));
    expect(p1.body.meta.previous_token).toBeUndefined();
    const p2 = await w.get(alice, `/2/users/${alice.user.id}/posts`, {
      exclude: "replies,reposts",
      max_results: "5",
      pagination_token: p1.body.meta.next_token,
    });
    expect(ids(p2)).toEqual([made[0]]);
    expect(p2.body.meta).toEqual({
      newest_id: made[0],
      oldest_id: made[0],
      result_count: 1,
      previous_token: expect.any(String),
    });

    const small = await w.get(alice, `/2/users/${alice.user.id}/posts`, { max_results: "4" });
    expect(small.status).toBe(400);
    expect(small.body.errors[0].message).toBe("The `max_results` query parameter value [4] is not between 5 and 100");
    const badExclude = await w.get(alice, `/2/users/${alice.user.id}/posts`, { exclude: "likes" });
    expect(badExclude.status).toBe(400);
  });

  it("filters by since_id, until_id, start_time and end_time (ids winning over times)", async () => {
    const alice = await w.user("win_a");
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      await w.t.clock.advance(60_000);
      made.push((await w.post(alice, `windowed ${i}`)).id);
    }
    const since = await w.get(alice, `/2/users/${alice.user.id}/posts`, { since_id: made[1]! });
    expect(ids(since)).toEqual([made[3], made[2]]);
    const until = await w.get(alice, `/2/users/${alice.user.id}/posts`, { until_id: made[2]! });
    expect(ids(until)).toEqual([made[1], made[0]]);
    const created = (i: number) =>
      new Date(w.t.sandbox.context.data.world.posts[made[i]!]!.created_at).toISOString().replace(".000", "");
    const times = await w.get(alice, `/2/users/${alice.user.id}/posts`, {
      start_time: created(1),
      end_time: created(3),
    });
    expect(ids(times)).toEqual([made[2], made[1]]);
    const both = await w.get(alice, `/2/users/${alice.user.id}/posts`, {
      since_id: made[2]!,
      start_time: created(0),
      end_time: created(1),
    });
    expect(ids(both)).toEqual([made[3]]);
    const badTime = await w.get(alice, `/2/users/${alice.user.id}/posts`, { start_time: "yesterday" });
    expect(badTime.status).toBe(400);
    expect(badTime.body.errors[0].message).toMatch(/^Invalid 'start_time':'yesterday'/);
  });

  it("answers {meta:{result_count:0}} when empty and a partial error for a missing user", async () => {
    const alice = await w.user("empty_a");
    expect((await w.get(alice, `/2/users/${alice.user.id}/posts`)).body).toEqual({ meta: { result_count: 0 } });
    const missing = await w.get(alice, "/2/users/4242/posts");
    expect(missing.status).toBe(200);
    expect(missing.body.errors[0].detail).toBe("Could not find user with id: [4242].");
  });
});

describe("mentions timeline", () => {
  it("lists posts mentioning the user and replies to the user, not their own posts or reposts", async () => {
    const alice = await w.user("men_a");
    const bob = await w.user("men_b");
    const own = await w.post(alice, "I am @men_a");
    const mention = await w.post(bob, "hey @MEN_A look");
    const reply = await w.post(bob, "no mention in text", { in_reply_to_post_id: own.id });
    await w.call(bob, "POST", `/2/users/${bob.user.id}/reposts`, { json: { post_id: own.id } });
    await w.post(bob, "unrelated");
    const res = await w.get(alice, `/2/users/${alice.user.id}/mentions`, { expansions: "author_id" });
    expect(ids(res)).toEqual([reply.id, mention.id]);
    expect(res.body.includes.users).toEqual([{ id: bob.user.id, name: "men_b", username: "men_b" }]);
  });
});

describe("home timeline", () => {
  it("shows the caller's posts and their follows', minus mutes; :id must be the caller", async () => {
    const alice = await w.user("home_a");
    const bob = await w.user("home_b");
    const carol = await w.user("home_c");
    const dave = await w.user("home_d");
    expect(
      (await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, { json: { target_user_id: bob.user.id } }))
        .body,
    ).toEqual({
      data: { following: true, pending_follow: false },
    });
    await w.call(alice, "POST", `/2/users/${alice.user.id}/following`, { json: { target_user_id: dave.user.id } });
    await w.call(alice, "POST", `/2/users/${alice.user.id}/muting`, { json: { target_user_id: dave.user.id } });
    const a = await w.post(alice, "mine");
    const b = await w.post(bob, "bob's");
    await w.post(carol, "carol's, not followed");
    await w.post(dave, "dave's, muted");
    const res = await w.get(alice, `/2/users/${alice.user.id}/timelines/reverse_chronological`);
    expect(ids(res)).toEqual([b.id, a.id]);
    const other = await w.get(alice, `/2/users/${bob.user.id}/timelines/reverse_chronological`);
    expect(other.status).toBe(403);
    expect(other.body.detail).toMatch(/must be the authenticated user's id/);
  });
});
