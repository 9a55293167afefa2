/**
 * Users (wire-facts 2.11, 2.12): lookups by ids, id, usernames, username and `me`, user
 * search, follows (manage and lookup; a protected target answers `pending_follow`), mutes
 * (manage and lookup) and the blocks lookup.
 *
 * Lookups answer missing and suspended accounts with partial errors next to HTTP 200;
 * actions on a target that does not exist answer 404.
 */
import { z } from "zod";
import type { SandboxUser } from "../model/index.ts";
import { notFound } from "../problems.ts";
import type { JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { Params, pathId, pathUsername, USERNAME_PATTERN } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey, type PageRange } from "../domain/paging.ts";
import { follow, incoming, mute, outgoing, unfollow, unmute } from "../domain/relations.ts";
import { lookupUser, readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { activeUsers, userById } from "../domain/users.ts";
import { callerAs, callerUser, listMeta, ok, pathUser, viewerOf } from "./common.ts";

const targetBody = z.object({ target_user_id: zId }).strict();

function lookupMany(req: RouteRequest, by: "id" | "username", name: "ids" | "usernames") {
  const q = new Params(req.query, [name, ...RENDER_PARAMS.user]);
  const values = by === "id" ? q.ids(name, 100) : q.ids(name, 100, USERNAME_PATTERN);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
  const data = [];
  for (const v of values) {
    const found = lookupUser(req.sandbox, by, v, name);
    if ("user" in found) data.push(r.user(found.user));
    else r.error(found.error);
  }
  return ok(r.envelope(data.length ? data : undefined));
}

function lookupOne(req: RouteRequest, by: "id" | "username") {
  const q = new Params(req.query, RENDER_PARAMS.user);
  const options = readRender(q, "user");
  const value = by === "id" ? pathId(req.params, "id") : pathUsername(req.params, "username");
  const found = lookupUser(req.sandbox, by, value, by);
  if ("error" in found) return ok({ errors: [found.error] });
  const r = new Renderer(req.sandbox, viewerOf(req), options);
  return ok(r.envelope(r.user(found.user)));
}

type Edges = Array<{ id: string; created_at: number }>;

/**
 * A list of users by relation edges (newest edge first), paged. `edgesOf` runs after the
 * parameters are checked; it may answer instead (a partial error for the path's user).
 */
function userList(req: RouteRequest, range: PageRange, edgesOf: () => Edges | { answer: JsonResult }) {
  const q = new Params(req.query, ["max_results", "pagination_token", ...RENDER_PARAMS.user]);
  const page = readPage(q, range);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
  const edges = edgesOf();
  if (!Array.isArray(edges)) return edges.answer;
  const users = edges
    .map((e) => ({ e, user: userById(req.sandbox, e.id) }))
    .filter((x): x is { e: (typeof edges)[number]; user: SandboxUser } => x.user !== undefined);
  const cut = paginate(users, (x) => sortKey(x.e.created_at, x.user.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((x) => r.user(x.user)),
      listMeta(cut),
    ),
  );
}

/** The target of a follow or mute, which must exist (404 otherwise). */
function target(req: RouteRequest): SandboxUser {
  const { target_user_id } = parseBody(targetBody, req.body);
  const user = userById(req.sandbox, target_user_id);
  if (!user) throw notFound(`Could not find user with target_user_id: [${target_user_id}].`);
  return user;
}

/**
 * `GET /2/users/search`: accounts whose username, name or description contain every word of
 * `query` (case-insensitive), newest account first (paged like every list).
 */
function searchUsers(req: RouteRequest) {
  const q = new Params(req.query, ["query", "max_results", "next_token", ...RENDER_PARAMS.user]);
  // Each word once, without its `@`: a query repeating a word costs no more than one naming it.
  const words = [
    ...new Set(
      q
        .required("query")
        .toLowerCase()
        .split(/\s+/)
        .map((w) => w.replace(/^@/, ""))
        .filter(Boolean),
    ),
  ];
  const page = readPage(q, PAGE_RANGES.usersSearch, ["next_token"]);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
  const hits = activeUsers(req.sandbox).filter((u) => {
    const hay = `${u.username} ${u.name} ${u.description}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const cut = paginate(hits, (u) => sortKey(u.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((u) => r.user(u)),
      listMeta(cut, { previous: false }),
    ),
  );
}

/** User, follow, mute and block handlers by endpoint key. */
export const userRoutes: RouteTable = {
  "GET /2/users": (req) => lookupMany(req, "id", "ids"),
  "GET /2/users/by": (req) => lookupMany(req, "username", "usernames"),
  "GET /2/users/:id": (req) => lookupOne(req, "id"),
  "GET /2/users/by/username/:username": (req) => lookupOne(req, "username"),

  "GET /2/users/me": (req) => {
    const q = new Params(req.query, RENDER_PARAMS.user);
    const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
    return ok(r.envelope(r.user(callerUser(req))));
  },

  "GET /2/users/search": searchUsers,

  "POST /2/users/:id/following": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    return ok({ data: follow(req.sandbox, user, target(req)) });
  },

  "DELETE /2/users/:source_user_id/following/:target_user_id": (req) => {
    new Params(req.query, []);
    const user = callerAs(req, "source_user_id");
    unfollow(req.sandbox, user.id, pathId(req.params, "target_user_id"));
    return ok({ data: { following: false } });
  },

  "GET /2/users/:id/following": (req) =>
    userList(req, PAGE_RANGES.relations, () => {
      const found = pathUser(req);
      if ("answer" in found) return found;
      return outgoing(req.sandbox, "follows", found.user.id).map((e) => ({
        id: e.target_id,
        created_at: e.created_at,
      }));
    }),

  "GET /2/users/:id/followers": (req) =>
    userList(req, PAGE_RANGES.relations, () => {
      const found = pathUser(req);
      if ("answer" in found) return found;
      return incoming(req.sandbox, "follows", found.user.id).map((e) => ({
        id: e.source_id,
        created_at: e.created_at,
      }));
    }),

  "GET /2/users/:id/blocking": (req) =>
    userList(req, PAGE_RANGES.relations, () =>
      outgoing(req.sandbox, "blocks", callerAs(req).id).map((e) => ({ id: e.target_id, created_at: e.created_at })),
    ),

  "POST /2/users/:id/muting": (req) => {
    new Params(req.query, []);
    const user = callerAs(req);
    mute(req.sandbox, user, target(req));
    return ok({ data: { muting: true } });
  },

  "DELETE /2/users/:source_user_id/muting/:target_user_id": (req) => {
    new Params(req.query, []);
    const user = callerAs(req, "source_user_id");
    unmute(req.sandbox, user.id, pathId(req.params, "target_user_id"));
    return ok({ data: { muting: false } });
  },

  "GET /2/users/:id/muting": (req) =>
    userList(req, PAGE_RANGES.relations, () =>
      outgoing(req.sandbox, "mutes", callerAs(req).id).map((e) => ({ id: e.target_id, created_at: e.created_at })),
    ),
};
