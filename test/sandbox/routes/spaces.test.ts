import { beforeAll, describe, expect, it } from "vitest";
import { useWorld } from "./world.ts";

const w = useWorld();
let bearer: string;
const HOUR = 3_600_000;

beforeAll(async () => {
  bearer = await w.t.appBearer(w.app);
});

/** An app-only GET (spaces take app-only or PKCE, never OAuth 1.0a). */
const app = (path: string, query?: Record<string, string>) => w.t.bearer(bearer, "GET", path, query ? { query } : {});

async function space(body: Record<string, unknown>) {
  const res = await w.admin("POST", "/_sandbox/spaces", body);
  expect(res.status).toBe(201);
  return res.body as { id: string; state: string; [k: string]: unknown };
}

describe("spaces: states on the sandbox clock", () => {
  it("moves a scheduled space to live and then to ended as the clock moves", async () => {
    const host = await w.user("sp_host");
    const start = new Date(w.t.clock.now() + HOUR).toISOString();
    const s = await space({
      creator_id: host.user.id,
      title: "Cats at noon",
      scheduled_start: start,
      duration_ms: 30 * 60_000,
      participant_count: 42,
      subscriber_count: 7,
    });
    expect(s.id).toMatch(/^1[A-Za-z0-9]{12}$/);
    const fields = {
      "space.fields":
        "state,scheduled_start,started_at,ended_at,participant_count,subscriber_count,title,creator_id,host_ids,updated_at",
    };

    const before = await app(`/2/spaces/${s.id}`, fields);
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({
      id: s.id,
      state: "scheduled",
      scheduled_start: start,
      subscriber_count: 7,
      title: "Cats at noon",
      creator_id: host.user.id,
      host_ids: [host.user.id],
      updated_at: new Date(w.t.clock.now()).toISOString(),
    });

    await w.t.admin.advanceClock(HOUR);
    const live = await app(`/2/spaces/${s.id}`, fields);
    expect(live.body.data).toMatchObject({
      state: "live",
      started_at: start,
      participant_count: 42,
      updated_at: start,
    });
    expect(live.body.data.ended_at).toBeUndefined();

    await w.t.clock.advance(30 * 60_000);
    const ended = await app(`/2/spaces/${s.id}`, fields);
    const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
    expect(ended.body.data).toMatchObject({ state: "ended", started_at: start, ended_at: end, updated_at: end });
  });

  it("looks up by ids with partial errors, by creators (live and scheduled only) and searches titles by state", async () => {
    const a = await w.user("sp_a");
    const b = await w.user("sp_b");
    const live = await space({ creator_id: a.user.id, title: "Live jazz session" });
    await w.t.clock.advance(1000);
    const later = await space({
      creator_id: a.user.id,
      title: "Jazz tomorrow",
      scheduled_start: new Date(w.t.clock.now() + 24 * HOUR).toISOString(),
    });
    await w.t.clock.advance(1000);
    const done = await space({ creator_id: b.user.id, title: "Short jazz", duration_ms: 1000 });
    await w.t.clock.advance(5000);

    const many = await app("/2/spaces", { ids: `${live.id},${done.id},1zzzzzzzzzzzz` });
    expect(many.body.data.map((x: { id: string; state: string }) => [x.id, x.state])).toEqual([
      [live.id, "live"],
      [done.id, "ended"],
    ]);
    expect(many.body.errors).toEqual([
      expect.objectContaining({
        resource_type: "space",
        parameter: "ids",
        resource_id: "1zzzzzzzzzzzz",
        detail: "Could not find space with ids: [1zzzzzzzzzzzz].",
      }),
    ]);
    expect((await app("/2/spaces/1zzzzzzzzzzzz")).body.errors[0].detail).toBe(
      "Could not find space with id: [1zzzzzzzzzzzz].",
    );
    expect((await app("/2/spaces/not-an-id!")).status).toBe(400);

    const byCreators = await app("/2/spaces/by/creator_ids", { user_ids: `${a.user.id},${b.user.id}` });
    expect(byCreators.body.data.map((x: { id: string }) => x.id)).toEqual([later.id, live.id]);
    expect(byCreators.body.meta).toEqual({ result_count: 2 });

    await w.t.clock.advance(1000);
    const all = await app("/2/spaces/search", { query: "jazz" });
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([later.id, live.id]);
    await w.t.clock.advance(1000);
    const onlyLive = await app("/2/spaces/search", { query: "JAZZ", state: "live", "space.fields": "title" });
    expect(onlyLive.body).toEqual({
      data: [{ id: live.id, state: "live", title: "Live jazz session" }],
      meta: { result_count: 1 },
    });
    await w.t.clock.advance(1000);
    expect(
      (await app("/2/spaces/search", { query: "jazz", state: "scheduled" })).body.data.map((x: { id: string }) => x.id),
    ).toEqual([later.id]);
    await w.t.clock.advance(1000);
    expect((await app("/2/spaces/search", { query: "opera" })).body).toEqual({ meta: { result_count: 0 } });
    await w.t.clock.advance(1000);
    expect((await app("/2/spaces/search", { query: "jazz", state: "ended" })).status).toBe(400);
    await w.t.clock.advance(1000);
    expect((await app("/2/spaces/search", {})).status).toBe(400);
  });

  it("expands creator, hosts, speakers, invited users and topics", async () => {
    const c = await w.user("sp_c");
    const h = await w.user("sp_h");
    const s1 = await w.user("sp_s");
    const inv = await w.user("sp_i");
    const s = await space({
      creator_id: c.user.id,
      title: "Tech talk",
      host_ids: [h.user.id],
      speaker_ids: [s1.user.id],
      invited_user_ids: [inv.user.id],
      topic_ids: ["848920371311001600"],
      lang: "de",
      is_ticketed: false,
    });
    const res = await app(`/2/spaces/${s.id}`, {
      "space.fields": "host_ids,speaker_ids,invited_user_ids,topic_ids,lang,is_ticketed",
      expansions: "creator_id,host_ids,speaker_ids,invited_user_ids,topic_ids",
      "topic.fields": "description",
    });
    expect(res.body.data).toEqual({
      id: s.id,
      state: "live",
      host_ids: [c.user.id, h.user.id],
      speaker_ids: [s1.user.id],
      invited_user_ids: [inv.user.id],
      topic_ids: ["848920371311001600"],
      lang: "de",
      is_ticketed: false,
    });
    expect(res.body.includes.users.map((u: { username: string }) => u.username)).toEqual([
      "sp_c",
      "sp_h",
      "sp_i",
      "sp_s",
    ]);
    expect(res.body.includes.topics).toEqual([
      { id: "848920371311001600", name: "Technology", description: "All about technology" },
    ]);
    expect((await app(`/2/spaces/${s.id}`, { expansions: "owner_id" })).status).toBe(400);
  });

  it("refuses OAuth 1.0a, and bad admin bodies", async () => {
    const c = await w.user("sp_o");
    const s = await space({ creator_id: c.user.id, title: "No oauth1" });
    const signed = await w.get(c, `/2/spaces/${s.id}`);
    expect(signed.status).toBe(403);
    expect(
      (
        await w.admin("POST", "/_sandbox/spaces", {
          creator_id: c.user.id,
          title: "x",
          scheduled_start: new Date(w.t.clock.now() - 1000).toISOString(),
        })
      ).status,
    ).toBe(400);
    expect((await w.admin("POST", "/_sandbox/spaces", { creator_id: "999", title: "x" })).status).toBe(400);
    expect(
      (await w.admin("POST", "/_sandbox/spaces", { creator_id: c.user.id, title: "x", topic_ids: ["1"] })).status,
    ).toBe(400);
    expect(
      (await w.admin("POST", "/_sandbox/spaces", { creator_id: c.user.id, title: "x", buyer_ids: [c.user.id] })).status,
    ).toBe(400);
    expect(
      (
        await w.admin("POST", "/_sandbox/spaces", {
          creator_id: c.user.id,
          title: "x",
          duration_ms: 5,
          ends_at: new Date(w.t.clock.now() + HOUR).toISOString(),
        })
      ).status,
    ).toBe(400);
  });
});

describe("ticket buyers and shared posts", () => {
  it("shows the buyers of a ticketed space to its creator only (PKCE)", async () => {
    const creator = await w.user("sp_tc");
    const buyer1 = await w.user("sp_b1");
    const buyer2 = await w.user("sp_b2");
    const s = await space({
      creator_id: creator.user.id,
      title: "Paid",
      is_ticketed: true,
      buyer_ids: [buyer1.user.id, buyer2.user.id],
    });
    const scopes = ["post.read", "users.read", "space.read"];
    const mine = await w.t.pkce(w.app, creator.user, scopes);
    const res = await w.t.bearer(mine.access_token, "GET", `/2/spaces/${s.id}/buyers`, {
      query: { "user.fields": "created_at" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: { id: string }) => u.id).sort()).toEqual([buyer1.user.id, buyer2.user.id].sort());
    expect(res.body.data[0].created_at).toEqual(expect.any(String));
    expect(res.body.meta).toEqual({ result_count: 2 });
    const paged = await w.t.bearer(mine.access_token, "GET", `/2/spaces/${s.id}/buyers`, {
      query: { max_results: "1" },
    });
    expect(paged.body.meta.next_token).toEqual(expect.any(String));

    const theirs = await w.t.pkce(w.app, buyer1.user, scopes);
    expect((await w.t.bearer(theirs.access_token, "GET", `/2/spaces/${s.id}/buyers`)).status).toBe(403);
    expect((await w.t.bearer(bearer, "GET", `/2/spaces/${s.id}/buyers`)).status).toBe(403);
  });

  it("lists the posts that link to a space, newest first", async () => {
    const c = await w.user("sp_pc");
    const fan = await w.user("sp_pf");
    const s = await space({ creator_id: c.user.id, title: "Shared" });
    const p1 = await w.post(c, `join us https://x.com/i/spaces/${s.id}`);
    await w.post(fan, "no link here");
    const p2 = await w.post(fan, `listening to https://twitter.com/i/spaces/${s.id} now`);
    const res = await app(`/2/spaces/${s.id}/posts`, { "post.fields": "author_id" });
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([p2.id, p1.id]);
    expect(res.body.meta).toEqual({ result_count: 2 });
    expect((await app(`/2/spaces/${s.id}/posts`, { max_results: "1" })).body.data).toHaveLength(1);
    expect((await app("/2/spaces/1AAAAAAAAAAAA/posts")).body.errors[0].resource_type).toBe("space");
  });
});
