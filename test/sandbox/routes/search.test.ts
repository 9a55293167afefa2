import { beforeAll, describe, expect, it } from "vitest";
import type { Account } from "../../helpers/sandbox.ts";
import { ids, useWorld } from "./world.ts";

const w = useWorld();
const DAY = 86_400_000;

let alice: Account;
let bob: Account;
const posts: Record<string, string> = {};

beforeAll(async () => {
  alice = await w.user("s_alice");
  bob = await w.user("s_bob");
  posts.old = (await w.post(alice, "an old cat post")).id;
  await w.t.clock.advance(8 * DAY);
  posts.cat = (await w.post(alice, "My cat is happy #Caturday")).id;
  await w.t.clock.advance(1000);
  posts.dog = (await w.post(bob, "a dog and a cat, happy together")).id;
  await w.t.clock.advance(1000);
  posts.reply = (await w.post(bob, "@s_alice lovely cat", { in_reply_to_post_id: posts.cat })).id;
  await w.t.clock.advance(1000);
  posts.link = (await w.post(bob, "read https://example.com/cats now")).id;
  await w.t.clock.advance(1000);
  posts.german = (await w.post(alice, "Die Katze ist nicht hier und das ist gut")).id;
  await w.t.clock.advance(60_000);
});

describe("recent search", () => {
  it("finds posts of the last 7 days with the query language, newest first", async () => {
    const q = async (query: string) => ids(await w.get(alice, "/2/posts/search/recent", { query }));
    expect(await q("cat")).toEqual([posts.reply, posts.dog, posts.cat]);
    expect(await q('"happy together"')).toEqual([posts.dog]);
    expect(await q("cat -is:reply")).toEqual([posts.dog, posts.cat]);
    expect(await q("cat is:reply")).toEqual([posts.reply]);
    expect(await q("from:s_alice cat")).toEqual([posts.cat]);
    expect(await q("to:s_alice")).toEqual([posts.reply]);
    expect(await q("@s_alice")).toEqual([posts.reply]);
    expect(await q("#caturday")).toEqual([posts.cat]);
    expect(await q("(dog OR lovely) cat")).toEqual([posts.reply, posts.dog]);
    expect(await q("read has:links")).toEqual([posts.link]);
    expect(await q(`conversation_id:${posts.cat}`)).toEqual([posts.reply, posts.cat]);
    expect(await q("katze lang:de")).toEqual([posts.german]);
    expect(await q("katze lang:en")).toEqual([]);
  });

  it("answers meta, pages with next_token, and counts delivered posts against the cap", async () => {
    const before = Object.values(w.t.sandbox.context.data.meter.posts_read[w.app.id] ?? {}).reduce((a, b) => a + b, 0);
    const res = await w.get(alice, "/2/posts/search/recent", {
      query: "cat OR dog OR read OR katze",
      max_results: "10",
    });
    expect(res.body.meta).toEqual({ newest_id: posts.german, oldest_id: posts.cat, result_count: 5 });
    const after = Object.values(w.t.sandbox.context.data.meter.posts_read[w.app.id] ?? {}).reduce((a, b) => a + b, 0);
    expect(after - before).toBe(5);
    const small = await w.get(alice, "/2/posts/search/recent", { query: "cat", max_results: "9" });
    expect(small.status).toBe(400);
    const empty = await w.get(alice, "/2/posts/search/recent", { query: "giraffe" });
    expect(empty.body).toEqual({ meta: { result_count: 0 } });
  });

  it("pages through results with next_token (no previous_token in search)", async () => {
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await w.post(bob, `pager item ${i}`)).id);
    const p1 = await w.get(alice, "/2/posts/search/recent", { query: "pager" });
    expect(ids(p1)).toEqual([...made].reverse().slice(0, 10));
    expect(p1.body.meta).toEqual({
      newest_id: made[11],
      oldest_id: made[2],
      result_count: 10,
      next_token: expect.any(String),
    });
    const p2 = await w.get(alice, "/2/posts/search/recent", { query: "pager", next_token: p1.body.meta.next_token });
    expect(ids(p2)).toEqual([made[1], made[0]]);
    expect(p2.body.meta).toEqual({ newest_id: made[1], oldest_id: made[0], result_count: 2 });
  });

  it("sorts by relevancy on request", async () => {
    await w.call(bob, "POST", `/2/users/${bob.user.id}/likes`, { json: { post_id: posts.cat } });
    const res = await w.get(alice, "/2/posts/search/recent", { query: "cat", sort_order: "relevancy" });
    expect(ids(res)[0]).toBe(posts.cat);
  });

  it("refuses invalid queries, saying where, and times outside the window", async () => {
    const bad = await w.get(alice, "/2/posts/search/recent", { query: "cat (dog" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({
      parameters: { query: ["cat (dog"] },
      message: "There were errors processing your request: A `(` is never closed (at position 5)",
    });
    const missing = await w.get(alice, "/2/posts/search/recent", {});
    expect(missing.status).toBe(400);
    const now = w.t.clock.now();
    const tooOld = await w.get(alice, "/2/posts/search/recent", {
      query: "cat",
      start_time: new Date(now - 8 * DAY).toISOString(),
    });
    expect(tooOld.status).toBe(400);
    expect(tooOld.body.errors[0].message).toMatch(/'start_time' must be on or after/);
    const tooNew = await w.get(alice, "/2/posts/search/recent", {
      query: "cat",
      end_time: new Date(now).toISOString(),
    });
    expect(tooNew.status).toBe(400);
    expect(tooNew.body.errors[0].message).toMatch(/minimum of 10 seconds prior/);
  });

  it("leaves out protected accounts' posts", async () => {
    const hidden = await w.user("s_hidden");
    await w.admin("PATCH", "/_sandbox/users", { id: hidden.user.id, protected: true });
    await w.post(hidden, "a secret cat");
    expect(ids(await w.get(alice, "/2/posts/search/recent", { query: "secret" }))).toEqual([]);
  });
});

describe("full archive and counts", () => {
  it("refuses the full archive to an app without Academic Research access", async () => {
    const bearer = await w.t.appBearer(w.app);
    const res = await w.t.bearer(bearer, "GET", "/2/posts/search/all", { query: { query: "cat" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      title: "Client Forbidden",
      reason: "client-not-enrolled",
      type: "https://api.twitter.com/2/problems/client-forbidden",
    });
    const counts = await w.t.bearer(bearer, "GET", "/2/posts/counts/all", { query: { query: "cat" } });
    expect(counts.status).toBe(403);
  });

  it("searches the whole archive with Academic Research access", async () => {
    const academic = await w.t.admin.createApp({ plan: "pro", academic: true });
    const bearer = await w.t.appBearer(academic);
    const start = new Date(w.t.clock.now() - 30 * DAY).toISOString();
    const res = await w.t.bearer(bearer, "GET", "/2/posts/search/all", { query: { query: "cat", start_time: start } });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([posts.reply, posts.dog, posts.cat, posts.old]);
  });

  it("counts matching posts per hour (default), minute or day, with the total", async () => {
    const bearer = await w.t.appBearer(w.app);
    const res = await w.t.bearer(bearer, "GET", "/2/posts/counts/recent", { query: { query: "cat" } });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total_post_count: 3 });
    expect(res.body.data.length).toBeGreaterThanOrEqual(7 * 24);
    expect(res.body.data[0]).toEqual({
      end: expect.stringMatching(/:00:00.000Z$/),
      start: expect.any(String),
      post_count: 0,
    });
    const hour = res.body.data.find((b: { post_count: number }) => b.post_count > 0);
    expect(hour.post_count).toBe(3);
    const start = new Date(w.t.clock.now() - 3_600_000).toISOString();
    const minutes = await w.t.bearer(bearer, "GET", "/2/posts/counts/recent", {
      query: { query: "cat", granularity: "minute", start_time: start },
    });
    expect(minutes.body.data).toHaveLength(61);
    const day = await w.t.bearer(bearer, "GET", "/2/posts/counts/recent", {
      query: { query: "cat", granularity: "day" },
    });
    expect(day.body.meta.total_post_count).toBe(3);
    const bad = await w.t.bearer(bearer, "GET", "/2/posts/counts/recent", {
      query: { query: "cat", granularity: "week" },
    });
    expect(bad.status).toBe(400);
  });
});
