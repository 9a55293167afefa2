/**
 * The mentions trigger says which pages a poll reads and what it delivers with its cursor's
 * move; the runtime reads the pages and commits the delivery to the bot's inbox in one
 * commit (driven here as the runtime's mentions feed drives it). The trigger never reads the
 * service, writes the inbox or flushes the state store itself.
 */
import { describe, expect, it } from "vitest";
import type { TimelineQuery } from "../../src/api/params.ts";
import type { Envelope, Post } from "../../src/api/types.ts";
import { createClock } from "../../src/clock.ts";
import { drive } from "../../src/runtime/poll-loop.ts";
import type { BotEvent, CursorMove } from "../../src/triggers/events.ts";
import { MentionsTrigger, mentionsCursorKey, type MentionsCursor } from "../../src/triggers/mentions.ts";

const BOT = "42";

const post = (id: string): Post => ({
  id,
  text: `@greeter hi ${id}`,
  edit_history_post_ids: [id],
  author_id: "7",
  created_at: "2026-03-02T12:00:00.000Z",
  conversation_id: id,
});

/** An inbox that records each commit and keeps the cursors it was given. */
function recordingInbox() {
  const cursors = new Map<string, unknown>();
  const commits: Array<{ events: string[]; cursor?: CursorMove }> = [];
  const inbox = {
    cursor: <T>(key: string) => cursors.get(key) as T | undefined,
    async commit(events: readonly BotEvent[], cursor?: CursorMove) {
      commits.push({ events: events.map((e) => e.id), ...(cursor ? { cursor } : {}) });
      if (cursor) {
        if (cursor.value === undefined) cursors.delete(cursor.key);
        else cursors.set(cursor.key, cursor.value);
      }
    },
  };
  return { inbox, cursors, commits };
}
type Inbox = ReturnType<typeof recordingInbox>["inbox"];

const trigger = () =>
  new MentionsTrigger({
    bot: "greeter",
    userId: BOT,
    clock: createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") }),
    backfillMs: 3_600_000,
  });

/**
 * One poll as the runtime's mentions feed runs it: the pages the trigger asks for answered
 * by `pages`, a dropped cursor committed at once, what it delivers committed with the move.
 */
async function poll(
  mentions: MentionsTrigger,
  inbox: Inbox,
  pages: (query: TimelineQuery) => Envelope<Post[]>,
  reset?: string[],
): Promise<number> {
  const fetched = await drive(
    mentions.pages(inbox.cursor<MentionsCursor>(mentions.cursorKey)),
    async (page) => pages(page.args.query as TimelineQuery),
    async ({ drop, warning }) => {
      await inbox.commit([], drop);
      reset?.push(warning);
    },
  );
  const { events, move } = mentions.delivery(fetched, inbox.cursor<MentionsCursor>(mentions.cursorKey));
  await inbox.commit(events, move);
  return events.length;
}

describe("MentionsTrigger and the inbox", () => {
  it("asks for its pages as data, and calls nothing back: the runtime reads them and resumes it", () => {
    const pages = trigger().pages({ since_id: "90" });
    const first = pages.next();
    expect(first.done).toBe(false);
    expect(first.value).toMatchObject({
      endpoint: "GET /2/users/:id/mentions",
      args: { params: { id: BOT }, query: { since_id: "90", max_results: 100 } },
    });
    const next = pages.next({ data: [post("103")], meta: { result_count: 1, newest_id: "103", next_token: "p2" } });
    expect(next.value).toMatchObject({ args: { query: { since_id: "90", pagination_token: "p2" } } });
    const done = pages.next({ data: [post("101")], meta: { result_count: 1 } });
    expect(done.done).toBe(true);
    expect(done.value).toMatchObject({ newest: "103" });
  });

  it("commits a poll's events, oldest first, with the cursor's move, once", async () => {
    const { inbox, commits } = recordingInbox();
    const pages = (query: TimelineQuery): Envelope<Post[]> =>
      query.pagination_token
        ? { data: [post("101")], meta: { result_count: 1 } }
        : { data: [post("103"), post("102")], meta: { result_count: 2, newest_id: "103", next_token: "p2" } };
    expect(await poll(trigger(), inbox, pages)).toBe(3);
    expect(commits).toEqual([
      {
        events: ["mention:101", "mention:102", "mention:103"],
        cursor: { key: mentionsCursorKey("greeter"), value: { since_id: "103" } },
      },
    ]);
  });

  it("reads its cursor from the inbox, and drops one the service refuses through the inbox too", async () => {
    const { inbox, cursors, commits } = recordingInbox();
    cursors.set(mentionsCursorKey("greeter"), { since_id: "not-a-post-id" });
    const reset: string[] = [];
    const asked: TimelineQuery[] = [];
    await poll(
      trigger(),
      inbox,
      (query) => {
        asked.push(query);
        if (query.since_id)
          throw Object.assign(new Error("400"), { problem: { errors: [{ parameters: { since_id: ["x"] } }] } });
        return { data: [post("200")], meta: { result_count: 1, newest_id: "200" } };
      },
      reset,
    );
    expect(asked.map((q) => q.since_id)).toEqual(["not-a-post-id", undefined]);
    expect(reset).toHaveLength(1);
    expect(commits).toEqual([
      { events: [], cursor: { key: mentionsCursorKey("greeter"), value: undefined } },
      { events: ["mention:200"], cursor: { key: mentionsCursorKey("greeter"), value: { since_id: "200" } } },
    ]);
  });

  it("an answer that the service has no user of the bot's id fails the poll, saying so, rather than finding nothing", async () => {
    const { inbox, commits } = recordingInbox();
    const answer = (): Envelope<Post[]> => ({
      errors: [
        {
          value: BOT,
          detail: `Could not find user with id: [${BOT}].`,
          title: "Not Found Error",
          resource_type: "user",
          parameter: "id",
          resource_id: BOT,
          type: "https://api.x.com/2/problems/resource-not-found",
        },
      ],
    });
    await expect(poll(trigger(), inbox, answer)).rejects.toThrow(
      "the service has no user 42, the account bot greeter reads the mentions of: the account is gone, or the id postbot keeps for it was changed; sign the account in again (bot auth login), or check the bot's token",
    );
    expect(commits).toEqual([]);
  });
});
