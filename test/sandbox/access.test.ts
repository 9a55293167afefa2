import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../src/api/endpoints.ts";
import { echoHandler, installHandler } from "../helpers/probe.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;
let bearer: string;
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  alice = await t.account({ username: "alice", callback_urls: ["http://127.0.0.1:1/cb"] });
  bearer = await t.appBearer(alice.app);
  for (const key of [
    "GET /2/posts/counts/recent",
    "GET /2/users/:id/bookmarks",
    "GET /2/posts/:id",
    "DELETE /2/posts/:id",
  ] as const) {
    restore.push(installHandler(key, echoHandler));
  }
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const wording = (used: string, supported: string) =>
  `Authenticating with ${used} is forbidden for this endpoint.  Supported authentication types are [${supported}].`;

describe("methods and scopes per endpoint group (spec part 5)", () => {
  it("app-only groups refuse user tokens", async () => {
    const res = await t.signed(alice, "GET", "/2/posts/counts/recent", { query: { query: "x" } });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe("https://api.twitter.com/2/problems/unsupported-authentication");
    expect(res.body.detail).toBe(wording("OAuth 1.0a User Context", "OAuth 2.0 Application-Only"));
    expect((await t.bearer(bearer, "GET", "/2/posts/counts/recent")).status).toBe(200);
  });

  it("PKCE-only groups refuse OAuth 1.0a and the app bearer", async () => {
    const path = `/2/users/${alice.user.id}/bookmarks`;
    expect((await t.signed(alice, "GET", path)).body.detail).toBe(
      wording("OAuth 1.0a User Context", "OAuth 2.0 User Context"),
    );
    expect((await t.bearer(bearer, "GET", path)).body.detail).toBe(
      wording("OAuth 2.0 Application-Only", "OAuth 2.0 User Context"),
    );
  });

  it("user-only groups refuse the app bearer; three-mark groups take all three", async () => {
    expect((await t.bearer(bearer, "DELETE", "/2/posts/1")).body.detail).toBe(
      wording("OAuth 2.0 Application-Only", "OAuth 1.0a User Context, OAuth 2.0 User Context"),
    );
    const pkce = await t.pkce(alice.app, alice.user, ["post.read", "users.read"]);
    for (const res of [
      await t.signed(alice, "GET", "/2/posts/1"),
      await t.bearer(bearer, "GET", "/2/posts/1"),
      await t.bearer(pkce.access_token, "GET", "/2/posts/1"),
    ]) {
      expect(res.status).toBe(200);
    }
  });

  it("a PKCE token without the group's scopes is refused, naming what is missing", async () => {
    const pkce = await t.pkce(alice.app, alice.user, ["post.read", "users.read"]);
    const res = await t.bearer(pkce.access_token, "DELETE", "/2/posts/1");
    expect(res.status).toBe(403);
    expect(res.body.missing_scopes).toEqual(["post.write"]);
    const writer = await t.pkce(alice.app, alice.user, ["post.read", "users.read", "post.write"]);
    expect((await t.bearer(writer.access_token, "DELETE", "/2/posts/1")).status).toBe(200);
  });

  it("every endpoint of the catalog is routed (a request reaches authentication)", async () => {
    for (const e of ENDPOINTS) {
      const path = e.path.replace(/:(\w+)/g, "123");
      const res = await t.raw(e.method, path);
      expect(res.status, e.key).toBe(401);
    }
  });
});
