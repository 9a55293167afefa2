import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();

describe("post lookup", () => {
  it("GET /2/posts/:id answers the default fields, or a partial error with HTTP 200", async () => {
    const alice = await w.user("lookup_a");
    const p = await w.post(alice, "hello world");
    const res = await w.get(alice, `/2/posts/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: p.id, text: "hello world", edit_history_post_ids: [p.id] } });

    const missing = await w.get(alice, "/2/posts/12345");
    expect(missing.status).toBe(200);
    expect(missing.body).toEqual({
      errors: [
        {
          value: "12345",
          detail: "Could not find post with id: [12345].",
          title: "Not Found Error",
          resource_type: "post",
          parameter: "id",
          resource_id: "12345",
          type: "https://api.twitter.com/2/problems/resource-not-found",
        },
      ],
    });
  });

  it("GET /2/posts?ids answers data for the found ones and errors for the rest", async () => {
    const alice = await w.user("lookup_b");
    const a = await w.post(alice, "one");
    const b = await w.post(alice, "two");
    const res = await w.get(alice, "/2/posts", { ids: `${a.id},999,${b.id}` });
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({
      parameter: "ids",
      resource_id: "999",
      detail: "Could not find post with ids: [999].",
    });
  });

  it("refuses bad ids, unknown parameters and unknown field values with 400 naming them", async () => {
    const alice = await w.user("lookup_c");
    const bad = await w.get(alice, "/2/posts", { ids: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe("https://api.twitter.com/2/problems/invalid-request");
    expect(bad.body.errors[0].message).toContain("[abc]");
    const empty = await w.get(alice, "/2/posts", {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].message).toBe("The `ids` query parameter can not be empty");
    const unknown = await w.get(alice, "/2/posts/1", { foo: "bar" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ parameters: { foo: ["bar"] } });
    expect(unknown.body.errors[0].message).toMatch(/^The query parameter \[foo\] is not one of \[/);
    const field = await w.get(alice, "/2/posts/1", { "post.fields": "created_at,bogus" });
    expect(field.status).toBe(400);
    expect(field.body.errors[0].message).toMatch(/The `post.fields` query parameter value \[bogus\] is not one of/);
    const tooMany = await w.get(alice, "/2/posts", {
      ids: Array.from({ length: 101 }, (_, i) => String(i + 1)).join(","),
    });
    expect(tooMany.status).toBe(400);
  });

  it("honours post.fields, user.fields and expansions, with includes only when non-empty", async () => {
    const alice = await w.user("fields_a");
    const bob = await w.user("fields_b");
    const root = await w.post(alice, "root post #hello");
    const reply = await w.post(bob, "@fields_a nice https://example.com", { in_reply_to_post_id: root.id });
    const res = await w.get(bob, `/2/posts/${reply.id}`, {
      "post.fields":
        "author_id,conversation_id,created_at,in_reply_to_user_id,referenced_posts,entities,public_metrics,lang",
      "user.fields": "username,created_at",
      expansions:
        "author_id,referenced_posts.id,referenced_posts.id.author_id,in_reply_to_user_id,entities.mentions.username",
    });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      id: reply.id,
      author_id: bob.user.id,
      conversation_id: root.id,
      in_reply_to_user_id: alice.user.id,
      referenced_posts: [{ type: "replied_to", id: root.id }],
      lang: "en",
      created_at: "2026-03-02T12:00:00.000Z",
      public_metrics: {
        repost_count: 0,
        reply_count: 0,
        like_count: 0,
        quote_count: 0,
        bookmark_count: 0,
        impression_count: 0,
      },
    });
    expect(d.entities.mentions).toEqual([{ start: 0, end: 9, username: "fields_a", id: alice.user.id }]);
    expect(d.entities.urls[0]).toMatchObject({ start: 15, end: 34, expanded_url: "https://example.com" });
    expect(res.body.includes.posts).toEqual([
      expect.objectContaining({ id: root.id, text: "root post #hello", author_id: alice.user.id }),
    ]);
    const userIds = res.body.includes.users.map((u: { id: string }) => u.id).sort();
    expect(userIds).toEqual([alice.user.id, bob.user.id].sort());
    expect(res.body.includes.users[0].created_at).toMatch(/Z$/);

    const rootView = await w.get(alice, `/2/posts/${root.id}`, { "post.fields": "public_metrics" });
    expect(rootView.body.data.public_metrics.reply_count).toBe(1);
    const plain = await w.get(alice, `/2/posts/${root.id}`, { expansions: "author_id" });
    expect(plain.body.includes.users).toEqual([{ id: alice.user.id, name: "fields_a", username: "fields_a" }]);
    const none = await w.get(alice, `/2/posts/${root.id}`, { expansions: "referenced_posts.id" });
    expect(none.body.includes).toBeUndefined();
  });

  it("gives not-authorized partial errors for protected posts to non-followers, and the post to followers", async () => {
    const owner = await w.user("prot_owner");
    const stranger = await w.user("prot_stranger");
    const friend = await w.user("prot_friend");
    await w.admin("PATCH", "/_sandbox/users", { id: owner.user.id, protected: true });
    await w.admin("POST", "/_sandbox/follows", { source_user_id: friend.user.id, target_user_id: owner.user.id });
    const p = await w.post(owner, "secret stuff");
    const denied = await w.get(stranger, `/2/posts/${p.id}`);
    expect(denied.status).toBe(200);
    expect(denied.body.errors[0]).toMatchObject({
      title: "Authorization Error",
      type: "https://api.twitter.com/2/problems/not-authorized-for-resource",
      section: "data",
      detail: `Sorry, you are not authorized to see the Post with id: [${p.id}].`,
    });
    const allowed = await w.get(friend, `/2/posts/${p.id}`);
    expect(allowed.body.data.text).toBe("secret stuff");
  });
});

describe("post creation", () => {
  it("creates with 201 and the real shape, sets reply metadata, and emits post:created", async () => {
    const alice = await w.user("create_a");
    const bob = await w.user("create_b");
    const seen: string[] = [];
    const listener = (p: { id: string }) => seen.push(p.id);
    w.t.sandbox.context.events.on("post:created", listener);
    const root = await w.call(alice, "POST", "/2/posts", { json: { text: "first!" } });
    expect(root.status).toBe(201);
    expect(root.body).toEqual({
      data: { id: expect.any(String), text: "first!", edit_history_post_ids: [root.body.data.id] },
    });
    const reply = await w.call(bob, "POST", "/2/posts", {
      json: { text: "@create_a welcome", reply: { in_reply_to_post_id: root.body.data.id } },
    });
    expect(reply.status).toBe(201);
    const second = await w.call(alice, "POST", "/2/posts", {
      json: { text: "thanks", reply: { in_reply_to_post_id: reply.body.data.id } },
    });
    const view = await w.get(alice, `/2/posts/${second.body.data.id}`, {
      "post.fields": "conversation_id,in_reply_to_user_id,source",
    });
    expect(view.body.data).toMatchObject({
      conversation_id: root.body.data.id,
      in_reply_to_user_id: bob.user.id,
      source: w.app.name,
    });
    w.t.sandbox.context.events.off("post:created", listener);
    expect(seen).toEqual([root.body.data.id, reply.body.data.id, second.body.data.id]);
  });

  it("refuses duplicate content by the same author with the service's 403", async () => {
    const alice = await w.user("dup_a");
    const bob = await w.user("dup_b");
    expect((await w.call(alice, "POST", "/2/posts", { json: { text: "same words" } })).status).toBe(201);
    const dup = await w.call(alice, "POST", "/2/posts", { json: { text: "same words" } });
    expect(dup.status).toBe(403);
    expect(dup.body).toEqual({
      detail: "You are not allowed to create a post with duplicate content.",
      type: "about:blank",
      title: "Forbidden",
      status: 403,
    });
    expect((await w.call(bob, "POST", "/2/posts", { json: { text: "same words" } })).status).toBe(201);
  });

  it("refuses text over 280 weighted characters, and accepts 280", async () => {
    const alice = await w.user("len_a");
    expect((await w.call(alice, "POST", "/2/posts", { json: { text: "a".repeat(280) } })).status).toBe(201);
    const long = await w.call(alice, "POST", "/2/posts", { json: { text: "b".repeat(281) } });
    expect(long.status).toBe(403);
    expect(long.body.detail).toMatch(/too long: it counts 281 characters and the limit is 280/);
    const cjk = await w.call(alice, "POST", "/2/posts", { json: { text: "日".repeat(141) } });
    expect(cjk.status).toBe(403);
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
    expect((await w.call(alice, "POST", "/2/posts", { json: { text: family.repeat(140) } })).status).toBe(201);
    const over = await w.call(alice, "POST", "/2/posts", { json: { text: "a" + family.repeat(140) } });
    expect(over.body.detail).toMatch(/it counts 281 characters/);
  });

  it("refuses text with a lone surrogate or a NUL character as invalid", async () => {
    const alice = await w.user("bad_text");
    for (const [raw, message] of [
      [
        '{"text":"half a pair \\ud83d here"}',
        "The post text contains a lone surrogate (half of a UTF-16 pair); send well-formed Unicode text",
      ],
      ['{"text":"nul \\u0000 here"}', "The post text contains a NUL character (U+0000); remove it"],
    ] as const) {
      const res = await w.call(alice, "POST", "/2/posts", { raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expect(res.body.type).toBe("https://api.twitter.com/2/problems/invalid-request");
      expect(res.body.errors[0]).toEqual({ parameters: { text: [] }, message });
    }
  });

  it("refuses replies to missing posts, mutually exclusive options, unknown fields and bad bodies", async () => {
    const alice = await w.user("bad_a");
    const missing = await w.call(alice, "POST", "/2/posts", {
      json: { text: "hi", reply: { in_reply_to_post_id: "123" } },
    });
    expect(missing.status).toBe(403);
    expect(missing.body.detail).toBe("You attempted to reply to a post that is deleted or not visible to you.");
    const p = await w.post(alice, "quotable");
    const both = await w.call(alice, "POST", "/2/posts", {
      json: { text: "x", quote_post_id: p.id, poll: { options: ["a", "b"], duration_minutes: 10 } },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].message).toMatch(/mutually exclusive/);
    const unknown = await w.call(alice, "POST", "/2/posts", { json: { text: "x", colour: "red" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toContain("$.colour");
    const wrongType = await w.call(alice, "POST", "/2/posts", { json: { text: 5 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errors[0].message).toContain("$.text");
    const noBody = await w.call(alice, "POST", "/2/posts");
    expect(noBody.status).toBe(400);
  });

  it("quotes, and lists quote posts", async () => {
    const alice = await w.user("quote_a");
    const bob = await w.user("quote_b");
    const p = await w.post(alice, "quote me");
    const q = await w.call(bob, "POST", "/2/posts", { json: { text: "so true", quote_post_id: p.id } });
    expect(q.status).toBe(201);
    const list = await w.get(alice, `/2/posts/${p.id}/quote_posts`, { "post.fields": "referenced_posts" });
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: q.body.data.id, referenced_posts: [{ type: "quoted", id: p.id }] }),
    ]);
    expect(list.body.meta).toEqual({ result_count: 1 });
    const none = await w.get(alice, `/2/posts/${q.body.data.id}/quote_posts`);
    expect(none.body).toEqual({ meta: { result_count: 0 } });
  });

  it("honours a conversation's reply_settings", async () => {
    const alice = await w.user("rs_a");
    const bob = await w.user("rs_b");
    const carol = await w.user("rs_c");
    const root = await w.call(alice, "POST", "/2/posts", {
      json: { text: "only @rs_b may reply", reply_settings: "mentionedUsers" },
    });
    const ok = await w.call(bob, "POST", "/2/posts", {
      json: { text: "me!", reply: { in_reply_to_post_id: root.body.data.id } },
    });
    expect(ok.status).toBe(201);
    const no = await w.call(carol, "POST", "/2/posts", {
      json: { text: "me too", reply: { in_reply_to_post_id: root.body.data.id } },
    });
    expect(no.status).toBe(403);
    expect(no.body.detail).toMatch(/^Reply to this conversation is not allowed/);
  });

  it("creates a poll and expands it", async () => {
    const alice = await w.user("poll_a");
    const res = await w.call(alice, "POST", "/2/posts", {
      json: { text: "cats or dogs?", poll: { options: ["cats", "dogs"], duration_minutes: 60 } },
    });
    expect(res.status).toBe(201);
    const view = await w.get(alice, `/2/posts/${res.body.data.id}`, {
      expansions: "attachments.poll_ids",
      "post.fields": "attachments",
      "poll.fields": "duration_minutes,voting_status",
    });
    const pollId = view.body.data.attachments.poll_ids[0];
    expect(view.body.includes.polls).toEqual([
      {
        id: pollId,
        options: [
          { position: 1, label: "cats", votes: 0 },
          { position: 2, label: "dogs", votes: 0 },
        ],
        duration_minutes: 60,
        voting_status: "open",
      },
    ]);
  });
});

describe("delete and hide", () => {
  it("deletes (author only), emits post:deleted, and the post is then not found", async () => {
    const alice = await w.user("del_a");
    const bob = await w.user("del_b");
    const p = await w.post(alice, "to be deleted");
    const notMine = await w.call(bob, "DELETE", `/2/posts/${p.id}`);
    expect(notMine.status).toBe(403);
    const deleted: string[] = [];
    const listener = (x: { id: string }) => deleted.push(x.id);
    w.t.sandbox.context.events.on("post:deleted", listener);
    const res = await w.call(alice, "DELETE", `/2/posts/${p.id}`);
    w.t.sandbox.context.events.off("post:deleted", listener);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { deleted: true } });
    expect(deleted).toEqual([p.id]);
    expect((await w.get(alice, `/2/posts/${p.id}`)).body.errors[0].title).toBe("Not Found Error");
    const again = await w.call(alice, "DELETE", `/2/posts/${p.id}`);
    expect(again.status).toBe(404);
    expect(again.body.type).toBe("https://api.twitter.com/2/problems/resource-not-found");
  });

  it("hides and unhides replies: only the root's author, only replies", async () => {
    const alice = await w.user("hide_a");
    const bob = await w.user("hide_b");
    const root = await w.post(alice, "my thread");
    const reply = await w.post(bob, "rude reply", { in_reply_to_post_id: root.id });
    const byBob = await w.call(bob, "PUT", `/2/posts/${reply.id}/hidden`, { json: { hidden: true } });
    expect(byBob.status).toBe(403);
    const notReply = await w.call(alice, "PUT", `/2/posts/${root.id}/hidden`, { json: { hidden: true } });
    expect(notReply.status).toBe(403);
    const hide = await w.call(alice, "PUT", `/2/posts/${reply.id}/hidden`, { json: { hidden: true } });
    expect(hide.status).toBe(200);
    expect(hide.body).toEqual({ data: { hidden: true } });
    expect(w.t.sandbox.context.data.world.posts[reply.id]!.hidden).toBe(true);
    const unhide = await w.call(alice, "PUT", `/2/posts/${reply.id}/hidden`, { json: { hidden: false } });
    expect(unhide.body).toEqual({ data: { hidden: false } });
    const bad = await w.call(alice, "PUT", `/2/posts/${reply.id}/hidden`, { json: { hidden: "yes" } });
    expect(bad.status).toBe(400);
    const missing = await w.call(alice, "PUT", "/2/posts/42/hidden", { json: { hidden: true } });
    expect(missing.status).toBe(404);
  });
});

describe("liking users and reposted by", () => {
  it("lists the users who liked or reposted a post, newest first, with paging", async () => {
    const alice = await w.user("lu_a");
    const fans = [await w.user("lu_f1"), await w.user("lu_f2"), await w.user("lu_f3")];
    const p = await w.post(alice, "like this");
    for (const f of fans) {
      await w.t.clock.advance(1000);
      expect((await w.call(f, "POST", `/2/users/${f.user.id}/likes`, { json: { post_id: p.id } })).body).toEqual({
        data: { liked: true },
      });
      expect(
        (await w.call(f, "POST", `/2/users/${f.user.id}/reposts`, { json: { post_id: p.id } })).body.data.reposted,
      ).toBe(true);
    }
    const page1 = await w.get(alice, `/2/posts/${p.id}/liking_users`, { max_results: "2" });
    expect(page1.body.data.map((u: { username: string }) => u.username)).toEqual(["lu_f3", "lu_f2"]);
    expect(page1.body.meta).toEqual({ result_count: 2, next_token: expect.any(String) });
    const page2 = await w.get(alice, `/2/posts/${p.id}/liking_users`, {
      max_results: "2",
      pagination_token: page1.body.meta.next_token,
    });
    expect(page2.body.data.map((u: { username: string }) => u.username)).toEqual(["lu_f1"]);
    expect(page2.body.meta).toEqual({ result_count: 1, previous_token: expect.any(String) });
    const back = await w.get(alice, `/2/posts/${p.id}/liking_users`, {
      max_results: "2",
      pagination_token: page2.body.meta.previous_token,
    });
    expect(back.body.data.map((u: { username: string }) => u.username)).toEqual(["lu_f3", "lu_f2"]);
    const rb = await w.get(alice, `/2/posts/${p.id}/reposted_by`);
    expect(rb.body.data.map((u: { username: string }) => u.username)).toEqual(["lu_f3", "lu_f2", "lu_f1"]);
    const metrics = await w.get(alice, `/2/posts/${p.id}`, { "post.fields": "public_metrics" });
    expect(metrics.body.data.public_metrics).toMatchObject({ like_count: 3, repost_count: 3 });
    const badToken = await w.get(alice, `/2/posts/${p.id}/liking_users`, { pagination_token: "not-a-token-at-all" });
    expect(badToken.status).toBe(400);
    expect(badToken.body.errors[0].message).toMatch(/pagination_token/);
    const none = await w.get(alice, "/2/posts/77/liking_users");
    expect(none.body.errors[0].detail).toBe("Could not find post with id: [77].");
  });
});
