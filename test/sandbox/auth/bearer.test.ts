import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEARER_REQUESTS } from "../../../src/sandbox/auth/bearer.ts";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { createUser, pct, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

let t: TestSandbox;
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  restore.push(installHandler("GET /2/posts/:id", echoHandler), installHandler("GET /2/users/me", echoHandler));
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${pct(key)}:${pct(secret)}`).toString("base64")}`;

describe("app-only bearer tokens", () => {
  it("issues one token per app, the same on every call, which app-only endpoints accept", async () => {
    const app = await t.admin.createApp();
    const first = await t.raw("POST", "/oauth2/token", {
      form: { grant_type: "client_credentials" },
      headers: {
        authorization: basic(app.consumer_key, app.consumer_secret),
        "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
      },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ token_type: "bearer", access_token: expect.stringMatching(/^A{22}\w+$/) });
    expect(await t.appBearer(app)).toBe(first.body.access_token);

    const res = await t.bearer(first.body.access_token, "GET", "/2/posts/123");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ method: "app", app_id: app.id, params: { id: "123" } });
    expect(res.body.data.user_id).toBeUndefined();
  });

  it("refuses wrong credentials and grant types", async () => {
    const app = await t.admin.createApp();
    const wrong = await t.raw("POST", "/oauth2/token", {
      form: { grant_type: "client_credentials" },
      headers: { authorization: basic(app.consumer_key, "nope") },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({
      errors: [{ code: 99, message: "Unable to verify your credentials", label: "authenticity_token_error" }],
    });
    expect((await t.raw("POST", "/oauth2/token", { form: { grant_type: "client_credentials" } })).status).toBe(403);
    const noGrant = await t.raw("POST", "/oauth2/token", {
      headers: { authorization: basic(app.consumer_key, app.consumer_secret) },
    });
    expect(noGrant.status).toBe(403);
    expect(noGrant.body.errors[0]).toMatchObject({ code: 170, message: "Missing required parameter: grant_type" });
    const otherGrant = await t.raw("POST", "/oauth2/token", {
      form: { grant_type: "password" },
      headers: { authorization: basic(app.consumer_key, app.consumer_secret) },
    });
    expect(otherGrant.status).toBe(403);
    expect(otherGrant.body.errors[0].message).toContain("client_credentials");
  });

  it(`answers 403 with code 99 when asked more than ${BEARER_REQUESTS.max} times in 15 minutes`, async () => {
    const app = await t.admin.createApp();
    for (let i = 0; i < BEARER_REQUESTS.max; i++) await t.appBearer(app);
    const tooOften = await t.raw("POST", "/oauth2/token", {
      form: { grant_type: "client_credentials" },
      headers: { authorization: basic(app.consumer_key, app.consumer_secret) },
    });
    expect(tooOften.status).toBe(403);
    expect(tooOften.body.errors[0].code).toBe(99);
    await t.clock.advance(BEARER_REQUESTS.windowMs);
    await t.appBearer(app);
  });

  it("invalidates with the owner's OAuth 1.0a signature; afterwards 401/89 and a new token differs", async () => {
    const owner = await createUser(t.sandbox, "owner1");
    const app = await t.admin.createApp({ owner_id: owner.id });
    const ownerToken = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: owner.id });
    const someone = await t.account({ username: "someone1", app });
    const bearer = await t.appBearer(app);
    const creds = {
      consumer_key: app.consumer_key,
      consumer_secret: app.consumer_secret,
      token: ownerToken.token,
      token_secret: ownerToken.token_secret,
    };

    const notOwner = await t.signed(someone, "POST", "/oauth2/invalidate_token", { query: { access_token: bearer } });
    expect(notOwner.status).toBe(403);
    const missing = await t.signed(creds, "POST", "/oauth2/invalidate_token");
    expect(missing.status).toBe(403);
    expect(missing.body.errors[0].message).toContain("access_token");
    const wrong = await t.signed(creds, "POST", "/oauth2/invalidate_token", {
      query: { access_token: "AAAAnot-this-one" },
    });
    expect(wrong.status).toBe(403);

    const res = await t.signed(creds, "POST", "/oauth2/invalidate_token", { query: { access_token: bearer } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: bearer });

    const after = await t.bearer(bearer, "GET", "/2/posts/1");
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ errors: [{ code: 89, message: "Invalid or expired token." }] });
    const fresh = await t.appBearer(app);
    expect(fresh).not.toBe(bearer);
    expect((await t.bearer(fresh, "GET", "/2/posts/1")).status).toBe(200);
  });

  it("is refused where the endpoint needs a user", async () => {
    const app = await t.admin.createApp();
    const res = await t.bearer(await t.appBearer(app), "GET", "/2/users/me");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      title: "Unsupported Authentication",
      detail:
        "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].",
      type: "https://api.twitter.com/2/problems/unsupported-authentication",
      status: 403,
    });
  });
});
