/**
 * Likes, reposts and bookmarks (wire-facts 2.10). In every path here `:id` must be the
 * authenticated user, except the liked-posts lookup, which reads anyone's (protected
 * accounts' only for themselves and their followers).
 *
 * Bookmark folders and the `/2/posts/:id/bookmarks` forms are in `bookmarks.ts`.
 */
import { z } from "zod";
import type { SandboxPost } from "../model/index.ts";
import type { JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { bookmark, like, unbookmark, unlike } from "../domain/engagement.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey, type PageRange } from "../domain/paging.ts";
import { repost, unrepost, visibleTo } from "../domain/posts.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { callerAs, listMeta, ok, pathUser, viewerOf } from "./common.ts";

const postIdBody = z.object({ post_id: zId }).strict();

type Marks = Array<{ post_id: string; created_at: number }>;

/**
 * Posts marked by a user (likes or bookmarks), newest mark first, paged. `marksOf` runs
 * after the parameters are checked; it may answer instead (a partial error for the user).
 */
function markedPosts(req: RouteRequest, range: PageRange, marksOf: () => Marks | { answer: JsonResult }) {
  const q = new Params(req.query, ["max_results", "pagination_token", ...RENDER_PARAMS.post]);
  const page = readPage(q, range);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "post"));
  const viewer = viewerOf(req);
  const marks = marksOf();
  if (!Array.isArray(marks)) return marks.answer;
  const items = marks
    .map((m) => ({ m, post: req.sandbox.data.world.posts[m.post_id] }))
    .filter(
      (x): x is { m: Marks[number]; post: SandboxPost } =>
        x.post !== undefined && visibleTo(req.sandbox, viewer, x.post),
    );
  const cut = paginate(items, (x) => sortKey(x.m.created_at, x.post.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((x) => r.post(x.post)),
      listMeta(cut),
    ),
  );
}

/** Like, repost and bookmark handlers by endpoint key. */
export const engagementRoutes: RouteTable = {
  "POST /2/users/:id/likes": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    like(req.sandbox, user, parseBody(postIdBody, req.body).post_id);
    return ok({ data: { liked: true } });
  },

  "DELETE /2/users/:id/likes/:post_id": (req) => {
    new Params(req.query, []);
    unlike(req.sandbox, callerAs(req).id, pathId(req.params, "post_id"));
    return ok({ data: { liked: false } });
  },

  "GET /2/users/:id/liked_posts": (req) =>
    markedPosts(req, PAGE_RANGES.likedPosts, () => {
      const found = pathUser(req);
      if ("answer" in found) return found;
      return req.sandbox.data.world.likes.filter((l) => l.user_id === found.user.id);
    }),

  "POST /2/users/:id/reposts": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    const made = repost(req.sandbox, user, parseBody(postIdBody, req.body).post_id);
    return ok({ data: { id: made.id, reposted: true } });
  },

  "DELETE /2/users/:id/reposts/:source_post_id": (req) => {
    new Params(req.query, []);
    unrepost(req.sandbox, callerAs(req).id, pathId(req.params, "source_post_id"));
    return ok({ data: { reposted: false } });
  },

  "POST /2/users/:id/bookmarks": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    bookmark(req.sandbox, user, parseBody(postIdBody, req.body).post_id);
    return ok({ data: { bookmarked: true } });
  },

  "DELETE /2/users/:id/bookmarks/:post_id": (req) => {
    new Params(req.query, []);
    unbookmark(req.sandbox, callerAs(req).id, pathId(req.params, "post_id"));
    return ok({ data: { bookmarked: false } });
  },

  "GET /2/users/:id/bookmarks": (req) =>
    markedPosts(req, PAGE_RANGES.bookmarks, () => {
      const user = callerAs(req);
      return req.sandbox.data.world.bookmarks.filter((b) => b.user_id === user.id);
    }),
};
