/**
 * Direct messages (wire-facts 2.14): one-to-one conversations, whose id is
 * `"<smaller user id>-<larger user id>"` and which exist from their first message on, and
 * group conversations of the creator plus 2–49 others, whose id is a fresh numeric id.
 * Messages are `MessageCreate` events; creating a group also records a `ParticipantsJoin`.
 * Reads reach the last 30 days, as on the real service.
 */
import { compareIds, nextId, type SandboxUser, type WorldData } from "../model/index.ts";
import { forbidden, invalidRequest, notFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
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

function addEvent(ctx: SandboxContext, event: Omit<DmEventRecord, "id" | "created_at">): DmEventRecord {
  const now = ctx.clock.now();
  const e: DmEventRecord = { id: nextId(ctx.data, now), created_at: now, ...event };
  ctx.data.world.dm_events[e.id] = e;
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
  const convs = ctx.data.world.dm_conversations;
  convs[id] ??= {
    id,
    type: "OneToOne",
    participant_ids: [sender.id, other.id].sort(compareIds),
    created_at: ctx.clock.now(),
  };
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
  ctx.data.world.dm_conversations[id] = { id, type: "Group", participant_ids: [sender.id, ...others], created_at: now };
  addEvent(ctx, {
    event_type: "ParticipantsJoin",
    dm_conversation_id: id,
    sender_id: sender.id,
    participant_ids: [sender.id, ...others],
  });
  const e = addEvent(ctx, { event_type: "MessageCreate", dm_conversation_id: id, sender_id: sender.id, text });
  return { dm_conversation_id: id, dm_event_id: e.id };
}

/** Events of the conversations a user belongs to, newest first, from the last 30 days. */
export function eventsOf(ctx: SandboxContext, userId: string, conversationId?: string): DmEventRecord[] {
  const w = ctx.data.world;
  const since = ctx.clock.now() - DM_HISTORY_MS;
  return Object.values(w.dm_events)
    .filter((e) => {
      if (e.deleted_at !== undefined || e.created_at < since) return false;
      if (conversationId !== undefined && e.dm_conversation_id !== conversationId) return false;
      return w.dm_conversations[e.dm_conversation_id]?.participant_ids.includes(userId) ?? false;
    })
    .sort((a, b) => compareIds(b.id, a.id));
}

/** Whether a user belongs to a conversation. */
export const isParticipant = (ctx: SandboxContext, userId: string, conversationId: string): boolean =>
  ctx.data.world.dm_conversations[conversationId]?.participant_ids.includes(userId) ?? false;

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
