import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bearerCache, invalidateBearerToken } from "../../src/api/auth/bearer.ts";
import { PkceSession } from "../../src/api/auth/pkce.ts";
import { createClient, type ApiClient, type RateLimitObservation } from "../../src/api/client.ts";
import { AuthMethodError, BearerTooFrequentError, ClientInputError, InvalidTokenError } from "../../src/api/errors.ts";
import { createClock } from "../../src/clock.ts";
import { UserError } from "../../src/errors.ts";
import { fakeService, json, type FakeService } from "./fake-service.ts";

const clock = createClock({ frozen: true, start: Date.parse("2026-03-01T12:00:00Z") });
const consumer = { key: "app-key", secret: "app-secret" };
const user = { token: "1-user-token", secret: "user-secret" };
let service: FakeService;
const clients: ApiClient[] = [];
const make = (opts: Partial<Parameters<typeof createClient>[0]> = {}) => {
  const c = createClient({ baseUrl: service.url, clock, auth: { consumer, user }, ...opts });
  clients.push(c);
  return c;
};

beforeEach(async () => {
  bearerCache.clear();
  service = await fakeService((req, res) => {
    if (req.path === "/oauth2/token") return json(res, 200, { token_type: "bearer", access_token: "BEARER-1" });
    json(res, 200, { data: { id: "1", text: "hi", edit_history_post_ids: ["1"] } });
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await service.close();
});

describe("choosing the authentication method", () => {
  it("prefers the user context where the endpoint accepts it, and app-only where only that works", async () => {
    const client = make();
    await client.posts.lookup("1");
    expect(service.requests[0]!.headers.authorization).toMatch(/^OAuth /);
    await client.search.countsRecent({ query: "cats" });
    expect(service.to("/oauth2/token")).toHaveLength(1);
    expect(service.to("/2/posts/counts/recent")[0]!.headers.authorization).toBe("Bearer BEARER-1");
  });

  it("uses the method a call asks for when the endpoint accepts it", async () => {
    const client = make();
    await client.posts.lookup("1", {}, { auth: "app" });
    expect(service.to("/2/posts/1")[0]!.headers.authorization).toBe("Bearer BEARER-1");
  });

  it("refuses a method the endpoint does not accept before sending anything, naming those that work", async () => {
    const client = make();
    const err = await client.posts.create({ text: "x" }, { auth: "app" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthMethodError);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      "POST /2/posts: it does not accept app (OAuth 2.0 App Only), which this call asked for; this endpoint accepts oauth1 (OAuth 1.0a User Context) or pkce (OAuth 2.0 Authorization Code with PKCE)",
    );
    const appOnly = make({ auth: { consumer } });
    await expect(appOnly.users.me()).rejects.toThrow(
      /GET \/2\/users\/me: the client holds app \(OAuth 2.0 App Only\); this endpoint accepts oauth1/,
    );
    await expect(make({ auth: {} }).streams.rules()).rejects.toThrow(
      /the client holds no credentials; this endpoint accepts app/,
    );
    expect(service.requests).toHaveLength(0);
  });

  it("refuses a PKCE call whose token lacks the endpoint's scopes, before sending", async () => {
    const pkce = new PkceSession({
      service: service.url,
      clientId: "cid",
      tokens: { access_token: "AT", expires_at: clock.now() + 7_200_000, scopes: ["post.read", "users.read"] },
      clock,
    });
    const client = make({ auth: { pkce } });
    await client.posts.lookup("1");
    expect(service.requests[0]!.headers.authorization).toBe("Bearer AT");
    await expect(client.likes.like("1", "2")).rejects.toThrow(/lacks the scope like.write/);
    expect(service.requests).toHaveLength(1);
  });
});

describe("requests", () => {
  it("encodes path parameters, lists, times and spaces the way the service and the signature expect", async () => {
    const client = make();
    await client.search.recent(
      {
        query: "cats OR dogs -is:repost",
        "post.fields": ["created_at", "author_id"],
        expansions: ["author_id"],
        start_time: new Date("2026-02-28T10:11:12.345Z"),
        end_time: "2026-03-01T00:00:00.000Z",
        max_results: 100,
      },
      { auth: "oauth1" },
    );
    const r = service.requests[0]!;
    expect(r.url).toBe(
      "/2/posts/search/recent?end_time=2026-03-01T00%3A00%3A00Z&expansions=author_id&max_results=100&post.fields=created_at%2Cauthor_id&query=cats%20OR%20dogs%20-is%3Arepost&start_time=2026-02-28T10%3A11%3A12Z",
    );
    await client.users.byUsername("a b/c");
    expect(service.requests[1]!.path).toBe("/2/users/by/username/a%20b%2Fc");
  });

  it("sends JSON bodies as JSON", async () => {
    const client = make();
    await client.posts.create({ text: "hello", reply: { in_reply_to_post_id: "9" } });
    const r = service.requests[0]!;
    expect(r.method).toBe("POST");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(r.body)).toEqual({ text: "hello", reply: { in_reply_to_post_id: "9" } });
  });

  it("refuses a call with a missing path parameter, naming it", async () => {
    const client = make();
    const call = client.request("GET /2/users/:id/followers", { params: { id: "" } });
    await expect(call).rejects.toBeInstanceOf(ClientInputError);
    await expect(client.request("GET /2/users/:id/followers", { params: { id: "" } })).rejects.toThrow(
      "GET /2/users/:id/followers: path parameter id is missing; pass it in params.id",
    );
  });

  it("reaches any endpoint by key with the generic request", async () => {
    const client = make();
    const res = await client.request("GET /2/posts/:id", { params: { id: "1" }, query: { "post.fields": ["lang"] } });
    expect(res.data?.id).toBe("1");
    expect(service.requests[0]!.url).toBe("/2/posts/1?post.fields=lang");
  });
});

describe("rate-limit headers", () => {
  it("hands every response's windows to the observer with the endpoint and a secret-free identity", async () => {
    const seen: RateLimitObservation[] = [];
    service.handle((_q, res) =>
      json(
        res,
        201,
        { data: { id: "5", text: "x" } },
        {
          "x-rate-limit-limit": "100",
          "x-rate-limit-remaining": "99",
          "x-rate-limit-reset": "1772367300",
          "x-app-limit-24hour-limit": "1667",
          "x-app-limit-24hour-remaining": "1600",
          "x-app-limit-24hour-reset": "1772409600",
          "x-user-limit-24hour-limit": "100",
          "x-user-limit-24hour-remaining": "42",
          "x-user-limit-24hour-reset": "1772409601",
        },
      ),
    );
    const client = make({ onRateLimit: (o) => seen.push(o), auth: { consumer, user, label: "greeter" } });
    await client.posts.create({ text: "x" });
    expect(seen).toEqual([
      {
        endpoint: "POST /2/posts",
        method: "POST",
        path: "/2/posts",
        status: 201,
        identity: { method: "oauth1", app: expect.stringMatching(/^[0-9a-f]{12}$/), user: "greeter" },
        at: clock.now(),
        window: { limit: 100, remaining: 99, resetAt: 1772367300_000 },
        app24h: { limit: 1667, remaining: 1600, resetAt: 1772409600_000 },
        user24h: { limit: 100, remaining: 42, resetAt: 1772409601_000 },
      },
    ]);
    expect(JSON.stringify(seen)).not.toContain(user.token);
    expect(JSON.stringify(seen)).not.toContain(consumer.key);
  });

  it("reports the headers of failed calls too, and survives an observer that throws", async () => {
    const seen: RateLimitObservation[] = [];
    service.handle((_q, res) =>
      json(
        res,
        429,
        { title: "Too Many Requests", type: "about:blank" },
        { "x-rate-limit-remaining": "0", "x-rate-limit-reset": "1772367300" },
      ),
    );
    const client = make({ onRateLimit: (o) => seen.push(o) });
    await expect(client.users.mentions("1")).rejects.toThrow(/rate limit/);
    expect(seen[0]).toMatchObject({ status: 429, window: { remaining: 0, resetAt: 1772367300_000 } });
    const throwing = make({
      onRateLimit: () => {
        throw new Error("observer bug");
      },
    });
    await expect(throwing.users.mentions("1")).rejects.toThrow(/rate limit/);
  });
});

describe("the app-only bearer token", () => {
  it("is fetched once per app with HTTP Basic, shared by concurrent calls and by other clients of the app", async () => {
    const a = make({ auth: { consumer } });
    const b = make({ auth: { consumer } });
    await Promise.all([
      a.search.countsRecent({ query: "x" }),
      a.search.countsRecent({ query: "y" }),
      b.streams.rules(),
    ]);
    const token = service.to("/oauth2/token");
    expect(token).toHaveLength(1);
    expect(token[0]!.headers.authorization).toBe(`Basic ${Buffer.from("app-key:app-secret").toString("base64")}`);
    expect(token[0]!.body).toBe("grant_type=client_credentials");
    expect(token[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
  });

  it("is dropped after a 401 and fetched again on the next call", async () => {
    let n = 0;
    service.handle((req, res) => {
      if (req.path === "/oauth2/token") return json(res, 200, { token_type: "bearer", access_token: `BEARER-${++n}` });
      if (req.headers.authorization === "Bearer BEARER-1")
        return json(res, 401, { errors: [{ code: 89, message: "Invalid or expired token." }] });
      json(res, 200, { data: [] });
    });
    const client = make({ auth: { consumer } });
    await expect(client.streams.rules()).rejects.toBeInstanceOf(InvalidTokenError);
    await client.streams.rules();
    expect(service.to("/oauth2/token")).toHaveLength(2);
    expect(service.to("/2/posts/search/stream/rules")[1]!.headers.authorization).toBe("Bearer BEARER-2");
  });

  it("is not asked for again within a minute after the service said 403/99", async () => {
    service.handle((req, res) =>
      json(res, 403, { errors: [{ code: 99, message: "Unable to verify your credentials" }] }),
    );
    const client = make({ auth: { consumer } });
    await expect(client.streams.rules()).rejects.toBeInstanceOf(BearerTooFrequentError);
    await expect(client.streams.rules()).rejects.toBeInstanceOf(BearerTooFrequentError);
    expect(service.to("/oauth2/token")).toHaveLength(1);
    await clock.advance(60_000);
    await expect(client.streams.rules()).rejects.toBeInstanceOf(BearerTooFrequentError);
    expect(service.to("/oauth2/token")).toHaveLength(2);
  });

  it("is invalidated with an OAuth 1.0a request of the app owner, and forgotten", async () => {
    const client = make({ auth: { consumer } });
    await client.streams.rules();
    service.handle((req, res) => {
      if (req.path === "/oauth2/invalidate_token")
        return json(res, 200, { access_token: req.query.get("access_token") });
      if (req.path === "/oauth2/token") return json(res, 200, { token_type: "bearer", access_token: "BEARER-2" });
      json(res, 200, { data: [] });
    });
    await invalidateBearerToken(client.transport, { consumer, owner: user, token: "BEARER-1", clock });
    const inv = service.to("/oauth2/invalidate_token")[0]!;
    expect(inv.url).toBe("/oauth2/invalidate_token?access_token=BEARER-1");
    expect(inv.headers.authorization).toMatch(/^OAuth .*oauth_token="1-user-token"/);
    await client.streams.rules();
    expect(service.to("/2/posts/search/stream/rules")[1]!.headers.authorization).toBe("Bearer BEARER-2");
  });
});

describe("PKCE sessions", () => {
  it("refresh before the two-hour expiry, once for concurrent callers, and hand over the rotated tokens", async () => {
    let refreshes = 0;
    service.handle((req, res) => {
      if (req.path === "/2/oauth2/token") {
        refreshes++;
        return json(res, 200, {
          token_type: "bearer",
          expires_in: 7200,
          access_token: `AT-${refreshes + 1}`,
          refresh_token: `RT-${refreshes + 1}`,
          scope: "post.read users.read offline.access",
        });
      }
      json(res, 200, { data: { id: "1", name: "n", username: "u" } });
    });
    const stored: string[] = [];
    const pkce = new PkceSession({
      service: service.url,
      clientId: "client-1",
      tokens: { access_token: "AT-1", refresh_token: "RT-1", expires_at: clock.now() + 7_200_000, scopes: [] },
      clock,
      onRefresh: (t) => void stored.push(t.refresh_token!),
    });
    const client = make({ auth: { pkce } });
    await client.users.me();
    expect(service.to("/2/users/me")[0]!.headers.authorization).toBe("Bearer AT-1");
    await clock.advance(7_200_000 - 5 * 60_000 - 1);
    await client.users.me();
    expect(refreshes).toBe(0);
    await clock.advance(1);
    await Promise.all([client.users.me(), client.users.me()]);
    expect(refreshes).toBe(1);
    const form = new URLSearchParams(service.to("/2/oauth2/token")[0]!.body);
    expect(Object.fromEntries(form)).toEqual({
      refresh_token: "RT-1",
      grant_type: "refresh_token",
      client_id: "client-1",
    });
    expect(
      service
        .to("/2/users/me")
        .slice(2)
        .map((r) => r.headers.authorization),
    ).toEqual(["Bearer AT-2", "Bearer AT-2"]);
    expect(stored).toEqual(["RT-2"]);
    expect(pkce.tokens.expires_at).toBe(clock.now() + 7_200_000);
  });

  it("without a refresh token, an expired session says to authorize again", async () => {
    const pkce = new PkceSession({
      service: service.url,
      clientId: "c",
      tokens: { access_token: "AT", expires_at: clock.now() + 1000, scopes: [] },
      clock,
    });
    const client = make({ auth: { pkce } });
    await client.users.me();
    await clock.advance(1000);
    await expect(client.users.me()).rejects.toThrow(
      /expired .* no refresh token: authorize again, asking for the offline.access scope/,
    );
    expect(service.requests).toHaveLength(1);
  });
});

describe("connections", () => {
  it("every client of an origin shares one keep-alive pool; closing one leaves the others working", async () => {
    const app = make({ auth: { consumer } });
    const account = app.withAuth({ consumer, user });
    const other = make();
    await account.users.me();
    await app.streams.rules();
    await other.users.me();
    expect(service.requests[0]!.headers.authorization).toMatch(/oauth_token="1-user-token"/);
    // The third client opened no connection of its own: it used one the first two had opened.
    const [first, ...rest] = service.requests.map((r) => r.remotePort).reverse();
    expect(rest).toContain(first);
    await account.close();
    await other.close();
    await app.streams.rules();
    expect(service.requests.slice(0, -1).map((r) => r.remotePort)).toContain(service.requests.at(-1)!.remotePort);
  });

  it("the accounts of one service share its transport; closing one aborts its calls alone; the last lets go", async () => {
    service.handle((req, res) => {
      if (String(req.headers.authorization).includes('oauth_token="1-user-token"')) return; // never answers
      json(res, 200, { data: { id: "2", name: "Other", username: "other" } });
    });
    const app = make({ auth: { consumer } });
    const account = app.withAuth({ consumer, user });
    const other = app.withAuth({ consumer, user: { token: "2-other-token", secret: "other-secret" } });
    const transport = app.transport;
    expect(account.transport).toBe(transport);
    expect(other.transport).toBe(transport);
    const pending = account.users.me().catch((e: unknown) => e);
    await service.waitForRequests(1);
    await account.close();
    expect(await pending).toMatchObject({ aborted: true });
    await expect(account.users.me()).rejects.toMatchObject({ aborted: true });
    expect((await other.users.me()).data?.username).toBe("other");
    await other.close();
    await app.close();
    // Every client of the service closed: a new one goes over a new transport, and works.
    const again = app.withAuth({ consumer, user: { token: "2-other-token", secret: "other-secret" } });
    expect(again.transport).not.toBe(transport);
    expect((await again.users.me()).data?.username).toBe("other");
    await again.close();
  });
});
