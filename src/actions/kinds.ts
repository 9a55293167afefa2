/**
 * Each action kind's facts, in one table: the endpoint it calls (whose plan limits it spends),
 * how urgent it is by default, how long it stays worth sending, and whether sending it twice
 * is harmless on the service.
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { ActionKind } from "./action.ts";

/** What the layer needs to know about one action kind. */
export interface KindFacts {
  endpoint: EndpointKey;
  /** Default priority: lower runs sooner when actions compete for one window. */
  priority: number;
  /** Default time-to-live in ms, counted from the post acted on (or from the request). */
  ttlMs: number;
  /**
   * True when the service ends in the same state however often the request is sent (liking
   * a liked post leaves it liked): after an ambiguous failure it may simply be sent again.
   * Replies, posts and DMs would be duplicated, so they are checked with a verifier first.
   */
  repeatable: boolean;
  /** What the kind's verb takes, and so how the layer builds its request (./verbs.ts). */
  verb: VerbShape;
}

/**
 * What a kind's verb (`layer.like(...)`, `layer.reply(...)`) takes: a post or a user, put in
 * the body under `field` with the acting account's id in the path (the reactions and the
 * relations: like, repost, follow, mute); or a shape of the kind's own: a post to hide or
 * unhide, a post and a text to reply with, a user or message and a text to send, a text to
 * post.
 */
export type VerbShape =
  | { takes: "post"; field: "post_id" }
  | { takes: "user"; field: "target_user_id" }
  | { takes: "hide" }
  | { takes: "reply" }
  | { takes: "dm" }
  | { takes: "text" };

const HOUR = 3_600_000;

/**
 * The defaults. Hiding an abusive reply comes first (it protects people), then answers to
 * people (replies, DMs), then what can wait (posts, follows), and likes last: there are many
 * and each matters little. Reactions to a post expire a day after it (a reply to a day-old
 * mention is not worth sending); hides, mutes and follows stay useful for a week.
 */
export const ACTION_KINDS: Readonly<Record<ActionKind, KindFacts>> = {
  hide: {
    endpoint: "PUT /2/posts/:id/hidden",
    priority: 0,
    ttlMs: 7 * 24 * HOUR,
    repeatable: true,
    verb: { takes: "hide" },
  },
  reply: { endpoint: "POST /2/posts", priority: 1, ttlMs: 24 * HOUR, repeatable: false, verb: { takes: "reply" } },
  dm: {
    endpoint: "POST /2/dm_conversations/with/:participant_id/messages",
    priority: 2,
    ttlMs: 24 * HOUR,
    repeatable: false,
    verb: { takes: "dm" },
  },
  post: { endpoint: "POST /2/posts", priority: 3, ttlMs: 6 * HOUR, repeatable: false, verb: { takes: "text" } },
  follow: {
    endpoint: "POST /2/users/:id/following",
    priority: 3,
    ttlMs: 7 * 24 * HOUR,
    repeatable: true,
    verb: { takes: "user", field: "target_user_id" },
  },
  // Muting an abusive author where the bot cannot hide (moderate's `also: mute`): protective, so early.
  mute: {
    endpoint: "POST /2/users/:id/muting",
    priority: 1,
    ttlMs: 7 * 24 * HOUR,
    repeatable: true,
    verb: { takes: "user", field: "target_user_id" },
  },
  repost: {
    endpoint: "POST /2/users/:id/reposts",
    priority: 4,
    ttlMs: 24 * HOUR,
    repeatable: true,
    verb: { takes: "post", field: "post_id" },
  },
  like: {
    endpoint: "POST /2/users/:id/likes",
    priority: 5,
    ttlMs: 24 * HOUR,
    repeatable: true,
    verb: { takes: "post", field: "post_id" },
  },
};

/** Default priority of budgeted reads (the mentions poll): as urgent as replies, whose work it finds. */
export const READ_PRIORITY = 1;

/** Whether a kind is one of the built-in actions (a read is not). */
export const isActionKind = (kind: string): kind is ActionKind => kind in ACTION_KINDS;
