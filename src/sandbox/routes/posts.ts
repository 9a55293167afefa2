/**
 * Posts (wire-facts 2.1–2.4, 2.10): lookup of one and many, create, delete, hide replies,
 * and the lists hanging off one post (liking users, reposted by, quote posts).
 *
 * Missing ids: a lookup answers 200 with partial errors; an action on a post named in the
 * path (delete, hide) answers 404.
 */
import { z } from "zod";
import type { SandboxPost, SandboxUser } from "../model/index.ts";
import { invalidRequest } from "../problems.ts";
import type { JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import {
  createPost,
  deletePost,
  liveQuotesOf,
  liveRepostsOf,
  postAccess,
  setHidden,
  visibleTo,
} from "../domain/posts.ts";
import { postProblem, readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { isGone, userById } from "../domain/users.ts";
import { callerUser, listMeta, ok, viewerOf } from "./common.ts";

const createSchema = z
  .object({
    text: z.string().optional(),
    reply: z
      .object({
        in_reply_to_post_id: zId,
        exclude_reply_user_ids: z.array(zId).optional(),
        auto_populate_reply_metadata: z.boolean().optional(),
      })
      .strict()
      .optional(),
    quote_post_id: zId.optional(),
    reply_settings: z.enum(["following", "mentionedUsers"]).optional(),
    poll: z
      .object({
        options: z.array(z.string().min(1).max(25)).min(2).max(4),
        duration_minutes: z.number().int().min(5).max(10080),
        reply_settings: z.enum(["following", "mentionedUsers"]).optional(),
      })
      .strict()
      .optional(),
    media: z
      .object({ media_ids: z.array(zId).min(1).max(4), tagged_user_ids: z.array(zId).max(10).optional() })
      .strict()
      .optional(),
    card_uri: z.string().optional(),
    for_super_followers_only: z.boolean().optional(),
    nullcast: z.boolean().optional(),
    geo: z.object({ place_id: z.string().optional() }).strict().optional(),
    direct_message_deep_link: z.string().optional(),
    community_id: zId.optional(),
    share_with_followers: z.boolean().optional(),
    edit_options: z.object({ previous_post_id: zId }).strict().optional(),
  })
  .strict();

/**
 * `POST /2/posts`. The sandbox has no media, cards, places, communities, super follows,
 * promoted posts or edits, so a body that needs one is refused with a 400 that says so,
 * rather than silently ignored.
 */
function create(req: RouteRequest) {
  new Params(req.query, []);
  const user = callerUser(req);
  const body = parseBody(createSchema, req.body);
  const exclusive = (["media", "poll", "quote_post_id", "card_uri"] as const).filter((k) => body[k] !== undefined);
  if (exclusive.length > 1) {
    throw invalidRequest(
      `${exclusive.map((k) => `$.${k}`).join(", ")}: media, poll, quote_post_id and card_uri are mutually exclusive; send one`,
    );
  }
  if (body.media)
    throw invalidRequest(
      "$.media.media_ids: Your media IDs are invalid. (The sandbox has no media upload, so no media id exists.)",
    );
  if (body.card_uri !== undefined)
    throw invalidRequest("$.card_uri: the card does not exist (the sandbox has no cards)");
  if (body.geo?.place_id !== undefined)
    throw invalidRequest("$.geo.place_id: the place does not exist (the sandbox has no places)");
  if (body.community_id !== undefined)
    throw invalidRequest("$.community_id: the community does not exist in the sandbox");
  if (body.edit_options)
    throw invalidRequest("$.edit_options: the sandbox does not support editing posts; delete and post again");
  if (body.for_super_followers_only)
    throw invalidRequest("$.for_super_followers_only: the sandbox has no super follows; leave it out or false");
  if (body.nullcast)
    throw invalidRequest("$.nullcast: promoted-only posts need an ads account, which the sandbox does not have");
  if (body.text === undefined) throw invalidRequest("$.text: is missing but it is required");
  const post = createPost(req.sandbox, {
    author_id: user.id,
    text: body.text,
    source: req.caller.app.name,
    ...(body.reply ? { in_reply_to_post_id: body.reply.in_reply_to_post_id } : {}),
    ...(body.quote_post_id !== undefined ? { quote_post_id: body.quote_post_id } : {}),
    ...((body.reply_settings ?? body.poll?.reply_settings)
      ? { reply_settings: body.reply_settings ?? body.poll!.reply_settings! }
      : {}),
    ...(body.poll ? { poll: { options: body.poll.options, duration_minutes: body.poll.duration_minutes } } : {}),
  });
  return ok({ data: { id: post.id, text: post.text, edit_history_post_ids: [post.id] } }, 201);
}

/** The users behind the relations of the post in the path, newest relation first, paged. */
function usersOf(req: RouteRequest, relationsOf: (postId: string) => Array<{ user_id: string; created_at: number }>) {
  const q = new Params(req.query, ["max_results", "pagination_token", ...RENDER_PARAMS.user]);
  const page = readPage(q, PAGE_RANGES.postUsers);
  const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
  const found = pathPost(req);
  if ("answer" in found) return found.answer;
  const users = relationsOf(found.post.id)
    .map((rel) => ({ rel, user: userById(req.sandbox, rel.user_id) }))
    .filter((x): x is { rel: typeof x.rel; user: SandboxUser } => x.user !== undefined && !isGone(x.user));
  const cut = paginate(users, (x) => sortKey(x.rel.created_at, x.user.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((x) => r.user(x.user)),
      listMeta(cut),
    ),
  );
}

/** The post a GET path names, or the partial-error answer. */
function pathPost(req: RouteRequest): { post: SandboxPost } | { answer: JsonResult } {
  const id = pathId(req.params, "id");
  const access = postAccess(req.sandbox, viewerOf(req), id);
  return access.ok ? { post: access.post } : { answer: ok({ errors: [postProblem(access.reason, "id", id)] }) };
}

/** Post handlers by endpoint key. */
export const postRoutes: RouteTable = {
  "GET /2/posts": (req) => {
    const q = new Params(req.query, ["ids", ...RENDER_PARAMS.post]);
    const ids = q.ids("ids", 100);
    const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "post"));
    const data = [];
    for (const id of ids) {
      const access = postAccess(req.sandbox, viewerOf(req), id);
      if (access.ok) data.push(r.post(access.post));
      else r.error(postProblem(access.reason, "ids", id));
    }
    return ok(r.envelope(data.length ? data : undefined));
  },

  "GET /2/posts/:id": (req) => {
    const q = new Params(req.query, RENDER_PARAMS.post);
    const options = readRender(q, "post");
    const found = pathPost(req);
    if ("answer" in found) return found.answer;
    const r = new Renderer(req.sandbox, viewerOf(req), options);
    return ok(r.envelope(r.post(found.post)));
  },

  "POST /2/posts": create,

  "DELETE /2/posts/:id": (req) => {
    new Params(req.query, []);
    deletePost(req.sandbox, callerUser(req).id, pathId(req.params, "id"));
    return ok({ data: { deleted: true } });
  },

  "PUT /2/posts/:id/hidden": (req) => {
    new Params(req.query, []);
    const { hidden } = parseBody(z.object({ hidden: z.boolean() }).strict(), req.body);
    return ok({ data: { hidden: setHidden(req.sandbox, callerUser(req).id, pathId(req.params, "id"), hidden) } });
  },

  "GET /2/posts/:id/liking_users": (req) =>
    usersOf(req, (id) => req.sandbox.data.world.likes.filter((l) => l.post_id === id)),

  "GET /2/posts/:id/reposted_by": (req) =>
    usersOf(req, (id) =>
      liveRepostsOf(req.sandbox, id).map((p) => ({ user_id: p.author_id, created_at: p.created_at })),
    ),

  "GET /2/posts/:id/quote_posts": (req) => {
    const q = new Params(req.query, ["max_results", "pagination_token", "exclude", ...RENDER_PARAMS.post]);
    const page = readPage(q, PAGE_RANGES.quotePosts);
    const exclude = q.enumList("exclude", ["reposts", "replies"]) ?? [];
    const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "post"));
    const found = pathPost(req);
    if ("answer" in found) return found.answer;
    const viewer = viewerOf(req);
    const quotes = liveQuotesOf(req.sandbox, found.post.id).filter(
      (p) => visibleTo(req.sandbox, viewer, p) && !(exclude.includes("replies") && p.in_reply_to_post_id !== undefined),
    );
    const cut = paginate(quotes, (p) => sortKey(p.id), page);
    if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
    return ok(
      r.envelope(
        cut.items.map((p) => r.post(p)),
        listMeta(cut, { previous: false }),
      ),
    );
  },
};
