/**
 * Each authentication method end to end against the sandbox in-process: the 3-legged OAuth
 * 1.0a flow driven through the sandbox's HTML authorize page (callback and PIN), token
 * invalidation and the 401/89 after it, the app-only bearer (cached, invalidated, never
 * asked for so often that the service answers 403/99) and PKCE (authorize page, code
 * exchange, refresh before the two-hour expiry, revoke).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCache, fetchBearerToken, invalidateBearerToken } from "../../../src/api/auth/bearer.ts";
import { accessToken, authorizeUrl, invalidateToken, requestToken } from "../../../src/api/auth/oauth1-flow.ts";
import {
  createPkceChallenge,
  createPkceState,
  exchangePkceCode,
  pkceAuthorizeUrl,
  PkceSession,
} from "../../../src/api/auth/pkce.ts";
import { createClient, type ApiClient } from "../../../src/api/client.ts";
import { ALL_SCOPES } from "../../../src/api/endpoints.ts";
import { InvalidTokenError, OAuthError } from "../../../src/api/errors.ts";
import type { AppView } from "../../../src/sandbox/index.ts";
import { approveInBrowser, pinOn } from "../../helpers/browser.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

const CALLBACK = "http://127.0.0.1:9/callback";
let t: TestSandbox;
let app: AppView;
let owner: { id: string };
const clients: ApiClient[] = [];

beforeAll(async () => {
  t = await startSandbox();
  owner = await createUser(t.sandbox, "owner");
  app = await t.admin.createApp({ name: "Greeter", plan: "pro", callback_urls: [CALLBACK], owner_id: owner.id });
  await createUser(t.sandbox, "alice");
  await createUser(t.sandbox, "bob", "hunter2");
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

const consumer = () => ({ key: app.consumer_key, secret: app.consumer_secret });
const client = (auth: Parameters<typeof createClient>[0]["auth"]) => {
  const c = createClient({ baseUrl: t.url, clock: t.clock, auth });
  clients.push(c);
  return c;
};

/** The whole 3-legged flow in PIN mode, as `bot auth login` runs it. */
async function loginWithPin(username: string, password?: string) {
  const rt = await requestToken(t.url, { consumer: consumer(), callback: "oob", clock: t.clock });
  const done = await approveInBrowser(authorizeUrl(t.url, rt.token), username, password);
  const pin = pinOn(await done.text());
  expect(pin).toMatch(/^\d+$/);
  return accessToken(t.url, { consumer: consumer(), requestToken: rt, verifier: pin, clock: t.clock });
}

describe("OAuth 1.0a, 3-legged", () => {
  it("PIN flow through the authorize page gives a token that works for the user", async () => {
    const at = await loginWithPin("bob", "hunter2");
    expect(at.screenName).toBe("bob");
    const me = await client({ consumer: consumer(), user: at }).users.me();
    expect(me.data).toMatchObject({ id: at.userId, username: "bob" });
  });

  it("callback flow: the redirect carries the verifier; authenticate and force_login are in the URL", async () => {
    const rt = await requestToken(t.url, { consumer: consumer(), callback: CALLBACK, clock: t.clock });
    expect(authorizeUrl(t.url, rt.token, { authenticate: true, forceLogin: true, screenName: "alice" })).toBe(
      `${t.url}/oauth/authenticate?force_login=true&oauth_token=${rt.token}&screen_name=alice`,
    );
    const done = await approveInBrowser(authorizeUrl(t.url, rt.token), "alice");
    expect(done.status).toBe(302);
    const redirect = new URL(done.headers.get("location")!);
    expect(redirect.searchParams.get("oauth_token")).toBe(rt.token);
    const at = await accessToken(t.url, {
      consumer: consumer(),
      requestToken: rt,
      verifier: redirect.searchParams.get("oauth_verifier")!,
      clock: t.clock,
    });
    expect(at.screenName).toBe("alice");
  });

  it("a wrong verifier, or an unregistered callback, is a typed error", async () => {
    const rt = await requestToken(t.url, { consumer: consumer(), callback: "oob", clock: t.clock });
    await expect(
      accessToken(t.url, { consumer: consumer(), requestToken: rt, verifier: "0000000", clock: t.clock }),
    ).rejects.toThrow(
      /POST \/oauth\/access_token: HTTP 401: Error processing your OAuth request: Invalid oauth_verifier parameter/,
    );
    const refused = await requestToken(t.url, {
      consumer: consumer(),
      callback: "http://evil.example/cb",
      clock: t.clock,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OAuthError);
    expect((refused as OAuthError).code).toBe(415);
  });

  it("invalidation: the token then answers 401/89, and a new login gives a different token", async () => {
    const at = await loginWithPin("alice");
    const c = client({ consumer: consumer(), user: at });
    await c.users.me();
    await invalidateToken(t.url, { consumer: consumer(), token: at, clock: t.clock });
    const err = await c.users.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTokenError);
    expect((err as InvalidTokenError).status).toBe(401);
    expect((err as InvalidTokenError).message).toBe(
      "GET /2/users/me: 401 code 89: Invalid or expired token.; the access token was revoked or has expired: authorize the account again (bot auth login)",
    );
    const again = await loginWithPin("alice");
    expect(again.token).not.toBe(at.token);
    expect((await client({ consumer: consumer(), user: again }).users.me()).data?.username).toBe("alice");
  });
});

describe("OAuth 2.0 app-only bearer", () => {
  it("is fetched once for many clients and calls, so the service never answers 403/99", async () => {
    bearerCache.clear();
    const many = Array.from({ length: 8 }, () => client({ consumer: consumer() }));
    await Promise.all(many.flatMap((c) => [c.streams.rules(), c.search.countsRecent({ query: "hello" })]));
    const stats = (await t.admin.stats()).routes["POST /oauth2/token"];
    expect(stats).toEqual({ "200": 1 });
  });

  it("is invalidated by the app owner; the client then fetches the new, different token", async () => {
    bearerCache.clear();
    const c = client({ consumer: consumer() });
    await c.streams.rules();
    const before = await fetchBearerToken(t.url, consumer());
    const ownerToken = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: owner.id });
    await invalidateBearerToken(c.transport, {
      consumer: consumer(),
      owner: { token: ownerToken.token, secret: ownerToken.token_secret },
      token: before,
      clock: t.clock,
    });
    await c.streams.rules();
    const after = await fetchBearerToken(t.url, consumer());
    expect(after).not.toBe(before);
    // The old token, used directly, is refused.
    await expect(client({ bearer: before }).streams.rules()).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe("OAuth 2.0 Authorization Code with PKCE", () => {
  it("authorize page → code → tokens; refreshed before the two-hour expiry; revoked", async () => {
    const { verifier, challenge } = createPkceChallenge();
    const state = createPkceState();
    const url = pkceAuthorizeUrl(t.url, {
      clientId: app.client_id,
      redirectUri: CALLBACK,
      scopes: ALL_SCOPES,
      state,
      challenge,
    });
    const done = await approveInBrowser(url, "alice");
    expect(done.status).toBe(302);
    const redirect = new URL(done.headers.get("location")!);
    expect(redirect.searchParams.get("state")).toBe(state);
    const tokens = await exchangePkceCode(t.url, {
      clientId: app.client_id,
      code: redirect.searchParams.get("code")!,
      redirectUri: CALLBACK,
      verifier,
      clock: t.clock,
    });
    expect(tokens.expires_at).toBe(t.clock.now() + 7_200_000);
    expect(tokens.refresh_token).toBeDefined();
    expect(tokens.scopes).toEqual(expect.arrayContaining(["bookmark.write", "offline.access"]));

    const rotated: string[] = [];
    const session = new PkceSession({
      service: t.url,
      clientId: app.client_id,
      tokens,
      clock: t.clock,
      onRefresh: (n) => void rotated.push(n.access_token),
    });
    const c = client({ pkce: session });
    const me = await c.users.me();
    expect(me.data?.username).toBe("alice");
    // Bookmarks accept PKCE only.
    const post = await t.admin.createPost({ author_id: owner.id, text: "bookmark me" });
    expect((await c.bookmarks.add(me.data!.id, post.id)).data).toEqual({ bookmarked: true });

    await t.clock.advance(7_200_000 - 4 * 60_000);
    await c.users.me();
    expect(rotated).toHaveLength(1);
    expect(session.tokens.access_token).not.toBe(tokens.access_token);
    expect((await t.admin.stats()).routes["POST /2/oauth2/token"]).toEqual({ "200": 2 });
    // The old access token is past its use; the refreshed one works past the old expiry.
    await t.clock.advance(5 * 60_000);
    await c.users.me();

    await session.revoke();
    await expect(c.users.me()).rejects.toBeInstanceOf(InvalidTokenError);
  });
});
