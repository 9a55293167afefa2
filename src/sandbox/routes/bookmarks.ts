/**
 * Bookmark folders (a user's folders, and the ids of the posts in one), the spec's second
 * form of the bookmark endpoints, and the admin route that makes folders.
 *
 * `POST /2/posts/:id/bookmarks` and `GET /2/posts/:id/bookmarks` are listed by the spec's
 * authentication table next to the `/2/users/:id/bookmarks` forms. The client reads `:id`
 * in them as the bookmarking user, with the body `{post_id}` (src/api/groups/bookmarks.ts),
 * so here they are the same handlers as the users forms: one behaviour, two paths.
 */
import { z } from "zod";
import { invalidRequest } from "../problems.ts";
import type { AdminRouteTable, JsonResult, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { bookmarksIn, createFolder, folderOf, foldersOf } from "../domain/bookmark-folders.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { visibleTo } from "../domain/posts.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { userById } from "../domain/users.ts";
import { callerAs, listMeta, ok } from "./common.ts";
import { engagementRoutes } from "./engagement.ts";

const PAGE_PARAMS = ["max_results", "pagination_token"];

const newFolder = z.object({ user_id: zId, name: z.string(), post_ids: z.array(zId).max(1000).optional() }).strict();

/** Bookmark folder handlers, and the posts-path forms of the bookmark endpoints, by endpoint key. */
export const bookmarkRoutes: RouteTable = {
  "GET /2/users/:id/bookmarks/folders": (req) => {
    const q = new Params(req.query, PAGE_PARAMS);
    const page = readPage(q, PAGE_RANGES.bookmarkFolders);
    const user = callerAs(req);
    const cut = paginate(foldersOf(req.sandbox, user.id), (f) => sortKey(f.created_at, f.id), page);
    if (!cut.items.length) return ok({ meta: { result_count: 0 } });
    return ok({ data: cut.items.map((f) => ({ id: f.id, name: f.name })), meta: listMeta(cut) });
  },

  "GET /2/users/:id/bookmarks/folders/:folder_id": (req) => {
    const q = new Params(req.query, PAGE_PARAMS);
    const page = readPage(q, PAGE_RANGES.bookmarkFolders);
    const user = callerAs(req);
    const folderId = pathId(req.params, "folder_id");
    const folder = folderOf(req.sandbox, user.id, folderId);
    if (!folder) {
      return ok({
        errors: [
          {
            value: folderId,
            detail: `Could not find bookmark_folder with folder_id: [${folderId}].`,
            title: "Not Found Error",
            resource_type: "bookmark_folder",
            parameter: "folder_id",
            resource_id: folderId,
            type: PROBLEM_TYPE_BASE + "resource-not-found",
          },
        ],
      });
    }
    const posts = req.sandbox.data.world.posts;
    const marks = bookmarksIn(req.sandbox, folder).filter((b) => {
      const p = posts[b.post_id];
      return p !== undefined && visibleTo(req.sandbox, user.id, p);
    });
    const cut = paginate(marks, (b) => sortKey(b.created_at, b.post_id), page);
    if (!cut.items.length) return ok({ meta: { result_count: 0 } });
    return ok({ data: cut.items.map((b) => ({ id: b.post_id })), meta: listMeta(cut) });
  },

  "POST /2/posts/:id/bookmarks": (req) => engagementRoutes["POST /2/users/:id/bookmarks"]!(req),

  "GET /2/posts/:id/bookmarks": (req) => engagementRoutes["GET /2/users/:id/bookmarks"]!(req),
};

/** The admin route that makes bookmark folders (the service has none). */
export const bookmarkFolderAdminRoutes: AdminRouteTable = {
  /** `{user_id, name, post_ids?}` → `{id, name}`; the posts are bookmarked and filed in the folder. */
  "POST /_sandbox/bookmark_folders": (req): JsonResult => {
    const input = parseBody(newFolder, req.body);
    const user = userById(req.sandbox, input.user_id);
    if (!user) throw invalidRequest(`user_id: no active user has id ${input.user_id}`, { user_id: [input.user_id] });
    const folder = createFolder(req.sandbox, user, input.name, input.post_ids ?? []);
    return { status: 201, body: { id: folder.id, name: folder.name } };
  },
};
