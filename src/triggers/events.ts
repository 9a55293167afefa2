/**
 * Events as triggers produce them and the inbox keeps them: plain JSON, so an event that was
 * fetched but not yet handled survives a crash. And a poll as the runtime drives it
 * ({@link Poll}): the pages it asks for, and what it hands the bot's inbox ({@link Delivery}).
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { PostFieldsQuery } from "../api/params.ts";
import type { RequestArgs, ResponseOf } from "../api/schema.ts";
import type { Includes, Post, User } from "../api/types.ts";

/** A post as events deliver it: the fields postbot always asks for are present. */
export type EventPost = Post & Required<Pick<Post, "author_id" | "created_at" | "conversation_id">>;

/**
 * A direct message as the `dm` event delivers it (the wire's names): who sent it, in which
 * conversation (`<lower id>-<higher id>` for one-to-one, a number for a group), and when.
 */
export interface DmMessage {
  /** The DM event's id. */
  id: string;
  text: string;
  /** ISO time, as on the wire. */
  created_at: string;
  dm_conversation_id: string;
  sender_id: string;
}

export type BotEvent =
  | { kind: "mention"; id: string; post: EventPost; author: User }
  | { kind: "reply"; id: string; post: EventPost; author: User; inReplyTo: string }
  | { kind: "post"; id: string; post: EventPost; author: User; rule: { value: string; tag?: string } }
  | { kind: "schedule"; id: string; schedule: { name: string; cron: string; at: number } }
  | { kind: "follow"; id: string; user: User }
  | { kind: "dm"; id: string; message: DmMessage; sender: User };

/**
 * The user an event comes from (a post's author, a new follower, a DM's sender), or undefined for an event
 * of nobody (a schedule): the bot's engine handles one user's events one at a time, in order,
 * and a user's session and dialogs are keyed by it.
 */
export function eventUser(event: BotEvent): string | undefined {
  switch (event.kind) {
    case "mention":
    case "reply":
    case "post":
      return event.author.id;
    case "follow":
      return event.user.id;
    case "dm":
      return event.sender.id;
    default:
      return undefined;
  }
}

/** The events a plugin can handle: the kinds of {@link BotEvent}. */
export type EventName = BotEvent["kind"];

/** The triggers of a bot file. */
export type TriggerName = "mentions" | "stream" | "schedule" | "followers" | "dms";

/** The state store namespace of the triggers' cursors (keys `<bot>:mentions`, `<bot>:followers`, `<bot>:dms`). */
export const CURSORS_NAMESPACE = "cursors";

/** A trigger's cursor as it moves with the events it delivers; an undefined `value` drops it. */
export interface CursorMove {
  key: string;
  value: unknown;
}

/**
 * What a poll (or, for mentions, the stream) hands the bot's inbox: its events and its
 * cursor's new position. The runtime puts both in the inbox in one durable write, so a crash
 * neither loses a fetched event nor fetches it twice. No trigger writes the inbox or the
 * state store itself.
 */
export interface Delivery {
  events: BotEvent[];
  move?: CursorMove | undefined;
}

/** A page a poll asks for, described: the endpoint and its arguments (the runtime reads it through the action layer). */
export interface PageRead<K extends EndpointKey> {
  endpoint: K;
  args: RequestArgs<K>;
}

/**
 * A cursor a poll gives up mid-way (the service refuses it): the runtime drops it durably at
 * once, says why (`warning`), and resumes the poll, which reads on without it.
 */
export interface CursorDrop {
  drop: CursorMove;
  warning: string;
}

/**
 * One poll, step by step: a generator the runtime drives. It yields each page it wants read
 * (or a cursor to drop) and is resumed with the page's answer, or thrown into with the read's
 * error; it returns what it found (a {@link Delivery}, or what its trigger settles into one).
 * It calls nothing back: the runtime reads, and puts the result in the bot's inbox.
 */
export type Poll<K extends EndpointKey, R = Delivery> = Generator<PageRead<K> | CursorDrop, R, ResponseOf<K>>;

/**
 * A polled trigger as the runtime runs it (src/runtime/poll-loop.ts): its name, where the
 * bot's inbox keeps its cursor, one poll from that cursor ({@link Poll}: `now` is when it
 * runs), and what that poll delivers, settled against the cursor as it is once the poll is
 * over (the mentions trigger's may have moved meanwhile: the stream delivers too; the others
 * return their {@link Delivery} as it is). It calls nothing back: the runtime drives the
 * poll, reads its pages and commits its delivery.
 */
export interface PolledTrigger<K extends EndpointKey, C, R = Delivery> {
  readonly name: TriggerName;
  readonly cursorKey: string;
  pages(cursor: C | undefined, now: number): Poll<K, R>;
  delivery(found: R, cursor: C | undefined): Delivery;
}

/** Which trigger an event comes from (liveness in `bot status`, and warnings at start). */
export const TRIGGER_OF: Record<EventName, TriggerName> = {
  mention: "mentions",
  reply: "mentions",
  post: "stream",
  schedule: "schedule",
  follow: "followers",
  dm: "dms",
};

/**
 * What postbot asks for with every post it delivers to plugins: the fields `EventPost`
 * promises, the author expanded, and the replied-to post's author (to tell a reply to the
 * bot's own post from a mention).
 */
export const EVENT_POST_QUERY = {
  "post.fields": [
    "created_at",
    "author_id",
    "conversation_id",
    "in_reply_to_user_id",
    "referenced_posts",
    "entities",
    "lang",
    "public_metrics",
  ],
  "user.fields": ["created_at", "description", "name", "username", "protected", "verified", "public_metrics"],
  expansions: ["author_id", "referenced_posts.id", "referenced_posts.id.author_id"],
} satisfies PostFieldsQuery;

/** The user fields of `follow` events. */
export const EVENT_USER_FIELDS = EVENT_POST_QUERY["user.fields"];

/** A post with the fields of {@link EVENT_POST_QUERY}, or undefined when the service left one out. */
export function asEventPost(post: Post): EventPost | undefined {
  if (!post.author_id || !post.created_at || !post.conversation_id) return undefined;
  return post as EventPost;
}

/** The expanded author of a post, from the response's `includes`. */
export function authorOf(post: Post, includes: Includes | undefined): User | undefined {
  return includes?.users?.find((u) => u.id === post.author_id);
}
