/** Search (spec 4.1 "Search"): recent and full-archive search, and the counts of both. */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { CountsQuery, SearchQuery } from "../params.ts";

export function searchGroup(c: Caller) {
  return {
    /** `GET /2/posts/search/recent`: the last 7 days. Counts against the basic plan's monthly read cap. */
    recent: paged("GET /2/posts/search/recent", 0, (query: SearchQuery, options?: CallOptions) =>
      c.request("GET /2/posts/search/recent", { query }, options),
    ),
    /** `GET /2/posts/search/all`: the full archive (Academic Research access, app-only). */
    all: paged("GET /2/posts/search/all", 0, (query: SearchQuery, options?: CallOptions) =>
      c.request("GET /2/posts/search/all", { query }, options),
    ),
    /** `GET /2/posts/counts/recent`: how many posts matched, per minute, hour or day. */
    countsRecent: paged("GET /2/posts/counts/recent", 0, (query: CountsQuery, options?: CallOptions) =>
      c.request("GET /2/posts/counts/recent", { query }, options),
    ),
    /** `GET /2/posts/counts/all`. */
    countsAll: paged("GET /2/posts/counts/all", 0, (query: CountsQuery, options?: CallOptions) =>
      c.request("GET /2/posts/counts/all", { query }, options),
    ),
  };
}
