/**
 * The mentions trigger hands what a poll fetched to the bot's inbox together with its
 * cursor's move, in one commit, and never writes or flushes the state store itself: the
 * inbox owns that write (issue 21).
 */
import { describe, expect, it } from "vitest";
import type { TimelineQuery } from "../../src/api/params.ts";
import type { Envelope, Post } from "../../src/api/types.ts";
import { createClock } from "../../src/clock.ts";
import type { BotEvent, CursorMove, TriggerInbox } from "../../src/triggers/events.ts";
import { MentionsTrigger, mentionsCursorKey } from "../../src/triggers/mentions.ts";

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
  const inbox: TriggerInbox = {
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

function trigger(inbox: TriggerInbox, pages: (query: TimelineQuery) => Envelope<Post[]>, reset?: string[]) {
  return new MentionsTrigger({
    bot: "greeter",
    userId: BOT,
    clock: createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") }),
    inbox,
    intervalMs: 60_000,
    backfillMs: 3_600_000,
    fetch: async (query) => pages(query),
    onError: () => undefined,
    ...(reset ? { onCursorReset: (reason: string) => void reset.push(reason) } : {}),
  });
}

describe("MentionsTrigger and the inbox", () => {
  it("commits a poll's events, oldest first, with the cursor's move, once", async () => {
    const { inbox, commits } = recordingInbox();
    const mentions = trigger(inbox, (query) =>
      query.pagination_token
        ? { data: [post("101")], meta: { result_count: 1 } }
        : { data: [post("103"), post("102")], meta: { result_count: 2, newest_id: "103", next_token: "p2" } },
    );
    expect(await mentions.poll(new AbortController().signal)).toBe(3);
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
    const mentions = trigger(
      inbox,
      (query) => {
        asked.push(query);
        if (query.since_id)
          throw Object.assign(new Error("400"), { problem: { errors: [{ parameters: { since_id: ["x"] } }] } });
        return { data: [post("200")], meta: { result_count: 1, newest_id: "200" } };
      },
      reset,
    );
    await mentions.poll(new AbortController().signal);
    expect(asked.map((q) => q.since_id)).toEqual(["not-a-post-id", undefined]);
    expect(reset).toHaveLength(1);
    expect(commits).toEqual([
      { events: [], cursor: { key: mentionsCursorKey("greeter"), value: undefined } },
      { events: ["mention:200"], cursor: { key: mentionsCursorKey("greeter"), value: { since_id: "200" } } },
    ]);
  });

  it("an answer that the service has no user of the bot's id fails the poll, saying so, rather than finding nothing", async () => {
    const { inbox, commits } = recordingInbox();
    const mentions = trigger(inbox, () => ({
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
    }));
    await expect(mentions.poll(new AbortController().signal)).rejects.toThrow(
      "the service has no user 42, the account bot greeter reads the mentions of: the account is gone, or the id postbot keeps for it was changed; sign the account in again (bot auth login), or check the bot's token",
    );
    expect(commits).toEqual([]);
  });
});
