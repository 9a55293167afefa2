import { describe, expect, it } from "vitest";
import { Params } from "../../../src/sandbox/domain/params.ts";
import { createPost } from "../../../src/sandbox/domain/posts.ts";
import { follow } from "../../../src/sandbox/domain/relations.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../../../src/sandbox/domain/render.ts";
import { createUser } from "../../../src/sandbox/domain/users.ts";
import { context, invalidMessage } from "./world.ts";

const options = (q: Record<string, string>, family: "post" | "user" | "dm_event" = "post") =>
  readRender(new Params(new URLSearchParams(q), RENDER_PARAMS[family]), family);

describe("fields and expansions", () => {
  it("always includes the defaults and adds only the fields asked for", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    const p = createPost(ctx, { author_id: alice.id, text: "hi #there" });
    const r = new Renderer(ctx, undefined, options({ "post.fields": "lang,entities" }));
    expect(r.post(p)).toEqual({
      id: p.id,
      text: "hi #there",
      edit_history_post_ids: [p.id],
      lang: "en",
      entities: { hashtags: [{ start: 3, end: 9, tag: "there" }] },
    });
  });

  it("collects expansions into includes, deduplicated, and omits empty includes", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    const bob = createUser(ctx, { username: "bob" });
    const root = createPost(ctx, { author_id: alice.id, text: "root" });
    const a = createPost(ctx, { author_id: bob.id, text: "@alice one", in_reply_to_post_id: root.id });
    const b = createPost(ctx, { author_id: bob.id, text: "@alice two", in_reply_to_post_id: root.id });
    const r = new Renderer(
      ctx,
      undefined,
      options({ expansions: "author_id,in_reply_to_user_id,entities.mentions.username,referenced_posts.id" }),
    );
    const body = r.envelope([r.post(a), r.post(b)]);
    expect(body.includes!.users!.map((u) => u.username)).toEqual(["bob", "alice"]);
    expect(body.includes!.posts!.map((p) => p.id)).toEqual([root.id]);
    const bare = new Renderer(ctx, undefined, options({ expansions: "referenced_posts.id" }));
    expect(bare.envelope(bare.post(root))).toEqual({
      data: { id: root.id, text: "root", edit_history_post_ids: [root.id] },
    });
  });

  it("reports an expanded post the viewer may not see as an includes-section error", () => {
    const { ctx } = context();
    const owner = createUser(ctx, { username: "owner", protected: true });
    const fan = createUser(ctx, { username: "fan" });
    follow(ctx, fan, owner); // pending: owner is protected
    const secret = createPost(ctx, { author_id: owner.id, text: "secret" });
    ctx.data.world.follows.push({ source_id: fan.id, target_id: owner.id, created_at: 0 });
    const quote = createPost(ctx, { author_id: fan.id, text: "look", quote_post_id: secret.id });
    const r = new Renderer(ctx, undefined, options({ expansions: "referenced_posts.id" }));
    const body = r.envelope(r.post(quote));
    expect(body.includes).toBeUndefined();
    expect(body.errors).toEqual([
      expect.objectContaining({
        section: "includes",
        parameter: "referenced_posts.id",
        type: "https://api.twitter.com/2/problems/not-authorized-for-resource",
      }),
    ]);
  });

  it("shows non-public metrics to the author only, with a field error for others", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    const p = createPost(ctx, { author_id: alice.id, text: "mine" });
    const own = new Renderer(ctx, alice.id, options({ "post.fields": "non_public_metrics" }));
    expect(own.post(p)).toHaveProperty("non_public_metrics");
    const other = new Renderer(ctx, undefined, options({ "post.fields": "non_public_metrics" }));
    expect(other.post(p)).not.toHaveProperty("non_public_metrics");
    expect(other.errors[0]).toMatchObject({
      field: "non_public_metrics",
      type: "https://api.twitter.com/2/problems/not-authorized-for-field",
    });
  });

  it("refuses unknown fields and expansions, naming the value", () => {
    expect(invalidMessage(() => options({ "user.fields": "shoe_size" }, "user"))).toMatch(/\[shoe_size\]/);
    expect(invalidMessage(() => options({ expansions: "author_id" }, "user"))).toMatch(
      /\[author_id\] is not one of \[pinned_post_id/,
    );
  });

  it("gives a reply's display_text_range after its leading mentions", () => {
    const { ctx } = context();
    const alice = createUser(ctx, { username: "alice" });
    const root = createPost(ctx, { author_id: alice.id, text: "root" });
    const reply = createPost(ctx, { author_id: alice.id, text: "@alice @bob thanks", in_reply_to_post_id: root.id });
    const r = new Renderer(ctx, undefined, options({ "post.fields": "display_text_range" }));
    expect((r.post(reply) as unknown as { display_text_range: number[] }).display_text_range).toEqual([12, 18]);
  });
});
