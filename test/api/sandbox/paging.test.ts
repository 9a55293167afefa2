/**
 * Paging and rate-limit reporting against the sandbox: the mention timeline read across
 * several pages with a since_id cursor (a poller that neither misses nor repeats), search
 * paging with next_token, and the real x-rate-limit headers handed to the observer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient, type RateLimitObservation } from "../../../src/api/client.ts";
import { RateLimitError } from "../../../src/api/errors.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

let t: TestSandbox;
let client: ApiClient;
let alice: { id: string };
let bob: { id: string };
const seen: RateLimitObservation[] = [];

beforeAll(async () => {
  t = await startSandbox();
  const app = await t.admin.createApp({ plan: "basic" });
  alice = await createUser(t.sandbox, "alice");
  bob = await createUser(t.sandbox, "bob");
  const token = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: alice.id });
  client = createClient({
    baseUrl: t.url,
    clock: t.clock,
    auth: {
      consumer: { key: app.consumer_key, secret: app.consumer_secret },
      user: { token: token.token, secret: token.token_secret },
      label: "alice",
    },
    onRateLimit: (o) => void seen.push(o),
  });
});
afterAll(async () => {
  await client.close();
  await t.close();
});

describe("paging against the sandbox", () => {
  it("reads every mention across pages, then only the new ones with since_id", async () => {
    for (let i = 0; i < 12; i++) await t.admin.createPost({ author_id: bob.id, text: `@alice mention ${i}` });
    const first = client.paginate(client.users.mentions, alice.id, { max_results: 5 });
    const texts: string[] = [];
    for await (const post of first) texts.push(post.text);
    expect(first.pageCount).toBe(3);
    expect(texts).toEqual(Array.from({ length: 12 }, (_, i) => `@alice mention ${11 - i}`));

    await t.clock.advance(1_000);
    for (let i = 12; i < 14; i++) await t.admin.createPost({ author_id: bob.id, text: `@alice mention ${i}` });
    const next = client.paginate(client.users.mentions, alice.id, { since_id: first.newestId!, max_results: 5 });
    expect((await next.toArray()).map((p) => p.text)).toEqual(["@alice mention 13", "@alice mention 12"]);
    expect(next.newestId! > first.newestId!).toBe(true);
  });

  it("pages search results with next_token", async () => {
    const found = await client
      .paginate("GET /2/posts/search/recent", { query: { query: "mention", max_results: 10 } })
      .toArray();
    expect(found).toHaveLength(14);
  });
});

describe("rate-limit headers from the sandbox", () => {
  it("reach the observer after every call, and a 429 carries the reset time", async () => {
    seen.length = 0;
    await client.posts.create({ text: "counting my posts" });
    const create = seen.find((o) => o.endpoint === "POST /2/posts")!;
    expect(create.identity).toMatchObject({ method: "oauth1", user: "alice" });
    expect(create.window?.limit).toBeGreaterThan(0);
    expect(create.user24h).toMatchObject({ limit: 100, remaining: 99 });
    expect(create.app24h).toMatchObject({ limit: 1667 });

    // Basic plan: GET /2/users/:id is 100/24h per user; spend it and see the 429.
    let error: unknown;
    for (let i = 0; i < 101 && !error; i++)
      error = await client.users.lookup(bob.id).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(RateLimitError);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ endpoint: "GET /2/users/:id", status: 429, window: { remaining: 0 } });
    expect((error as RateLimitError).resetAt).toBe(last.window!.resetAt);
    expect((error as RateLimitError).resetAt!).toBeGreaterThan(t.clock.now());
  });
});
