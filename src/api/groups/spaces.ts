/** Spaces, the live audio rooms (spec 4.1 "Spaces"): app-only or PKCE, never OAuth 1.0a. */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { PagingQuery, PostFieldsQuery, SpaceFieldsQuery, UserFieldsQuery } from "../params.ts";

export function spacesGroup(c: Caller) {
  return {
    /** `GET /2/spaces/:id`. */
    lookup: (id: string, query?: SpaceFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/spaces/:id", { params: { id }, query }, options),
    /** `GET /2/spaces?ids=`. */
    lookupMany: (ids: readonly string[], query?: SpaceFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/spaces", { query: { ...query, ids } }, options),
    /** `GET /2/spaces/by/creator_ids?user_ids=`. */
    byCreators: (userIds: readonly string[], query?: SpaceFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/spaces/by/creator_ids", { query: { ...query, user_ids: userIds } }, options),
    /** `GET /2/spaces/:id/buyers`: who bought a ticket (PKCE, the creator only). */
    buyers: paged(
      "GET /2/spaces/:id/buyers",
      1,
      (id: string, query?: UserFieldsQuery & PagingQuery, options?: CallOptions) =>
        c.request("GET /2/spaces/:id/buyers", { params: { id }, query }, options),
    ),
    /** `GET /2/spaces/:id/posts`: posts shared in the space. */
    posts: (id: string, query?: PostFieldsQuery & { max_results?: number }, options?: CallOptions) =>
      c.request("GET /2/spaces/:id/posts", { params: { id }, query }, options),
    /** `GET /2/spaces/search`: live or scheduled spaces whose title matches. */
    search: (
      query: SpaceFieldsQuery & { query: string; state?: "live" | "scheduled" | "all"; max_results?: number },
      options?: CallOptions,
    ) => c.request("GET /2/spaces/search", { query }, options),
  };
}
