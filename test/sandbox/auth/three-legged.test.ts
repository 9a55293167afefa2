import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookieOf, readForm } from "../../helpers/html.ts";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";
import type { AppView } from "../../../src/sandbox/index.ts";

let t: TestSandbox;
let app: AppView;
const CALLBACK = "http://app.example/callback";
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  app = await t.admin.createApp({ name: "Greeter", callback_urls: [CALLBACK] });
  await createUser(t.sandbox, "alice");
  await createUser(t.sandbox, "bob", "hunter2");
  restore.push(installHandler("GET /2/users/me", echoHandler), installHandler("POST /2/posts", echoHandler));
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const consumer = () => ({ consumer_key: app.consumer_key, consumer_secret: app.consumer_secret });

async function requestToken(callback: string, extra: Record<string, string> = {}) {
  const res = await t.signed(consumer(), "POST", "/oauth/request_token", {
    oauth: { oauth_callback: callback },
    query: extra,
  });
  expect(res.status, res.text).toBe(200);
  const f = new URLSearchParams(res.text);
  expect(f.get("oauth_callback_confirmed")).toBe("true");
  return { token: f.get("oauth_token")!, secret: f.get("oauth_token_secret")! };
}

/** Opens the page, fills in the form as a person would, submits it. */
async function approve(path: string, cookie?: string, fill: Record<string, string> = {}, decision = "allow") {
  const page = await t.raw("GET", path, { headers: cookie ? { cookie } : {} });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const form = readForm(page.text);
  const res = await t.raw(form.method, form.action, {
    form: { ...form.fields, ...fill, decision },
    headers: cookie ? { cookie } : {},
  });
  return { page, form, res };
}

async function exchange(rt: { token: string; secret: string }, verifier?: string) {
  return t.signed({ ...consumer(), token: rt.token, token_secret: rt.secret }, "POST", "/oauth/access_token", {
    oauth: verifier === undefined ? {} : { oauth_verifier: verifier },
  });
}

describe("the 3-legged OAuth 1.0a flow through the HTML pages", () => {
  it("refuses a post of the authorize form without its CSRF token, with a wrong one, or with another browser's", async () => {
    const rt = await requestToken(CALLBACK);
    const first = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "alice",
      password: "sandbox",
    });
    const cookie = first.res.headers.get("set-cookie")!.split(";")[0]!;
    const rt2 = await requestToken(CALLBACK);
    // A page fetched without the victim's session (by another browser, or a server)...
    const page = await t.raw("GET", `/oauth/authorize?oauth_token=${rt2.token}`);
    const form = readForm(page.text);
    expect(form.fields.csrf_token).toMatch(/^[\w-]{40,}$/);
    const { csrf_token, ...without } = form.fields;
    for (const fields of [without, { ...form.fields, csrf_token: "x".repeat(43) }, form.fields]) {
      // ...posted from the signed-in browser, which would approve without a password.
      const res = await t.raw("POST", form.action, { form: { ...fields, decision: "allow" }, headers: { cookie } });
      expect(res.status, JSON.stringify(fields)).toBe(403);
      expect(res.text).toContain("security token is missing or wrong");
    }
    expect(csrf_token).toBeDefined();
    // The browser's own page works.
    const own = await approve(`/oauth/authorize?oauth_token=${rt2.token}`, cookie);
    expect(own.res.status).toBe(302);
  });

  it("request token → sign in and approve → callback with verifier → access token that works", async () => {
    const rt = await requestToken(CALLBACK);
    const { form, res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "alice",
      password: "sandbox",
    });
    expect(form.visible).toEqual(["username", "password"]);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get("oauth_token")).toBe(rt.token);
    const verifier = location.searchParams.get("oauth_verifier")!;
    expect(verifier).toMatch(/^\w{20,}$/);

    const access = await exchange(rt, verifier);
    expect(access.status).toBe(200);
    const f = new URLSearchParams(access.text);
    expect(f.get("screen_name")).toBe("alice");
    expect(f.get("user_id")).toMatch(/^\d+$/);
    const me = await t.signed(
      { ...consumer(), token: f.get("oauth_token")!, token_secret: f.get("oauth_token_secret")! },
      "GET",
      "/2/users/me",
    );
    expect(me.status).toBe(200);
    expect(me.body.data.user_id).toBe(f.get("user_id"));

    // The request token is spent.
    expect((await exchange(rt, verifier)).status).toBe(401);
  });

  it("requires oauth_verifier, strictly", async () => {
    const rt = await requestToken(CALLBACK);
    const { res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "alice",
      password: "sandbox",
    });
    expect(res.status).toBe(302);
    const missing = await exchange(rt);
    expect(missing.status).toBe(401);
    expect(missing.text).toBe("Error processing your OAuth request: Invalid oauth_verifier parameter");
    expect((await exchange(rt, "wrong")).status).toBe(401);
  });

  it("refuses an exchange before the user approved", async () => {
    const rt = await requestToken(CALLBACK);
    expect((await exchange(rt, "anything")).status).toBe(401);
  });

  it("PIN mode (oob): the page shows the PIN, which is the verifier", async () => {
    const rt = await requestToken("oob");
    const { res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "bob",
      password: "hunter2",
    });
    expect(res.status).toBe(200);
    const pin = /id="oauth_pin">(\d+)</.exec(res.text)?.[1];
    expect(pin).toMatch(/^\d{7}$/);
    const access = await exchange(rt, pin!);
    expect(new URLSearchParams(access.text).get("screen_name")).toBe("bob");
  });

  it("requires oauth_callback on every call and a registered URL", async () => {
    const none = await t.signed(consumer(), "POST", "/oauth/request_token");
    expect(none.status).toBe(400);
    expect(none.body.errors[0].message).toContain("oauth_callback");
    const bad = await t.signed(consumer(), "POST", "/oauth/request_token", {
      oauth: { oauth_callback: "http://evil.example/cb" },
    });
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual({
      errors: [{ code: 415, message: "Callback URL not approved for this client application." }],
    });
    // A query string on a registered URL is the app's own state, allowed.
    await requestToken(`${CALLBACK}?next=/home`);
  });

  it("refuses a request_token call with a bad signature", async () => {
    const res = await t.signed({ ...consumer(), consumer_secret: "x" }, "POST", "/oauth/request_token", {
      oauth: { oauth_callback: "oob" },
    });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].code).toBe(32);
  });

  it("signs form-encoded body parameters", async () => {
    const res = await t.signed(consumer(), "POST", "/oauth/request_token", {
      oauth: { oauth_callback: "oob" },
      form: { x_auth_access_type: "read" },
    });
    expect(res.status).toBe(200);
  });

  it("a wrong password shows the form again with an error, and no redirect", async () => {
    const rt = await requestToken(CALLBACK);
    const { res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "bob",
      password: "sandbox",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("location")).toBeNull();
    expect(res.text).toContain("did not match our records");
    expect(readForm(res.text).fields.username).toBe("bob");
  });

  it("screen_name prefills the username box", async () => {
    const rt = await requestToken(CALLBACK);
    const page = await t.raw("GET", `/oauth/authorize?oauth_token=${rt.token}&screen_name=alice`);
    expect(readForm(page.text).fields.username).toBe("alice");
  });

  it("an unknown request token shows an error page", async () => {
    const page = await t.raw("GET", "/oauth/authorize?oauth_token=nope");
    expect(page.status).toBe(400);
    expect(page.text).toContain("request token for this page is invalid");
  });

  it("cancel sends the browser back with denied=", async () => {
    const rt = await requestToken(CALLBACK);
    const { res } = await approve(
      `/oauth/authorize?oauth_token=${rt.token}`,
      undefined,
      { username: "alice", password: "sandbox" },
      "deny",
    );
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("denied")).toBe(rt.token);
  });

  it("authenticate: a signed-in user who already granted the app is sent back at once; force_login asks again", async () => {
    const other = await t.admin.createApp({ name: "Other", callback_urls: [CALLBACK] });
    const carol = await createUser(t.sandbox, "carol");
    // First sign-in: credentials typed, session cookie set, grant recorded.
    const rt1 = await requestToken(CALLBACK);
    const first = await approve(`/oauth/authenticate?oauth_token=${rt1.token}`, undefined, {
      username: "carol",
      password: "sandbox",
    });
    expect(first.res.status).toBe(302);
    const cookie = cookieOf(first.res.headers)!;
    expect(cookie).toMatch(/^sandbox_session=/);

    // Again with the session: no page, straight back with a verifier.
    const rt2 = await requestToken(CALLBACK);
    const again = await t.raw("GET", `/oauth/authenticate?oauth_token=${rt2.token}`, { headers: { cookie } });
    expect(again.status).toBe(302);
    const verifier = new URL(again.headers.get("location")!).searchParams.get("oauth_verifier")!;
    expect(new URLSearchParams((await exchange(rt2, verifier)).text).get("user_id")).toBe(carol.id);

    // force_login: the page asks for credentials even with the session.
    const rt3 = await requestToken(CALLBACK);
    const forced = await t.raw("GET", `/oauth/authenticate?oauth_token=${rt3.token}&force_login=true`, {
      headers: { cookie },
    });
    expect(forced.status).toBe(200);
    expect(readForm(forced.text).visible).toEqual(["username", "password"]);

    // authorize (not authenticate) always asks to approve, but the session spares the password.
    const rt4 = await requestToken(CALLBACK);
    const page = await t.raw("GET", `/oauth/authorize?oauth_token=${rt4.token}`, { headers: { cookie } });
    expect(page.text).toContain("Signed in as <strong>@carol</strong>");
    expect(readForm(page.text).visible).toEqual([]);
    const approved = await approve(`/oauth/authorize?oauth_token=${rt4.token}`, cookie);
    expect(approved.res.status).toBe(302);

    // A user who never granted this other app sees the approve page even on authenticate.
    const otherRt = await t.signed(
      { consumer_key: other.consumer_key, consumer_secret: other.consumer_secret },
      "POST",
      "/oauth/request_token",
      {
        oauth: { oauth_callback: CALLBACK },
      },
    );
    const token = new URLSearchParams(otherRt.text).get("oauth_token");
    const ask = await t.raw("GET", `/oauth/authenticate?oauth_token=${token}`, { headers: { cookie } });
    expect(ask.status).toBe(200);
    expect(ask.text).toContain("Authorize <strong>Other</strong>");
  });

  it("app_auth_access_type=read gives a token that may read but not write", async () => {
    const rt = await requestToken("oob", { x_auth_access_type: "read" });
    const { res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "alice",
      password: "sandbox",
    });
    const pin = /id="oauth_pin">(\d+)</.exec(res.text)![1]!;
    const f = new URLSearchParams((await exchange(rt, pin)).text);
    const creds = { ...consumer(), token: f.get("oauth_token")!, token_secret: f.get("oauth_token_secret")! };
    expect((await t.signed(creds, "GET", "/2/users/me")).status).toBe(200);
    const write = await t.signed(creds, "POST", "/2/posts", { json: { text: "hi" } });
    expect(write.status).toBe(403);
    expect(write.body.detail).toContain("oauth1 app permissions");
    // Authorizing again with write access upgrades the same token.
    const rt2 = await requestToken("oob");
    const again = await approve(`/oauth/authorize?oauth_token=${rt2.token}`, undefined, {
      username: "alice",
      password: "sandbox",
    });
    const f2 = new URLSearchParams((await exchange(rt2, /id="oauth_pin">(\d+)</.exec(again.res.text)![1]!)).text);
    expect(f2.get("oauth_token")).toBe(creds.token);
    expect((await t.signed(creds, "POST", "/2/posts", { json: { text: "hi" } })).status).toBe(200);
  });

  it("request tokens expire after 15 minutes of sandbox clock", async () => {
    const rt = await requestToken(CALLBACK);
    await t.clock.advance(15 * 60_000);
    expect((await t.raw("GET", `/oauth/authorize?oauth_token=${rt.token}`)).status).toBe(400);
  });
});

describe("POST /1.1/oauth/invalidate_token", () => {
  it("revokes the token: 200 naming it, then 401 with code 89, and a new token differs", async () => {
    const dave = await t.account({ username: "dave", app });
    const res = await t.signed(dave, "POST", "/1.1/oauth/invalidate_token.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual({ access_token: dave.token });

    const after = await t.signed(dave, "GET", "/2/users/me");
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ errors: [{ code: 89, message: "Invalid or expired token." }] });
    expect((await t.signed(dave, "POST", "/1.1/oauth/invalidate_token")).body.errors[0].code).toBe(89);

    const fresh = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: dave.user.id });
    expect(fresh.token).not.toBe(dave.token);
    expect(
      (await t.signed({ ...dave, token: fresh.token, token_secret: fresh.token_secret }, "GET", "/2/users/me")).status,
    ).toBe(200);
  });

  it("a token made by the admin API is the one the flow gives for the same user", async () => {
    const erin = await t.account({ username: "erin", app });
    const rt = await requestToken("oob");
    const { res } = await approve(`/oauth/authorize?oauth_token=${rt.token}`, undefined, {
      username: "erin",
      password: "sandbox",
    });
    const f = new URLSearchParams((await exchange(rt, /id="oauth_pin">(\d+)</.exec(res.text)![1]!)).text);
    expect(f.get("oauth_token")).toBe(erin.token);
    expect(f.get("oauth_token_secret")).toBe(erin.token_secret);
  });
});
