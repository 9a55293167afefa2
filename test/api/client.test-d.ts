/**
 * Compile-time checks of the client's public types: a plugin author's mistakes (a missing
 * path parameter, an unknown field, a wrong body) fail to compile, and answers are typed.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { ApiClient } from "../../src/api/client.ts";
import type { Post, User } from "../../src/api/types.ts";

declare const client: ApiClient;

describe("client types", () => {
  it("types answers by endpoint", () => {
    expectTypeOf(client.request("GET /2/posts/:id", { params: { id: "1" } }))
      .resolves.toHaveProperty("data")
      .toEqualTypeOf<Post | undefined>();
    expectTypeOf(client.users.followers("1")).resolves.toHaveProperty("data").toEqualTypeOf<User[] | undefined>();
    expectTypeOf(client.paginate(client.users.mentions, "1", { since_id: "5" })).toMatchTypeOf<AsyncIterable<Post>>();
    expectTypeOf(client.paginate("GET /2/users/:id/followers", { params: { id: "1" } })).toMatchTypeOf<
      AsyncIterable<User>
    >();
  });

  it("refuses calls the spec does not allow", () => {
    // @ts-expect-error: the path parameter id is required
    void client.request("GET /2/posts/:id", {});
    // @ts-expect-error: no such endpoint
    void client.request("GET /2/tweets/:id", { params: { id: "1" } });
    // @ts-expect-error: not a post field
    void client.posts.lookup("1", { "post.fields": ["favorite_count"] });
    // @ts-expect-error: a reply names in_reply_to_post_id, not in_reply_to_tweet_id
    void client.posts.create({ text: "x", reply: { in_reply_to_tweet_id: "1" } });
    // @ts-expect-error: search needs a query
    void client.search.recent({ max_results: 10 });
    // @ts-expect-error: only list endpoints can be paginated
    void client.paginate("GET /2/users/me", {});
    // @ts-expect-error: not an authentication method
    void client.users.me({}, { auth: "basic" });
  });
});
