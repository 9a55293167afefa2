import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "../../src/api/client.ts";
import { createClock } from "../../src/clock.ts";
import { fakeService, json, type FakeService } from "./fake-service.ts";

const clock = createClock({ frozen: true, start: Date.parse("2026-03-01T12:00:00Z") });
let service: FakeService;
let client: ApiClient;

/** Five posts, newest first, served two per page with opaque tokens; honours since_id. */
const POSTS = ["150", "140", "130", "120", "110"].map((id) => ({
  id,
  text: `post ${id}`,
  edit_history_post_ids: [id],
}));
function pages(tokenParam: string) {
  return (req: { query: URLSearchParams }, res: Parameters<typeof json>[0]) => {
    const since = req.query.get("since_id");
    const all = POSTS.filter((p) => !since || BigInt(p.id) > BigInt(since));
    const start = Number(req.query.get(tokenParam)?.replace("tok-", "") ?? 0);
    const data = all.slice(start, start + 2);
    const meta: Record<string, unknown> = { result_count: data.length };
    if (data.length) Object.assign(meta, { newest_id: data[0]!.id, oldest_id: data.at(-1)!.id });
    if (start + 2 < all.length) meta.next_token = `tok-${start + 2}`;
    json(
      res,
      200,
      data.length ? { data, meta, includes: { users: [{ id: `u${start}`, name: "n", username: "u" }] } } : { meta },
    );
  };
}

beforeEach(async () => {
  service = await fakeService();
  client = createClient({
    baseUrl: service.url,
    clock,
    auth: { consumer: { key: "k", secret: "s" }, user: { token: "t", secret: "ts" } },
  });
});
afterEach(async () => {
  await client.close();
  await service.close();
});

describe("paginate", () => {
  it("walks every page of a timeline with pagination_token and tracks the newest id for since_id", async () => {
    service.handle(pages("pagination_token"));
    const mentions = client.paginate(client.users.mentions, "7", { max_results: 2 });
    const ids: string[] = [];
    for await (const post of mentions) ids.push(post.id);
    expect(ids).toEqual(["150", "140", "130", "120", "110"]);
    expect(mentions.pageCount).toBe(3);
    expect(mentions.newestId).toBe("150");
    expect(mentions.includes.users.map((u) => u.id)).toEqual(["u0", "u2", "u4"]);
    expect(service.requests.map((r) => r.query.get("pagination_token"))).toEqual([null, "tok-2", "tok-4"]);
    expect(service.requests.every((r) => r.query.get("max_results") === "2")).toBe(true);

    // The next poll starts after the newest id seen: nothing is repeated.
    const next = client.paginate(client.users.mentions, "7", { since_id: mentions.newestId!, max_results: 2 });
    expect(await next.toArray()).toEqual([]);
    expect(next.newestId).toBeUndefined();
  });

  it("sends the token back as next_token for search, by endpoint key", async () => {
    service.handle(pages("next_token"));
    const found = client.paginate("GET /2/posts/search/recent", { query: { query: "post", max_results: 10 } });
    expect((await found.toArray()).map((p) => p.id)).toEqual(["150", "140", "130", "120", "110"]);
    expect(service.requests.map((r) => r.query.get("next_token"))).toEqual([null, "tok-2", "tok-4"]);
    expect(service.requests.every((r) => r.query.get("query") === "post")).toBe(true);
  });

  it("stops at maxItems or maxPages", async () => {
    service.handle(pages("pagination_token"));
    const three = client.paginate("GET /2/users/:id/mentions", { params: { id: "7" } }, { maxItems: 3 });
    expect((await three.toArray()).map((p) => p.id)).toEqual(["150", "140", "130"]);
    expect(service.requests).toHaveLength(2);
    const onePage = client.paginate("GET /2/users/:id/mentions", { params: { id: "7" } }, { maxPages: 1 });
    expect(await onePage.toArray()).toHaveLength(2);
  });

  it("stops when the service repeats a token instead of looping forever", async () => {
    service.handle((_q, res) =>
      json(res, 200, {
        data: [{ id: "1", text: "t", edit_history_post_ids: ["1"] }],
        meta: { result_count: 1, next_token: "same" },
      }),
    );
    const all = await client.paginate(client.users.followers, "7").toArray();
    expect(all).toHaveLength(2);
    expect(service.requests).toHaveLength(2);
  });
});
