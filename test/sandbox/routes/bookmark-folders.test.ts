import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();
const SCOPES = ["post.read", "users.read", "bookmark.read", "bookmark.write"];

describe("bookmark folders (PKCE)", () => {
  it("lists a user's folders and the ids of the posts in one; folders come from the admin API", async () => {
    const alice = await w.user("bf_a");
    const bob = await w.user("bf_b");
    const p1 = await w.post(bob, "recipe one");
    const p2 = await w.post(bob, "recipe two");
    await w.post(bob, "not a recipe");
    const token = (await w.t.pkce(w.app, alice.user, SCOPES)).access_token;
    const get = (path: string, query?: Record<string, string>) =>
      w.t.bearer(token, "GET", path, query ? { query } : {});

    expect((await get(`/2/users/${alice.user.id}/bookmarks/folders`)).body).toEqual({ meta: { result_count: 0 } });
    await w.t.bearer(token, "POST", `/2/users/${alice.user.id}/bookmarks`, { json: { post_id: p1.id } });
    const made = await w.admin("POST", "/_sandbox/bookmark_folders", {
      user_id: alice.user.id,
      name: "Recipes",
      post_ids: [p1.id, p2.id],
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ id: expect.stringMatching(/^\d+$/), name: "Recipes" });
    await w.t.clock.advance(1000);
    const empty = await w.admin("POST", "/_sandbox/bookmark_folders", { user_id: alice.user.id, name: "Later" });

    const folders = await get(`/2/users/${alice.user.id}/bookmarks/folders`);
    expect(folders.body).toEqual({
      data: [
        { id: empty.body.id, name: "Later" },
        { id: made.body.id, name: "Recipes" },
      ],
      meta: { result_count: 2 },
    });
    const first = await get(`/2/users/${alice.user.id}/bookmarks/folders`, { max_results: "1" });
    expect(first.body.data).toEqual([{ id: empty.body.id, name: "Later" }]);
    const rest = await get(`/2/users/${alice.user.id}/bookmarks/folders`, {
      max_results: "1",
      pagination_token: first.body.meta.next_token,
    });
    expect(rest.body.data).toEqual([{ id: made.body.id, name: "Recipes" }]);

    const inFolder = await get(`/2/users/${alice.user.id}/bookmarks/folders/${made.body.id}`);
    expect(inFolder.body.data.map((x: { id: string }) => x.id).sort()).toEqual([p1.id, p2.id].sort());
    expect(Object.keys(inFolder.body.data[0])).toEqual(["id"]);
    expect((await get(`/2/users/${alice.user.id}/bookmarks/folders/${empty.body.id}`)).body).toEqual({
      meta: { result_count: 0 },
    });

    // Bookmarked through the folder route, they are bookmarks like any other.
    const all = await get(`/2/users/${alice.user.id}/bookmarks`);
    expect(all.body.data.map((x: { id: string }) => x.id).sort()).toEqual([p1.id, p2.id].sort());
    await w.t.bearer(token, "DELETE", `/2/users/${alice.user.id}/bookmarks/${p2.id}`);
    expect((await get(`/2/users/${alice.user.id}/bookmarks/folders/${made.body.id}`)).body.data).toEqual([
      { id: p1.id },
    ]);

    const missing = await get(`/2/users/${alice.user.id}/bookmarks/folders/123`);
    expect(missing.status).toBe(200);
    expect(missing.body.errors[0]).toMatchObject({
      resource_type: "bookmark_folder",
      parameter: "folder_id",
      resource_id: "123",
    });
    expect((await get(`/2/users/${bob.user.id}/bookmarks/folders`)).status).toBe(403);
    expect((await get(`/2/users/${alice.user.id}/bookmarks/folders`, { sort: "name" })).status).toBe(400);
    expect((await w.get(alice, `/2/users/${alice.user.id}/bookmarks/folders`)).status).toBe(403);

    expect((await w.admin("POST", "/_sandbox/bookmark_folders", { user_id: alice.user.id, name: "" })).status).toBe(
      400,
    );
    expect(
      (await w.admin("POST", "/_sandbox/bookmark_folders", { user_id: alice.user.id, name: "x", post_ids: ["42"] }))
        .status,
    ).toBe(404);
    expect((await w.admin("POST", "/_sandbox/bookmark_folders", { user_id: "42", name: "x" })).status).toBe(400);
  });

  it("serves POST and GET /2/posts/:id/bookmarks with :id the bookmarking user, as the client calls them", async () => {
    const alice = await w.user("bf_p");
    const bob = await w.user("bf_q");
    const post = await w.post(bob, "keep this");
    const token = (await w.t.pkce(w.app, alice.user, SCOPES)).access_token;
    const add = await w.t.bearer(token, "POST", `/2/posts/${alice.user.id}/bookmarks`, { json: { post_id: post.id } });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ data: { bookmarked: true } });
    const list = await w.t.bearer(token, "GET", `/2/posts/${alice.user.id}/bookmarks`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([post.id]);
    expect(
      (await w.t.bearer(token, "GET", `/2/users/${alice.user.id}/bookmarks`)).body.data.map(
        (x: { id: string }) => x.id,
      ),
    ).toEqual([post.id]);
    expect(
      (await w.t.bearer(token, "POST", `/2/posts/${bob.user.id}/bookmarks`, { json: { post_id: post.id } })).status,
    ).toBe(403);
    expect(
      (await w.call(alice, "POST", `/2/posts/${alice.user.id}/bookmarks`, { json: { post_id: post.id } })).status,
    ).toBe(403);
  });
});
