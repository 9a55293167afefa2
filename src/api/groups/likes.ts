/** Likes (spec 4.1 "Reposts, likes, bookmarks"). Who liked a post is `client.posts.likingUsers`. */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { PagingQuery, PostFieldsQuery } from "../params.ts";

export function likesGroup(c: Caller) {
  return {
    /** `POST /2/users/:id/likes`: `userId` (the caller) likes `postId`. */
    like: (userId: string, postId: string, options?: CallOptions) =>
      c.request("POST /2/users/:id/likes", { params: { id: userId }, body: { post_id: postId } }, options),
    /** `DELETE /2/users/:id/likes/:post_id`. */
    unlike: (userId: string, postId: string, options?: CallOptions) =>
      c.request("DELETE /2/users/:id/likes/:post_id", { params: { id: userId, post_id: postId } }, options),
    /** `GET /2/users/:id/liked_posts`. */
    likedPosts: paged(
      "GET /2/users/:id/liked_posts",
      1,
      (userId: string, query?: PostFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/users/:id/liked_posts", { params: { id: userId }, query }, options),
    ),
  };
}
