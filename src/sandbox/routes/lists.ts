/**
 * Lists (wire-facts 2.13): create, look up, update and delete; members, followers and
 * pins; the lists a user owns, follows, is a member of or pinned; the posts of a list's
 * members.
 *
 * `POST /2/lists` answers 201, as the newest real spec (2.167) says; 2.159 said 200 and
 * wire-facts could not verify which the live service sends.
 *
 * Lookups answer a missing list with a `resource-not-found` partial error and someone
 * else's private list with `not-authorized-for-resource`, next to HTTP 200; listings leave
 * private lists of others out. Actions answer 404 for a missing list and 403 for a list the
 * caller may not change.
 */
import { z } from "zod";
import { DEFAULT_FIELDS, LIST_EXPANSIONS, LIST_FIELDS, type List } from "../../api/types.ts";
import type { SandboxList, SandboxUser } from "../model/index.ts";
import type { JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { Expander, readFields, readUserFields } from "../domain/expand.ts";
import {
  addMember,
  canSeeList,
  createList,
  deleteList,
  edgesOfUser,
  followersOf,
  followList,
  listAccess,
  listObject,
  listProblem,
  liveList,
  membersOf,
  ownedBy,
  pinList,
  removeMember,
  unfollowList,
  unpinList,
  updateList,
} from "../domain/lists.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { livePostsBy, visibleTo } from "../domain/posts.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { userById } from "../domain/users.ts";
import { callerAs, callerUser, listMeta, ok, pathUser, viewerOf } from "./common.ts";

const LIST_RENDER_PARAMS = ["list.fields", "expansions", "user.fields"] as const;
const PAGE_PARAMS = ["max_results", "pagination_token"] as const;

const createBody = z
  .object({ name: z.string(), description: z.string().optional(), private: z.boolean().optional() })
  .strict();
const updateBody = z
  .object({ name: z.string().optional(), description: z.string().optional(), private: z.boolean().optional() })
  .strict();
const userIdBody = z.object({ user_id: zId }).strict();
const listIdBody = z.object({ list_id: zId }).strict();

/** How one request wants its lists shown: `list.fields`, `expansions=owner_id`, `user.fields`. */
class ListView {
  readonly fields: Set<string>;
  readonly expandOwner: boolean;
  readonly x: Expander;

  constructor(req: RouteRequest, q: Params) {
    this.fields = readFields(q, "list.fields", LIST_FIELDS, DEFAULT_FIELDS.list);
    this.expandOwner = (q.enumList("expansions", LIST_EXPANSIONS) ?? []).includes("owner_id");
    this.x = new Expander(req.sandbox, viewerOf(req), readUserFields(q));
  }

  list(req: RouteRequest, list: SandboxList): List {
    if (this.expandOwner) this.x.user(list.owner_id);
    return listObject(req.sandbox, list, this.fields);
  }
}

/**
 * A page of lists, newest edge first. `select` runs after the parameters are checked and
 * gives the lists with the time each joined the listing; it may answer instead (a partial
 * error for the path's user). Lists the viewer may not see are left out.
 */
function listPage(
  req: RouteRequest,
  paged: boolean,
  select: () => Array<{ list: SandboxList; at: number }> | { answer: JsonResult },
) {
  const q = new Params(req.query, [...(paged ? PAGE_PARAMS : []), ...LIST_RENDER_PARAMS]);
  const page = readPage(q, PAGE_RANGES.lists);
  const view = new ListView(req, q);
  const selected = select();
  if (!Array.isArray(selected)) return selected.answer;
  const visible = selected.filter((s) => canSeeList(viewerOf(req), s.list));
  const cut = paginate(visible, (s) => sortKey(s.at, s.list.id), page);
  if (!cut.items.length) return ok(view.x.envelope(undefined, { result_count: 0 }));
  const data = cut.items.map((s) => view.list(req, s.list));
  return ok(view.x.envelope(data, paged ? listMeta(cut) : { result_count: data.length }));
}

/** The lists of the path's user whose edges are in a table. */
function userListings(req: RouteRequest, table: "list_members" | "list_followers") {
  return listPage(req, true, () => {
    const found = pathUser(req, "id", false);
    if ("answer" in found) return found;
    return edgesOfUser(req.sandbox, table, found.user.id).flatMap((e) => {
      const list = liveList(req.sandbox, e.list_id);
      return list ? [{ list, at: e.created_at }] : [];
    });
  });
}

/**
 * A page of users of a list (members or followers), newest first. A list the viewer cannot
 * see answers with its partial error.
 */
function listUsers(req: RouteRequest, edgesOf: (listId: string) => Array<{ user_id: string; created_at: number }>) {
  const q = new Params(req.query, [...PAGE_PARAMS, ...RENDER_PARAMS.user]);
  const page = readPage(q, PAGE_RANGES.lists);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
  const id = pathId(req.params, "id");
  const access = listAccess(req.sandbox, viewerOf(req), id);
  if (!access.ok) return ok({ errors: [listProblem(access.reason, "id", id)] });
  const users = edgesOf(id).flatMap((e) => {
    const user = userById(req.sandbox, e.user_id);
    return user ? [{ user, at: e.created_at }] : [];
  });
  const cut = paginate(users, (u) => sortKey(u.at, u.user.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((u) => r.user(u.user)),
      listMeta(cut),
    ),
  );
}

/** The posts of a list's members that the viewer may see, newest first. */
function listPosts(req: RouteRequest) {
  const q = new Params(req.query, [...PAGE_PARAMS, ...RENDER_PARAMS.post]);
  const page = readPage(q, PAGE_RANGES.lists);
  const viewer = viewerOf(req);
  const r = new Renderer(req.sandbox, viewer, readRender(q, "post"));
  const id = pathId(req.params, "id");
  const access = listAccess(req.sandbox, viewer, id);
  if (!access.ok) return ok({ errors: [listProblem(access.reason, "id", id)] });
  const members = new Set(membersOf(req.sandbox, id).map((e) => e.user_id));
  const posts = [...members]
    .flatMap((m) => livePostsBy(req.sandbox, m))
    .filter((p) => visibleTo(req.sandbox, viewer, p));
  const cut = paginate(posts, (p) => sortKey(p.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((p) => r.post(p)),
      listMeta(cut),
    ),
  );
}

/** The list id of a path. */
const pathList = (req: RouteRequest, name = "id") => pathId(req.params, name);

/** List handlers by endpoint key. */
export const listRoutes: RouteTable = {
  "POST /2/lists": (req) => {
    new Params(req.query, []);
    const owner: SandboxUser = callerUser(req);
    const list = createList(req.sandbox, owner, parseBody(createBody, req.body));
    return ok({ data: { id: list.id, name: list.name } }, 201);
  },

  "GET /2/lists/:id": (req) => {
    const q = new Params(req.query, LIST_RENDER_PARAMS);
    const view = new ListView(req, q);
    const id = pathId(req.params, "id");
    const access = listAccess(req.sandbox, viewerOf(req), id);
    if (!access.ok) return ok({ errors: [listProblem(access.reason, "id", id)] });
    return ok(view.x.envelope(view.list(req, access.list)));
  },

  "PUT /2/lists/:id": (req) => {
    new Params(req.query, []);
    const changes = parseBody(updateBody, req.body);
    updateList(req.sandbox, callerUser(req), pathList(req), changes);
    return ok({ data: { updated: true } });
  },

  "DELETE /2/lists/:id": (req) => {
    new Params(req.query, []);
    deleteList(req.sandbox, callerUser(req), pathList(req));
    return ok({ data: { deleted: true } });
  },

  "GET /2/users/:id/owned_lists": (req) =>
    listPage(req, true, () => {
      const found = pathUser(req, "id", false);
      if ("answer" in found) return found;
      return ownedBy(req.sandbox, found.user.id).map((list) => ({ list, at: list.created_at }));
    }),

  "GET /2/lists/:id/posts": listPosts,

  "GET /2/lists/:id/members": (req) => listUsers(req, (id) => membersOf(req.sandbox, id)),

  "POST /2/lists/:id/members": (req) => {
    new Params(req.query, []);
    const { user_id } = parseBody(userIdBody, req.body);
    addMember(req.sandbox, callerUser(req), pathList(req), user_id);
    return ok({ data: { is_member: true } });
  },

  "DELETE /2/lists/:id/members/:user_id": (req) => {
    new Params(req.query, []);
    removeMember(req.sandbox, callerUser(req), pathList(req), pathId(req.params, "user_id"));
    return ok({ data: { is_member: false } });
  },

  "GET /2/users/:id/list_memberships": (req) => userListings(req, "list_members"),

  "GET /2/lists/:id/followers": (req) => listUsers(req, (id) => followersOf(req.sandbox, id)),

  "GET /2/users/:id/followed_lists": (req) => userListings(req, "list_followers"),

  "POST /2/users/:id/followed_lists": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    followList(req.sandbox, user, parseBody(listIdBody, req.body).list_id);
    return ok({ data: { following: true } });
  },

  "DELETE /2/users/:id/followed_lists/:list_id": (req) => {
    new Params(req.query, []);
    unfollowList(req.sandbox, callerAs(req).id, pathList(req, "list_id"));
    return ok({ data: { following: false } });
  },

  "GET /2/users/:id/pinned_lists": (req) =>
    listPage(req, false, () => {
      const user = callerAs(req);
      return edgesOfUser(req.sandbox, "pinned_lists", user.id).flatMap((e) => {
        const list = liveList(req.sandbox, e.list_id);
        return list ? [{ list, at: e.created_at }] : [];
      });
    }),

  "POST /2/users/:id/pinned_lists": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    pinList(req.sandbox, user, parseBody(listIdBody, req.body).list_id);
    return ok({ data: { pinned: true } });
  },

  "DELETE /2/users/:id/pinned_lists/:list_id": (req) => {
    new Params(req.query, []);
    unpinList(req.sandbox, callerAs(req).id, pathList(req, "list_id"));
    return ok({ data: { pinned: false } });
  },
};
