/**
 * The admin API's world routes (DESIGN.md "The sandbox"): accounts, posts and direct
 * messages made outside the service's API and every budget (the demo's crowd posts this
 * way), plus the relations and account states the service has no endpoint for (approving
 * follows, blocking, suspending), so tests and demos can set up any situation. Each goes
 * through the same domain functions as the API.
 *
 * - `POST /_sandbox/users` `{username, name?, description?, location?, url?, protected?, verified?}`
 * - `PATCH /_sandbox/users` `{id, protected?, suspended?, deactivated?, pinned_post_id?, ...}`
 * - `POST /_sandbox/posts` `{author_id, text, in_reply_to_post_id?, quote_post_id?, reply_settings?, lang?}`
 * - `POST /_sandbox/dms` `{sender_id, recipient_id, text}`: a one-to-one message, answered
 *   with the event as `GET /2/dm_events` shows it with every field
 * - `GET /_sandbox/dm_events?user_id=A&participant_id=B[&since_id=ID]`: the messages of A's
 *   one-to-one conversation with B after `since_id`, oldest first, as A sees them: what `bot
 *   say --dm --wait` watches for the bot's answer, outside the user's 15 reads per 15 minutes
 * - `POST /_sandbox/follows`, `POST /_sandbox/blocks` `{source_user_id, target_user_id}`
 */
import { z } from "zod";
import { invalidRequest, notFound } from "../problems.ts";
import type { AdminRequest, AdminRouteTable, JsonResult } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import { compareIds } from "../model/index.ts";
import { eventsOf, oneToOneId, sendToParticipant } from "../domain/dms.ts";
import { createPost } from "../domain/posts.ts";
import { acceptFollowRequest, block, follow } from "../domain/relations.ts";
import { Renderer } from "../domain/render.ts";
import { createUser, userById } from "../domain/users.ts";

const newUser = z
  .object({
    username: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    location: z.string().optional(),
    url: z.string().optional(),
    protected: z.boolean().optional(),
    verified: z.boolean().optional(),
  })
  .strict();

const userChanges = z
  .object({
    id: zId,
    name: z.string().min(1).max(50).optional(),
    description: z.string().max(160).optional(),
    protected: z.boolean().optional(),
    verified: z.boolean().optional(),
    suspended: z.boolean().optional(),
    deactivated: z.boolean().optional(),
    pinned_post_id: zId.nullable().optional(),
  })
  .strict();

const newPost = z
  .object({
    author_id: zId,
    text: z.string(),
    in_reply_to_post_id: zId.optional(),
    quote_post_id: zId.optional(),
    reply_settings: z.enum(["everyone", "following", "mentionedUsers"]).optional(),
    lang: z
      .string()
      .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "must be a language code such as en")
      .optional(),
  })
  .strict();

const newDm = z.object({ sender_id: zId, recipient_id: zId, text: z.string() }).strict();

const edge = z.object({ source_user_id: zId, target_user_id: zId }).strict();

/** Every post field an admin caller could want, so the answer shows the post as created. */
const ALL_POST_FIELDS = new Set([
  "id",
  "text",
  "edit_history_post_ids",
  "author_id",
  "created_at",
  "conversation_id",
  "in_reply_to_user_id",
  "referenced_posts",
  "lang",
  "reply_settings",
  "entities",
]);

/** Every DM event field, for the same reason. */
const ALL_DM_EVENT_FIELDS = new Set([
  "id",
  "event_type",
  "text",
  "sender_id",
  "dm_conversation_id",
  "created_at",
  "entities",
]);

/** Renders one object with the given fields and no expansions. */
const renderer = (req: AdminRequest, viewerId: string, fields: { post?: Set<string>; dm_event?: Set<string> }) =>
  new Renderer(req.sandbox, viewerId, {
    post: fields.post ?? new Set(),
    user: new Set(),
    dm_event: fields.dm_event ?? new Set(),
    poll: new Set(),
    expansions: new Set(),
  });

function existing(req: AdminRequest, id: string, field: string) {
  const user = userById(req.sandbox, id, { includeGone: field === "id" });
  if (!user) throw invalidRequest(`${field}: no active user has id ${id}`, { [field]: [id] });
  return user;
}

/** The world's admin handlers by `"METHOD /_sandbox/path"`; the platform serves them behind the admin token. */
export const worldAdminRoutes: AdminRouteTable = {
  /** `{username, name?, description?, location?, url?, protected?, verified?}` → `{id, username, name}`. */
  "POST /_sandbox/users": (req): JsonResult => {
    const user = createUser(req.sandbox, parseBody(newUser, req.body));
    return { status: 201, body: { id: user.id, username: user.username, name: user.name } };
  },

  /** Changes an account's state: `{id, protected?, suspended?, deactivated?, pinned_post_id?, ...}`. */
  "PATCH /_sandbox/users": (req): JsonResult => {
    const { id, pinned_post_id, ...changes } = parseBody(userChanges, req.body);
    const user = existing(req, id, "id");
    if (pinned_post_id) {
      const post = req.sandbox.data.world.posts[pinned_post_id];
      if (!post || post.author_id !== id || post.deleted_at !== undefined)
        throw notFound(`Could not find a post of user ${id} with id: [${pinned_post_id}].`);
      user.pinned_post_id = pinned_post_id;
    } else if (pinned_post_id === null) delete user.pinned_post_id;
    Object.assign(user, changes);
    return { status: 200, body: { ...user } };
  },

  /** `{author_id, text, in_reply_to_post_id?, quote_post_id?, reply_settings?, lang?}` → the post. */
  "POST /_sandbox/posts": (req): JsonResult => {
    const input = parseBody(newPost, req.body);
    existing(req, input.author_id, "author_id");
    const post = createPost(req.sandbox, { ...input, source: "postbot sandbox" });
    return { status: 201, body: renderer(req, post.author_id, { post: ALL_POST_FIELDS }).post(post) };
  },

  /**
   * `{sender_id, recipient_id, text}` → the `MessageCreate` event: a one-to-one message sent
   * as the sender, outside every budget (the sender needs no app or token), with the same
   * checks as `POST /2/dm_conversations/with/:participant_id/messages` (text, blocks).
   */
  "POST /_sandbox/dms": (req): JsonResult => {
    const input = parseBody(newDm, req.body);
    const sender = existing(req, input.sender_id, "sender_id");
    existing(req, input.recipient_id, "recipient_id");
    const sent = sendToParticipant(req.sandbox, sender, input.recipient_id, { text: input.text });
    const event = req.sandbox.data.world.dm_events[sent.dm_event_id]!;
    return { status: 201, body: renderer(req, sender.id, { dm_event: ALL_DM_EVENT_FIELDS }).dmEvent(event) };
  },

  /**
   * `?user_id=A&participant_id=B[&since_id=ID]` → `{data: [event...]}`: the events of the
   * one-to-one conversation of A and B that A can read, after `since_id`, oldest first, each
   * with every field. Reads no window: watching for an answer here spends nothing of A's.
   */
  "GET /_sandbox/dm_events": (req): JsonResult => {
    const ids: Record<string, string> = {};
    for (const field of ["user_id", "participant_id", "since_id"] as const) {
      const value = req.query.get(field);
      if (value === null && field === "since_id") continue;
      const id = zId.safeParse(value);
      if (!id.success) throw invalidRequest(`${field}: expected a numeric id`, { [field]: [value ?? ""] });
      ids[field] = id.data;
    }
    const user = existing(req, ids.user_id!, "user_id");
    existing(req, ids.participant_id!, "participant_id");
    const since = ids.since_id;
    const events = eventsOf(req.sandbox, user.id, oneToOneId(user.id, ids.participant_id!))
      .filter((e) => since === undefined || compareIds(e.id, since) > 0)
      .reverse();
    const view = renderer(req, user.id, { dm_event: ALL_DM_EVENT_FIELDS });
    return { status: 200, body: { data: events.map((e) => view.dmEvent(e)) } };
  },

  /** `{source_user_id, target_user_id}`: a follow, approved at once even for a protected target. */
  "POST /_sandbox/follows": (req): JsonResult => {
    const { source_user_id, target_user_id } = parseBody(edge, req.body);
    const source = existing(req, source_user_id, "source_user_id");
    const target = existing(req, target_user_id, "target_user_id");
    const result = follow(req.sandbox, source, target);
    if (result.pending_follow) acceptFollowRequest(req.sandbox, target.id, source.id);
    return { status: 201, body: { following: true } };
  },

  /** `{source_user_id, target_user_id}`: the source blocks the target (the spec has no block endpoint). */
  "POST /_sandbox/blocks": (req): JsonResult => {
    const { source_user_id, target_user_id } = parseBody(edge, req.body);
    existing(req, source_user_id, "source_user_id");
    existing(req, target_user_id, "target_user_id");
    block(req.sandbox, source_user_id, target_user_id);
    return { status: 201, body: { blocking: true } };
  },
};
