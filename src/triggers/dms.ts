/**
 * The dms trigger: turns the direct messages people send the bot into `dm` events, by
 * polling `GET /2/dm_events` within the bot's own (user) window.
 *
 * The endpoint lists every event of the bot's conversations, the bot's own messages among
 * them, newest first, and has no `since_id` (wire-facts 1.3 and 2.14): a poll reads pages
 * until it meets the newest event the previous poll saw, which the cursor keeps. So:
 *
 * - The cursor (`last_id`, the newest event seen, the bot's own included) is kept by the
 *   bot's inbox and moves in the same write that puts the events there (the poll returns
 *   both, the runtime commits them): a restart neither misses nor repeats a message.
 * - Until a poll has seen any event, the cursor holds the time the very first poll reached
 *   back to (`since`: `backfillMs` before it, one hour by default), so a bot polled once a
 *   day (basic) still gets a message that came hours after its first poll.
 * - Only `MessageCreate` events are asked for; the bot's own messages move the cursor and
 *   are never delivered. Messages are delivered oldest first.
 * - The poll asks for its pages ({@link Poll}); the runtime reads them through the action
 *   layer, budgeted like any action.
 */
import type { DmEventFieldsQuery, PagingQuery } from "../api/params.ts";
import { compareIds } from "../api/ids.ts";
import type { DmEvent, User } from "../api/types.ts";
import {
  EVENT_USER_FIELDS,
  type BotEvent,
  type Delivery,
  type DmMessage,
  type Poll,
  type PolledTrigger,
} from "./events.ts";

/** The largest page of `GET /2/dm_events` (wire-facts 1.3). */
export const DMS_PAGE_SIZE = 100;

/** Where the dms trigger is: the newest event seen, or, before any was, how far back to read. */
export type DmsCursor = { last_id: string } | { since: number };

/** The query of a dms poll: messages only, with what {@link DmMessage} needs and the sender expanded. */
export type DmsQuery = DmEventFieldsQuery & PagingQuery & { event_types: readonly "MessageCreate"[] };

/** What postbot asks for with every DM it delivers to plugins. */
export const EVENT_DM_QUERY = {
  event_types: ["MessageCreate"],
  "dm_event.fields": ["id", "event_type", "text", "created_at", "dm_conversation_id", "sender_id"],
  expansions: ["sender_id"],
  "user.fields": EVENT_USER_FIELDS,
} satisfies DmsQuery;

export const dmsCursorKey = (bot: string) => `${bot}:dms`;

/** Who a dms poll reads for, and how far its very first poll reaches back. */
export interface DmsPollOptions {
  bot: string;
  userId: string;
  /** How far the very first poll reaches back. */
  backfillMs: number;
}

/** A DM event as a {@link DmMessage}, or undefined when it is not a message or lacks a field asked for. */
function asMessage(e: DmEvent): DmMessage | undefined {
  if (e.event_type !== "MessageCreate") return undefined;
  const { id, text, created_at, dm_conversation_id, sender_id } = e;
  if (text === undefined || !created_at || !dm_conversation_id || !sender_id) return undefined;
  return { id, text, created_at, dm_conversation_id, sender_id };
}

/** The `dm` events of messages others sent, oldest first (the sender expanded from `includes`). */
export function dmEvents(
  messages: Iterable<DmMessage>,
  users: ReadonlyMap<string, User>,
  botUserId: string,
): BotEvent[] {
  return [...messages]
    .filter((m) => m.sender_id !== botUserId)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((message) => ({
      kind: "dm",
      id: `dm:${message.id}`,
      message,
      sender: users.get(message.sender_id) ?? { id: message.sender_id, name: "", username: "" },
    }));
}

/**
 * One poll (driven by the runtime: see {@link Poll}): reads pages back to the cursor, and
 * returns the others' messages oldest first with the cursor's move. `now` is when it runs.
 */
export function* dmsPoll(
  options: DmsPollOptions,
  cursor: DmsCursor | undefined,
  now: number,
): Poll<"GET /2/dm_events"> {
  const key = dmsCursorKey(options.bot);
  const lastId = cursor && "last_id" in cursor ? cursor.last_id : undefined;
  const since =
    lastId === undefined ? (cursor && "since" in cursor ? cursor.since : now - options.backfillMs) : undefined;
  const messages = new Map<string, DmMessage>();
  const users = new Map<string, User>();
  let newest = lastId;
  let token: string | undefined;
  for (;;) {
    const query = { ...EVENT_DM_QUERY, max_results: DMS_PAGE_SIZE, ...(token ? { pagination_token: token } : {}) };
    const page = yield { endpoint: "GET /2/dm_events", args: { query } };
    let reached = false;
    for (const e of page.data ?? []) {
      if (lastId !== undefined && compareIds(e.id, lastId) <= 0) reached = true;
      else if (since !== undefined && e.created_at !== undefined && Date.parse(e.created_at) < since) reached = true;
      if (reached) break;
      if (newest === undefined || compareIds(e.id, newest) > 0) newest = e.id;
      const message = asMessage(e);
      if (message) messages.set(message.id, message);
    }
    for (const u of page.includes?.users ?? []) users.set(u.id, u);
    token = page.meta?.next_token;
    if (reached || !token) break;
  }
  const events = dmEvents(messages.values(), users, options.userId);
  // Before any event was seen, the cursor keeps the first poll's reach, so later polls reach as far.
  const value: DmsCursor | undefined =
    newest !== undefined
      ? newest !== lastId
        ? { last_id: newest }
        : undefined
      : cursor
        ? undefined
        : { since: since! };
  return { events, ...(value !== undefined ? { move: { key, value } } : {}) };
}

/** A bot's DMs as the runtime polls them ({@link PolledTrigger}): {@link dmsPoll} from its cursor. */
export class DmsTrigger implements PolledTrigger<"GET /2/dm_events", DmsCursor> {
  readonly name = "dms";

  constructor(private readonly options: DmsPollOptions) {}

  get cursorKey(): string {
    return dmsCursorKey(this.options.bot);
  }

  pages(cursor: DmsCursor | undefined, now: number): Poll<"GET /2/dm_events"> {
    return dmsPoll(this.options, cursor, now);
  }

  delivery(found: Delivery): Delivery {
    return found;
  }
}
