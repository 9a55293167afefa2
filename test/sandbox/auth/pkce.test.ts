import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieOf, readForm } from "../../helpers/html.ts";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";
import type { AppView } from "../../../src/sandbox/index.ts";

let t: TestSandbox;
let app: AppView;
const REDIRECT = "http://127.0.0.1:9999/callback";
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
const READ = ["post.read", "users.read"];
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  app = await t.admin.createApp({ name: "Pkce App", callback_urls: [REDIRECT] });
  await createUser(t.sandbox, "alice");
  restore.push(
    installHandler("GET /2/users/me", echoHandler),
    installHandler("GET /2/users/:id/bookmarks", echoHandler),
  );
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const authorizeQuery = (over: Record<string, string> = {}) =>
  new URLSearchParams({
    response_type: "code",
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    scope: [...READ, "offline.access"].join(" "),
    state: "xyz",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    ...over,
  }).toString();

/** Opens the authorize page, signs in and approves; returns the redirect. */
async function authorize(over: Record<string, string> = {}, decision = "allow") {
  const page = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery(over)}`);
  expect(page.status, page.text).toBe(200);
  const form = readForm(page.text);
  const res = await t.raw("POST", form.action, {
    form: { ...form.fields, username: "alice", password: "sandbox", decision },
  });
  expect(res.status).toBe(302);
  return { res, location: new URL(res.headers.get("location")!) };
}

const token = (form: Record<string, string>) => t.raw("POST", "/2/oauth2/token", { form });

async function codeExchange(over: Record<string, string> = {}, verifier = VERIFIER) {
  const { location } = await authorize(over);
  expect(location.searchParams.get("state")).toBe("xyz");
  return token({
    grant_type: "authorization_code",
    code: location.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: app.client_id,
  });
}

describe("OAuth 2.0 Authorization Code with PKCE", () => {
  it("refuses a post of the authorize form without its CSRF token or with a wrong one", async () => {
    const page = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery()}`);
    const form = readForm(page.text);
    const { csrf_token, ...without } = form.fields;
    expect(csrf_token).toMatch(/^[\w-]{40,}$/);
    for (const fields of [
      without,
      { ...form.fields, csrf_token: "x".repeat(43) },
      { ...form.fields, state: "other" },
    ]) {
      const res = await t.raw("POST", form.action, {
        form: { ...fields, username: "alice", password: "sandbox", decision: "allow" },
      });
      expect(res.status, JSON.stringify(fields)).toBe(403);
      expect(res.headers.get("location")).toBeNull();
    }
    const ok = await t.raw("POST", form.action, {
      form: { ...form.fields, username: "alice", password: "sandbox", decision: "allow" },
    });
    expect(ok.status).toBe(302);
  });

  it("S256: the page lists the scopes, the code exchanges for a 2-hour token and a refresh token", async () => {
    const page = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery()}`);
    expect(page.text).toContain("<li>offline.access</li>");
    const res = await codeExchange();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token_type: "bearer",
      expires_in: 7200,
      access_token: expect.any(String),
      scope: "post.read users.read offline.access",
      refresh_token: expect.any(String),
    });
    const me = await t.bearer(res.body.access_token, "GET", "/2/users/me");
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ method: "pkce", app_id: app.id, scopes: [...READ, "offline.access"] });
  });

  it("matches the method case-insensitively (clients send lowercase s256) and supports plain", async () => {
    expect((await codeExchange({ code_challenge_method: "s256" })).status).toBe(200);
    expect((await codeExchange({ code_challenge_method: "plain", code_challenge: VERIFIER })).status).toBe(200);
    expect((await codeExchange({ code_challenge_method: "PLAIN", code_challenge: VERIFIER })).status).toBe(200);
  });

  it("refuses a verifier that does not match the challenge, and a reused code", async () => {
    const bad = await codeExchange({}, "x".repeat(43));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: "invalid_request",
      error_description: "Value passed for the code verifier did not match the code challenge.",
    });

    const { location } = await authorize();
    const form = {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: app.client_id,
    };
    const missing = await token({ ...form, code_verifier: "" });
    expect(missing.body.error_description).toBe("Missing required parameter [code_verifier].");
    expect((await token(form)).status).toBe(200);
    const reused = await token(form);
    expect(reused.status).toBe(400);
    expect(reused.body.error_description).toBe("Value passed for the authorization code was invalid.");
  });

  it("refresh tokens come only with offline.access and rotate on use", async () => {
    const noOffline = await codeExchange({ scope: READ.join(" ") });
    expect(noOffline.status).toBe(200);
    expect(noOffline.body.refresh_token).toBeUndefined();

    const first = await codeExchange();
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: app.client_id,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(refreshed.body.access_token).not.toBe(first.body.access_token);
    const reused = await token({
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: app.client_id,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_request");
  });

  it("access tokens expire after two hours of sandbox clock; a refresh gives a working one", async () => {
    const res = await codeExchange();
    await t.clock.advance(2 * 3_600_000 - 1_000);
    expect((await t.bearer(res.body.access_token, "GET", "/2/users/me")).status).toBe(200);
    await t.clock.advance(1_000);
    const expired = await t.bearer(res.body.access_token, "GET", "/2/users/me");
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ errors: [{ code: 89, message: "Invalid or expired token." }] });
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: res.body.refresh_token,
      client_id: app.client_id,
    });
    expect((await t.bearer(refreshed.body.access_token, "GET", "/2/users/me")).status).toBe(200);
  });

  it("revoke: {revoked: true}, and the token is refused afterwards", async () => {
    const res = await codeExchange();
    const revoked = await t.raw("POST", "/2/oauth2/revoke", {
      form: { token: res.body.access_token, client_id: app.client_id, token_type_hint: "access_token" },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    expect((await t.bearer(res.body.access_token, "GET", "/2/users/me")).status).toBe(401);
    await t.raw("POST", "/2/oauth2/revoke", { form: { token: res.body.refresh_token, client_id: app.client_id } });
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: res.body.refresh_token, client_id: app.client_id }))
        .status,
    ).toBe(400);
  });

  it("confidential clients authenticate with HTTP Basic", async () => {
    const { location } = await authorize();
    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString("base64")}`;
    const form = {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    };
    const wrong = await t.raw("POST", "/2/oauth2/token", {
      form,
      headers: { authorization: `Basic ${Buffer.from(`${app.client_id}:nope`).toString("base64")}` },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    expect((await t.raw("POST", "/2/oauth2/token", { form, headers: { authorization: basic } })).status).toBe(200);
  });

  it("errors the app can handle go back as error= redirects; an unregistered redirect_uri never redirects", async () => {
    const bad = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery({ redirect_uri: "http://evil.example/cb" })}`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("location")).toBeNull();
    expect((await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery({ client_id: "nope" })}`)).status).toBe(400);

    for (const [over, error] of [
      [{ scope: "post.read nonsense.scope" }, "invalid_scope"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ code_challenge: "" }, "invalid_request"],
      [{ code_challenge_method: "S512" }, "invalid_request"],
    ] as const) {
      const res = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery(over)}`);
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get("location")!);
      expect(loc.searchParams.get("error")).toBe(error);
      expect(loc.searchParams.get("state")).toBe("xyz");
    }
    const { location } = await authorize({}, "deny");
    expect(location.searchParams.get("error")).toBe("access_denied");
  });

  it("the session cookie spares the password on the next authorization", async () => {
    const { res } = await authorize();
    const cookie = cookieOf(res.headers)!;
    const page = await t.raw("GET", `/i/oauth2/authorize?${authorizeQuery()}`, { headers: { cookie } });
    const form = readForm(page.text);
    expect(form.visible).toEqual([]);
    const approved = await t.raw("POST", form.action, {
      form: { ...form.fields, decision: "allow" },
      headers: { cookie },
    });
    expect(new URL(approved.headers.get("location")!).searchParams.get("code")).toBeTruthy();
  });

  it("enforces the endpoint's scopes", async () => {
    const res = await codeExchange();
    const alice = Object.values(t.sandbox.context.data.world.users).find((u) => u.username === "alice")!;
    const refused = await t.bearer(res.body.access_token, "GET", `/2/users/${alice.id}/bookmarks`);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("bookmark.read");
    expect(refused.body.missing_scopes).toEqual(["bookmark.read"]);
    const withScope = await t.pkce(app, { username: "alice" }, [...READ, "bookmark.read"]);
    expect((await t.bearer(withScope.access_token, "GET", `/2/users/${alice.id}/bookmarks`)).status).toBe(200);
  });
});
