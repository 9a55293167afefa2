/**
 * The OAuth 1.0a authorize page as a person meets it (issue 23 item 4): it says how to sign
 * in to a sandbox, which app asks and for what access; the app's callback URLs and sign-in
 * setting are changed through the admin API and take effect at once; and OAuth steps over
 * plain HTTP are answered only on loopback (spec part 5 rule 1). The full browser flow is in
 * test/browser/sandbox-authorize.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplyError } from "../../../src/sandbox/http/reply.ts";
import { refusePlainHttp, secureEnough } from "../../../src/sandbox/auth/transport.ts";
import type { AppView } from "../../../src/sandbox/index.ts";
import { cookieOf, readForm } from "../../helpers/html.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

let t: TestSandbox;
let app: AppView;
const CALLBACK = "http://127.0.0.1:1/callback";
const LATER = "https://shop.example/oauth/done";

beforeAll(async () => {
  t = await startSandbox();
  app = await t.admin.createApp({ name: "Bike Shop Helper", callback_urls: [CALLBACK] });
  await createUser(t.sandbox, "alice");
  await createUser(t.sandbox, "bob", "hunter2");
});
afterAll(() => t.close());

const consumer = (a = app) => ({ consumer_key: a.consumer_key, consumer_secret: a.consumer_secret });

async function requestToken(callback: string, extra: Record<string, string> = {}, a = app) {
  return t.signed(consumer(a), "POST", "/oauth/request_token", { oauth: { oauth_callback: callback }, query: extra });
}

async function token(callback: string, extra: Record<string, string> = {}, a = app): Promise<string> {
  const res = await requestToken(callback, extra, a);
  expect(res.status, res.text).toBe(200);
  return new URLSearchParams(res.text).get("oauth_token")!;
}

describe("the authorize page", () => {
  it("names the app, says the access asked for, and says how to sign in to a sandbox", async () => {
    const write = await t.raw("GET", `/oauth/authorize?oauth_token=${await token(CALLBACK)}`);
    expect(write.status).toBe(200);
    expect(write.text).toContain("Authorize <strong>Bike Shop Helper</strong> to use your account?");
    expect(write.text).toContain("Access requested: <strong>read and write</strong>");
    expect(write.text).toContain("Post and delete posts for you.");
    expect(write.text).toMatch(/id="sign-in-help">[^<]*password <code>sandbox<\/code>/);
    // Usernames to pick from, so a person need not look them up first.
    expect(write.text).toMatch(/<datalist id="sandbox-users">.*<option value="alice">.*<option value="bob">/);
    expect(readForm(write.text).visible).toEqual(["username", "password"]);

    for (const param of ["app_auth_access_type", "x_auth_access_type"]) {
      const read = await t.raw("GET", `/oauth/authorize?oauth_token=${await token(CALLBACK, { [param]: "read" })}`);
      expect(read.text, param).toContain("Access requested: <strong>read only</strong>");
      expect(read.text, param).not.toContain("Post and delete posts for you.");
    }
  });

  it("escapes the app's name", async () => {
    const odd = await t.admin.createApp({ name: `<script>alert(1)</script> & "co"`, callback_urls: [CALLBACK] });
    const page = await t.raw("GET", `/oauth/authorize?oauth_token=${await token(CALLBACK, {}, odd)}`);
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;");
    expect(page.text).not.toContain("<script>alert");
  });

  it("the help line holds: alice signs in with `sandbox`, bob with the password he was created with", async () => {
    for (const [username, password] of [
      ["alice", "sandbox"],
      ["bob", "hunter2"],
    ] as const) {
      const rt = await token("oob");
      const page = await t.raw("GET", `/oauth/authorize?oauth_token=${rt}`);
      const res = await t.raw("POST", "/oauth/authorize", {
        form: { ...readForm(page.text).fields, username, password, decision: "allow" },
      });
      expect(res.status, username).toBe(200);
      expect(res.text).toMatch(/id="oauth_pin">\d{7}</);
    }
  });

  it("Cancel on the PIN flow shows that nothing was granted, and spends the request token", async () => {
    const rt = await token("oob");
    const page = await t.raw("GET", `/oauth/authorize?oauth_token=${rt}`);
    const res = await t.raw("POST", "/oauth/authorize", { form: { ...readForm(page.text).fields, decision: "deny" } });
    expect(res.status).toBe(200);
    expect(res.text).toContain("You didn't authorize Bike Shop Helper.");
    expect((await t.raw("GET", `/oauth/authorize?oauth_token=${rt}`)).status).toBe(400);
  });
});

describe("an app's callback URLs, set and changed through the admin API", () => {
  it("refuses a callback the app does not list with the real service's 415, and accepts it once listed", async () => {
    const before = await requestToken(LATER);
    expect(before.status).toBe(403);
    expect(before.body).toEqual({
      errors: [{ code: 415, message: "Callback URL not approved for this client application." }],
    });

    const changed = await t.adminCall("PATCH", "/_sandbox/apps", {
      consumer_key: app.consumer_key,
      callback_urls: [CALLBACK, LATER],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: app.id, name: "Bike Shop Helper", callback_urls: [CALLBACK, LATER] });
    expect((await requestToken(LATER)).status).toBe(200);

    // The list is replaced as a whole: the URL left out is refused from now on.
    const view = await t.admin.updateApp({ consumer_key: app.consumer_key, callback_urls: [LATER] });
    expect(view.callback_urls).toEqual([LATER]);
    expect((await requestToken(CALLBACK)).status).toBe(403);
    expect((await requestToken("oob")).status).toBe(200);
    await t.admin.updateApp({ consumer_key: app.consumer_key, callback_urls: [CALLBACK] });
  });

  it("refuses a bad change with a 400 naming the field", async () => {
    const notUrl = await t.adminCall("PATCH", "/_sandbox/apps", {
      consumer_key: app.consumer_key,
      callback_urls: ["shop.example/cb"],
    });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.errors[0].message).toMatch(/^callback_urls\.0: must be a URL/);
    const unknown = await t.adminCall("PATCH", "/_sandbox/apps", { consumer_key: "nope", callback_urls: [] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].message).toBe("consumer_key: no app has this consumer key");
    const extra = await t.adminCall("PATCH", "/_sandbox/apps", { consumer_key: app.consumer_key, plan: "free" });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].message).toContain("plan");
    expect((await t.adminCall("POST", "/_sandbox/apps", { callback_urls: ["no scheme"] })).status).toBe(400);
    // Nothing was changed by the refused calls.
    expect((await t.admin.updateApp({ consumer_key: app.consumer_key })).callback_urls).toEqual([CALLBACK]);
  });
});

describe("/oauth/authenticate and the app's sign-in setting", () => {
  it("sends back a user who granted the app without asking, unless the app turned sign-in off", async () => {
    await createUser(t.sandbox, "carol");
    const rt1 = await token(CALLBACK);
    const page = await t.raw("GET", `/oauth/authenticate?oauth_token=${rt1}`);
    const first = await t.raw("POST", "/oauth/authenticate", {
      form: { ...readForm(page.text).fields, username: "carol", password: "sandbox", decision: "allow" },
    });
    expect(first.status).toBe(302);
    const cookie = cookieOf(first.headers)!;

    const rt2 = await token(CALLBACK);
    const again = await t.raw("GET", `/oauth/authenticate?oauth_token=${rt2}`, { headers: { cookie } });
    expect(again.status).toBe(302);
    const back = new URL(again.headers.get("location")!);
    expect(back.searchParams.get("oauth_token")).toBe(rt2);
    expect(back.searchParams.get("oauth_verifier")).toMatch(/^\w{20,}$/);

    expect((await t.admin.updateApp({ consumer_key: app.consumer_key, allow_sign_in: false })).allow_sign_in).toBe(
      false,
    );
    const rt3 = await token(CALLBACK);
    const asked = await t.raw("GET", `/oauth/authenticate?oauth_token=${rt3}`, { headers: { cookie } });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain("Signed in as <strong>@carol</strong>");
    const approved = await t.raw("POST", "/oauth/authenticate", {
      form: { ...readForm(asked.text).fields, decision: "allow" },
      headers: { cookie },
    });
    expect(approved.status).toBe(302);
    expect(new URL(approved.headers.get("location")!).searchParams.get("oauth_token")).toBe(rt3);

    await t.admin.updateApp({ consumer_key: app.consumer_key, allow_sign_in: true });
    const rt4 = await token(CALLBACK);
    expect((await t.raw("GET", `/oauth/authenticate?oauth_token=${rt4}`, { headers: { cookie } })).status).toBe(302);
  });

  it("new apps have sign-in on, and can be made with it off", async () => {
    expect(app.allow_sign_in).toBe(true);
    expect((await t.admin.createApp({ allow_sign_in: false })).allow_sign_in).toBe(false);
  });
});

describe("HTTPS for OAuth steps (spec part 5 rule 1) on a plain-HTTP sandbox", () => {
  it("answers OAuth steps over plain HTTP on loopback", async () => {
    expect(new URL(t.url).protocol).toBe("http:");
    expect((await requestToken("oob")).status).toBe(200);
  });

  it("counts loopback peers, and a TLS proxy's X-Forwarded-Proto: https, as secure; nothing else", () => {
    for (const peer of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
      expect(secureEnough(peer, undefined)).toBe(true);
    for (const peer of ["10.0.0.5", "203.0.113.7", "::ffff:192.168.1.2", "2001:db8::1", undefined])
      expect(secureEnough(peer, undefined)).toBe(false);
    expect(secureEnough("203.0.113.7", "https")).toBe(true);
    expect(secureEnough("203.0.113.7", "HTTPS, http")).toBe(true);
    expect(secureEnough("203.0.113.7", ["https"])).toBe(true);
    expect(secureEnough("203.0.113.7", "http")).toBe(false);
  });

  it("refuses a step from another machine over plain HTTP with 403 code 92, saying what to do", () => {
    const remote = { socket: { remoteAddress: "203.0.113.7" }, headers: {} } as never;
    let thrown: unknown;
    try {
      refusePlainHttp(remote);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ReplyError);
    const reply = (thrown as ReplyError).reply;
    expect(reply.status).toBe(403);
    const body = JSON.parse(reply.body);
    expect(body.errors[0].code).toBe(92);
    expect(body.errors[0].message).toMatch(/^SSL is required: .*loopback.*X-Forwarded-Proto: https/);
    expect(() => refusePlainHttp({ socket: { remoteAddress: "127.0.0.1" }, headers: {} } as never)).not.toThrow();
  });
});
