import { beforeAll, describe, expect, it } from "vitest";
import type { Account } from "../../helpers/sandbox.ts";
import { useWorld } from "./world.ts";

const w = useWorld();
let bearer: string;
let viewer: Account;
let berliner: { id: string };
const at: Record<string, string> = {};

/** A crowd user with a profile location (made through the admin API). */
async function resident(username: string, location?: string) {
  const res = await w.admin("POST", "/_sandbox/users", { username, ...(location ? { location } : {}) });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

async function post(author: { id: string }, text: string, key?: string) {
  await w.t.clock.advance(1000);
  const p = await w.t.admin.createPost({ author_id: author.id, text });
  if (key) at[key] = new Date(w.t.clock.now()).toISOString();
  return p;
}

beforeAll(async () => {
  bearer = await w.t.appBearer(w.app);
  berliner = await resident("tr_berlin", "Berlin, Germany");
  const londoner = await resident("tr_london", "London");
  const nowhere = await resident("tr_nowhere");
  const secretive = await resident("tr_secret", "Berlin");
  await w.admin("PATCH", "/_sandbox/users", { id: secretive.id, protected: true });
  const reposter = await w.user("tr_rt");
  const friend = await w.user("tr_friend");
  viewer = await w.user("tr_viewer");

  await post(nowhere, "#ancient history lesson, history again");
  await w.t.clock.advance(25 * 3_600_000);
  await post(berliner, "#Caturday is here, cats everywhere");
  await post(londoner, "#caturday cats again");
  const c = await post(nowhere, "Cats and #dogs");
  await post(berliner, "Dinner with cats");
  await w.t.clock.advance(1000);
  expect(
    (await w.call(reposter, "POST", `/2/users/${reposter.user.id}/reposts`, { json: { post_id: c.id } })).status,
  ).toBe(200);
  await post(friend.user, "#coffee break", "coffee");
  await post(secretive, "#secret cats cats");
  expect(
    (await w.call(viewer, "POST", `/2/users/${viewer.user.id}/following`, { json: { target_user_id: friend.user.id } }))
      .status,
  ).toBe(200);
});

const byWoeid = (woeid: number | string, query?: Record<string, string>) =>
  w.t.bearer(bearer, "GET", `/2/trends/by/woeid/${woeid}`, query ? { query } : {});

describe("trends by location", () => {
  it("counts hashtags and words of the last 24 hours worldwide (a repost counts; protected posts do not)", async () => {
    const res = await byWoeid(1);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { trend_name: "cats", post_count: 5 },
        { trend_name: "#dogs", post_count: 2 },
        { trend_name: "#Caturday", post_count: 2 },
        { trend_name: "#coffee", post_count: 1 },
      ],
    });
    expect((await byWoeid(1, { max_trends: "1" })).body.data).toEqual([{ trend_name: "cats", post_count: 5 }]);
    expect((await byWoeid(1, { "trend.fields": "trend_name", max_trends: "2" })).body.data).toEqual([
      { trend_name: "cats" },
      { trend_name: "#dogs" },
    ]);
  });

  it("places posts by their authors' profile locations: a city counts for its country", async () => {
    const germany = [
      { trend_name: "cats", post_count: 2 },
      { trend_name: "#Caturday", post_count: 1 },
    ];
    expect((await byWoeid(23424829)).body.data).toEqual(germany);
    expect((await byWoeid(638242)).body.data).toEqual(germany);
    expect((await byWoeid(44418)).body.data).toEqual([{ trend_name: "#caturday", post_count: 1 }]);
    expect((await byWoeid(23424975)).body.data).toEqual([{ trend_name: "#caturday", post_count: 1 }]);
    expect((await byWoeid(23424977)).body).toEqual({ meta: { result_count: 0 } });
  });

  it("refuses unknown locations, bad parameters and user contexts", async () => {
    const unknown = await byWoeid(12345);
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toMatch(/resource-not-found$/);
    expect(unknown.body.detail).toContain("woeid: [12345]");
    expect((await byWoeid("abc")).status).toBe(400);
    expect((await byWoeid(1, { max_trends: "51" })).status).toBe(400);
    expect((await byWoeid(1, { max_trends: "0" })).status).toBe(400);
    expect((await byWoeid(1, { "trend.fields": "volume" })).status).toBe(400);
    expect((await w.get(viewer, "/2/trends/by/woeid/1")).status).toBe(403);
  });
});

describe("personalized trends", () => {
  it("ranks what the caller's follows post about higher, with category and trending_since when asked", async () => {
    const res = await w.get(viewer, "/2/users/personalized_trends");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { trend_name: "cats", post_count: 5 },
      { trend_name: "#coffee", post_count: 1 },
      { trend_name: "#dogs", post_count: 2 },
      { trend_name: "#Caturday", post_count: 2 },
    ]);
    const fields = await w.get(viewer, "/2/users/personalized_trends", {
      "personalized_trend.fields": "category,trending_since",
    });
    expect(fields.body.data[1]).toEqual({ trend_name: "#coffee", category: "Food", trending_since: at.coffee });
    expect((await w.get(viewer, "/2/users/personalized_trends", { "personalized_trend.fields": "mood" })).status).toBe(
      400,
    );
    expect((await w.t.bearer(bearer, "GET", "/2/users/personalized_trends")).status).toBe(403);
  });

  it("leaves out muted accounts", async () => {
    expect(
      (await w.call(viewer, "POST", `/2/users/${viewer.user.id}/muting`, { json: { target_user_id: berliner.id } }))
        .status,
    ).toBe(200);
    const res = await w.get(viewer, "/2/users/personalized_trends");
    expect(res.body.data).toEqual([
      { trend_name: "#coffee", post_count: 1 },
      { trend_name: "cats", post_count: 3 },
      { trend_name: "#dogs", post_count: 2 },
      { trend_name: "#caturday", post_count: 1 },
    ]);
  });
});
