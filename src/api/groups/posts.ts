/**
 * Posts (spec 4.1 "Posts"): look up, create, delete, hide replies, and who engaged with a post.
 * Timelines are under `client.users`, counts under `client.search`, bookmarks under
 * `client.bookmarks`.
 */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { ExcludeQuery, PagingQuery, PostFieldsQuery, UserFieldsQuery } from "../params.ts";
import type { CreatePostBody } from "../schema.ts";

export function postsGroup(c: Caller) {
  return {
    /** `GET /2/posts/:id`. A post that does not exist answers 200 with only `errors`. */
    lookup: (id: string, query?: PostFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/posts/:id", { params: { id }, query }, options),
    /** `GET /2/posts?ids=` (up to 100). Missing posts come back as partial `errors` next to `data`. */
    lookupMany: (ids: readonly string[], query?: PostFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/posts", { query: { ...query, ids } }, options),
    /**
     * `POST /2/posts`. A reply names its parent in `reply.in_reply_to_post_id`; a quote in
     * `quote_post_id`. The same text twice is refused (403 duplicate content).
     */
    create: (body: CreatePostBody, options?: CallOptions) => c.request("POST /2/posts", { body }, options),
    /** `DELETE /2/posts/:id` (the author's own posts only). */
    delete: (id: string, options?: CallOptions) => c.request("DELETE /2/posts/:id", { params: { id } }, options),
    /** `PUT /2/posts/:id/hidden`: hides (or, with `false`, unhides) a reply in a conversation the caller started. */
    hideReply: (id: string, hidden = true, options?: CallOptions) =>
      c.request("PUT /2/posts/:id/hidden", { params: { id }, body: { hidden } }, options),
    /** `GET /2/posts/:id/liking_users`. */
    likingUsers: paged(
      "GET /2/posts/:id/liking_users",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/posts/:id/liking_users", { params: { id }, query }, options),
    ),
    /** `GET /2/posts/:id/quote_posts`. */
    quotePosts: paged(
      "GET /2/posts/:id/quote_posts",
      1,
      (id: string, query?: PostFieldsQuery & PagingQuery & ExcludeQuery, options?: CallOptions) =>
        c.request("GET /2/posts/:id/quote_posts", { params: { id }, query }, options),
    ),
    /** `GET /2/posts/:id/reposted_by`. */
    repostedBy: paged(
      "GET /2/posts/:id/reposted_by",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/posts/:id/reposted_by", { params: { id }, query }, options),
    ),
  };
}
