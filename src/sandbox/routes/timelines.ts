/**
 * The timelines (wire-facts 2.5): a user's posts, their mentions, the home timeline of the
 * caller, and the reposts of the caller's posts, with `since_id`, `until_id`, `start_time`, `end_time` (the ids win when both
 * are given), `max_results` in each family's range, and opaque page tokens.
 */
import { compareIds, type SandboxPost } from "../model/index.ts";
import type { RouteRequest, RouteTable } from "../route.ts";
import { Params } from "../domain/params.ts";
import { inWindow, PAGE_RANGES, paginate, readPage, readWindow, sortKey, type PageRange } from "../domain/paging.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { homeTimeline, mentionsOf, userPosts, type Exclusion } from "../domain/timelines.ts";
import { callerAs, callerUser, listMeta, ok, pathUser, postListMeta, viewerOf } from "./common.ts";
import { livePostsBy, liveRepostsOf, visibleTo } from "../domain/posts.ts";

const WINDOW_PARAMS = ["since_id", "until_id", "start_time", "end_time", "max_results", "pagination_token"];

/** Reads a timeline's parameters, selects its posts with `select`, and pages them. */
function timeline(
  req: RouteRequest,
  range: PageRange,
  withExclude: boolean,
  select: (q: Params, exclude: Exclusion[]) => SandboxPost[] | { answer: ReturnType<typeof ok> },
) {
  const q = new Params(req.query, [...WINDOW_PARAMS, ...(withExclude ? ["exclude"] : []), ...RENDER_PARAMS.post]);
  const page = readPage(q, range);
  const window = readWindow(q, true);
  const exclude = withExclude ? (q.enumList("exclude", ["reposts", "replies"]) ?? []) : [];
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "post"));
  const selected = select(q, exclude);
  if (!Array.isArray(selected)) return selected.answer;
  const posts = selected.filter((p) => inWindow(window, p.id, p.created_at, compareIds));
  const cut = paginate(posts, (p) => sortKey(p.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((p) => r.post(p)),
      postListMeta(cut),
    ),
  );
}

/**
 * `GET /2/users/reposts_of_me`: reposts by others of the caller's posts, newest first
 * (1–100 per page, 100 by default, as the service's other post-relation lists).
 */
function repostsOfMe(req: RouteRequest) {
  const q = new Params(req.query, ["max_results", "pagination_token", ...RENDER_PARAMS.post]);
  const page = readPage(q, PAGE_RANGES.postUsers);
  const me = callerUser(req);
  const r = new Renderer(req.sandbox, me.id, readRender(q, "post"));
  const reposts = livePostsBy(req.sandbox, me.id)
    .flatMap((mine) => liveRepostsOf(req.sandbox, mine.id))
    .filter((p) => p.author_id !== me.id && visibleTo(req.sandbox, me.id, p));
  const cut = paginate(reposts, (p) => sortKey(p.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((p) => r.post(p)),
      listMeta(cut),
    ),
  );
}

/** Timeline handlers by endpoint key. */
export const timelineRoutes: RouteTable = {
  "GET /2/users/reposts_of_me": repostsOfMe,

  "GET /2/users/:id/posts": (req) =>
    timeline(req, PAGE_RANGES.userPosts, true, (_q, exclude) => {
      const found = pathUser(req);
      return "answer" in found ? found : userPosts(req.sandbox, viewerOf(req), found.user.id, exclude);
    }),

  "GET /2/users/:id/mentions": (req) =>
    timeline(req, PAGE_RANGES.mentions, false, () => {
      const found = pathUser(req);
      return "answer" in found ? found : mentionsOf(req.sandbox, viewerOf(req), found.user.id);
    }),

  "GET /2/users/:id/timelines/reverse_chronological": (req) =>
    timeline(req, PAGE_RANGES.homeTimeline, true, (_q, exclude) =>
      homeTimeline(req.sandbox, callerAs(req).id, exclude),
    ),
};
