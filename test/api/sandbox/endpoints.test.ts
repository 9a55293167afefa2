/**
 * Every endpoint method of the client, at least once, against the sandbox in-process. Every
 * route handler is wrapped to record what the platform received (after the sandbox's own
 * authentication, method, scope and plan checks), and each call checks that the client sent
 * the expected authentication method, path parameters, query and body; where the sandbox has
 * a handler, the test checks the real answer too, and where it has none yet, the probe
 * echoes the request. The last test proves that every endpoint of the spec was called and
 * answered 2xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCache } from "../../../src/api/auth/bearer.ts";
import { createPkceChallenge, exchangePkceCode, pkceAuthorizeUrl, PkceSession } from "../../../src/api/auth/pkce.ts";
import { createClient, type ApiClient } from "../../../src/api/client.ts";
import { ALL_SCOPES, ENDPOINTS, type AuthMethod, type EndpointKey } from "../../../src/api/endpoints.ts";
import type { AppView } from "../../../src/sandbox/index.ts";
import { routes } from "../../../src/sandbox/routes/index.ts";
import { approveInBrowser } from "../../helpers/browser.ts";
import type { RouteRequest } from "../../../src/sandbox/route.ts";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

const CALLBACK = "http://127.0.0.1:9/cb";
let t: TestSandbox;
let app: AppView;
let alice: { id: string; username: string };
let bob: { id: string; username: string };
let carol: { id: string; username: string };
/** alice's OAuth 1.0a client (also app-only through the app's keys). */
let user: ApiClient;
/** alice's PKCE client, with every scope. */
let pkce: ApiClient;
/** A client of an app with Academic Research access (full-archive endpoints). */
let academic: ApiClient;
const echoed = new Set<EndpointKey>();
/** What the sandbox received for each endpoint, the last time it was called. */
const received = new Map<
  EndpointKey,
  { method: AuthMethod; params: Record<string, string>; query: Record<string, string>; body: unknown }
>();
const restore: Array<() => void> = [];
const ids: Record<string, string> = {};

async function pkceSession(): Promise<PkceSession> {
  const { verifier, challenge } = createPkceChallenge();
  const url = pkceAuthorizeUrl(t.url, {
    clientId: app.client_id,
    redirectUri: CALLBACK,
    scopes: ALL_SCOPES,
    state: "s",
    challenge,
  });
  const done = await approveInBrowser(url, "alice");
  const code = new URL(done.headers.get("location")!).searchParams.get("code")!;
  const tokens = await exchangePkceCode(t.url, {
    clientId: app.client_id,
    code,
    redirectUri: CALLBACK,
    verifier,
    clock: t.clock,
  });
  return new PkceSession({ service: t.url, clientId: app.client_id, tokens, clock: t.clock });
}

beforeAll(async () => {
  bearerCache.clear();
  t = await startSandbox();
  app = await t.admin.createApp({ plan: "pro", callback_urls: [CALLBACK] });
  alice = await createUser(t.sandbox, "alice");
  bob = await createUser(t.sandbox, "bob");
  carol = await createUser(t.sandbox, "carol");
  const token = await t.admin.createToken({ consumer_key: app.consumer_key, user_id: alice.id });
  const consumer = { key: app.consumer_key, secret: app.consumer_secret };
  user = createClient({
    baseUrl: t.url,
    clock: t.clock,
    auth: { consumer, user: { token: token.token, secret: token.token_secret } },
  });
  pkce = user.withAuth({ pkce: await pkceSession() });
  const acad = await t.admin.createApp({ plan: "pro", academic: true });
  academic = user.withAuth({ consumer: { key: acad.consumer_key, secret: acad.consumer_secret } });
  for (const e of ENDPOINTS) {
    const handler = routes[e.key] ?? echoHandler;
    if (!routes[e.key]) echoed.add(e.key);
    restore.push(
      installHandler(e.key, (req: RouteRequest) => {
        received.set(e.key, {
          method: req.caller.method,
          params: { ...req.params },
          query: Object.fromEntries(req.query),
          body: req.body,
        });
        return handler(req);
      }),
    );
  }
  ids.mention = (await t.admin.createPost({ author_id: bob.id, text: "@alice hello, do you like cats?" })).id;
  ids.bobPost = (await t.admin.createPost({ author_id: bob.id, text: "bob talks about cats" })).id;
});
afterAll(async () => {
  restore.forEach((r) => r());
  await user.close();
  await t.close();
});

interface Sent {
  method: AuthMethod;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * Calls one endpoint method and checks what the sandbox received: the authentication method,
 * the path parameters (none when `sent` gives none), the query (at least what `sent` names)
 * and the body (none when `sent` gives none). Then runs the real checks, when the sandbox
 * has a handler for the endpoint.
 */
async function call(key: EndpointKey, run: () => Promise<any>, sent: Sent, real?: (res: any) => void | Promise<void>) {
  received.delete(key);
  const res = await run();
  const got = received.get(key);
  expect(got, `${key} never reached its handler`).toBeDefined();
  expect(got!.method).toBe(sent.method);
  expect(got!.params).toEqual(sent.params ?? {});
  expect(got!.query).toMatchObject(sent.query ?? {});
  expect(got!.body).toEqual("body" in sent ? sent.body : undefined);
  if (echoed.has(key)) expect(res.data).toMatchObject({ method: sent.method, params: sent.params ?? {} });
  else if (real) await real(res);
  return res;
}

describe("posts", () => {
  it("creates a post, and a reply", async () => {
    await call(
      "POST /2/posts",
      () => user.posts.create({ text: "alice's first post about cats" }),
      { method: "oauth1", body: { text: "alice's first post about cats" } },
      (r) => {
        expect(r.data).toMatchObject({ id: expect.stringMatching(/^\d+$/), text: "alice's first post about cats" });
        ids.root = r.data.id;
      },
    );
    const reply = await user.posts.create({ text: "@bob yes!", reply: { in_reply_to_post_id: ids.mention! } });
    ids.reply = reply.data!.id;
  });
  it("looks up one post with expansions", () =>
    call(
      "GET /2/posts/:id",
      () => user.posts.lookup(ids.mention!, { expansions: ["author_id"], "post.fields": ["author_id"] }),
      {
        method: "oauth1",
        params: { id: ids.mention! },
        query: { expansions: "author_id", "post.fields": "author_id" },
      },
      (r) => {
        expect(r.data).toMatchObject({ id: ids.mention, author_id: bob.id });
        expect(r.includes.users[0]).toMatchObject({ id: bob.id, username: "bob" });
      },
    ));
  it("looks up many posts, with partial errors for missing ones", () =>
    call(
      "GET /2/posts",
      () => user.posts.lookupMany([ids.mention!, "1"]),
      { method: "oauth1", query: { ids: `${ids.mention},1` } },
      (r) => {
        expect(r.data.map((p: { id: string }) => p.id)).toEqual([ids.mention]);
        expect(r.errors[0]).toMatchObject({ resource_id: "1", detail: "Could not find post with ids: [1]." });
      },
    ));
  it("deletes a post", async () => {
    const p = await user.posts.create({ text: "to be deleted" });
    await call(
      "DELETE /2/posts/:id",
      () => user.posts.delete(p.data!.id),
      { method: "oauth1", params: { id: p.data!.id } },
      (r) => expect(r.data).toEqual({ deleted: true }),
    );
  });
  it("hides a reply in the caller's conversation", async () => {
    const rude = await t.admin.createPost({ author_id: bob.id, text: "rude reply", in_reply_to_post_id: ids.root! });
    await call(
      "PUT /2/posts/:id/hidden",
      () => user.posts.hideReply(rude.id),
      { method: "oauth1", params: { id: rude.id }, body: { hidden: true } },
      (r) => expect(r.data).toEqual({ hidden: true }),
    );
  });
  it("quotes a post and lists its quotes", async () => {
    await user.posts.create({ text: "look at this", quote_post_id: ids.bobPost! });
    await call(
      "GET /2/posts/:id/quote_posts",
      () => user.posts.quotePosts(ids.bobPost!),
      { method: "oauth1", params: { id: ids.bobPost! } },
      (r) => expect(r.data.map((p: { text: string }) => p.text)).toContain("look at this"),
    );
  });
});

describe("likes, reposts, bookmarks", () => {
  it("likes, lists likers and liked posts, unlikes", async () => {
    await call(
      "POST /2/users/:id/likes",
      () => user.likes.like(alice.id, ids.bobPost!),
      { method: "oauth1", params: { id: alice.id }, body: { post_id: ids.bobPost } },
      (r) => expect(r.data).toEqual({ liked: true }),
    );
    await call(
      "GET /2/posts/:id/liking_users",
      () => user.posts.likingUsers(ids.bobPost!),
      { method: "oauth1", params: { id: ids.bobPost! } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([alice.id]),
    );
    await call(
      "GET /2/users/:id/liked_posts",
      () => user.likes.likedPosts(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toEqual([ids.bobPost]),
    );
    await call(
      "DELETE /2/users/:id/likes/:post_id",
      () => user.likes.unlike(alice.id, ids.bobPost!),
      { method: "oauth1", params: { id: alice.id, post_id: ids.bobPost! } },
      (r) => expect(r.data).toEqual({ liked: false }),
    );
  });
  it("reposts, lists reposters, unreposts", async () => {
    await call(
      "POST /2/users/:id/reposts",
      () => user.reposts.repost(alice.id, ids.bobPost!),
      { method: "oauth1", params: { id: alice.id }, body: { post_id: ids.bobPost } },
      (r) => expect(r.data).toMatchObject({ reposted: true }),
    );
    await call(
      "GET /2/posts/:id/reposted_by",
      () => user.posts.repostedBy(ids.bobPost!),
      { method: "oauth1", params: { id: ids.bobPost! } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([alice.id]),
    );
    await call(
      "DELETE /2/users/:id/reposts/:source_post_id",
      () => user.reposts.unrepost(alice.id, ids.bobPost!),
      { method: "oauth1", params: { id: alice.id, source_post_id: ids.bobPost! } },
      (r) => expect(r.data).toEqual({ reposted: false }),
    );
  });
  it("reposts of me", async () => {
    await t.sandbox.admin.createPost({ author_id: bob.id, text: "placeholder" });
    await call("GET /2/users/reposts_of_me", () => user.users.repostsOfMe({ max_results: 10 }), {
      method: "oauth1",
      query: { max_results: "10" },
    });
  });
  it("bookmarks with PKCE, in both path forms", async () => {
    await call(
      "POST /2/users/:id/bookmarks",
      () => pkce.bookmarks.add(alice.id, ids.bobPost!),
      { method: "pkce", params: { id: alice.id }, body: { post_id: ids.bobPost } },
      (r) => expect(r.data).toEqual({ bookmarked: true }),
    );
    await call(
      "GET /2/users/:id/bookmarks",
      () => pkce.bookmarks.list(alice.id),
      { method: "pkce", params: { id: alice.id } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toEqual([ids.bobPost]),
    );
    await call(
      "POST /2/posts/:id/bookmarks",
      () => pkce.bookmarks.addByPostsPath(alice.id, ids.mention!),
      { method: "pkce", params: { id: alice.id }, body: { post_id: ids.mention } },
      (r) => expect(r.data).toEqual({ bookmarked: true }),
    );
    await call(
      "GET /2/posts/:id/bookmarks",
      () => pkce.bookmarks.listByPostsPath(alice.id),
      { method: "pkce", params: { id: alice.id } },
      (r) => expect(r.data.map((p: { id: string }) => p.id).sort()).toEqual([ids.bobPost, ids.mention].sort()),
    );
    const folder = (
      await t.adminCall("POST", "/_sandbox/bookmark_folders", {
        user_id: alice.id,
        name: "Cats",
        post_ids: [ids.bobPost],
      })
    ).body.id as string;
    await call(
      "GET /2/users/:id/bookmarks/folders",
      () => pkce.bookmarks.folders(alice.id),
      { method: "pkce", params: { id: alice.id } },
      (r) => expect(r.data).toEqual([{ id: folder, name: "Cats" }]),
    );
    await call(
      "GET /2/users/:id/bookmarks/folders/:folder_id",
      () => pkce.bookmarks.folder(alice.id, folder),
      { method: "pkce", params: { id: alice.id, folder_id: folder } },
      (r) => expect(r.data).toEqual([{ id: ids.bobPost }]),
    );
    await call(
      "DELETE /2/users/:id/bookmarks/:post_id",
      () => pkce.bookmarks.remove(alice.id, ids.bobPost!),
      { method: "pkce", params: { id: alice.id, post_id: ids.bobPost! } },
      (r) => expect(r.data).toEqual({ bookmarked: false }),
    );
  });
});

describe("users, follows, mutes, blocks, timelines", () => {
  it("looks users up every way", async () => {
    await call(
      "GET /2/users/:id",
      () => user.users.lookup(bob.id),
      { method: "oauth1", params: { id: bob.id } },
      (r) => expect(r.data).toEqual({ id: bob.id, name: "bob", username: "bob" }),
    );
    await call(
      "GET /2/users",
      () => user.users.lookupMany([bob.id, carol.id]),
      { method: "oauth1", query: { ids: `${bob.id},${carol.id}` } },
      (r) => expect(r.data).toHaveLength(2),
    );
    await call(
      "GET /2/users/by/username/:username",
      () => user.users.byUsername("carol"),
      { method: "oauth1", params: { username: "carol" } },
      (r) => expect(r.data.id).toBe(carol.id),
    );
    await call(
      "GET /2/users/by",
      () => user.users.byUsernames(["bob", "carol"]),
      { method: "oauth1", query: { usernames: "bob,carol" } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([bob.id, carol.id]),
    );
    await call(
      "GET /2/users/me",
      () => user.users.me(),
      { method: "oauth1" },
      (r) => expect(r.data.id).toBe(alice.id),
    );
    await call(
      "GET /2/users/search",
      () => user.users.search({ query: "carol" }),
      { method: "oauth1", query: { query: "carol" } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toContain(carol.id),
    );
  });
  it("follows and unfollows, lists following and followers", async () => {
    await call(
      "POST /2/users/:id/following",
      () => user.users.follow(alice.id, bob.id),
      { method: "oauth1", params: { id: alice.id }, body: { target_user_id: bob.id } },
      (r) => expect(r.data).toMatchObject({ following: true }),
    );
    await call(
      "GET /2/users/:id/following",
      () => user.users.following(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([bob.id]),
    );
    await call(
      "GET /2/users/:id/followers",
      () => user.users.followers(bob.id),
      { method: "oauth1", params: { id: bob.id } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([alice.id]),
    );
    await call(
      "GET /2/users/:id/timelines/reverse_chronological",
      () => user.users.homeTimeline(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toContain(ids.bobPost),
    );
    await call(
      "DELETE /2/users/:source_user_id/following/:target_user_id",
      () => user.users.unfollow(alice.id, bob.id),
      { method: "oauth1", params: { source_user_id: alice.id, target_user_id: bob.id } },
      (r) => expect(r.data).toEqual({ following: false }),
    );
  });
  it("mutes, lists mutes, unmutes; lists blocks", async () => {
    await call(
      "POST /2/users/:id/muting",
      () => user.users.mute(alice.id, carol.id),
      { method: "oauth1", params: { id: alice.id }, body: { target_user_id: carol.id } },
      (r) => expect(r.data).toEqual({ muting: true }),
    );
    await call(
      "GET /2/users/:id/muting",
      () => user.users.muting(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([carol.id]),
    );
    await call(
      "DELETE /2/users/:source_user_id/muting/:target_user_id",
      () => user.users.unmute(alice.id, carol.id),
      { method: "oauth1", params: { source_user_id: alice.id, target_user_id: carol.id } },
      (r) => expect(r.data).toEqual({ muting: false }),
    );
    await call(
      "GET /2/users/:id/blocking",
      () => user.users.blocking(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.meta.result_count).toBe(0),
    );
  });
  it("reads the user's posts and mentions", async () => {
    await call(
      "GET /2/users/:id/posts",
      () => user.users.posts(alice.id, { max_results: 5 }),
      { method: "oauth1", params: { id: alice.id }, query: { max_results: "5" } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toContain(ids.root),
    );
    await call(
      "GET /2/users/:id/mentions",
      () => user.users.mentions(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toContain(ids.mention),
    );
  });
  it("personalized trends", () =>
    call(
      "GET /2/users/personalized_trends",
      () => user.trends.personalized(),
      { method: "oauth1" },
      (r) => expect(r.data.map((x: { trend_name: string }) => x.trend_name)).toContain("cats"),
    ));
});

describe("search and counts", () => {
  it("recent search and counts use the user context or the app", async () => {
    await call(
      "GET /2/posts/search/recent",
      () => user.search.recent({ query: "cats -is:reply" }),
      { method: "oauth1", query: { query: "cats -is:reply" } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([ids.bobPost, ids.root])),
    );
    await call(
      "GET /2/posts/counts/recent",
      () => user.search.countsRecent({ query: "cats", granularity: "day" }),
      { method: "app", query: { query: "cats", granularity: "day" } },
      (r) => expect(r.meta.total_post_count).toBeGreaterThanOrEqual(3),
    );
  });
  it("full-archive search and counts with an Academic app", async () => {
    await call(
      "GET /2/posts/search/all",
      () => academic.search.all({ query: "cats" }),
      { method: "app", query: { query: "cats" } },
      (r) => expect(r.data.length).toBeGreaterThanOrEqual(3),
    );
    await call(
      "GET /2/posts/counts/all",
      () => academic.search.countsAll({ query: "cats" }),
      { method: "app", query: { query: "cats" } },
      (r) => expect(r.meta.total_post_count).toBeGreaterThanOrEqual(3),
    );
  });
});

describe("streams and rules", () => {
  it("adds, lists and deletes rules", async () => {
    const added = await call(
      "POST /2/posts/search/stream/rules",
      () => user.streams.addRules([{ value: "cats", tag: "c" }]),
      { method: "app", body: { add: [{ value: "cats", tag: "c" }] } },
      (r) => expect(r.meta.summary).toMatchObject({ created: 1 }),
    );
    await call(
      "GET /2/posts/search/stream/rules",
      () => user.streams.rules(),
      { method: "app" },
      (r) => expect(r.data.map((x: { value: string }) => x.value)).toEqual(["cats"]),
    );
    if (!echoed.has("POST /2/posts/search/stream/rules")) {
      const del = await user.streams.deleteRules({ ids: [added.data[0].id] });
      expect(del.meta?.summary).toMatchObject({ deleted: 1 });
    }
  });
  it("connects to both streams", async () => {
    for (const s of [user.streams.filtered(), user.streams.sample()]) {
      const it = s[Symbol.asyncIterator]();
      expect((await it.next()).value).toEqual({ type: "connected", attempt: 1 });
      s.close();
      expect((await it.next()).done).toBe(true);
    }
  });
});

describe("direct messages", () => {
  it("sends, reads and deletes", async () => {
    const sent = await call(
      "POST /2/dm_conversations/with/:participant_id/messages",
      () => user.dms.sendTo(bob.id, { text: "hi bob" }),
      { method: "oauth1", params: { participant_id: bob.id }, body: { text: "hi bob" } },
      (r) => expect(r.data).toEqual({ dm_conversation_id: expect.any(String), dm_event_id: expect.any(String) }),
    );
    const conv = sent.data.dm_conversation_id ?? "1-2";
    const event = sent.data.dm_event_id ?? "3";
    await call("POST /2/dm_conversations/:dm_conversation_id/messages", () => user.dms.send(conv, { text: "again" }), {
      method: "oauth1",
      params: { dm_conversation_id: conv },
      body: { text: "again" },
    });
    await call("POST /2/dm_conversations", () => user.dms.createGroup([bob.id, carol.id], { text: "group hi" }), {
      method: "oauth1",
      body: { conversation_type: "Group", participant_ids: [bob.id, carol.id], message: { text: "group hi" } },
    });
    await call(
      "GET /2/dm_events",
      () => user.dms.events(),
      { method: "oauth1" },
      (r) =>
        expect(r.data.map((e: { text: string }) => e.text)).toEqual(
          expect.arrayContaining(["hi bob", "again", "group hi"]),
        ),
    );
    await call(
      "GET /2/dm_events/:id",
      () => user.dms.event(event),
      { method: "oauth1", params: { id: event } },
      (r) => expect(r.data).toMatchObject({ id: event, text: "hi bob" }),
    );
    await call(
      "GET /2/dm_conversations/:dm_conversation_id/dm_events",
      () => user.dms.conversationEvents(conv),
      { method: "oauth1", params: { dm_conversation_id: conv } },
      (r) => expect(r.data).toHaveLength(2),
    );
    await call(
      "GET /2/dm_conversations/with/:participant_id/dm_events",
      () => user.dms.eventsWith(bob.id),
      { method: "oauth1", params: { participant_id: bob.id } },
      (r) => expect(r.data).toHaveLength(2),
    );
    await call(
      "DELETE /2/dm_events/:id",
      () => user.dms.deleteEvent(event),
      { method: "oauth1", params: { id: event } },
      (r) => expect(r.data).toEqual({ deleted: true }),
    );
  });
});

describe("spaces", () => {
  it("every spaces endpoint (app-only, or PKCE for buyers)", async () => {
    const made = await t.adminCall("POST", "/_sandbox/spaces", {
      creator_id: alice.id,
      title: "Cats live",
      is_ticketed: true,
      buyer_ids: [bob.id],
    });
    const space = made.body.id as string;
    const shared = await t.admin.createPost({ author_id: bob.id, text: `tune in https://x.com/i/spaces/${space}` });
    await call(
      "GET /2/spaces/:id",
      () => user.spaces.lookup(space),
      { method: "app", params: { id: space } },
      (r) => expect(r.data).toEqual({ id: space, state: "live" }),
    );
    await call(
      "GET /2/spaces",
      () => user.spaces.lookupMany([space, "1nAJELYEEPvGL"]),
      { method: "app", query: { ids: `${space},1nAJELYEEPvGL` } },
      (r) => {
        expect(r.data.map((x: { id: string }) => x.id)).toEqual([space]);
        expect(r.errors[0]).toMatchObject({ resource_type: "space", resource_id: "1nAJELYEEPvGL" });
      },
    );
    await call(
      "GET /2/spaces/by/creator_ids",
      () => user.spaces.byCreators([alice.id]),
      { method: "app", query: { user_ids: alice.id } },
      (r) => expect(r.data.map((x: { id: string }) => x.id)).toEqual([space]),
    );
    await call(
      "GET /2/spaces/:id/buyers",
      () => pkce.spaces.buyers(space),
      { method: "pkce", params: { id: space } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([bob.id]),
    );
    await call(
      "GET /2/spaces/:id/posts",
      () => user.spaces.posts(space),
      { method: "app", params: { id: space } },
      (r) => expect(r.data.map((p: { id: string }) => p.id)).toEqual([shared.id]),
    );
    await call(
      "GET /2/spaces/search",
      () => user.spaces.search({ query: "cats", state: "live" }),
      { method: "app", query: { query: "cats", state: "live" } },
      (r) => expect(r.data.map((x: { id: string }) => x.id)).toEqual([space]),
    );
  });
});

describe("lists", () => {
  it("every lists endpoint", async () => {
    const made = await call(
      "POST /2/lists",
      () => user.lists.create({ name: "cat people", private: false }),
      { method: "oauth1", body: { name: "cat people", private: false } },
      (r) => expect(r.data).toMatchObject({ name: "cat people" }),
    );
    const list = echoed.has("POST /2/lists") ? "1444" : made.data.id;
    await call(
      "GET /2/lists/:id",
      () => user.lists.lookup(list, { "list.fields": ["owner_id"] }),
      { method: "oauth1", params: { id: list }, query: { "list.fields": "owner_id" } },
      (r) => expect(r.data).toEqual({ id: list, name: "cat people", owner_id: alice.id }),
    );
    await call("PUT /2/lists/:id", () => user.lists.update(list, { description: "people who like cats" }), {
      method: "oauth1",
      params: { id: list },
      body: { description: "people who like cats" },
    });
    await call("POST /2/lists/:id/members", () => user.lists.addMember(list, bob.id), {
      method: "oauth1",
      params: { id: list },
      body: { user_id: bob.id },
    });
    await call(
      "GET /2/lists/:id/members",
      () => user.lists.members(list),
      { method: "oauth1", params: { id: list } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([bob.id]),
    );
    await call(
      "GET /2/lists/:id/posts",
      () => user.lists.posts(list),
      { method: "oauth1", params: { id: list } },
      (r) =>
        expect(r.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([ids.bobPost, ids.mention])),
    );
    await call(
      "GET /2/users/:id/list_memberships",
      () => user.lists.memberships(bob.id),
      { method: "oauth1", params: { id: bob.id } },
      (r) => expect(r.data.map((l: { id: string }) => l.id)).toEqual([list]),
    );
    await call("DELETE /2/lists/:id/members/:user_id", () => user.lists.removeMember(list, bob.id), {
      method: "oauth1",
      params: { id: list, user_id: bob.id },
    });
    await call("GET /2/users/:id/owned_lists", () => user.lists.owned(alice.id), {
      method: "oauth1",
      params: { id: alice.id },
    });
    await call("POST /2/users/:id/followed_lists", () => user.lists.follow(alice.id, list), {
      method: "oauth1",
      params: { id: alice.id },
      body: { list_id: list },
    });
    await call(
      "GET /2/lists/:id/followers",
      () => user.lists.followers(list),
      { method: "oauth1", params: { id: list } },
      (r) => expect(r.data.map((u: { id: string }) => u.id)).toEqual([alice.id]),
    );
    await call(
      "GET /2/users/:id/followed_lists",
      () => user.lists.followed(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((l: { id: string }) => l.id)).toEqual([list]),
    );
    await call("DELETE /2/users/:id/followed_lists/:list_id", () => user.lists.unfollow(alice.id, list), {
      method: "oauth1",
      params: { id: alice.id, list_id: list },
    });
    await call("POST /2/users/:id/pinned_lists", () => user.lists.pin(alice.id, list), {
      method: "oauth1",
      params: { id: alice.id },
      body: { list_id: list },
    });
    await call(
      "GET /2/users/:id/pinned_lists",
      () => user.lists.pinned(alice.id),
      { method: "oauth1", params: { id: alice.id } },
      (r) => expect(r.data.map((l: { id: string }) => l.id)).toEqual([list]),
    );
    await call("DELETE /2/users/:id/pinned_lists/:list_id", () => user.lists.unpin(alice.id, list), {
      method: "oauth1",
      params: { id: alice.id, list_id: list },
    });
    await call("DELETE /2/lists/:id", () => user.lists.delete(list), { method: "oauth1", params: { id: list } });
  });
});

describe("compliance, trends, communities, usage", () => {
  it("every one of them", async () => {
    const job = await call(
      "POST /2/compliance/jobs",
      () => user.compliance.createJob({ type: "posts", name: "nightly" }),
      { method: "app", body: { type: "posts", name: "nightly" } },
      (r) =>
        expect(r.data).toMatchObject({
          type: "posts",
          name: "nightly",
          status: "created",
          upload_url: expect.stringContaining(t.url),
        }),
    );
    // The pre-signed URLs take no credentials, as the real ones.
    const upload = await fetch(job.data.upload_url, {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: `${ids.bobPost}\n`,
    });
    expect(upload.status).toBe(200);
    await t.clock.advance(5000);
    await call(
      "GET /2/compliance/jobs/:job_id",
      () => user.compliance.job(job.data.id),
      { method: "app", params: { job_id: job.data.id } },
      (r) => expect(r.data).toMatchObject({ id: job.data.id, status: "complete" }),
    );
    await call(
      "GET /2/compliance/jobs",
      () => user.compliance.jobs({ type: "posts", status: "complete" }),
      { method: "app", query: { type: "posts", status: "complete" } },
      (r) => expect(r.data.map((j: { id: string }) => j.id)).toEqual([job.data.id]),
    );
    expect(await (await fetch(job.data.download_url)).text()).toBe("");
    await call(
      "GET /2/trends/by/woeid/:id",
      () => user.trends.byLocation(1, { max_trends: 5 }),
      { method: "app", params: { id: "1" }, query: { max_trends: "5" } },
      (r) => expect(r.data.map((x: { trend_name: string }) => x.trend_name)).toContain("cats"),
    );
    const community = (
      await t.adminCall("POST", "/_sandbox/communities", { name: "Cat people", description: "All about cats" })
    ).body.id as string;
    await call(
      "GET /2/communities/:id",
      () => user.communities.lookup(community),
      { method: "oauth1", params: { id: community } },
      (r) => expect(r.data).toEqual({ id: community, name: "Cat people" }),
    );
    await call(
      "GET /2/communities/search",
      () => user.communities.search({ query: "cats" }),
      { method: "oauth1", query: { query: "cats" } },
      (r) => expect(r.data.map((c: { id: string }) => c.id)).toEqual([community]),
    );
    await call(
      "GET /2/usage/posts",
      () => user.usage.posts({ days: 7 }),
      { method: "app", query: { days: "7" } },
      (r) => {
        expect(r.data).toMatchObject({ project_id: app.id, cap_reset_day: new Date(t.clock.now()).getUTCDate() });
        expect(Number(r.data.project_usage)).toBeGreaterThanOrEqual(2);
      },
    );
  });
});

describe("coverage", () => {
  it("called every endpoint of the spec, and each answered 2xx", async () => {
    const routesSeen = (await t.admin.stats()).routes as Record<string, Record<string, number>>;
    const missing = ENDPOINTS.filter((e) => !Object.keys(routesSeen[e.key] ?? {}).some((s) => s.startsWith("2"))).map(
      (e) => e.key,
    );
    expect(missing).toEqual([]);
    expect([...echoed], "endpoints answered by the probe instead of a sandbox handler").toEqual([]);
  });
});
