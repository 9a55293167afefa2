import { describe, expect, it } from "vitest";
import type { Account } from "../../helpers/sandbox.ts";
import { ids, useWorld } from "./world.ts";

const w = useWorld();

async function makeList(owner: Account, body: Record<string, unknown>): Promise<string> {
  const res = await w.call(owner, "POST", "/2/lists", { json: body });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

describe("lists: create, look up, update, delete", () => {
  it("creates (201 {id, name}), looks up with list.fields and the owner expanded, updates and deletes", async () => {
    const alice = await w.user("ls_a");
    const made = await w.call(alice, "POST", "/2/lists", {
      json: { name: "cat people", description: "people who like cats" },
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ data: { id: expect.stringMatching(/^\d+$/), name: "cat people" } });
    const id = made.body.data.id;
    const plain = await w.get(alice, `/2/lists/${id}`);
    expect(plain.body).toEqual({ data: { id, name: "cat people" } });
    const full = await w.get(alice, `/2/lists/${id}`, {
      "list.fields": "created_at,description,follower_count,member_count,owner_id,private",
      expansions: "owner_id",
      "user.fields": "created_at",
    });
    expect(full.body.data).toEqual({
      id,
      name: "cat people",
      created_at: new Date(w.t.clock.now()).toISOString(),
      description: "people who like cats",
      follower_count: 0,
      member_count: 0,
      owner_id: alice.user.id,
      private: false,
    });
    expect(full.body.includes.users).toEqual([
      { id: alice.user.id, name: "ls_a", username: "ls_a", created_at: expect.any(String) },
    ]);

    const upd = await w.call(alice, "PUT", `/2/lists/${id}`, { json: { name: "cat fans", private: true } });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ data: { updated: true } });
    expect((await w.get(alice, `/2/lists/${id}`, { "list.fields": "private" })).body.data).toEqual({
      id,
      name: "cat fans",
      private: true,
    });

    const del = await w.call(alice, "DELETE", `/2/lists/${id}`);
    expect(del.body).toEqual({ data: { deleted: true } });
    const gone = await w.get(alice, `/2/lists/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.body.errors[0]).toMatchObject({
      resource_type: "list",
      parameter: "id",
      resource_id: id,
      detail: `Could not find list with id: [${id}].`,
    });
    expect((await w.call(alice, "DELETE", `/2/lists/${id}`)).status).toBe(404);
  });

  it("refuses bad bodies and parameters: name 1–25, description ≤ 100, unknown fields and parameters", async () => {
    const alice = await w.user("ls_bad");
    const long = await w.call(alice, "POST", "/2/lists", { json: { name: "x".repeat(26) } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].message).toContain("1 to 25 characters");
    expect((await w.call(alice, "POST", "/2/lists", { json: { name: "  " } })).status).toBe(400);
    expect(
      (await w.call(alice, "POST", "/2/lists", { json: { name: "ok", description: "d".repeat(101) } })).status,
    ).toBe(400);
    expect((await w.call(alice, "POST", "/2/lists", { json: { name: "ok", secret: true } })).status).toBe(400);
    expect((await w.call(alice, "POST", "/2/lists", { json: { name: "ok", private: "yes" } })).status).toBe(400);
    const id = await makeList(alice, { name: "fine" });
    expect((await w.get(alice, `/2/lists/${id}`, { "list.fields": "colour" })).status).toBe(400);
    expect((await w.get(alice, `/2/lists/${id}`, { expansions: "author_id" })).status).toBe(400);
    expect((await w.get(alice, `/2/lists/${id}`, { list_fields: "name" })).status).toBe(400);
    expect((await w.get(alice, "/2/lists/abc")).status).toBe(400);
  });

  it("lets only the owner update, delete, and change members (403 for others, 404 for no list)", async () => {
    const owner = await w.user("ls_own");
    const other = await w.user("ls_oth");
    const id = await makeList(owner, { name: "mine" });
    const upd = await w.call(other, "PUT", `/2/lists/${id}`, { json: { name: "theirs" } });
    expect(upd.status).toBe(403);
    expect(upd.body.detail).toMatch(/only its owner/);
    expect((await w.call(other, "DELETE", `/2/lists/${id}`)).status).toBe(403);
    expect((await w.call(other, "POST", `/2/lists/${id}/members`, { json: { user_id: other.user.id } })).status).toBe(
      403,
    );
    expect((await w.call(other, "DELETE", `/2/lists/${id}/members/${owner.user.id}`)).status).toBe(403);
    expect((await w.call(owner, "PUT", "/2/lists/12345", { json: { name: "x" } })).status).toBe(404);
    expect((await w.get(owner, `/2/lists/${id}`)).body.data.name).toBe("mine");
  });
});

describe("members, list posts, memberships", () => {
  it("adds and removes members; the list's posts are its members' posts, newest first, paged", async () => {
    const owner = await w.user("lm_o");
    const bob = await w.user("lm_b");
    const carol = await w.user("lm_c");
    const outsider = await w.user("lm_x");
    const id = await makeList(owner, { name: "friends" });
    for (const m of [bob, carol]) {
      await w.t.clock.advance(1000);
      const add = await w.call(owner, "POST", `/2/lists/${id}/members`, { json: { user_id: m.user.id } });
      expect(add.body).toEqual({ data: { is_member: true } });
    }
    expect((await w.call(owner, "POST", `/2/lists/${id}/members`, { json: { user_id: bob.user.id } })).body).toEqual({
      data: { is_member: true },
    });
    expect((await w.call(owner, "POST", `/2/lists/${id}/members`, { json: { user_id: "999" } })).status).toBe(404);
    const members = await w.get(outsider, `/2/lists/${id}/members`);
    expect(ids(members)).toEqual([carol.user.id, bob.user.id]);
    expect(members.body.meta).toEqual({ result_count: 2 });
    expect((await w.get(outsider, `/2/lists/${id}`, { "list.fields": "member_count" })).body.data.member_count).toBe(2);
    expect(
      (await w.get(outsider, `/2/users/${bob.user.id}`, { "user.fields": "public_metrics" })).body.data.public_metrics
        .listed_count,
    ).toBe(1);

    const b1 = await w.post(bob, "bob one");
    const c1 = await w.post(carol, "carol one");
    await w.post(outsider, "not on the list");
    const b2 = await w.post(bob, "bob two");
    const first = await w.get(outsider, `/2/lists/${id}/posts`, { max_results: "2", "post.fields": "author_id" });
    expect(ids(first)).toEqual([b2.id, c1.id]);
    expect(first.body.data[0].author_id).toBe(bob.user.id);
    expect(first.body.meta).toEqual({ result_count: 2, next_token: expect.any(String) });
    const second = await w.get(outsider, `/2/lists/${id}/posts`, {
      max_results: "2",
      pagination_token: first.body.meta.next_token,
    });
    expect(ids(second)).toEqual([b1.id]);

    const memberships = await w.get(outsider, `/2/users/${bob.user.id}/list_memberships`, {
      "list.fields": "owner_id",
    });
    expect(memberships.body.data).toEqual([{ id, name: "friends", owner_id: owner.user.id }]);

    const rm = await w.call(owner, "DELETE", `/2/lists/${id}/members/${bob.user.id}`);
    expect(rm.body).toEqual({ data: { is_member: false } });
    expect(ids(await w.get(outsider, `/2/lists/${id}/members`))).toEqual([carol.user.id]);
    expect(ids(await w.get(outsider, `/2/lists/${id}/posts`))).toEqual([c1.id]);
    expect((await w.get(outsider, `/2/users/${bob.user.id}/list_memberships`)).body).toEqual({
      meta: { result_count: 0 },
    });
  });

  it("refuses to add someone who blocks the owner", async () => {
    const owner = await w.user("lm_bo");
    const blocker = await w.user("lm_bb");
    await w.admin("POST", "/_sandbox/blocks", { source_user_id: blocker.user.id, target_user_id: owner.user.id });
    const id = await makeList(owner, { name: "nope" });
    expect((await w.call(owner, "POST", `/2/lists/${id}/members`, { json: { user_id: blocker.user.id } })).status).toBe(
      403,
    );
  });
});

describe("owned lists, follows and private lists", () => {
  it("lists owned lists newest first; follows and unfollows; lists followers and followed lists", async () => {
    const owner = await w.user("lf_o");
    const fan = await w.user("lf_f");
    const l1 = await makeList(owner, { name: "one" });
    await w.t.clock.advance(1000);
    const l2 = await makeList(owner, { name: "two" });
    expect(ids(await w.get(fan, `/2/users/${owner.user.id}/owned_lists`))).toEqual([l2, l1]);
    const paged = await w.get(fan, `/2/users/${owner.user.id}/owned_lists`, { max_results: "1" });
    expect(ids(paged)).toEqual([l2]);
    expect(
      ids(
        await w.get(fan, `/2/users/${owner.user.id}/owned_lists`, {
          max_results: "1",
          pagination_token: paged.body.meta.next_token,
        }),
      ),
    ).toEqual([l1]);

    const follow = await w.call(fan, "POST", `/2/users/${fan.user.id}/followed_lists`, { json: { list_id: l1 } });
    expect(follow.body).toEqual({ data: { following: true } });
    expect(ids(await w.get(owner, `/2/lists/${l1}/followers`))).toEqual([fan.user.id]);
    expect(ids(await w.get(owner, `/2/users/${fan.user.id}/followed_lists`))).toEqual([l1]);
    expect((await w.get(owner, `/2/lists/${l1}`, { "list.fields": "follower_count" })).body.data.follower_count).toBe(
      1,
    );
    const asOther = await w.call(owner, "POST", `/2/users/${fan.user.id}/followed_lists`, { json: { list_id: l1 } });
    expect(asOther.status).toBe(403);
    expect(
      (await w.call(fan, "POST", `/2/users/${fan.user.id}/followed_lists`, { json: { list_id: "4040" } })).status,
    ).toBe(404);
    const unfollow = await w.call(fan, "DELETE", `/2/users/${fan.user.id}/followed_lists/${l1}`);
    expect(unfollow.body).toEqual({ data: { following: false } });
    expect((await w.get(owner, `/2/lists/${l1}/followers`)).body).toEqual({ meta: { result_count: 0 } });
  });

  it("shows a private list to its owner only: not authorized on lookups, absent from listings, 403 on follow", async () => {
    const owner = await w.user("lp_o");
    const other = await w.user("lp_x");
    const member = await w.user("lp_m");
    const secret = await makeList(owner, { name: "secret", private: true });
    const open = await makeList(owner, { name: "open" });
    await w.call(owner, "POST", `/2/lists/${secret}/members`, { json: { user_id: member.user.id } });
    await w.post(member, "member's post");

    expect((await w.get(owner, `/2/lists/${secret}`, { "list.fields": "private" })).body.data).toEqual({
      id: secret,
      name: "secret",
      private: true,
    });
    const peek = await w.get(other, `/2/lists/${secret}`);
    expect(peek.status).toBe(200);
    expect(peek.body.data).toBeUndefined();
    expect(peek.body.errors).toEqual([
      {
        value: secret,
        detail: `Sorry, you are not authorized to see the List with id: [${secret}].`,
        title: "Authorization Error",
        resource_type: "list",
        parameter: "id",
        resource_id: secret,
        section: "data",
        type: "https://api.twitter.com/2/problems/not-authorized-for-resource",
      },
    ]);
    for (const path of [`/2/lists/${secret}/members`, `/2/lists/${secret}/posts`, `/2/lists/${secret}/followers`]) {
      const res = await w.get(other, path);
      expect(res.body.errors[0].type).toMatch(/not-authorized-for-resource$/);
      expect(res.body.data).toBeUndefined();
    }
    expect(ids(await w.get(other, `/2/users/${owner.user.id}/owned_lists`))).toEqual([open]);
    expect(ids(await w.get(owner, `/2/users/${owner.user.id}/owned_lists`))).toEqual([open, secret]);
    expect((await w.get(other, `/2/users/${member.user.id}/list_memberships`)).body).toEqual({
      meta: { result_count: 0 },
    });
    expect(ids(await w.get(owner, `/2/users/${member.user.id}/list_memberships`))).toEqual([secret]);
    expect(
      (await w.get(other, `/2/users/${member.user.id}`, { "user.fields": "public_metrics" })).body.data.public_metrics
        .listed_count,
    ).toBe(0);
    expect(
      (await w.call(other, "POST", `/2/users/${other.user.id}/followed_lists`, { json: { list_id: secret } })).status,
    ).toBe(403);
    expect(
      (await w.call(other, "POST", `/2/users/${other.user.id}/pinned_lists`, { json: { list_id: secret } })).status,
    ).toBe(403);

    const bearer = await w.t.appBearer(w.app);
    const asApp = await w.t.bearer(bearer, "GET", `/2/lists/${secret}`);
    expect(asApp.body.errors[0].title).toBe("Authorization Error");
    expect((await w.t.bearer(bearer, "GET", `/2/lists/${open}`)).body.data).toEqual({ id: open, name: "open" });
  });
});

describe("pinned lists", () => {
  it("pins up to five lists, refuses a sixth with a 403, unpins; only the caller's own pins are readable", async () => {
    const owner = await w.user("lpin_o");
    const pinner = await w.user("lpin_p");
    const lists: string[] = [];
    for (let i = 0; i < 6; i++) lists.push(await makeList(owner, { name: `list ${i}` }));
    for (const id of lists.slice(0, 5)) {
      await w.t.clock.advance(1000);
      const pin = await w.call(pinner, "POST", `/2/users/${pinner.user.id}/pinned_lists`, { json: { list_id: id } });
      expect(pin.body).toEqual({ data: { pinned: true } });
    }
    const again = await w.call(pinner, "POST", `/2/users/${pinner.user.id}/pinned_lists`, {
      json: { list_id: lists[0] },
    });
    expect(again.body).toEqual({ data: { pinned: true } });
    const sixth = await w.call(pinner, "POST", `/2/users/${pinner.user.id}/pinned_lists`, {
      json: { list_id: lists[5] },
    });
    expect(sixth.status).toBe(403);
    expect(sixth.body).toMatchObject({ title: "Forbidden", type: "about:blank", status: 403 });
    expect(sixth.body.detail).toMatch(/cannot pin more than 5 Lists/);

    const pinned = await w.get(pinner, `/2/users/${pinner.user.id}/pinned_lists`, { "list.fields": "owner_id" });
    expect(ids(pinned)).toEqual([...lists.slice(0, 5)].reverse());
    expect(pinned.body.meta).toEqual({ result_count: 5 });
    expect((await w.get(pinner, `/2/users/${pinner.user.id}/pinned_lists`, { max_results: "2" })).status).toBe(400);
    expect((await w.get(owner, `/2/users/${pinner.user.id}/pinned_lists`)).status).toBe(403);

    const unpin = await w.call(pinner, "DELETE", `/2/users/${pinner.user.id}/pinned_lists/${lists[0]}`);
    expect(unpin.body).toEqual({ data: { pinned: false } });
    expect(
      (await w.call(pinner, "POST", `/2/users/${pinner.user.id}/pinned_lists`, { json: { list_id: lists[5] } })).status,
    ).toBe(200);

    await w.call(owner, "DELETE", `/2/lists/${lists[1]}`);
    expect(ids(await w.get(pinner, `/2/users/${pinner.user.id}/pinned_lists`))).not.toContain(lists[1]);
  });
});
