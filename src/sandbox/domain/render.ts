/**
 * Turning the world into wire objects the way the service does (wire-facts 1.1, 1.2):
 * the default fields when a request names none (and always), the `*.fields` a request asks
 * for, `expansions` gathered into `includes` (present only when non-empty), and partial
 * errors for what could not be shown, next to HTTP 200.
 *
 * A {@link Renderer} serves one response: it renders the primary objects, remembers what
 * their expansions reach, and {@link Renderer.envelope} builds the body at the end.
 */
import {
  DEFAULT_FIELDS,
  DM_EVENT_EXPANSIONS,
  DM_EVENT_FIELDS,
  MEDIA_FIELDS,
  PLACE_FIELDS,
  POLL_FIELDS,
  POST_EXPANSIONS,
  POST_FIELDS,
  PROBLEM_TYPE_BASE,
  USER_EXPANSIONS,
  USER_FIELDS,
  type DmEvent,
  type Envelope,
  type Includes,
  type Meta,
  type Poll,
  type Post,
  type PostEntities,
  type Problem,
  type User,
} from "../../api/types.ts";
import type { SandboxPost, SandboxUser, WorldData } from "../model/index.ts";
import { resourceNotFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { parseEntities } from "../../api/text/entities.ts";
import { referencedPosts } from "./dms.ts";
import { countWorld, type WorldCounts } from "./metrics.ts";
import { iso, type Params } from "./params.ts";
import { postAccess, postEntities } from "./posts.ts";
import { blocks, follows, hasEdge, mutes } from "./relations.ts";
import { isGone, userById, userByUsername } from "./users.ts";

/** What a response is made of: post, user or DM-event objects. */
export type Family = "post" | "user" | "dm_event";

/** The query parameters each family's endpoints accept for fields and expansions. */
export const RENDER_PARAMS: Record<Family, readonly string[]> = {
  post: ["post.fields", "user.fields", "expansions", "media.fields", "poll.fields", "place.fields"],
  user: ["user.fields", "expansions", "post.fields"],
  dm_event: ["dm_event.fields", "expansions", "user.fields", "post.fields", "media.fields"],
};

const EXPANSIONS: Record<Family, readonly string[]> = {
  post: POST_EXPANSIONS,
  user: USER_EXPANSIONS,
  dm_event: DM_EVENT_EXPANSIONS,
};

/** The fields and expansions one request asked for (defaults included). */
export interface RenderOptions {
  post: Set<string>;
  user: Set<string>;
  dm_event: Set<string>;
  poll: Set<string>;
  expansions: Set<string>;
}

/**
 * Reads and checks the `*.fields` and `expansions` parameters of a family's endpoint: an
 * unknown value is a 400 naming it and listing the allowed ones.
 */
export function readRender(q: Params, family: Family): RenderOptions {
  const allowed = RENDER_PARAMS[family];
  const pick = <T extends string>(name: string, list: readonly T[]) =>
    allowed.includes(name) ? (q.enumList(name, list) ?? []) : [];
  pick("media.fields", MEDIA_FIELDS);
  pick("place.fields", PLACE_FIELDS);
  const expansions = new Set<string>(pick("expansions", EXPANSIONS[family]));
  const implied = [...expansions].map((e) => IMPLIED_FIELD[e]).filter((f): f is string => f !== undefined);
  const of = (list: readonly string[]) => implied.filter((f) => list.includes(f));
  return {
    post: new Set([
      ...DEFAULT_FIELDS.post,
      ...pick("post.fields", POST_FIELDS),
      ...(family === "post" ? of(POST_FIELDS) : []),
    ]),
    user: new Set([
      ...DEFAULT_FIELDS.user,
      ...pick("user.fields", USER_FIELDS),
      ...(family === "user" ? of(USER_FIELDS) : []),
    ]),
    dm_event: new Set([
      ...DEFAULT_FIELDS.dm_event,
      ...pick("dm_event.fields", DM_EVENT_FIELDS),
      ...(family === "dm_event" ? of(DM_EVENT_FIELDS) : []),
    ]),
    poll: new Set(["id", "options", ...pick("poll.fields", POLL_FIELDS)]),
    expansions,
  };
}

/**
 * The field of the primary object each expansion reads: the service puts it in the object
 * even when `*.fields` does not ask for it ("the ID that represents the expanded object is
 * included directly in the data object"), so a client can join `includes` to `data` (for
 * example by `author_id`) having asked only for the expansion.
 */
const IMPLIED_FIELD: Record<string, string> = {
  author_id: "author_id",
  in_reply_to_user_id: "in_reply_to_user_id",
  "referenced_posts.id": "referenced_posts",
  "referenced_posts.id.author_id": "referenced_posts",
  "referenced_posts.id.attachments.media_keys": "referenced_posts",
  "attachments.media_keys": "attachments",
  "attachments.poll_ids": "attachments",
  "attachments.media_source_post": "attachments",
  "geo.place_id": "geo",
  "entities.mentions.username": "entities",
  pinned_post_id: "pinned_post_id",
  most_recent_post_id: "most_recent_post_id",
  sender_id: "sender_id",
  participant_ids: "participant_ids",
};

/** The service's default avatar, which every sandbox account has. */
export const DEFAULT_PROFILE_IMAGE = "https://abs.twimg.com/sticky/default_profile_images/default_profile_normal.png";

/** The partial error for a post or user a viewer may not see (wire-facts 1.1). */
export function notAuthorized(
  resourceType: "post" | "user",
  parameter: string,
  value: string,
  section: "data" | "includes" = "data",
): Problem {
  const noun = resourceType === "post" ? "Post" : "User";
  return {
    value,
    detail: `Sorry, you are not authorized to see the ${noun} with ${parameter}: [${value}].`,
    title: "Authorization Error",
    resource_type: resourceType,
    parameter,
    resource_id: value,
    section,
    type: PROBLEM_TYPE_BASE + "not-authorized-for-resource",
  };
}

/** The partial error for a suspended account, in the service's wording. */
export function suspendedUser(parameter: string, value: string): Problem {
  return {
    value,
    detail: `User has been suspended: [${value}].`,
    title: "Forbidden",
    resource_type: "user",
    parameter,
    resource_id: value,
    type: PROBLEM_TYPE_BASE + "resource-not-found",
  };
}

/** The partial error for a post that cannot be shown, by the reason `postAccess` gave. */
export function postProblem(
  reason: "not-found" | "not-authorized",
  parameter: string,
  value: string,
  section?: "includes",
): Problem {
  if (reason === "not-authorized") return notAuthorized("post", parameter, value, section ?? "data");
  const p = resourceNotFound("post", parameter, value);
  return section ? { ...p, section } : p;
}

/** A user looked up by id or username, or the partial error that stands in for it. */
export function lookupUser(
  ctx: SandboxContext,
  by: "id" | "username",
  value: string,
  parameter: string,
): { user: SandboxUser } | { error: Problem } {
  const u =
    by === "id" ? userById(ctx, value, { includeGone: true }) : userByUsername(ctx, value, { includeGone: true });
  if (!u || u.deactivated) return { error: resourceNotFound("user", parameter, value) };
  if (u.suspended) return { error: suspendedUser(parameter, value) };
  return { user: u };
}

function addEntityIds(ctx: SandboxContext, e: PostEntities): PostEntities {
  if (!e.mentions) return e;
  return {
    ...e,
    mentions: e.mentions.map((m) => {
      const u = userByUsername(ctx, m.username);
      return u ? { ...m, id: u.id } : m;
    }),
  };
}

/** One response's renderer; see the module comment. */
export class Renderer {
  readonly errors: Problem[] = [];
  private counts?: WorldCounts;
  private readonly userIds: string[] = [];
  private readonly postIds: Array<{ id: string; parameter: string }> = [];
  private readonly refAuthors = new Set<string>();
  private readonly polls: SandboxPost[] = [];

  constructor(
    readonly ctx: SandboxContext,
    /** The user whose eyes the response is for; undefined for an app-only caller. */
    readonly viewerId: string | undefined,
    readonly options: RenderOptions,
  ) {}

  private get world(): WorldData {
    return this.ctx.data.world;
  }

  private metrics(): WorldCounts {
    return (this.counts ??= countWorld(this.ctx));
  }

  private wantUser(id: string | undefined): void {
    if (id !== undefined && !this.userIds.includes(id)) this.userIds.push(id);
  }

  private wantPost(id: string, parameter: string): void {
    if (!this.postIds.some((p) => p.id === id)) this.postIds.push({ id, parameter });
  }

  /** Renders a primary post and notes what its expansions reach. */
  post(p: SandboxPost): Post {
    const x = this.options.expansions;
    if (x.has("author_id")) this.wantUser(p.author_id);
    if (x.has("in_reply_to_user_id")) this.wantUser(p.in_reply_to_user_id);
    if (x.has("entities.mentions.username")) {
      for (const m of postEntities(p).mentions ?? []) this.wantUser(userByUsername(this.ctx, m.username)?.id);
    }
    if (x.has("referenced_posts.id") || x.has("referenced_posts.id.author_id")) {
      for (const ref of references(p)) {
        if (x.has("referenced_posts.id")) this.wantPost(ref.id, "referenced_posts.id");
        if (x.has("referenced_posts.id.author_id")) this.refAuthors.add(ref.id);
      }
    }
    if (x.has("edit_history_post_ids")) this.wantPost(p.id, "edit_history_post_ids");
    if (x.has("attachments.poll_ids") && p.poll) this.polls.push(p);
    return this.postObject(p, "data");
  }

  /** Renders a primary user and notes what its expansions reach. */
  user(u: SandboxUser): User {
    const x = this.options.expansions;
    if (x.has("pinned_post_id") && u.pinned_post_id) this.wantPost(u.pinned_post_id, "pinned_post_id");
    if (x.has("most_recent_post_id")) {
      const newest = this.metrics().newestBy(u.id);
      if (newest) this.wantPost(newest, "most_recent_post_id");
    }
    return this.userObject(u);
  }

  /** Renders a primary DM event and notes what its expansions reach. */
  dmEvent(e: WorldData["dm_events"][string]): DmEvent {
    const x = this.options.expansions;
    if (x.has("sender_id")) this.wantUser(e.sender_id);
    if (x.has("participant_ids")) for (const id of e.participant_ids ?? []) this.wantUser(id);
    const refs = e.text === undefined ? [] : referencedPosts(e.text);
    if (x.has("referenced_posts.id")) for (const r of refs) this.wantPost(r.id, "referenced_posts.id");
    const f = this.options.dm_event;
    const out: DmEvent = { id: e.id, event_type: e.event_type };
    if (e.text !== undefined && f.has("text")) out.text = e.text;
    if (f.has("sender_id")) out.sender_id = e.sender_id;
    if (f.has("dm_conversation_id")) out.dm_conversation_id = e.dm_conversation_id;
    if (f.has("created_at")) out.created_at = iso(e.created_at);
    if (f.has("participant_ids") && e.participant_ids) out.participant_ids = e.participant_ids;
    if (f.has("referenced_posts") && refs.length) out.referenced_posts = refs;
    if (f.has("entities") && e.text !== undefined) {
      const ent = addEntityIds(this.ctx, parseEntities(e.text));
      if (Object.keys(ent).length) out.entities = ent;
    }
    return out;
  }

  /** Adds a partial error (a lookup's missing or forbidden item). */
  error(p: Problem): void {
    this.errors.push(p);
  }

  private postObject(p: SandboxPost, section: "data" | "includes"): Post {
    const f = this.options.post;
    const out: Post = { id: p.id, text: p.text, edit_history_post_ids: [p.id] };
    if (f.has("created_at")) out.created_at = iso(p.created_at);
    if (f.has("author_id")) out.author_id = p.author_id;
    if (f.has("conversation_id")) out.conversation_id = p.conversation_id;
    if (f.has("in_reply_to_user_id") && p.in_reply_to_user_id) out.in_reply_to_user_id = p.in_reply_to_user_id;
    if (f.has("referenced_posts")) {
      const refs = references(p);
      if (refs.length) out.referenced_posts = refs;
    }
    if (f.has("attachments") && p.poll) out.attachments = { poll_ids: [p.poll.id] };
    if (f.has("entities")) {
      const e = addEntityIds(this.ctx, postEntities(p));
      if (Object.keys(e).length) out.entities = e;
    }
    if (f.has("public_metrics")) {
      const m = this.metrics();
      out.public_metrics = {
        repost_count: m.reposts.get(p.id) ?? 0,
        reply_count: m.replies.get(p.id) ?? 0,
        like_count: m.likes.get(p.id) ?? 0,
        quote_count: m.quotes.get(p.id) ?? 0,
        bookmark_count: m.bookmarks.get(p.id) ?? 0,
        impression_count: 0,
      };
    }
    if (f.has("possibly_sensitive")) out.possibly_sensitive = false;
    if (f.has("lang")) out.lang = p.lang;
    if (f.has("source")) out.source = p.source;
    if (f.has("reply_settings")) out.reply_settings = p.reply_settings;
    if (f.has("edit_controls")) {
      const editable = p.repost_of_id === undefined && p.poll === undefined;
      out.edit_controls = {
        editable_until: iso(p.created_at + 3_600_000),
        edits_remaining: editable ? 5 : 0,
        is_edit_eligible: editable,
      };
    }
    if (f.has("display_text_range"))
      (out as Post & { display_text_range?: [number, number] }).display_text_range = displayRange(p);
    for (const field of ["non_public_metrics", "organic_metrics"] as const) {
      if (!f.has(field)) continue;
      if (this.viewerId === p.author_id) {
        const m = this.metrics();
        (out as unknown as Record<string, unknown>)[field] =
          field === "non_public_metrics"
            ? { impression_count: 0, url_link_clicks: 0, user_profile_clicks: 0 }
            : {
                impression_count: 0,
                like_count: m.likes.get(p.id) ?? 0,
                reply_count: m.replies.get(p.id) ?? 0,
                repost_count: m.reposts.get(p.id) ?? 0,
                url_link_clicks: 0,
                user_profile_clicks: 0,
              };
      } else {
        this.errors.push({
          resource_id: p.id,
          field,
          resource_type: "post",
          section,
          title: "Field Authorization Error",
          detail: `Sorry, you are not authorized to access '${field}' on the Post with id: [${p.id}].`,
          type: PROBLEM_TYPE_BASE + "not-authorized-for-field",
        });
      }
    }
    return out;
  }

  private userObject(u: SandboxUser): User {
    const f = this.options.user;
    const out: User = { id: u.id, name: u.name, username: u.username };
    if (f.has("created_at")) out.created_at = iso(u.created_at);
    if (f.has("description")) out.description = u.description;
    if (f.has("location") && u.location) out.location = u.location;
    if (f.has("url")) out.url = u.url ?? "";
    if (f.has("protected")) out.protected = u.protected;
    if (f.has("verified")) out.verified = u.verified;
    if (f.has("verified_type")) out.verified_type = u.verified ? "blue" : "none";
    if (f.has("profile_image_url")) out.profile_image_url = u.profile_image_url ?? DEFAULT_PROFILE_IMAGE;
    if (f.has("pinned_post_id") && u.pinned_post_id && this.world.posts[u.pinned_post_id]?.deleted_at === undefined)
      out.pinned_post_id = u.pinned_post_id;
    if (f.has("most_recent_post_id")) {
      const newest = this.metrics().newestBy(u.id);
      if (newest) out.most_recent_post_id = newest;
    }
    if (f.has("public_metrics")) {
      const m = this.metrics();
      out.public_metrics = {
        followers_count: m.followers.get(u.id) ?? 0,
        following_count: m.following.get(u.id) ?? 0,
        post_count: m.postsBy(u.id),
        listed_count: m.listed.get(u.id) ?? 0,
        like_count: m.likesGiven.get(u.id) ?? 0,
      };
    }
    if (f.has("entities")) {
      const entities: NonNullable<User["entities"]> = {};
      if (u.url)
        entities.url = {
          urls: [
            {
              start: 0,
              end: Array.from(u.url).length,
              url: u.url,
              expanded_url: u.url,
              display_url: u.url.replace(/^https?:\/\//, ""),
            },
          ],
        };
      const d = addEntityIds(this.ctx, parseEntities(u.description));
      if (Object.keys(d).length) entities.description = d;
      if (Object.keys(entities).length) out.entities = entities;
    }
    if (f.has("connection_status") && this.viewerId !== undefined && this.viewerId !== u.id) {
      const v = this.viewerId;
      const status: NonNullable<User["connection_status"]> = [];
      if (hasEdge(this.ctx, "follow_requests", u.id, v)) status.push("follow_request_received");
      if (hasEdge(this.ctx, "follow_requests", v, u.id)) status.push("follow_request_sent");
      if (blocks(this.ctx, v, u.id)) status.push("blocking");
      if (follows(this.ctx, u.id, v)) status.push("followed_by");
      if (follows(this.ctx, v, u.id)) status.push("following");
      if (mutes(this.ctx, v, u.id)) status.push("muting");
      out.connection_status = status;
    }
    return out;
  }

  /**
   * The body: `data` (omitted when undefined), `includes` built from the expansions noted
   * while rendering (each list only when non-empty), `meta`, and partial `errors`.
   */
  envelope<T>(data: T | undefined, meta?: Meta): Envelope<T> {
    const includes: Includes = {};
    const posts: Post[] = [];
    const seenPosts = new Set<string>();
    for (const { id, parameter } of this.postIds) {
      const access = postAccess(this.ctx, this.viewerId, id);
      if (!access.ok) {
        this.errors.push(postProblem(access.reason, parameter, id, "includes"));
        continue;
      }
      seenPosts.add(id);
      posts.push(this.postObject(access.post, "includes"));
    }
    for (const id of this.refAuthors) {
      const ref = this.world.posts[id];
      if (ref && ref.deleted_at === undefined) this.wantUser(ref.author_id);
    }
    const users: User[] = [];
    for (const id of this.userIds) {
      const u = userById(this.ctx, id, { includeGone: true });
      if (u && !isGone(u)) users.push(this.userObject(u));
    }
    const polls: Poll[] = this.polls.map((p) => pollObject(p, this.options.poll, this.ctx.clock.now()));
    if (posts.length) includes.posts = posts;
    if (users.length) includes.users = users;
    if (polls.length) includes.polls = polls;
    return envelopeOf(data, includes, meta, this.errors);
  }
}

/**
 * A response body as the service shapes it: `data` omitted when undefined, `includes` and
 * `errors` only when non-empty, `meta` when given. Every envelope of the sandbox is made here.
 */
export function envelopeOf<T>(
  data: T | undefined,
  includes: Includes,
  meta: Meta | undefined,
  errors: Problem[],
): Envelope<T> {
  const body: Envelope<T> = {};
  if (data !== undefined) body.data = data;
  if (Object.keys(includes).length) body.includes = includes;
  if (meta) body.meta = meta;
  if (errors.length) body.errors = errors;
  return body;
}

/** The posts a post refers to, as `referenced_posts`. */
export function references(p: SandboxPost): Array<{ type: "reposted" | "quoted" | "replied_to"; id: string }> {
  const refs: Array<{ type: "reposted" | "quoted" | "replied_to"; id: string }> = [];
  if (p.repost_of_id) refs.push({ type: "reposted", id: p.repost_of_id });
  if (p.quote_post_id) refs.push({ type: "quoted", id: p.quote_post_id });
  if (p.in_reply_to_post_id) refs.push({ type: "replied_to", id: p.in_reply_to_post_id });
  return refs;
}

/** The part of a reply's text after the @-mentions it starts with, in code points. */
function displayRange(p: SandboxPost): [number, number] {
  const end = Array.from(p.text).length;
  if (!p.in_reply_to_post_id) return [0, end];
  let start = 0;
  const cps = Array.from(p.text);
  for (const m of postEntities(p).mentions ?? []) {
    const gap = cps.slice(start, m.start).join("");
    if (gap.trim() !== "") break;
    start = m.end;
  }
  while (start < end && /\s/u.test(cps[start]!)) start++;
  return [start, end];
}

function pollObject(p: SandboxPost, fields: Set<string>, now: number): Poll {
  const poll = p.poll!;
  const out: Poll = { id: poll.id, options: poll.options.map((label, i) => ({ position: i + 1, label, votes: 0 })) };
  if (fields.has("duration_minutes")) out.duration_minutes = poll.duration_minutes;
  if (fields.has("end_datetime")) out.end_datetime = iso(poll.end_at);
  if (fields.has("voting_status")) out.voting_status = now < poll.end_at ? "open" : "closed";
  return out;
}
