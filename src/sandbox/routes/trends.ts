/**
 * Trends (wire-facts 2.17): by location (`GET /2/trends/by/woeid/:id`, app-only) and
 * personalized for the caller (`GET /2/users/personalized_trends`), both counted from the
 * public posts of the last 24 hours of the sandbox clock (see domain/trends.ts).
 *
 * An unknown WOEID answers 404 `resource-not-found`, as the service answers a location it
 * has no trends for. Personalized trends rank what the caller's follows post about above
 * what everyone posts about (a post of a followed account weighs three times), and leave
 * out muted and blocked accounts; `post_count` is the count over everyone.
 */
import { PERSONALIZED_TREND_FIELDS, TREND_FIELDS, type PersonalizedTrend, type Trend } from "../../api/types.ts";
import { notFound } from "../problems.ts";
import type { RouteTable } from "../route.ts";
import { readFields } from "../domain/expand.ts";
import { iso, Params, pathId } from "../domain/params.ts";
import { blocks, mutes, outgoing } from "../domain/relations.ts";
import { locatedIn, trendLocation } from "../domain/trend-locations.ts";
import { categoryOf, countTerms, rankTrends, recentPublicPosts, trends } from "../domain/trends.ts";
import { userById } from "../domain/users.ts";
import { callerUser, ok } from "./common.ts";

/** How many trends personalized trends show (the service gives no parameter for it). */
const PERSONALIZED_TRENDS = 20;
/** How much more a post of a followed account counts in personalized trends. */
const FOLLOWED_WEIGHT = 3;

/** Trend handlers by endpoint key. */
export const trendRoutes: RouteTable = {
  "GET /2/trends/by/woeid/:id": (req) => {
    const q = new Params(req.query, ["max_trends", "trend.fields"]);
    const max = q.int("max_trends", 1, 50, 20);
    const fields = readFields(
      q,
      "trend.fields",
      TREND_FIELDS,
      q.get("trend.fields") === undefined ? TREND_FIELDS : ["trend_name"],
    );
    const id = pathId(req.params, "id");
    const place = trendLocation(Number(id));
    if (!place)
      throw notFound(
        `Could not find trends for woeid: [${id}]. Use a location code such as 1 (Worldwide) or 23424977 (United States).`,
      );
    const ctx = req.sandbox;
    const posts = recentPublicPosts(ctx, (p) => locatedIn(place, userById(ctx, p.author_id)?.location));
    const top = rankTrends([...countTerms(ctx, posts).values()].filter(trends)).slice(0, max);
    if (!top.length) return ok({ meta: { result_count: 0 } });
    const data: Trend[] = top.map((t) => ({
      trend_name: t.name,
      ...(fields.has("post_count") ? { post_count: t.count } : {}),
    }));
    return ok({ data });
  },

  "GET /2/users/personalized_trends": (req) => {
    const q = new Params(req.query, ["personalized_trend.fields"]);
    const asked = q.get("personalized_trend.fields") !== undefined;
    const fields = readFields(
      q,
      "personalized_trend.fields",
      PERSONALIZED_TREND_FIELDS,
      asked ? ["trend_name"] : ["trend_name", "post_count"],
    );
    const me = callerUser(req);
    const ctx = req.sandbox;
    const followed = new Set(outgoing(ctx, "follows", me.id).map((e) => e.target_id));
    const posts = recentPublicPosts(
      ctx,
      (p) => !mutes(ctx, me.id, p.author_id) && !blocks(ctx, me.id, p.author_id) && !blocks(ctx, p.author_id, me.id),
    );
    const overall = countTerms(ctx, posts);
    const fromFollowed = countTerms(
      ctx,
      posts.filter((p) => followed.has(p.author_id)),
    );
    const key = (name: string) => name.toLowerCase();
    const top = rankTrends(
      [...overall.values()].filter(trends),
      (t) => t.count + (FOLLOWED_WEIGHT - 1) * (fromFollowed.get(key(t.name))?.count ?? 0),
    ).slice(0, PERSONALIZED_TRENDS);
    if (!top.length) return ok({ meta: { result_count: 0 } });
    const data: PersonalizedTrend[] = top.map((t) => {
      const out: PersonalizedTrend = { trend_name: t.name };
      if (fields.has("post_count")) out.post_count = t.count;
      if (fields.has("category")) out.category = categoryOf(t.name);
      if (fields.has("trending_since")) out.trending_since = iso(t.since);
      return out;
    });
    return ok({ data });
  },
};
