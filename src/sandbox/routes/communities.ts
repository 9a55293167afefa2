/**
 * Communities (wire-facts 2.19): lookup by id and search by words of the name or
 * description, newest community first, and the admin route that creates them.
 */
import { z } from "zod";
import { COMMUNITY_FIELDS, PROBLEM_TYPE_BASE } from "../../api/types.ts";
import { invalidRequest } from "../problems.ts";
import type { AdminRouteTable, JsonResult, RouteTable } from "../route.ts";
import { parseBody } from "../domain/body.ts";
import { communityMatches, communityObject, communityTable, createCommunity } from "../domain/communities.ts";
import { readFields } from "../domain/expand.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { listMeta, ok } from "./common.ts";

/** The longest search query (wire-facts 1.3). */
const MAX_QUERY = 4096;

const newCommunity = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    access: z.enum(["Public", "Closed"]).optional(),
    join_policy: z
      .enum([
        "Open",
        "RestrictedJoinRequestsDisabled",
        "RestrictedJoinRequestsRequireAdminApproval",
        "RestrictedJoinRequestsRequireModeratorApproval",
        "SuperFollowRequired",
      ])
      .optional(),
    member_count: z.number().int().min(1).optional(),
  })
  .strict();

const readCommunityFields = (q: Params) => readFields(q, "community.fields", COMMUNITY_FIELDS, ["id", "name"]);

/** Community handlers by endpoint key. */
export const communityRoutes: RouteTable = {
  "GET /2/communities/:id": (req) => {
    const q = new Params(req.query, ["community.fields"]);
    const fields = readCommunityFields(q);
    const id = pathId(req.params, "id");
    const c = communityTable(req.sandbox)[id];
    if (!c) {
      return ok({
        errors: [
          {
            value: id,
            detail: `Could not find community with id: [${id}].`,
            title: "Not Found Error",
            resource_type: "community",
            parameter: "id",
            resource_id: id,
            type: PROBLEM_TYPE_BASE + "resource-not-found",
          },
        ],
      });
    }
    return ok({ data: communityObject(c, fields) });
  },

  "GET /2/communities/search": (req) => {
    const q = new Params(req.query, ["query", "max_results", "next_token", "pagination_token", "community.fields"]);
    const query = q.required("query");
    if (Array.from(query).length > MAX_QUERY) {
      throw invalidRequest(`The \`query\` query parameter value is longer than ${MAX_QUERY} characters`, {
        query: [query.slice(0, 50) + "…"],
      });
    }
    const page = readPage(q, PAGE_RANGES.communitySearch, ["next_token", "pagination_token"]);
    const fields = readCommunityFields(q);
    const hits = Object.values(communityTable(req.sandbox)).filter((c) => communityMatches(c, query));
    const cut = paginate(hits, (c) => sortKey(c.id), page);
    if (!cut.items.length) return ok({ meta: { result_count: 0 } });
    return ok({
      data: cut.items.map((c) => communityObject(c, fields)),
      meta: listMeta(cut, { previous: false }),
    });
  },
};

/** The admin route that creates communities (the service has none). */
export const communityAdminRoutes: AdminRouteTable = {
  /** `{name, description?, access?, join_policy?, member_count?}` → the community with every field. */
  "POST /_sandbox/communities": (req): JsonResult => {
    const c = createCommunity(req.sandbox, parseBody(newCommunity, req.body));
    return { status: 201, body: communityObject(c, new Set(COMMUNITY_FIELDS)) };
  },
};
