/** Communities (spec 4.1 "Compliance, trends, communities"). */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { CommunityField, SearchPagingQuery } from "../params.ts";

export function communitiesGroup(c: Caller) {
  return {
    /** `GET /2/communities/:id`. */
    lookup: (id: string, query?: { "community.fields"?: readonly CommunityField[] }, options?: CallOptions) =>
      c.request("GET /2/communities/:id", { params: { id }, query }, options),
    /** `GET /2/communities/search` (user context). */
    search: paged(
      "GET /2/communities/search",
      0,
      (
        query: { query: string; "community.fields"?: readonly CommunityField[] } & SearchPagingQuery,
        options?: CallOptions,
      ) => c.request("GET /2/communities/search", { query }, options),
    ),
  };
}
