/**
 * Spaces (wire-facts 2.15): lookup by id and ids, by creators, search by title, the
 * buyers of a ticketed space (its creator only) and the posts shared in a space; and the
 * admin route that creates spaces, which the service has no endpoint for.
 *
 * The spaces of creators and the search find live and scheduled spaces, never ended
 * ones, as the service documents; lookups by id find spaces in any state.
 */
import { z } from "zod";
import { DEFAULT_FIELDS, SPACE_EXPANSIONS, SPACE_FIELDS, TOPIC_FIELDS, type Space } from "../../api/types.ts";
import type { SandboxSpace } from "../model/index.ts";
import { forbidden, invalidRequest, resourceNotFound } from "../problems.ts";
import type { AdminRouteTable, JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { Expander, readFields, readUserFields } from "../domain/expand.ts";
import { Params } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { livePostsNewestFirst, visibleTo } from "../domain/posts.ts";
import { readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import {
  allSpaces,
  createSpace,
  liveSpace,
  sharesSpace,
  SPACE_ID_PATTERN,
  SPACE_TOPICS,
  spaceObject,
  spaceState,
  titleMatches,
} from "../domain/spaces.ts";
import { userById } from "../domain/users.ts";
import { callerUser, listMeta, ok, viewerOf } from "./common.ts";

const SPACE_RENDER_PARAMS = ["space.fields", "expansions", "user.fields", "topic.fields"] as const;
/** The longest spaces search query (wire-facts 1.3). */
const MAX_SPACE_QUERY = 2048;

/** How one request wants its spaces shown: `space.fields`, expansions, `user.fields`, `topic.fields`. */
class SpaceView {
  readonly fields: Set<string>;
  readonly expansions: Set<string>;
  readonly topicFields: Set<string>;
  readonly x: Expander;
  readonly now: number;

  constructor(req: RouteRequest, q: Params) {
    this.fields = readFields(q, "space.fields", SPACE_FIELDS, DEFAULT_FIELDS.space);
    this.expansions = new Set(q.enumList("expansions", SPACE_EXPANSIONS) ?? []);
    this.topicFields = readFields(q, "topic.fields", TOPIC_FIELDS, ["id", "name"]);
    this.x = new Expander(req.sandbox, viewerOf(req), readUserFields(q));
    this.now = req.sandbox.clock.now();
  }

  space(s: SandboxSpace): Space {
    const x = this.expansions;
    if (x.has("creator_id")) this.x.user(s.creator_id);
    if (x.has("host_ids")) for (const id of [s.creator_id, ...s.host_ids]) this.x.user(id);
    if (x.has("invited_user_ids")) for (const id of s.invited_user_ids) this.x.user(id);
    if (x.has("speaker_ids")) for (const id of s.speaker_ids) this.x.user(id);
    if (x.has("topic_ids")) {
      for (const id of s.topic_ids) {
        const t = SPACE_TOPICS.find((topic) => topic.id === id);
        if (t)
          this.x.topic({
            id: t.id,
            name: t.name,
            ...(this.topicFields.has("description") && t.description ? { description: t.description } : {}),
          });
      }
    }
    return spaceObject(s, this.fields, this.now);
  }
}

function spaceParam(value: string, name: string): string {
  if (!SPACE_ID_PATTERN.test(value)) {
    throw invalidRequest(`The \`${name}\` path parameter value [${value}] does not match ${SPACE_ID_PATTERN.source}`, {
      [name]: [value],
    });
  }
  return value;
}

/** Spaces newest first, cut at `max`, as `{data, meta: {result_count}}`. */
function spaceList(view: SpaceView, spaces: SandboxSpace[], max: number): JsonResult {
  const cut = [...spaces].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).slice(0, max);
  if (!cut.length) return ok(view.x.envelope(undefined, { result_count: 0 }));
  return ok(
    view.x.envelope(
      cut.map((s) => view.space(s)),
      { result_count: cut.length },
    ),
  );
}

const newSpace = z
  .object({
    creator_id: zId,
    title: z.string(),
    scheduled_start: z.iso.datetime({ offset: true }).optional(),
    duration_ms: z
      .number()
      .int()
      .min(1)
      .max(365 * 24 * 3_600_000)
      .optional(),
    ends_at: z.iso.datetime({ offset: true }).optional(),
    is_ticketed: z.boolean().optional(),
    host_ids: z.array(zId).max(100).optional(),
    speaker_ids: z.array(zId).max(100).optional(),
    invited_user_ids: z.array(zId).max(100).optional(),
    participant_count: z.number().int().min(0).optional(),
    subscriber_count: z.number().int().min(0).optional(),
    lang: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "must be a language code such as en")
      .optional(),
    topic_ids: z.array(zId).max(25).optional(),
    buyer_ids: z.array(zId).max(1000).optional(),
  })
  .strict();

/** Space handlers by endpoint key. */
export const spaceRoutes: RouteTable = {
  "GET /2/spaces/:id": (req) => {
    const q = new Params(req.query, SPACE_RENDER_PARAMS);
    const view = new SpaceView(req, q);
    const id = spaceParam(req.params.id ?? "", "id");
    const space = liveSpace(req.sandbox, id);
    if (!space) return ok({ errors: [resourceNotFound("space", "id", id)] });
    return ok(view.x.envelope(view.space(space)));
  },

  "GET /2/spaces": (req) => {
    const q = new Params(req.query, ["ids", ...SPACE_RENDER_PARAMS]);
    const ids = q.ids("ids", 100, SPACE_ID_PATTERN);
    const view = new SpaceView(req, q);
    const data: Space[] = [];
    for (const id of ids) {
      const space = liveSpace(req.sandbox, id);
      if (space) data.push(view.space(space));
      else view.x.error(resourceNotFound("space", "ids", id));
    }
    return ok(view.x.envelope(data.length ? data : undefined));
  },

  "GET /2/spaces/by/creator_ids": (req) => {
    const q = new Params(req.query, ["user_ids", ...SPACE_RENDER_PARAMS]);
    const creators = new Set(q.ids("user_ids", 100));
    const view = new SpaceView(req, q);
    const spaces = allSpaces(req.sandbox).filter(
      (s) => creators.has(s.creator_id) && spaceState(s, view.now) !== "ended",
    );
    return spaceList(view, spaces, 100);
  },

  "GET /2/spaces/search": (req) => {
    const q = new Params(req.query, ["query", "state", "max_results", ...SPACE_RENDER_PARAMS]);
    const query = q.required("query");
    if (Array.from(query).length > MAX_SPACE_QUERY) {
      throw invalidRequest(`The \`query\` query parameter value is longer than ${MAX_SPACE_QUERY} characters`, {
        query: [query.slice(0, 50) + "…"],
      });
    }
    const state = q.oneOf("state", ["live", "scheduled", "all"]) ?? "all";
    const max = q.int("max_results", PAGE_RANGES.spaces.min, PAGE_RANGES.spaces.max, PAGE_RANGES.spaces.def);
    const view = new SpaceView(req, q);
    const spaces = allSpaces(req.sandbox).filter((s) => {
      const now = spaceState(s, view.now);
      return now !== "ended" && (state === "all" || now === state) && titleMatches(s, query);
    });
    return spaceList(view, spaces, max);
  },

  "GET /2/spaces/:id/buyers": (req) => {
    const q = new Params(req.query, ["max_results", "pagination_token", ...RENDER_PARAMS.user]);
    const page = readPage(q, PAGE_RANGES.spaces);
    const r = new Renderer(req.sandbox, viewerOf(req), readRender(q, "user"));
    const id = spaceParam(req.params.id ?? "", "id");
    const me = callerUser(req);
    const space = liveSpace(req.sandbox, id);
    if (!space) return ok({ errors: [resourceNotFound("space", "id", id)] });
    if (space.creator_id !== me.id) throw forbidden(`Only the creator of the space ${id} may see who bought a ticket.`);
    const buyers = space.buyer_ids.flatMap((uid, i) => {
      const user = userById(req.sandbox, uid);
      return user ? [{ user, at: i }] : [];
    });
    const cut = paginate(buyers, (b) => sortKey(b.at, b.user.id), page);
    if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
    return ok(
      r.envelope(
        cut.items.map((b) => r.user(b.user)),
        listMeta(cut),
      ),
    );
  },

  "GET /2/spaces/:id/posts": (req) => {
    const q = new Params(req.query, ["max_results", ...RENDER_PARAMS.post]);
    const max = q.int("max_results", PAGE_RANGES.spaces.min, PAGE_RANGES.spaces.max, PAGE_RANGES.spaces.def);
    const viewer = viewerOf(req);
    const r = new Renderer(req.sandbox, viewer, readRender(q, "post"));
    const id = spaceParam(req.params.id ?? "", "id");
    if (!liveSpace(req.sandbox, id)) return ok({ errors: [resourceNotFound("space", "id", id)] });
    const posts = livePostsNewestFirst(req.sandbox)
      .filter((p) => sharesSpace(p, id) && visibleTo(req.sandbox, viewer, p))
      .slice(0, max);
    if (!posts.length) return ok(r.envelope(undefined, { result_count: 0 }));
    return ok(
      r.envelope(
        posts.map((p) => r.post(p)),
        { result_count: posts.length },
      ),
    );
  },
};

/** The admin route that creates spaces (the service has none). */
export const spaceAdminRoutes: AdminRouteTable = {
  /**
   * `{creator_id, title, scheduled_start?, duration_ms? | ends_at?, is_ticketed?, host_ids?,
   * speaker_ids?, invited_user_ids?, participant_count?, subscriber_count?, lang?, topic_ids?,
   * buyer_ids?}` → the space with every field. Times are ISO-8601; without `scheduled_start`
   * the space is live at once.
   */
  "POST /_sandbox/spaces": (req): JsonResult => {
    const input = parseBody(newSpace, req.body);
    const space = createSpace(req.sandbox, {
      ...input,
      scheduled_start: input.scheduled_start === undefined ? undefined : Date.parse(input.scheduled_start),
      ends_at: input.ends_at === undefined ? undefined : Date.parse(input.ends_at),
    });
    return { status: 201, body: spaceObject(space, new Set(SPACE_FIELDS), req.sandbox.clock.now()) };
  },
};
