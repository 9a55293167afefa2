/** Reposts (spec 4.1 "Reposts, likes, bookmarks"). Who reposted a post is `client.posts.repostedBy`. */
import type { CallOptions, Caller } from "../caller.ts";

export function repostsGroup(c: Caller) {
  return {
    /** `POST /2/users/:id/reposts`: `userId` (the caller) reposts `postId`. */
    repost: (userId: string, postId: string, options?: CallOptions) =>
      c.request("POST /2/users/:id/reposts", { params: { id: userId }, body: { post_id: postId } }, options),
    /** `DELETE /2/users/:id/reposts/:source_post_id`. */
    unrepost: (userId: string, postId: string, options?: CallOptions) =>
      c.request(
        "DELETE /2/users/:id/reposts/:source_post_id",
        { params: { id: userId, source_post_id: postId } },
        options,
      ),
  };
}
