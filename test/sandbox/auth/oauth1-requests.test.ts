import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { oauthHeader, startSandbox, type Account, type TestSandbox } from "../../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  alice = await t.account({ username: "alice" });
  restore.push(installHandler("GET /2/users/me", echoHandler), installHandler("POST /2/posts", echoHandler));
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const v1 = (code: number, message: string) => ({ errors: [{ code, message }] });

describe("OAuth 1.0a user context on v2 endpoints", () => {
  it("accepts a correctly signed request and names the caller", async () => {
    const res = await t.signed(alice, "GET", "/2/users/me", {
      query: { "user.fields": "created_at,description", q: "a b+c/ü*" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ method: "oauth1", app_id: alice.app.id, user_id: alice.user.id });
    expect(res.body.data.query).toEqual({ "user.fields": "created_at,description", q: "a b+c/ü*" });
  });

  it("never signs a JSON body: the body reaches the handler and the signature still holds", async () => {
    const res = await t.signed(alice, "POST", "/2/posts", { json: { text: "hello & goodbye" } });
    expect(res.status).toBe(200);
    expect(res.body.data.body).toEqual({ text: "hello & goodbye" });
  });

  it("refuses a wrong signature with 401 and code 32", async () => {
    const res = await t.signed({ ...alice, consumer_secret: "not-the-secret" }, "GET", "/2/users/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(v1(32, "Could not authenticate you."));
    const wrongTokenSecret = await t.signed({ ...alice, token_secret: "nope" }, "GET", "/2/users/me");
    expect(wrongTokenSecret.body).toEqual(v1(32, "Could not authenticate you."));
  });

  it("refuses an unknown consumer key or token with code 32", async () => {
    expect((await t.signed({ ...alice, consumer_key: "unknownkey" }, "GET", "/2/users/me")).body).toEqual(
      v1(32, "Could not authenticate you."),
    );
    expect((await t.signed({ ...alice, token: "1-unknown" }, "GET", "/2/users/me")).body).toEqual(
      v1(32, "Could not authenticate you."),
    );
  });

  it("refuses a token of another app with code 32", async () => {
    const other = await t.account({ username: "otherapp" });
    const res = await t.signed(
      { ...other, token: alice.token, token_secret: alice.token_secret },
      "GET",
      "/2/users/me",
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual(v1(32, "Could not authenticate you."));
  });

  it("refuses a parameter changed after signing", async () => {
    const header = oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`, { a: "1" });
    const res = await fetch(`${t.url}/2/users/me?a=2`, { headers: { authorization: header } });
    expect(res.status).toBe(401);
  });

  it("signs the host the client addressed: a signature for another host fails", async () => {
    const other = t.url.replace("127.0.0.1", "localhost");
    const header = oauthHeader(t.clock, alice, "GET", `${other}/2/users/me`);
    expect((await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } })).status).toBe(401);
    const good = oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`);
    expect((await fetch(`${t.url}/2/users/me`, { headers: { authorization: good } })).status).toBe(200);
  });

  it("refuses a timestamp more than 5 minutes from the sandbox clock with code 135", async () => {
    const header = oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`);
    await t.clock.advance(5 * 60_000 + 1_000);
    const res = await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(v1(135, "Timestamp out of bounds."));
    // A request signed with the moved clock's time is fine.
    expect((await t.signed(alice, "GET", "/2/users/me")).status).toBe(200);
  });

  it("accepts a timestamp 4 minutes off", async () => {
    const header = oauthHeader({ now: () => t.clock.now() - 4 * 60_000 }, alice, "GET", `${t.url}/2/users/me`);
    expect((await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } })).status).toBe(200);
  });

  it("refuses a nonce seen before within the window", async () => {
    const header = oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`);
    expect((await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } })).status).toBe(200);
    const replay = await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual(v1(32, "Could not authenticate you."));
  });

  it("answers a malformed or incomplete OAuth header with 400 and code 215", async () => {
    for (const authorization of ["OAuth nonsense", 'OAuth oauth_consumer_key="x"']) {
      const res = await fetch(`${t.url}/2/users/me`, { headers: { authorization } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(v1(215, "Bad Authentication data."));
    }
  });

  it("refuses signature methods other than HMAC-SHA1", async () => {
    const header = oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`).replace("HMAC-SHA1", "PLAINTEXT");
    expect((await fetch(`${t.url}/2/users/me`, { headers: { authorization: header } })).status).toBe(401);
  });

  it("answers a request without credentials with the v2 401 problem", async () => {
    const res = await t.raw("GET", "/2/users/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" });
    expect((await t.raw("GET", "/2/users/me", { headers: { authorization: "Basic abc" } })).status).toBe(401);
    expect((await t.bearer("no-such-token", "GET", "/2/users/me")).body.title).toBe("Unauthorized");
  });
});
