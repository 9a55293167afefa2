/**
 * What every handler table shares: who the caller is (and the rule that `:id` in a
 * user-context path must be the caller), answers, and the `meta` of list endpoints.
 */
import type { Meta } from "../../api/types.ts";
import { compareIds, type SandboxPost, type SandboxUser } from "../model/index.ts";
import { ApiProblem, forbidden } from "../problems.ts";
import type { JsonResult, RouteRequest } from "../route.ts";
import { pathId } from "../domain/params.ts";
import type { Page } from "../domain/paging.ts";
import { PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { canSeeAuthor } from "../domain/posts.ts";
import { lookupUser, notAuthorized } from "../domain/render.ts";

/** A JSON answer. */
export const ok = (body: unknown, status = 200): JsonResult => ({ status, body });

/** The user whose eyes a response is for: the caller's user, or undefined for an app. */
export const viewerOf = (req: RouteRequest): string | undefined => req.caller.user?.id;

/**
 * The caller's user. The platform only lets user-context methods reach endpoints that need
 * one, so its absence is a catalog mistake; it is still answered as the service would.
 */
export function callerUser(req: RouteRequest): SandboxUser {
  const user = req.caller.user;
  if (!user) {
    throw new ApiProblem(403, {
      title: "Unsupported Authentication",
      detail: "This endpoint acts for a user; authenticate with a user context (OAuth 1.0a or OAuth 2.0 PKCE).",
      type: PROBLEM_TYPE_BASE + "unsupported-authentication",
      status: 403,
    });
  }
  return user;
}

/**
 * The caller's user, checked against the path parameter `name`: in paths such as
 * `POST /2/users/:id/likes` the id must be the authenticated user's (wire-facts 2.10).
 */
export function callerAs(req: RouteRequest, name = "id"): SandboxUser {
  const id = pathId(req.params, name);
  const user = callerUser(req);
  if (user.id !== id) {
    throw forbidden(
      `The \`${name}\` in the path (${id}) must be the authenticated user's id (${user.id}): you can only act for, or read the private lists of, yourself.`,
    );
  }
  return user;
}

/** `meta` of a post list: ids of the page's ends, count, and tokens. */
export function postListMeta(page: Page<SandboxPost>, opts: { previous?: boolean } = {}): Meta {
  if (!page.items.length) return { result_count: 0 };
  const ids = page.items.map((p) => p.id);
  const sorted = [...ids].sort(compareIds);
  const meta: Meta = { newest_id: sorted[sorted.length - 1]!, oldest_id: sorted[0]!, result_count: ids.length };
  if (page.next_token) meta.next_token = page.next_token;
  if (opts.previous !== false && page.previous_token) meta.previous_token = page.previous_token;
  return meta;
}

/** `meta` of any other list: count and tokens. */
export function listMeta(page: Page<unknown>, opts: { previous?: boolean } = {}): Meta {
  const meta: Meta = { result_count: page.items.length };
  if (page.next_token) meta.next_token = page.next_token;
  if (opts.previous !== false && page.previous_token) meta.previous_token = page.previous_token;
  return meta;
}

/**
 * The user a GET path names (`/2/users/:id/...`), or the HTTP 200 answer that stands in
 * for it: a partial error when the user is missing, suspended, or protected from the
 * viewer (with `guarded`), as the service answers lookups.
 */
export function pathUser(
  req: RouteRequest,
  name = "id",
  guarded = true,
): { user: SandboxUser } | { answer: JsonResult } {
  const id = pathId(req.params, name);
  const found = lookupUser(req.sandbox, "id", id, name);
  if ("error" in found) return { answer: ok({ errors: [found.error] }) };
  if (guarded && !canSeeAuthor(req.sandbox, viewerOf(req), found.user)) {
    return { answer: ok({ errors: [notAuthorized("user", name, id)] }) };
  }
  return found;
}
