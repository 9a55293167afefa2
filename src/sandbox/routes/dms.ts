/**
 * Direct messages (wire-facts 2.14): send to a participant or into a conversation, create a
 * group, read events (all, one, by conversation, by participant) and delete one's own.
 *
 * A conversation the caller is not in answers as one that does not exist (a partial error
 * on reads, 404 on an event delete), so nobody learns of others' conversations; sending
 * into one answers 403, as the caller named it on purpose.
 */
import { z } from "zod";
import { PROBLEM_TYPE_BASE, type Problem } from "../../api/types.ts";
import { invalidRequest } from "../problems.ts";
import type { JsonResult, RouteRequest, RouteTable } from "../route.ts";
import { parseBody, zId } from "../domain/body.ts";
import {
  createGroup,
  deleteEvent,
  eventFor,
  eventsOf,
  isParticipant,
  oneToOneId,
  sendToConversation,
  sendToParticipant,
  type DmEventRecord,
} from "../domain/dms.ts";
import { Params, pathId } from "../domain/params.ts";
import { PAGE_RANGES, paginate, readPage, sortKey } from "../domain/paging.ts";
import { lookupUser, readRender, Renderer, RENDER_PARAMS } from "../domain/render.ts";
import { callerUser, listMeta, ok } from "./common.ts";

const attachments = z.array(z.object({ media_id: zId }).strict()).optional();
const messageBody = z.object({ text: z.string().optional(), attachments }).strict();
const groupBody = z
  .object({
    conversation_type: z.literal("Group"),
    participant_ids: z.array(zId),
    message: messageBody,
  })
  .strict();

const CONVERSATION_ID = /^([0-9]{1,19}-[0-9]{1,19}|[0-9]{15,19})$/;

/** The message of a body; attachments need media, which the sandbox does not have. */
function messageOf(body: z.infer<typeof messageBody>, at = "$") {
  if (body.attachments?.length)
    throw invalidRequest(`${at}.attachments: the media does not exist (the sandbox has no media upload)`);
  if (body.text === undefined || body.text === "")
    throw invalidRequest(`${at}.text: a message needs text of at least one character`);
  return { text: body.text };
}

function conversationParam(req: RouteRequest): string {
  const id = req.params.dm_conversation_id ?? "";
  if (!CONVERSATION_ID.test(id)) {
    throw invalidRequest(
      `The \`dm_conversation_id\` path parameter value [${id}] does not match ${CONVERSATION_ID.source}`,
      { dm_conversation_id: [id] },
    );
  }
  return id;
}

function missingConversation(id: string): Problem {
  return {
    value: id,
    detail: `Could not find dm_conversation with dm_conversation_id: [${id}].`,
    title: "Not Found Error",
    resource_type: "dm_conversation",
    parameter: "dm_conversation_id",
    resource_id: id,
    type: PROBLEM_TYPE_BASE + "resource-not-found",
  };
}

const LIST_PARAMS = ["max_results", "pagination_token", "event_types", ...RENDER_PARAMS.dm_event];

/** A page of events, filtered by `event_types`. `select` may answer instead. */
function eventList(req: RouteRequest, select: (userId: string) => DmEventRecord[] | { answer: JsonResult }) {
  const q = new Params(req.query, LIST_PARAMS);
  const page = readPage(q, PAGE_RANGES.dmEvents);
  const types = q.enumList("event_types", ["MessageCreate", "ParticipantsJoin", "ParticipantsLeave"]);
  const user = callerUser(req);
  const r = new Renderer(req.sandbox, user.id, readRender(q, "dm_event"));
  const selected = select(user.id);
  if (!Array.isArray(selected)) return selected.answer;
  const events = types ? selected.filter((e) => types.includes(e.event_type)) : selected;
  const cut = paginate(events, (e) => sortKey(e.id), page);
  if (!cut.items.length) return ok(r.envelope(undefined, { result_count: 0 }));
  return ok(
    r.envelope(
      cut.items.map((e) => r.dmEvent(e)),
      listMeta(cut),
    ),
  );
}

/** Direct-message handlers by endpoint key. */
export const dmRoutes: RouteTable = {
  "POST /2/dm_conversations/with/:participant_id/messages": (req) => {
    new Params(req.query, []);
    const participant = pathId(req.params, "participant_id");
    const message = messageOf(parseBody(messageBody, req.body));
    return ok({ data: sendToParticipant(req.sandbox, callerUser(req), participant, message) }, 201);
  },

  "POST /2/dm_conversations/:dm_conversation_id/messages": (req) => {
    new Params(req.query, []);
    const id = conversationParam(req);
    const message = messageOf(parseBody(messageBody, req.body));
    return ok({ data: sendToConversation(req.sandbox, callerUser(req), id, message) }, 201);
  },

  "POST /2/dm_conversations": (req) => {
    new Params(req.query, []);
    const body = parseBody(groupBody, req.body);
    const message = messageOf(body.message, "$.message");
    return ok({ data: createGroup(req.sandbox, callerUser(req), body.participant_ids, message) }, 201);
  },

  "GET /2/dm_events": (req) => eventList(req, (userId) => eventsOf(req.sandbox, userId)),

  "GET /2/dm_conversations/:dm_conversation_id/dm_events": (req) =>
    eventList(req, (userId) => {
      const id = conversationParam(req);
      if (!isParticipant(req.sandbox, userId, id)) return { answer: ok({ errors: [missingConversation(id)] }) };
      return eventsOf(req.sandbox, userId, id);
    }),

  "GET /2/dm_conversations/with/:participant_id/dm_events": (req) =>
    eventList(req, (userId) => {
      const participant = pathId(req.params, "participant_id");
      const found = lookupUser(req.sandbox, "id", participant, "participant_id");
      if ("error" in found) return { answer: ok({ errors: [found.error] }) };
      return eventsOf(req.sandbox, userId, oneToOneId(userId, participant));
    }),

  "GET /2/dm_events/:id": (req) => {
    const q = new Params(req.query, RENDER_PARAMS.dm_event);
    const id = pathId(req.params, "id");
    const user = callerUser(req);
    const r = new Renderer(req.sandbox, user.id, readRender(q, "dm_event"));
    const event = eventFor(req.sandbox, user.id, id);
    if (!event) {
      return ok({
        errors: [
          {
            value: id,
            detail: `Could not find dm_event with id: [${id}].`,
            title: "Not Found Error",
            resource_type: "dm_event",
            parameter: "id",
            resource_id: id,
            type: PROBLEM_TYPE_BASE + "resource-not-found",
          },
        ],
      });
    }
    return ok(r.envelope(r.dmEvent(event)));
  },

  "DELETE /2/dm_events/:id": (req) => {
    new Params(req.query, []);
    deleteEvent(req.sandbox, callerUser(req).id, pathId(req.params, "id"));
    return ok({ data: { deleted: true } });
  },
};
