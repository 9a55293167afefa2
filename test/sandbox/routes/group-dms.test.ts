import { describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();
const texts = (res: { body: { data?: Array<{ text?: string; event_type: string }> } }) =>
  (res.body.data ?? []).map((e) => e.text ?? e.event_type);

describe("group conversations end to end", () => {
  it("creates a group of four, sends into it by conversation id, and every member reads the same conversation", async () => {
    const [a, b, c, d] = await Promise.all(["gd_a", "gd_b", "gd_c", "gd_d"].map((n) => w.user(n)));
    const outsider = await w.user("gd_x");
    const made = await w.call(a!, "POST", "/2/dm_conversations", {
      json: {
        conversation_type: "Group",
        participant_ids: [b!.user.id, c!.user.id, d!.user.id],
        message: { text: "welcome, all three" },
      },
    });
    expect(made.status).toBe(201);
    const conv = made.body.data.dm_conversation_id as string;
    await w.t.clock.advance(1000);
    const fromB = await w.call(b!, "POST", `/2/dm_conversations/${conv}/messages`, { json: { text: "thanks a" } });
    expect(fromB.status).toBe(201);
    expect(fromB.body.data.dm_conversation_id).toBe(conv);
    await w.t.clock.advance(1000);
    await w.call(d!, "POST", `/2/dm_conversations/${conv}/messages`, { json: { text: "hello from d" } });
    // A one-to-one conversation of two members stays apart from the group.
    await w.call(a!, "POST", `/2/dm_conversations/with/${b!.user.id}/messages`, { json: { text: "just us" } });

    const read = await w.get(c!, `/2/dm_conversations/${conv}/dm_events`, {
      "dm_event.fields": "sender_id,participant_ids,dm_conversation_id,created_at",
      expansions: "sender_id,participant_ids",
    });
    expect(read.status).toBe(200);
    expect(texts(read)).toEqual(["hello from d", "thanks a", "welcome, all three", "ParticipantsJoin"]);
    expect(read.body.data.every((e: { dm_conversation_id: string }) => e.dm_conversation_id === conv)).toBe(true);
    const join = read.body.data[3];
    expect(join).toMatchObject({
      event_type: "ParticipantsJoin",
      sender_id: a!.user.id,
      participant_ids: [a!.user.id, b!.user.id, c!.user.id, d!.user.id],
    });
    expect(read.body.includes.users.map((u: { id: string }) => u.id).sort()).toEqual(
      [a, b, c, d].map((x) => x!.user.id).sort(),
    );
    expect(read.body.meta).toEqual({ result_count: 4 });

    for (const member of [a!, b!, d!]) {
      expect(texts(await w.get(member, `/2/dm_conversations/${conv}/dm_events`))).toEqual([
        "hello from d",
        "thanks a",
        "welcome, all three",
        "ParticipantsJoin",
      ]);
    }
    const page = await w.get(b!, `/2/dm_conversations/${conv}/dm_events`, { max_results: "2" });
    expect(texts(page)).toEqual(["hello from d", "thanks a"]);
    const rest = await w.get(b!, `/2/dm_conversations/${conv}/dm_events`, {
      max_results: "2",
      pagination_token: page.body.meta.next_token,
    });
    expect(texts(rest)).toEqual(["welcome, all three", "ParticipantsJoin"]);

    expect(texts(await w.get(b!, "/2/dm_events"))).toEqual([
      "just us",
      "hello from d",
      "thanks a",
      "welcome, all three",
      "ParticipantsJoin",
    ]);
    expect(texts(await w.get(c!, "/2/dm_events", { event_types: "MessageCreate" }))).toEqual([
      "hello from d",
      "thanks a",
      "welcome, all three",
    ]);
    expect(texts(await w.get(a!, `/2/dm_conversations/with/${b!.user.id}/dm_events`))).toEqual(["just us"]);
    const one = await w.get(d!, `/2/dm_events/${join.id}`, { "dm_event.fields": "participant_ids" });
    expect(one.body.data).toEqual({
      id: join.id,
      event_type: "ParticipantsJoin",
      participant_ids: join.participant_ids,
    });

    expect(
      (await w.call(outsider, "POST", `/2/dm_conversations/${conv}/messages`, { json: { text: "hi?" } })).status,
    ).toBe(403);
    expect((await w.get(outsider, `/2/dm_events/${join.id}`)).body.errors[0].resource_type).toBe("dm_event");
    expect((await w.call(c!, "DELETE", `/2/dm_events/${fromB.body.data.dm_event_id}`)).status).toBe(403);
    expect((await w.call(b!, "DELETE", `/2/dm_events/${fromB.body.data.dm_event_id}`)).status).toBe(200);
    expect(texts(await w.get(c!, `/2/dm_conversations/${conv}/dm_events`))).toEqual([
      "hello from d",
      "welcome, all three",
      "ParticipantsJoin",
    ]);
  });

  it("refuses a group with a missing member or the creator listed as a participant", async () => {
    const a = await w.user("gd_r1");
    const b = await w.user("gd_r2");
    const missing = await w.call(a, "POST", "/2/dm_conversations", {
      json: { conversation_type: "Group", participant_ids: [b.user.id, "424242"], message: { text: "x" } },
    });
    expect(missing.status).toBe(404);
    const self = await w.call(a, "POST", "/2/dm_conversations", {
      json: { conversation_type: "Group", participant_ids: [a.user.id, b.user.id], message: { text: "x" } },
    });
    expect(self.status).toBe(400);
    const oneToOne = await w.call(a, "POST", "/2/dm_conversations", {
      json: { conversation_type: "OneToOne", participant_ids: [b.user.id], message: { text: "x" } },
    });
    expect(oneToOne.status).toBe(400);
  });
});
