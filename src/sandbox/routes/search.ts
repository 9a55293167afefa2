/**
 * Search and counts (wire-facts 2.6): recent (the last 7 days of the sandbox clock) and the
 * full archive (apps with Academic Research access only), with the query language of
 * `domain/query.ts`.
 *
 * Query length limits per plan, as the real service's products have them: 512 characters
 * for recent search on basic and free, 4096 on pro; 1024 for the full archive.
 */
import { ApiProblem, invalidRequest } from "../problems.ts";
import type { RouteRequest, RouteTable } from "../route.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { iso, Params } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, readWindow, type TimeWindow } from "../domain/paging.ts";
import { parseQuery, QueryError, type Query } from "../domain/query.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import {
  ARCHIVE_DEFAULT_MS,
  countBuckets,
  END_TIME_LAG_MS,
  RECENT_WINDOW_MS,
  searchPosts,
  searchSortKey,
  type Granularity,
} from "../domain/search.ts";
import { ok, postListMeta } from "./common.ts";

type Archive = "recent" | "all";

/** The parameters that choose what search and counts look at. */
const SCOPE_PARAMS = ["query", "start_time", "end_time", "since_id", "until_id"];
/** The names search takes a page token under (older and newer). */
const TOKEN_PARAMS = ["next_token", "pagination_token"];

function queryOf(req: RouteRequest, q: Params, archive: Archive): Query {
  const text = q.required("query");
  const max = archive === "all" ? 1024 : req.caller.app.plan === "pro" ? 4096 : 512;
  try {
    return parseQuery(text, max);
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    throw invalidRequest(`There were errors processing your request: ${e.message}`, { query: [text] });
  }
}

/** Full-archive endpoints need Academic Research access; without it, the service's 403. */
function requireAcademic(req: RouteRequest): void {
  const app = req.caller.app;
  if (app.academic) return;
  throw new ApiProblem(403, {
    client_id: app.client_id,
    detail:
      "When authenticating requests to the full-archive endpoints, you must use keys and tokens from an App with Academic Research access. This app does not have it.",
    registration_url: "https://developer.twitter.com/en/products/twitter-api/academic-research",
    title: "Client Forbidden",
    required_enrollment: "Academic Research",
    reason: "client-not-enrolled",
    type: PROBLEM_TYPE_BASE + "client-forbidden",
  });
}

/**
 * The window a search sees: the request's, bounded below by 7 days ago (recent) and
 * defaulting to 30 days (archive). A `start_time` older than the recent window, or an
 * `end_time` less than 10 s before now, is refused as the service refuses it.
 */
function searchWindow(req: RouteRequest, q: Params, archive: Archive): TimeWindow & { start_time: number } {
  const now = req.sandbox.clock.now();
  const w = readWindow(q, false);
  const earliest = now - RECENT_WINDOW_MS;
  if (archive === "recent" && w.start_time !== undefined && w.start_time < earliest) {
    throw invalidRequest(
      `Invalid 'start_time':'${q.get("start_time")}'. 'start_time' must be on or after ${iso(earliest)}`,
      {
        start_time: [q.get("start_time")!],
      },
    );
  }
  if (w.end_time !== undefined && w.end_time > now - END_TIME_LAG_MS) {
    throw invalidRequest(
      `Invalid 'end_time':'${q.get("end_time")}'. 'end_time' must be a minimum of 10 seconds prior to the request time.`,
      {
        end_time: [q.get("end_time")!],
      },
    );
  }
  const start = w.start_time ?? (archive === "recent" ? earliest : now - ARCHIVE_DEFAULT_MS);
  return { ...w, start_time: start };
}

/**
 * What search and counts read alike, in this order: the app's access to the archive, the
 * parameters (`allowed`), the query and the window.
 */
function readSearch(req: RouteRequest, archive: Archive, allowed: readonly string[]) {
  if (archive === "all") requireAcademic(req);
  const q = new Params(req.query, allowed);
  return { q, query: queryOf(req, q, archive), window: searchWindow(req, q, archive) };
}

function search(req: RouteRequest, archive: Archive) {
  const { q, query, window } = readSearch(req, archive, [
    ...SCOPE_PARAMS,
    "max_results",
    ...TOKEN_PARAMS,
    "sort_order",
    ...RENDER_PARAMS.post,
  ]);
  const page = readPage(q, archive === "all" ? PAGE_RANGES.fullArchiveSearch : PAGE_RANGES.recentSearch, TOKEN_PARAMS);
  const order = q.oneOf("sort_order", ["recency", "relevancy"]) ?? "recency";
  const r = new Renderer(req.sandbox, undefined, readRender(q, "post"));
  const key = searchSortKey(req.sandbox, order);
  const cut = paginate(searchPosts(req.sandbox, query, window), key, page);
  if (archive === "recent" && cut.items.length) req.countPostsRead(cut.items.length);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((p) => r.post(p)),
      postListMeta(cut, { previous: false }),
    ),
  );
}

function counts(req: RouteRequest, archive: Archive) {
  const { q, query, window } = readSearch(req, archive, [
    ...SCOPE_PARAMS,
    "granularity",
    ...TOKEN_PARAMS,
    "search_count.fields",
  ]);
  q.enumList("search_count.fields", ["end", "start", "post_count"]);
  // Every bucket fits in one answer, so the sandbox never hands out a token to come back with.
  for (const name of TOKEN_PARAMS) {
    const token = q.get(name);
    if (token !== undefined)
      throw invalidRequest(
        `The \`${name}\` query parameter value [${token}] is not valid; counts come in one page, without tokens`,
        { [name]: [token] },
      );
  }
  const granularity: Granularity = q.oneOf("granularity", ["minute", "hour", "day"]) ?? "hour";
  const now = req.sandbox.clock.now();
  // Without an end_time, the last bucket ends at the next whole second, so posts made now count.
  const end = window.end_time ?? Math.floor(now / 1000) * 1000 + 1000;
  const matching = searchPosts(req.sandbox, query, { ...window, end_time: end });
  const buckets = countBuckets(matching, window.start_time, end, granularity);
  const total = buckets.reduce((n, b) => n + b.count, 0);
  return ok({
    data: buckets.map((b) => ({ end: iso(b.end), start: iso(b.start), post_count: b.count })),
    meta: { total_post_count: total },
  });
}

/** Search and counts handlers by endpoint key. */
export const searchRoutes: RouteTable = {
  "GET /2/posts/search/recent": (req) => search(req, "recent"),
  "GET /2/posts/search/all": (req) => search(req, "all"),
  "GET /2/posts/counts/recent": (req) => counts(req, "recent"),
  "GET /2/posts/counts/all": (req) => counts(req, "all"),
};
