/**
 * Direct messages (wire-facts 2.14): one-to-one conversations, whose id is
 * `"<smaller user id>-<larger user id>"` and which exist from their first message on, and
 * group conversations of the creator plus 2–49 others, whose id is a fresh numeric id.
 * Messages are `MessageCreate` events; creating a group also records a `ParticipantsJoin`.
 * Reads reach the last 30 days, as on the real service.
 *
 * Each participant sees every event of their conversations, their own messages included
 * (with `sender_id` themselves): the sender's view and the recipient's differ only in who
 * `sender_id` is. Reads go through an index of each user's conversations and each
 * conversation's events, so a bot polling its DMs costs what its own conversations hold,
 * not what the whole world's do.
 */
import { compareIds, nextId, type SandboxUser, type WorldData } from "../model/index.ts";
import { forbidden, invalidRequest, notFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { parseEntities } from "../../api/text/entities.ts";
import { blocks } from "./relations.ts";
import { userById } from "./users.ts";
import { codePointsUpTo } from "./code-points.ts";

/** A stored DM event (the world keeps them by id). */
export type DmEventRecord = WorldData["dm_events"][string];
/** A stored conversation: one-to-one or group, with its participants. */
export type DmConversation = WorldData["dm_conversations"][string];

/** How far back DM reads reach. */
export const DM_HISTORY_MS = 30 * 24 * 3_600_000;
/** The longest message text. */
export const MAX_DM_LENGTH = 10_000;

/** What a message carries. The sandbox has no media, so only text. */
export interface DmMessage {
  text: string;
}

/** The id of the one-to-one conversation of two users. */
export function oneToOneId(a: string, b: string): string {
  return compareIds(a, b) <= 0 ? `${a}-${b}` : `${b}-${a}`;
}

function checkText(text: unknown): string {
  if (typeof text !== "string" || text.length === 0)
    throw invalidRequest("A message needs a `text` of at least one character", { text: [] });
  if (codePointsUpTo(text, MAX_DM_LENGTH) > MAX_DM_LENGTH)
    throw invalidRequest(`The message text is longer than ${MAX_DM_LENGTH} characters`, { text: [] });
  return text;
}

/** Who is in which conversation, and each conversation's events in the order they were made. */
interface DmIndex {
  conversations: WorldData["dm_conversations"];
  conversationsOf: Map<string, Set<string>>;
  eventsOf: Map<string, DmEventRecord[]>;
}

/** Per events table (replaced with the world): its index, built on first use, kept by the writers below. */
const indexes = new WeakMap<object, DmIndex>();

function dmIndex(ctx: SandboxContext): DmIndex {
  const w = ctx.data.world;
  let index = indexes.get(w.dm_events);
  if (index && index.conversations === w.dm_conversations) return index;
  index = { conversations: w.dm_conversations, conversationsOf: new Map(), eventsOf: new Map() };
  for (const conv of Object.values(w.dm_conversations)) indexConversation(index, conv);
  for (const e of Object.values(w.dm_events).sort((a, b) => compareIds(a.id, b.id))) indexEvent(index, e);
  indexes.set(w.dm_events, index);
  return index;
}

function indexConversation(index: DmIndex, conv: DmConversation): void {
  for (const id of conv.participant_ids) {
    const mine = index.conversationsOf.get(id);
    if (mine) mine.add(conv.id);
    else index.conversationsOf.set(id, new Set([conv.id]));
  }
}

function indexEvent(index: DmIndex, e: DmEventRecord): void {
  const list = index.eventsOf.get(e.dm_conversation_id);
  if (list) list.push(e);
  else index.eventsOf.set(e.dm_conversation_id, [e]);
}

function addConversation(ctx: SandboxContext, conv: DmConversation): DmConversation {
  const index = dmIndex(ctx);
  ctx.data.world.dm_conversations[conv.id] = conv;
  indexConversation(index, conv);
  return conv;
}

function addEvent(ctx: SandboxContext, event: Omit<DmEventRecord, "id" | "created_at">): DmEventRecord {
  const index = dmIndex(ctx);
  const now = ctx.clock.now();
  const e: DmEventRecord = { id: nextId(ctx.data, now), created_at: now, ...event };
  ctx.data.world.dm_events[e.id] = e;
  indexEvent(index, e);
  return e;
}

/** Sends a message to a user, creating the one-to-one conversation on first use. */
export function sendToParticipant(ctx: SandboxContext, sender: SandboxUser, participantId: string, message: DmMessage) {
  const text = checkText(message.text);
  const other = userById(ctx, participantId);
  if (!other) throw notFound(`Could not find user with participant_id: [${participantId}].`);
  if (other.id === sender.id) throw forbidden("You cannot send a direct message to yourself.");
  if (blocks(ctx, other.id, sender.id)) throw forbidden("You cannot send messages to this user: they block you.");
  const id = oneToOneId(sender.id, other.id);
  if (!ctx.data.world.dm_conversations[id]) {
    addConversation(ctx, {
      id,
      type: "OneToOne",
      participant_ids: [sender.id, other.id].sort(compareIds),
      created_at: ctx.clock.now(),
    });
  }
  const e = addEvent(ctx, { event_type: "MessageCreate", dm_conversation_id: id, sender_id: sender.id, text });
  return { dm_conversation_id: id, dm_event_id: e.id };
}

/** Sends a message into an existing conversation the sender belongs to. */
export function sendToConversation(
  ctx: SandboxContext,
  sender: SandboxUser,
  conversationId: string,
  message: DmMessage,
) {
  const text = checkText(message.text);
  const conv = ctx.data.world.dm_conversations[conversationId];
  if (!conv) throw notFound(`Could not find dm_conversation with dm_conversation_id: [${conversationId}].`);
  if (!conv.participant_ids.includes(sender.id)) throw forbidden("You are not a participant of this conversation.");
  const e = addEvent(ctx, { event_type: "MessageCreate", dm_conversation_id: conv.id, sender_id: sender.id, text });
  return { dm_conversation_id: conv.id, dm_event_id: e.id };
}

/** Creates a group conversation of the sender and 2–49 others, with a first message. */
export function createGroup(ctx: SandboxContext, sender: SandboxUser, participantIds: string[], message: DmMessage) {
  const text = checkText(message.text);
  const others = [...new Set(participantIds)];
  if (others.includes(sender.id)) {
    throw invalidRequest("`participant_ids` lists the other members; leave out the authenticated user", {
      participant_ids: participantIds,
    });
  }
  if (others.length < 2 || others.length > 49) {
    throw invalidRequest(`A group needs 2 to 49 other participants; \`participant_ids\` has ${others.length}`, {
      participant_ids: participantIds,
    });
  }
  for (const id of others) if (!userById(ctx, id)) throw notFound(`Could not find user with participant_ids: [${id}].`);
  const now = ctx.clock.now();
  const id = nextId(ctx.data, now);
  addConversation(ctx, { id, type: "Group", participant_ids: [sender.id, ...others], created_at: now });
  addEvent(ctx, {
    event_type: "ParticipantsJoin",
    dm_conversation_id: id,
    sender_id: sender.id,
    participant_ids: [sender.id, ...others],
  });
  const e = addEvent(ctx, { event_type: "MessageCreate", dm_conversation_id: id, sender_id: sender.id, text });
  return { dm_conversation_id: id, dm_event_id: e.id };
}

/** Events of the conversations a user belongs to (or of one of them), newest first, from the last 30 days. */
export function eventsOf(ctx: SandboxContext, userId: string, conversationId?: string): DmEventRecord[] {
  const index = dmIndex(ctx);
  const mine = index.conversationsOf.get(userId);
  const conversations =
    conversationId === undefined ? [...(mine ?? [])] : mine?.has(conversationId) ? [conversationId] : [];
  const since = ctx.clock.now() - DM_HISTORY_MS;
  const out: DmEventRecord[] = [];
  for (const id of conversations)
    for (const e of index.eventsOf.get(id) ?? []) if (e.deleted_at === undefined && e.created_at >= since) out.push(e);
  return out.sort((a, b) => compareIds(b.id, a.id));
}

/** One event a user may read (theirs, live, from the last 30 days), or undefined. */
export function eventFor(ctx: SandboxContext, userId: string, eventId: string): DmEventRecord | undefined {
  const e = ctx.data.world.dm_events[eventId];
  if (!e || e.deleted_at !== undefined || e.created_at < ctx.clock.now() - DM_HISTORY_MS) return undefined;
  return isParticipant(ctx, userId, e.dm_conversation_id) ? e : undefined;
}

/** Whether a user belongs to a conversation. */
export const isParticipant = (ctx: SandboxContext, userId: string, conversationId: string): boolean =>
  ctx.data.world.dm_conversations[conversationId]?.participant_ids.includes(userId) ?? false;

/**
 * A post link as the service's apps share one (`https://x.com/<name>/status/<id>`, or on
 * twitter.com): what makes a message's `referenced_posts`.
 */
const POST_LINK =
  /^https?:\/\/(?:(?:www|mobile)\.)?(?:x|twitter)\.com\/[A-Za-z0-9_]{1,15}\/status\/([0-9]{1,19})(?:[/?#]|$)/i;

/** The posts a message links to, in order, each once: its `referenced_posts`. */
export function referencedPosts(text: string): Array<{ id: string }> {
  const ids = new Set<string>();
  for (const u of parseEntities(text).urls ?? []) {
    const id = POST_LINK.exec(u.expanded_url ?? u.url)?.[1];
    if (id) ids.add(id);
  }
  return [...ids].map((id) => ({ id }));
}

/** Deletes one of the user's own messages. */
export function deleteEvent(ctx: SandboxContext, userId: string, eventId: string): void {
  const e = ctx.data.world.dm_events[eventId];
  if (!e || e.deleted_at !== undefined || !isParticipant(ctx, userId, e.dm_conversation_id)) {
    throw notFound(`Could not find dm_event with id: [${eventId}].`);
  }
  if (e.event_type !== "MessageCreate" || e.sender_id !== userId)
    throw forbidden("You can only delete messages that you sent.");
  e.deleted_at = ctx.clock.now();
}
