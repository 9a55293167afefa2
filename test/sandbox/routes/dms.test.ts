import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();

describe("direct messages", () => {
  it("sends one-to-one (201, conversation id smaller-larger) and reads events by conversation and participant", async () => {
    const alice = await w.user("dm_a");
    const bob = await w.user("dm_b");
    const sent = await w.call(alice, "POST", `/2/dm_conversations/with/${bob.user.id}/messages`, {
      json: { text: "hi bob" },
    });
    expect(sent.status).toBe(201);
    const [lo, hi] = [alice.user.id, bob.user.id].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    expect(sent.body).toEqual({ data: { dm_conversation_id: `${lo}-${hi}`, dm_event_id: expect.any(String) } });
    await w.t.clock.advance(1000);
    const back = await w.call(bob, "POST", `/2/dm_conversations/${sent.body.data.dm_conversation_id}/messages`, {
      json: { text: "hi alice" },
    });
    expect(back.status).toBe(201);
    const byConv = await w.get(alice, `/2/dm_conversations/${sent.body.data.dm_conversation_id}/dm_events`, {
      "dm_event.fields": "sender_id,created_at,dm_conversation_id",
      expansions: "sender_id",
    });
    expect(byConv.body.data.map((e: { text: string }) => e.text)).toEqual(["hi alice", "hi bob"]);
    expect(byConv.body.data[0]).toMatchObject({
      event_type: "MessageCreate",
      sender_id: bob.user.id,
      dm_conversation_id: sent.body.data.dm_conversation_id,
    });
    expect(byConv.body.includes.users.map((u: { id: string }) => u.id).sort()).toEqual(
      [alice.user.id, bob.user.id].sort(),
    );
    expect(byConv.body.meta).toEqual({ result_count: 2 });
    const byParticipant = await w.get(bob, `/2/dm_conversations/with/${alice.user.id}/dm_events`);
    expect(byParticipant.body.data).toHaveLength(2);
    const one = await w.get(bob, `/2/dm_events/${sent.body.data.dm_event_id}`);
    expect(one.body.data).toEqual({ id: sent.body.data.dm_event_id, event_type: "MessageCreate", text: "hi bob" });
  });

  it("creates groups, filters by event_types, and keeps others out", async () => {
    const a = await w.user("dmg_a");
    const b = await w.user("dmg_b");
    const c = await w.user("dmg_c");
    const outsider = await w.user("dmg_x");
    const g = await w.call(a, "POST", "/2/dm_conversations", {
      json: { conversation_type: "Group", participant_ids: [b.user.id, c.user.id], message: { text: "welcome all" } },
    });
    expect(g.status).toBe(201);
    const conv = g.body.data.dm_conversation_id;
    expect(conv).toMatch(/^\d{15,19}$/);
    const all = await w.get(c, "/2/dm_events");
    expect(all.body.data.map((e: { event_type: string }) => e.event_type)).toEqual([
      "MessageCreate",
      "ParticipantsJoin",
    ]);
    const joins = await w.get(c, "/2/dm_events", {
      event_types: "ParticipantsJoin",
      "dm_event.fields": "participant_ids",
    });
    expect(joins.body.data).toEqual([
      { id: expect.any(String), event_type: "ParticipantsJoin", participant_ids: [a.user.id, b.user.id, c.user.id] },
    ]);
    const intrude = await w.call(outsider, "POST", `/2/dm_conversations/${conv}/messages`, {
      json: { text: "let me in" },
    });
    expect(intrude.status).toBe(403);
    const peek = await w.get(outsider, `/2/dm_conversations/${conv}/dm_events`);
    expect(peek.status).toBe(200);
    expect(peek.body.errors[0].resource_type).toBe("dm_conversation");
    expect((await w.get(outsider, "/2/dm_events")).body).toEqual({ meta: { result_count: 0 } });
    const small = await w.call(a, "POST", "/2/dm_conversations", {
      json: { conversation_type: "Group", participant_ids: [b.user.id], message: { text: "x" } },
    });
    expect(small.status).toBe(400);
    const badType = await w.get(c, "/2/dm_events", { event_types: "Nope" });
    expect(badType.status).toBe(400);
  });

  it("deletes only one's own messages", async () => {
    const a = await w.user("dmd_a");
    const b = await w.user("dmd_b");
    const sent = await w.call(a, "POST", `/2/dm_conversations/with/${b.user.id}/messages`, { json: { text: "oops" } });
    const byB = await w.call(b, "DELETE", `/2/dm_events/${sent.body.data.dm_event_id}`);
    expect(byB.status).toBe(403);
    const byA = await w.call(a, "DELETE", `/2/dm_events/${sent.body.data.dm_event_id}`);
    expect(byA.body).toEqual({ data: { deleted: true } });
    expect((await w.get(b, "/2/dm_events")).body).toEqual({ meta: { result_count: 0 } });
    expect((await w.call(a, "DELETE", `/2/dm_events/${sent.body.data.dm_event_id}`)).status).toBe(404);
    const toNobody = await w.call(a, "POST", "/2/dm_conversations/with/777/messages", { json: { text: "hello?" } });
    expect(toNobody.status).toBe(404);
    const empty = await w.call(a, "POST", `/2/dm_conversations/with/${b.user.id}/messages`, { json: { text: "" } });
    expect(empty.status).toBe(400);
  });
});
