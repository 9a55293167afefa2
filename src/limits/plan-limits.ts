/**
 * The limits that apply to a request: the spec's part 8.2 table plus the choices postbot
 * makes where the spec leaves a gap. The sandbox enforces these and the budget layer plans
 * by them, so the two can never disagree.
 */
import { endpoint, type EndpointKey } from "../api/endpoints.ts";
import { SPEC_LIMITS } from "./table.ts";
import type { Limit, Plan } from "./types.ts";

type TableKey = keyof typeof SPEC_LIMITS;

/**
 * Cells the spec leaves out ("absent cell"; their free-plan limits are "not shown"):
 *
 * - `GET /2/posts/search/all` on free: unavailable. Full-archive search needs Academic
 *   Research access, which the free plan never had, and basic marks it unavailable too.
 * - `POST /2/posts/search/stream/rules` on free: unavailable. Rules are useless without the
 *   stream, which free marks unavailable (`—`).
 * - `GET /2/lists/:id/posts` on free: as the other list lookups on free
 *   (`GET /2/lists/:id/members`: 1/15m U; 1/15m A).
 */
const ABSENT_CELLS: Partial<
  Record<TableKey, Partial<Record<Plan, readonly Limit[] | "unavailable" | { sameAs: TableKey }>>>
> = {
  "GET /2/posts/search/all": { free: "unavailable" },
  "POST /2/posts/search/stream/rules": { free: "unavailable" },
  "GET /2/lists/:id/posts": { free: { sameAs: "GET /2/lists/:id/members" } },
};

/**
 * Endpoints of part 4.1 with no row in part 8.2, and the row whose limits they take:
 *
 * - The bookmark forms under `/2/posts/:id/bookmarks` (listed only in the authentication
 *   mapping) are the same operations as their `/2/users/:id/bookmarks` rows.
 * - The volume stream takes the filtered stream's connection limit (pro only).
 * - Followers and following take the blocking lookup's row (15/15m U on pro, 5 on basic,
 *   1 on free), the nearest relation lookup the table lists.
 * - List followers take list members'; followed lists take owned lists'.
 */
const DERIVED: Partial<Record<EndpointKey, TableKey>> = {
  "GET /2/posts/:id/bookmarks": "GET /2/users/:id/bookmarks",
  "POST /2/posts/:id/bookmarks": "POST /2/users/:id/bookmarks",
  "GET /2/posts/sample/stream": "GET /2/posts/search/stream",
  "GET /2/users/:id/followers": "GET /2/users/:id/blocking",
  "GET /2/users/:id/following": "GET /2/users/:id/blocking",
  "GET /2/lists/:id/followers": "GET /2/lists/:id/members",
  "GET /2/users/:id/followed_lists": "GET /2/users/:id/owned_lists",
};

/**
 * The limits of an endpoint on a plan, applying together, or `"unavailable"` when the plan
 * does not offer the endpoint (the service answers 403).
 */
export function limitsFor(key: EndpointKey, plan: Plan): readonly Limit[] | "unavailable" {
  endpoint(key); // an unknown key is a bug
  const row = (key in SPEC_LIMITS ? key : DERIVED[key]) as TableKey | undefined;
  if (!row) throw new Error(`no limit row for ${key}: add it to DERIVED in src/limits/plan-limits.ts`);
  const cell = SPEC_LIMITS[row][plan];
  if (cell !== "absent") return cell;
  const chosen = ABSENT_CELLS[row]?.[plan];
  if (!chosen) throw new Error(`spec cell ${row} (${plan}) is absent and no choice is recorded`);
  if (typeof chosen === "object" && "sameAs" in chosen) return limitsFor(chosen.sameAs as EndpointKey, plan);
  return chosen;
}

/**
 * Spec part 8.1 rule 5: the basic plan reads at most 500,000 posts a month through recent
 * search and the filtered stream; past it, those reads are refused (429 usage-capped) until
 * the enrolment day of the month. No other plan has a cap in the spec.
 */
export const MONTHLY_POST_CAP: Partial<Record<Plan, number>> = { basic: 500_000 };

/** The endpoints whose delivered posts count against {@link MONTHLY_POST_CAP}. */
export const CAPPED_ENDPOINTS: readonly EndpointKey[] = ["GET /2/posts/search/recent", "GET /2/posts/search/stream"];
