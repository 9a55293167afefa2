/**
 * `GET /2/dm_events` as a bot that polls its DMs sees it (issue 22): both sides of one-to-one
 * conversations, event types, fields and expansions, pages newest first, the plans' limits,
 * and messages sent through the admin API outside every budget.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareIds } from "../../../src/sandbox/model/index.ts";
import { startSandbox, type Account } from "../../helpers/sandbox.ts";
import { useWorld } from "./world.ts";

const w = useWorld();

const send = (from: Account, to: Account, text: string) =>
  w.call(from, "POST", `/2/dm_conversations/with/${to.user.id}/messages`, { json: { text } });
const texts = (res: { body: { data?: Array<{ text?: string; event_type: string }> } }) =>
  (res.body.data ?? []).map((e) => e.text ?? e.event_type);
const pair = (a: Account, b: Account) => [a.user.id, b.user.id].sort(compareIds).join("-");

describe("DM events as each participant sees them", () => {
  it("a one-to-one conversation has one id, <lower id>-<higher id>, whoever writes first", async () => {
    const [a, b] = await Promise.all([w.user("dmv_a"), w.user("dmv_b")]);
    const first = await send(b, a, "from b");
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      data: { dm_conversation_id: pair(a, b), dm_event_id: expect.stringMatching(/^\d+$/) },
    });
    await w.t.clock.advance(1000);
    const reply = await send(a, b, "from a");
    expect(reply.body.data.dm_conversation_id).toBe(pair(a, b));
    expect(reply.body.data.dm_event_id).not.toBe(first.body.data.dm_event_id);
    const [lower, higher] = pair(a, b).split("-");
    expect(compareIds(lower!, higher!)).toBeLessThan(0);
  });

  it("sender and recipient both see every event of their conversations, the sender's own with sender_id themselves; others see none", async () => {
    const [a, b, c, outsider] = await Promise.all(["dms_a", "dms_b", "dms_c", "dms_x"].map((n) => w.user(n)));
    await send(a!, b!, "a to b");
    await w.t.clock.advance(1000);
    await send(b!, a!, "b to a");
    await w.t.clock.advance(1000);
    await send(c!, b!, "c to b");
    const fields = { "dm_event.fields": "sender_id,dm_conversation_id" };
    const asA = await w.get(a!, "/2/dm_events", fields);
    expect(asA.body.data).toEqual([
      {
        id: expect.any(String),
        event_type: "MessageCreate",
        text: "b to a",
        sender_id: b!.user.id,
        dm_conversation_id: pair(a!, b!),
      },
      {
        id: expect.any(String),
        event_type: "MessageCreate",
        text: "a to b",
        sender_id: a!.user.id,
        dm_conversation_id: pair(a!, b!),
      },
    ]);
    expect(asA.body.meta).toEqual({ result_count: 2 });
    const asB = await w.get(b!, "/2/dm_events", fields);
    expect(texts(asB)).toEqual(["c to b", "b to a", "a to b"]);
    expect(asB.body.data.map((e: { sender_id: string }) => e.sender_id)).toEqual([c!.user.id, b!.user.id, a!.user.id]);
    expect(texts(await w.get(c!, "/2/dm_events"))).toEqual(["c to b"]);
    expect((await w.get(outsider!, "/2/dm_events")).body).toEqual({ meta: { result_count: 0 } });
    // A conversation read by id or by participant gives the same events, from either side.
    const byConversation = await w.get(b!, `/2/dm_conversations/${pair(a!, b!)}/dm_events`);
    expect(texts(byConversation)).toEqual(["b to a", "a to b"]);
    expect(texts(await w.get(a!, `/2/dm_conversations/with/${b!.user.id}/dm_events`))).toEqual(["b to a", "a to b"]);
    expect(texts(await w.get(c!, `/2/dm_conversations/with/${b!.user.id}/dm_events`))).toEqual(["c to b"]);
    const stranger = await w.get(outsider!, `/2/dm_conversations/${pair(a!, b!)}/dm_events`);
    expect(stranger.body.errors[0]).toMatchObject({ resource_type: "dm_conversation", resource_id: pair(a!, b!) });
    // One event by id: to a participant only.
    const id = asA.body.data[0].id;
    expect((await w.get(b!, `/2/dm_events/${id}`)).body.data).toEqual({
      id,
      event_type: "MessageCreate",
      text: "b to a",
    });
    expect((await w.get(outsider!, `/2/dm_events/${id}`)).body.errors[0]).toMatchObject({
      resource_type: "dm_event",
      resource_id: id,
    });
  });

  it("filters by event_types: MessageCreate, ParticipantsJoin, ParticipantsLeave, or several", async () => {
    const [a, b, c] = await Promise.all(["dmt_a", "dmt_b", "dmt_c"].map((n) => w.user(n)));
    await w.call(a!, "POST", "/2/dm_conversations", {
      json: { conversation_type: "Group", participant_ids: [b!.user.id, c!.user.id], message: { text: "group hello" } },
    });
    await w.t.clock.advance(1000);
    await send(b!, c!, "just b and c");
    const of = async (types?: string) => texts(await w.get(c!, "/2/dm_events", types ? { event_types: types } : {}));
    expect(await of()).toEqual(["just b and c", "group hello", "ParticipantsJoin"]);
    expect(await of("MessageCreate")).toEqual(["just b and c", "group hello"]);
    expect(await of("ParticipantsJoin")).toEqual(["ParticipantsJoin"]);
    expect(await of("ParticipantsLeave")).toEqual([]);
    expect(await of("ParticipantsJoin,ParticipantsLeave")).toEqual(["ParticipantsJoin"]);
    expect(await of("MessageCreate,ParticipantsJoin")).toEqual(["just b and c", "group hello", "ParticipantsJoin"]);
    const bad = await w.get(c!, "/2/dm_events", { event_types: "MessageDelete" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toContain("MessageCreate,ParticipantsJoin,ParticipantsLeave");
  });

  it("renders every documented field and expansion", async () => {
    const [a, b] = await Promise.all([w.user("dmf_a"), w.user("dmf_b")]);
    const post = await w.post(a, "a post worth sharing");
    const text = `look @dmf_b #dms https://x.com/dmf_a/status/${post.id} and https://twitter.com/dmf_a/status/9`;
    await send(a, b, text);
    const sentAt = new Date(w.t.clock.now()).toISOString();
    const all = await w.get(b, "/2/dm_events", {
      "dm_event.fields":
        "attachments,created_at,dm_conversation_id,entities,event_type,id,participant_ids,referenced_posts,sender_id,text",
      expansions: "attachments.media_keys,participant_ids,referenced_posts.id,sender_id",
      "user.fields": "username",
      "post.fields": "author_id",
    });
    expect(all.status).toBe(200);
    const [event] = all.body.data;
    expect(event).toMatchObject({
      event_type: "MessageCreate",
      text,
      sender_id: a.user.id,
      dm_conversation_id: pair(a, b),
      created_at: sentAt,
      referenced_posts: [{ id: post.id }, { id: "9" }],
    });
    expect(event.entities.mentions).toEqual([{ start: 5, end: 11, username: "dmf_b", id: b.user.id }]);
    expect(event.entities.hashtags).toEqual([{ start: 12, end: 16, tag: "dms" }]);
    expect(event.entities.urls).toHaveLength(2);
    expect(event).not.toHaveProperty("attachments"); // the sandbox has no media
    expect(all.body.includes.users).toEqual([{ id: a.user.id, name: "dmf_a", username: "dmf_a" }]);
    expect(all.body.includes.posts).toEqual([
      { id: post.id, text: "a post worth sharing", edit_history_post_ids: [post.id], author_id: a.user.id },
    ]);
    expect(all.body.errors).toEqual([expect.objectContaining({ resource_id: "9", parameter: "referenced_posts.id" })]);
    // Asking only for an expansion puts the field it joins on in the event.
    const joined = await w.get(b, "/2/dm_events", { expansions: "sender_id" });
    expect(joined.body.data[0]).toEqual({ id: event.id, event_type: "MessageCreate", text, sender_id: a.user.id });
    for (const [name, value] of [
      ["dm_event.fields", "author_id"],
      ["expansions", "author_id"],
    ]) {
      const bad = await w.get(b, "/2/dm_events", { [name!]: value! });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].message).toContain(name);
    }
  });

  it("pages newest first by max_results and pagination_token, both ways", async () => {
    const [a, b] = await Promise.all([w.user("dmp_a"), w.user("dmp_b")]);
    for (let i = 1; i <= 5; i++) {
      await send(i % 2 ? a : b, i % 2 ? b : a, `message ${i}`);
      await w.t.clock.advance(1000);
    }
    const first = await w.get(a, "/2/dm_events", { max_results: "2" });
    expect(texts(first)).toEqual(["message 5", "message 4"]);
    expect(first.body.meta).toEqual({ result_count: 2, next_token: expect.any(String) });
    const second = await w.get(a, "/2/dm_events", { max_results: "2", pagination_token: first.body.meta.next_token });
    expect(texts(second)).toEqual(["message 3", "message 2"]);
    expect(second.body.meta).toEqual({
      result_count: 2,
      next_token: expect.any(String),
      previous_token: expect.any(String),
    });
    const last = await w.get(a, "/2/dm_events", { max_results: "2", pagination_token: second.body.meta.next_token });
    expect(texts(last)).toEqual(["message 1"]);
    expect(last.body.meta).toEqual({ result_count: 1, previous_token: expect.any(String) });
    const back = await w.get(a, "/2/dm_events", {
      max_results: "2",
      pagination_token: second.body.meta.previous_token,
    });
    expect(texts(back)).toEqual(["message 5", "message 4"]);
    // A message that arrives meanwhile does not shift the pages already handed out.
    await send(b, a, "message 6");
    const again = await w.get(a, "/2/dm_events", { max_results: "2", pagination_token: first.body.meta.next_token });
    expect(texts(again)).toEqual(["message 3", "message 2"]);
    expect(texts(await w.get(a, "/2/dm_events"))).toHaveLength(6); // max_results defaults to 100
    const refused: Array<Record<string, string>> = [
      { max_results: "0" },
      { max_results: "101" },
      { pagination_token: "not-a-token" },
    ];
    for (const bad of refused) {
      expect((await w.get(a, "/2/dm_events", bad)).status).toBe(400);
    }
  });
});

describe("DM limits by plan (spec part 8)", () => {
  it("pro: 15 reads per 15 minutes per user; the 16th gets 429 until the window moves on", async () => {
    const app = await w.t.admin.createApp({ plan: "pro" });
    const a = await w.t.account({ username: "dml_pro", app });
    const other = await w.t.account({ username: "dml_pro2", app });
    for (let i = 0; i < 15; i++) expect((await w.get(a, "/2/dm_events")).status).toBe(200);
    const over = await w.get(a, "/2/dm_events");
    expect(over.status).toBe(429);
    expect(over.headers.get("x-rate-limit-limit")).toBe("15");
    expect(over.headers.get("x-rate-limit-remaining")).toBe("0");
    expect((await w.get(other, "/2/dm_events")).status).toBe(200); // per user, not per app
    await w.t.clock.advance(15 * 60_000);
    expect((await w.get(a, "/2/dm_events")).status).toBe(200);
  });

  it("basic: one read per 24 hours per user", async () => {
    const a = await w.t.account({ username: "dml_basic", plan: "basic" });
    const first = await w.get(a, "/2/dm_events");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-rate-limit-limit")).toBe("1");
    expect((await w.get(a, "/2/dm_events")).status).toBe(429);
    await w.t.clock.advance(23 * 3_600_000);
    expect((await w.get(a, "/2/dm_events")).status).toBe(429);
    await w.t.clock.advance(3_600_000);
    expect((await w.get(a, "/2/dm_events")).status).toBe(200);
  });

  it("free: no DM reads or sends, 403 client-forbidden naming the plans that have them", async () => {
    const a = await w.t.account({ username: "dml_free", plan: "free" });
    const b = await w.user("dml_free_b");
    for (const res of [
      await w.get(a, "/2/dm_events"),
      await w.get(a, `/2/dm_conversations/with/${b.user.id}/dm_events`),
      await send(a, b, "hello?"),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        title: "Client Forbidden",
        reason: "client-not-enrolled",
        detail: expect.stringContaining(
          "is not available on the free plan; it is available on the pro and basic plans",
        ),
      });
    }
  });
});

describe("POST /_sandbox/dms", () => {
  it("sends a one-to-one message as a user outside every budget, answered with the event", async () => {
    const a = await w.t.account({ username: "dma_a", plan: "basic" });
    const b = await w.user("dma_b");
    // The basic plan's one send a day is spent; the admin API sends anyway.
    expect((await send(a, b, "my one message")).status).toBe(201);
    expect((await send(a, b, "a second one")).status).toBe(429);
    const res = await w.admin("POST", "/_sandbox/dms", {
      sender_id: a.user.id,
      recipient_id: b.user.id,
      text: "from the admin API",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      event_type: "MessageCreate",
      text: "from the admin API",
      sender_id: a.user.id,
      dm_conversation_id: pair(a, b),
      created_at: new Date(w.t.clock.now()).toISOString(),
    });
    const inProcess = await w.t.admin.sendDm({
      sender_id: b.user.id,
      recipient_id: a.user.id,
      text: "and back, in-process",
    });
    expect(inProcess).toMatchObject({
      event_type: "MessageCreate",
      sender_id: b.user.id,
      dm_conversation_id: pair(a, b),
    });
    expect(texts(await w.get(b, "/2/dm_events"))).toEqual([
      "and back, in-process",
      "from the admin API",
      "my one message",
    ]);
  });

  it("refuses what the API refuses, naming the field", async () => {
    const [a, b] = await Promise.all([w.user("dmr_a"), w.user("dmr_b")]);
    const refused = async (body: unknown) => {
      const res = await w.admin("POST", "/_sandbox/dms", body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      return res;
    };
    expect((await refused({ sender_id: a.user.id, recipient_id: b.user.id })).body.errors[0].message).toContain(
      "$.text",
    );
    expect((await refused({ sender_id: "1", recipient_id: b.user.id, text: "x" })).body.errors[0].message).toContain(
      "sender_id",
    );
    expect((await refused({ sender_id: a.user.id, recipient_id: "1", text: "x" })).body.errors[0].message).toContain(
      "recipient_id",
    );
    expect((await refused({ sender_id: a.user.id, recipient_id: a.user.id, text: "me" })).status).toBe(403);
    expect((await refused({ sender_id: a.user.id, recipient_id: b.user.id, text: "" })).status).toBe(400);
    await w.admin("POST", "/_sandbox/blocks", { source_user_id: b.user.id, target_user_id: a.user.id });
    expect((await refused({ sender_id: a.user.id, recipient_id: b.user.id, text: "blocked" })).status).toBe(403);
    const body = { sender_id: a.user.id, recipient_id: b.user.id, text: "x" };
    expect((await w.t.adminCall("POST", "/_sandbox/dms", body, "not-the-admin-token")).status).toBe(401);
  });
});

describe("DMs across a restart", () => {
  it("a sandbox started from the saved state reads the conversations and adds to them as before", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-dms-"));
    const stateFile = join(dir, "state.json");
    const first = await startSandbox({ stateFile });
    try {
      const a = await first.account({ username: "dmk_a" });
      const b = await first.account({ username: "dmk_b", app: a.app });
      await first.signed(a, "POST", `/2/dm_conversations/with/${b.user.id}/messages`, { json: { text: "before" } });
      await first.close();
      const second = await startSandbox({ stateFile });
      try {
        await second.clock.advance(1000);
        const after = await second.signed(b, "POST", `/2/dm_conversations/with/${a.user.id}/messages`, {
          json: { text: "after" },
        });
        expect(after.body.data.dm_conversation_id).toBe(pair(a, b));
        expect(texts(await second.signed(a, "GET", "/2/dm_events"))).toEqual(["after", "before"]);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
