/**
 * The dms trigger reads `GET /2/dm_events` newest first, page by page, back to the newest
 * event the last poll saw (the endpoint has no `since_id`), and hands the others' messages
 * to the inbox oldest first, with the cursor's move in the same commit.
 */
import { describe, expect, it } from "vitest";
import type { DmEvent, Envelope } from "../../src/api/types.ts";
import { drive } from "../../src/runtime/poll-loop.ts";
import { dmsCursorKey, dmsPoll, type DmsCursor, type DmsQuery } from "../../src/triggers/dms.ts";
import type { BotEvent, CursorMove } from "../../src/triggers/events.ts";

const BOT = "42";
const NOW = Date.parse("2026-03-02T12:00:00Z");
const HOUR = 3_600_000;

const message = (id: string, sender = "7", minutesAgo = 1): DmEvent => ({
  id,
  event_type: "MessageCreate",
  text: `message ${id}`,
  sender_id: sender,
  dm_conversation_id: sender === BOT ? "7-42" : `${sender}-42`,
  created_at: new Date(NOW - minutesAgo * 60_000).toISOString(),
});

/** An inbox that records each commit and keeps the cursors it was given. */
function recordingInbox() {
  const cursors = new Map<string, unknown>();
  const commits: Array<{ events: string[]; cursor?: CursorMove }> = [];
  const delivered: BotEvent[] = [];
  const inbox = {
    cursor: <T>(key: string) => cursors.get(key) as T | undefined,
    async commit(events: readonly BotEvent[], cursor?: CursorMove) {
      commits.push({ events: events.map((e) => e.id), ...(cursor ? { cursor } : {}) });
      delivered.push(...events);
      if (cursor) {
        if (cursor.value === undefined) cursors.delete(cursor.key);
        else cursors.set(cursor.key, cursor.value);
      }
    },
  };
  return { inbox, cursors, commits, delivered };
}

/** Serves `events` (newest first) in pages of `size`, recording every query. */
function service(events: () => DmEvent[], size = 2) {
  const asked: DmsQuery[] = [];
  const fetch = async (query: DmsQuery): Promise<Envelope<DmEvent[]>> => {
    asked.push(query);
    const all = events();
    const from = query.pagination_token ? Number(query.pagination_token.slice("page-token-000".length)) : 0;
    const data = all.slice(from, from + size);
    const next = from + size < all.length ? `page-token-000${from + size}` : undefined;
    return {
      data,
      includes: { users: [{ id: "7", name: "Alice", username: "alice" }] },
      meta: { result_count: data.length, ...(next ? { next_token: next } : {}) },
    };
  };
  return { fetch, asked };
}

type Inbox = ReturnType<typeof recordingInbox>["inbox"];

/** One poll as the runtime runs it at `now`: the pages it asks for read from `fetch`, what it delivers committed. */
async function pollDms(inbox: Inbox, fetch: (q: DmsQuery) => Promise<Envelope<DmEvent[]>>, now = NOW): Promise<number> {
  const cursor = inbox.cursor<DmsCursor>(dmsCursorKey("helpdesk"));
  const { events, move } = await drive(
    dmsPoll({ bot: "helpdesk", userId: BOT, backfillMs: HOUR }, cursor, now),
    (page) => fetch(page.args.query as DmsQuery),
  );
  await inbox.commit(events, move);
  return events.length;
}

describe("the dms trigger", () => {
  it("asks for messages only, with the sender expanded, and delivers others' messages oldest first", async () => {
    const { inbox, commits, delivered } = recordingInbox();
    // Newest first, as the service lists them; 105 is the bot's own answer.
    const events = [message("105", BOT), message("104"), message("103"), message("101", "8")];
    const { fetch, asked } = service(() => events);
    expect(await pollDms(inbox, fetch)).toBe(3);
    expect(commits).toEqual([
      { events: ["dm:101", "dm:103", "dm:104"], cursor: { key: dmsCursorKey("helpdesk"), value: { last_id: "105" } } },
    ]);
    expect(asked[0]).toMatchObject({
      event_types: ["MessageCreate"],
      expansions: ["sender_id"],
      max_results: 100,
      "dm_event.fields": expect.arrayContaining(["text", "created_at", "dm_conversation_id", "sender_id"]),
    });
    expect(asked.map((q) => q.pagination_token)).toEqual([undefined, "page-token-0002"]);
    expect(delivered[1]).toEqual({
      kind: "dm",
      id: "dm:103",
      message: {
        id: "103",
        text: "message 103",
        created_at: new Date(NOW - 60_000).toISOString(),
        dm_conversation_id: "7-42",
        sender_id: "7",
      },
      sender: { id: "7", name: "Alice", username: "alice" },
    });
    // A sender the page did not expand still has its id.
    expect(delivered[0]).toMatchObject({ sender: { id: "8", username: "" } });
  });

  it("reads pages only back to the newest event it saw, and delivers nothing twice", async () => {
    const { inbox, commits } = recordingInbox();
    const events = [message("103"), message("102"), message("101")];
    const { fetch, asked } = service(() => events);
    await pollDms(inbox, fetch);
    events.unshift(message("106"), message("105", BOT), message("104"));
    asked.length = 0;
    expect(await pollDms(inbox, fetch)).toBe(2);
    expect(commits.at(-1)).toEqual({
      events: ["dm:104", "dm:106"],
      cursor: { key: dmsCursorKey("helpdesk"), value: { last_id: "106" } },
    });
    // Two pages: the second holds 104 and 103, where the last poll stopped; no third is read.
    expect(asked.map((q) => q.pagination_token)).toEqual([undefined, "page-token-0002"]);
    // Nothing new: one page, nothing delivered, the cursor left as it is.
    expect(await pollDms(inbox, fetch)).toBe(0);
    expect(commits.at(-1)).toEqual({ events: [] });
  });

  it("reaches back the backfill on its first poll, and keeps that reach until it has seen an event", async () => {
    const { inbox, cursors, commits } = recordingInbox();
    const events = [message("102", "7", 30), message("101", "7", 90)];
    const { fetch } = service(() => events);
    expect(await pollDms(inbox, fetch)).toBe(1);
    expect(commits[0]!.events).toEqual(["dm:102"]);

    // A bot whose first poll finds nothing keeps the time it reached back to: a message that
    // comes hours later (a basic bot polls once a day) is still read at the next poll.
    const quiet = recordingInbox();
    const later: DmEvent[] = [];
    const q = service(() => later);
    await pollDms(quiet.inbox, q.fetch);
    expect(quiet.cursors.get(dmsCursorKey("helpdesk"))).toEqual({ since: NOW - HOUR });
    later.push({ ...message("300"), created_at: new Date(NOW + 3 * HOUR).toISOString() });
    expect(await pollDms(quiet.inbox, q.fetch, NOW + 24 * HOUR)).toBe(1);
    expect(quiet.cursors.get(dmsCursorKey("helpdesk"))).toEqual({ last_id: "300" });
    expect(cursors.get(dmsCursorKey("helpdesk"))).toEqual({ last_id: "102" });
  });
});
