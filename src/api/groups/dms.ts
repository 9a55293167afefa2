/** Direct messages (spec 4.1 "Direct messages"): user context only. */
import type { CallOptions, Caller } from "../caller.ts";
import { paged } from "../paginate.ts";
import type { DmEventFieldsQuery, PagingQuery } from "../params.ts";
import type { DmMessage } from "../schema.ts";
import type { DmEventType } from "../types.ts";

type EventsQuery = DmEventFieldsQuery & PagingQuery & { event_types?: readonly DmEventType[] };

export function dmsGroup(c: Caller) {
  return {
    /** `POST /2/dm_conversations/with/:participant_id/messages`: a one-to-one message (the conversation is made if needed). */
    sendTo: (participantId: string, message: DmMessage, options?: CallOptions) =>
      c.request(
        "POST /2/dm_conversations/with/:participant_id/messages",
        { params: { participant_id: participantId }, body: message },
        options,
      ),
    /** `POST /2/dm_conversations/:dm_conversation_id/messages`: a message to an existing conversation. */
    send: (conversationId: string, message: DmMessage, options?: CallOptions) =>
      c.request(
        "POST /2/dm_conversations/:dm_conversation_id/messages",
        { params: { dm_conversation_id: conversationId }, body: message },
        options,
      ),
    /** `POST /2/dm_conversations`: a group conversation (2–49 others) with its first message. */
    createGroup: (participantIds: string[], message: DmMessage, options?: CallOptions) =>
      c.request(
        "POST /2/dm_conversations",
        { body: { conversation_type: "Group", participant_ids: participantIds, message } },
        options,
      ),
    /** `GET /2/dm_events`: the caller's recent events across conversations. */
    events: paged("GET /2/dm_events", 0, (query?: EventsQuery, options?: CallOptions) =>
      c.request("GET /2/dm_events", { query }, options),
    ),
    /** `GET /2/dm_events/:id`. */
    event: (id: string, query?: DmEventFieldsQuery, options?: CallOptions) =>
      c.request("GET /2/dm_events/:id", { params: { id }, query }, options),
    /** `DELETE /2/dm_events/:id` (the caller's own message). */
    deleteEvent: (id: string, options?: CallOptions) =>
      c.request("DELETE /2/dm_events/:id", { params: { id } }, options),
    /** `GET /2/dm_conversations/:dm_conversation_id/dm_events`. */
    conversationEvents: paged(
      "GET /2/dm_conversations/:dm_conversation_id/dm_events",
      1,
      (conversationId: string, query?: EventsQuery, options?: CallOptions) =>
        c.request(
          "GET /2/dm_conversations/:dm_conversation_id/dm_events",
          { params: { dm_conversation_id: conversationId }, query },
          options,
        ),
    ),
    /** `GET /2/dm_conversations/with/:participant_id/dm_events`: the one-to-one conversation with someone. */
    eventsWith: paged(
      "GET /2/dm_conversations/with/:participant_id/dm_events",
      1,
      (participantId: string, query?: EventsQuery, options?: CallOptions) =>
        c.request(
          "GET /2/dm_conversations/with/:participant_id/dm_events",
          { params: { participant_id: participantId }, query },
          options,
        ),
    ),
  };
}
