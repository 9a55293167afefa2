/**
 * The sandbox as a widely used third-party client sees it: `twitter-api-v2` (npm), pointed at
 * the sandbox with only its host and the spec's renames rewritten (see
 * `twitter-api-v2-rewrite.ts`), drives the three sign-in methods, posts, engagement, paging,
 * search, lists, DMs, the filtered stream and the errors a user handles. Every call asserts
 * what the client hands its user: parsed objects, paginator contents, error fields.
 *
 * The sandbox runs in-process on port 0 with a frozen clock. The client signs OAuth 1.0a with
 * the machine's time, so the frozen clock starts at the real time (the sandbox accepts 5
 * minutes of skew, far more than this file takes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiResponseError,
  ETwitterStreamEvent,
  TwitterApi,
  type TweetStream,
  type TweetV2SingleStreamResult,
} from "twitter-api-v2";
import { createClock } from "../../src/clock.ts";
import type { AppView } from "../../src/sandbox/index.ts";
import { approveInBrowser } from "../helpers/browser.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";
import { sandboxRewrite, toClientNames, toSandboxUrl } from "./twitter-api-v2-rewrite.ts";

const CALLBACK = "https://example.com/cb";
let t: TestSandbox;
let app: AppView;
let rewrite: ReturnType<typeof sandboxRewrite>;
let alice: Account;
let bob: Account;
/** Alice's client (OAuth 1.0a user context) and Bob's. */
let aliceClient: TwitterApi;
let bobClient: TwitterApi;
/** The app's client after `appLogin` (OAuth 2.0 app-only bearer). */
let appClient: TwitterApi;

const settings = () => ({ plugins: rewrite.plugins, httpAgent: rewrite.httpAgent });
const userClient = (a: Account) =>
  new TwitterApi(
    { appKey: a.consumer_key, appSecret: a.consumer_secret, accessToken: a.token, accessSecret: a.token_secret },
    settings(),
  );

/** The call's rejection, which must be the library's ApiResponseError. */
async function apiError(call: Promise<unknown>): Promise<ApiResponseError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiResponseError);
  return err as ApiResponseError;
}

beforeAll(async () => {
  t = await startSandbox({ clock: createClock({ frozen: true, start: Math.floor(Date.now() / 1000) * 1000 }) });
  rewrite = sandboxRewrite(t.url);
  app = await t.admin.createApp({ plan: "pro", callback_urls: [CALLBACK] });
  alice = await t.account({ username: "alice", app });
  bob = await t.account({ username: "bob", app });
  aliceClient = userClient(alice);
  bobClient = userClient(bob);
  appClient = await new TwitterApi({ appKey: app.consumer_key, appSecret: app.consumer_secret }, settings()).appLogin();
});
afterAll(async () => {
  rewrite?.httpAgent.destroy();
  await t?.close();
});

describe("twitter-api-v2 against the sandbox", () => {
  it("OAuth 1.0a user context: me, posting, replies, lookups with expansions, likes, reposts, quotes, deletes", async () => {
    const me = await aliceClient.v2.me({ "user.fields": ["created_at", "public_metrics"] });
    expect(me.data).toMatchObject({
      id: alice.user.id,
      username: "alice",
      name: "alice",
      created_at: expect.any(String),
    });
    expect(me.data.public_metrics).toMatchObject({ followers_count: 0, following_count: 0, tweet_count: 0 });

    const posted = await aliceClient.v2.tweet("hello from a real client");
    expect(posted.data).toEqual({
      id: expect.stringMatching(/^\d+$/),
      text: "hello from a real client",
      edit_history_tweet_ids: [posted.data.id],
    });

    const reply = await bobClient.v2.reply("nice one", posted.data.id);
    const quote = await bobClient.v2.quote("look at this", posted.data.id);
    const one = await aliceClient.v2.singleTweet(reply.data.id, {
      expansions: ["author_id", "referenced_tweets.id"],
      "tweet.fields": ["author_id", "conversation_id", "in_reply_to_user_id", "referenced_tweets", "public_metrics"],
    });
    expect(one.data).toMatchObject({
      id: reply.data.id,
      author_id: bob.user.id,
      conversation_id: posted.data.id,
      in_reply_to_user_id: alice.user.id,
      referenced_tweets: [{ type: "replied_to", id: posted.data.id }],
    });
    expect(one.includes?.users?.map((u) => u.username)).toEqual(["bob"]);
    expect(one.includes?.tweets?.map((p) => p.id)).toEqual([posted.data.id]);

    const liked = await bobClient.v2.like(bob.user.id, posted.data.id);
    expect(liked.data).toEqual({ liked: true });
    const reposted = await bobClient.v2.retweet(bob.user.id, posted.data.id);
    // The spec also allows the new repost's id beside `retweeted`.
    expect(reposted.data).toEqual({ id: expect.stringMatching(/^\d+$/), retweeted: true });

    const both = await aliceClient.v2.tweets([posted.data.id, quote.data.id], { "tweet.fields": ["public_metrics"] });
    expect(both.data.map((p) => p.id)).toEqual([posted.data.id, quote.data.id]);
    expect(both.data[0]!.public_metrics).toEqual({
      retweet_count: 1,
      reply_count: 1,
      like_count: 1,
      quote_count: 1,
      bookmark_count: 0,
      impression_count: 0,
    });

    const likers = await aliceClient.v2.tweetLikedBy(posted.data.id);
    expect(likers.data.map((u) => u.username)).toEqual(["bob"]);
    const reposters = await aliceClient.v2.tweetRetweetedBy(posted.data.id);
    expect(reposters.data.map((u) => u.username)).toEqual(["bob"]);
    const quotes = await aliceClient.v2.quotes(posted.data.id);
    expect(quotes.tweets.map((p) => p.id)).toEqual([quote.data.id]);
    expect(quotes.meta.result_count).toBe(1);

    expect((await bobClient.v2.unretweet(bob.user.id, posted.data.id)).data).toEqual({ retweeted: false });
    expect((await bobClient.v2.unlike(bob.user.id, posted.data.id)).data).toEqual({ liked: false });
    expect((await bobClient.v2.deleteTweet(quote.data.id)).data).toEqual({ deleted: true });
  });

  it("pages through timelines, followers and mentions with the library's paginators", async () => {
    const carol = await t.account({ username: "carol", app });
    const carolClient = userClient(carol);
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await carolClient.v2.tweet(`carol's post number ${i}`)).data.id);

    const timeline = await aliceClient.v2.userTimeline(carol.user.id, { max_results: 5 });
    expect(timeline.tweets.map((p) => p.id)).toEqual(made.slice(-5).reverse());
    expect(timeline.meta).toMatchObject({
      result_count: 5,
      newest_id: made[11],
      oldest_id: made[7],
      next_token: expect.any(String),
    });
    await timeline.fetchLast(10);
    expect(timeline.tweets.map((p) => p.id)).toEqual([...made].reverse());
    expect(timeline.done).toBe(true);

    await aliceClient.v2
      .follow(alice.user.id, carol.user.id)
      .then((r) => expect(r.data).toEqual({ following: true, pending_follow: false }));
    await bobClient.v2.follow(bob.user.id, carol.user.id);
    const followers = await aliceClient.v2.followers(carol.user.id, { max_results: 1, asPaginator: true });
    expect(followers.users.map((u) => u.username)).toHaveLength(1);
    await followers.fetchNext();
    expect(followers.users.map((u) => u.username).sort()).toEqual(["alice", "bob"]);
    const following = await aliceClient.v2.following(alice.user.id);
    expect(following.data.map((u) => u.username)).toEqual(["carol"]);

    const mention = await bobClient.v2.tweet("hey @carol, good morning");
    const mentions = await carolClient.v2.userMentionTimeline(carol.user.id, { expansions: ["author_id"] });
    expect(mentions.tweets.map((p) => p.id)).toEqual([mention.data.id]);
    expect(mentions.includes.users.map((u) => u.username)).toEqual(["bob"]);
    expect(mentions.includes.author(mentions.tweets[0]!)?.username).toBe("bob");
  });

  it("app-only bearer: recent search with paging, user lookups and counts", async () => {
    const dave = await t.account({ username: "dave", app });
    const daveClient = userClient(dave);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await daveClient.v2.tweet(`gardening tip ${i}: water the tulips`)).data.id);

    const search = await appClient.v2.search("gardening", { max_results: 10, expansions: ["author_id"] });
    expect(search.tweets.map((p) => p.id)).toEqual([...made].reverse().slice(0, 7));
    expect(search.includes.users.map((u) => u.username)).toEqual(["dave"]);
    const paged = await appClient.v2.search("gardening", { max_results: 10 });
    expect(paged.meta.result_count).toBe(7);

    const small = await appClient.v2.search("tulips", { max_results: 10 });
    expect(small.done).toBe(true);

    expect((await appClient.v2.userByUsername("dave")).data).toMatchObject({ id: dave.user.id, username: "dave" });
    expect((await appClient.v2.users([alice.user.id, dave.user.id])).data.map((u) => u.username)).toEqual([
      "alice",
      "dave",
    ]);
    const counts = await appClient.v2.tweetCountRecent("gardening");
    expect(counts.meta.total_tweet_count).toBe(7);
    expect(counts.data.reduce((n, c) => n + c.tweet_count, 0)).toBe(7);
  });

  it("OAuth 1.0a three-legged sign-in and OAuth 2.0 PKCE sign-in through the authorize pages", async () => {
    await t.admin.createUser({ username: "erin", name: "Erin", password: "sandbox" });
    const consumer = new TwitterApi({ appKey: app.consumer_key, appSecret: app.consumer_secret }, settings());
    const link = await consumer.generateAuthLink(CALLBACK);
    expect(link.oauth_callback_confirmed).toBe("true");
    const approved = await approveInBrowser(toSandboxUrl(link.url, t.url), "erin");
    const back = new URL(approved.headers.get("location")!);
    expect(back.searchParams.get("oauth_token")).toBe(link.oauth_token);
    const temp = new TwitterApi(
      {
        appKey: app.consumer_key,
        appSecret: app.consumer_secret,
        accessToken: link.oauth_token,
        accessSecret: link.oauth_token_secret,
      },
      settings(),
    );
    const login = await temp.login(back.searchParams.get("oauth_verifier")!);
    expect(login.screenName).toBe("erin");
    expect((await login.client.v2.me()).data.username).toBe("erin");

    const oauth2 = new TwitterApi({ clientId: app.client_id, clientSecret: app.client_secret }, settings());
    const pkce = oauth2.generateOAuth2AuthLink(CALLBACK, {
      scope: ["tweet.read", "tweet.write", "users.read", "bookmark.read", "bookmark.write"],
    });
    const page = toSandboxUrl(pkce.url, t.url);
    expect(new URL(page).searchParams.get("scope")).toBe(
      "post.read post.write users.read bookmark.read bookmark.write",
    );
    const granted = await approveInBrowser(page, "erin");
    const cb = new URL(granted.headers.get("location")!);
    expect(cb.searchParams.get("state")).toBe(pkce.state);
    const signedIn = await oauth2.loginWithOAuth2({
      code: cb.searchParams.get("code")!,
      codeVerifier: pkce.codeVerifier,
      redirectUri: CALLBACK,
    });
    expect(signedIn.expiresIn).toBeGreaterThan(0);
    expect(signedIn.scope.sort()).toEqual(["bookmark.read", "bookmark.write", "post.read", "post.write", "users.read"]);
    const erin = signedIn.client;
    const own = await erin.v2.me();
    const saved = await erin.v2.tweet("written with a PKCE token");
    expect((await erin.v2.bookmark(saved.data.id)).data).toEqual({ bookmarked: true });
    const marks = await erin.v2.bookmarks();
    expect(marks.tweets.map((p) => p.id)).toEqual([saved.data.id]);
    expect(own.data.username).toBe("erin");
  });

  it("lists: create, update, members, list posts, delete", async () => {
    const list = await aliceClient.v2.createList({
      name: "gardeners",
      description: "they grow things",
      private: false,
    });
    expect(list.data).toEqual({ id: expect.stringMatching(/^\d+$/), name: "gardeners" });
    expect((await aliceClient.v2.updateList(list.data.id, { description: "they grow tulips" })).data).toEqual({
      updated: true,
    });
    const dave = (await aliceClient.v2.userByUsername("dave")).data;
    expect((await aliceClient.v2.addListMember(list.data.id, dave.id)).data).toEqual({ is_member: true });
    const members = await aliceClient.v2.listMembers(list.data.id);
    expect(members.users.map((u) => u.username)).toEqual(["dave"]);
    const posts = await aliceClient.v2.listTweets(list.data.id, { max_results: 5 });
    expect(posts.tweets).toHaveLength(5);
    expect(posts.tweets.every((p) => p.text.startsWith("gardening tip"))).toBe(true);
    const lookup = await aliceClient.v2.list(list.data.id, {
      "list.fields": ["description", "member_count", "owner_id"],
    });
    expect(lookup.data).toMatchObject({
      name: "gardeners",
      description: "they grow tulips",
      member_count: 1,
      owner_id: alice.user.id,
    });
    expect((await aliceClient.v2.removeListMember(list.data.id, dave.id)).data).toEqual({ is_member: false });
    expect((await aliceClient.v2.removeList(list.data.id)).data).toEqual({ deleted: true });
  });

  it("direct messages: send to a participant, read the conversation and the events", async () => {
    await bobClient.v2.follow(bob.user.id, alice.user.id);
    await aliceClient.v2.follow(alice.user.id, bob.user.id);
    // The library types the answer as its `data` but hands over the whole body, `{data: {...}}`, as the service sends it.
    const sent = (await aliceClient.v2.sendDmToParticipant(bob.user.id, { text: "psst, bob" })) as unknown as {
      data: { dm_conversation_id: string; dm_event_id: string };
    };
    expect(sent).toEqual({
      data: { dm_conversation_id: expect.any(String), dm_event_id: expect.stringMatching(/^\d+$/) },
    });
    await bobClient.v2.sendDmInConversation(sent.data.dm_conversation_id, { text: "hi alice" });
    const withBob = await aliceClient.v2.listDmEventsWithParticipant(bob.user.id, {
      "dm_event.fields": ["sender_id", "text"],
    });
    expect(
      withBob.events.map((e) => [
        e.event_type,
        "text" in e ? e.text : undefined,
        "sender_id" in e ? e.sender_id : undefined,
      ]),
    ).toEqual([
      ["MessageCreate", "hi alice", bob.user.id],
      ["MessageCreate", "psst, bob", alice.user.id],
    ]);
    const all = await bobClient.v2.listDmEvents();
    expect(all.events.map((e) => ("text" in e ? e.text : ""))).toEqual(["hi alice", "psst, bob"]);
  });

  it("filtered stream: rules with and without tags, and a delivered post with matching_rules", async () => {
    const added = await appClient.v2.updateStreamRules({
      add: [{ value: "tulip" }, { value: "orchid", tag: "orchids" }],
    });
    expect(added.meta.summary).toEqual({ created: 2, not_created: 0, valid: 2, invalid: 0 });
    const [tulip, orchid] = added.data!;
    expect(tulip).toEqual({ id: expect.any(String), value: "tulip" });
    const listed = await appClient.v2.streamRules();
    expect(listed.data.map((r) => [r.value, r.tag])).toEqual([
      ["orchid", "orchids"],
      ["tulip", undefined],
    ]);

    const stream: TweetStream<TweetV2SingleStreamResult> = await appClient.v2.searchStream({
      expansions: ["author_id"],
      autoConnect: true,
    });
    try {
      const next = new Promise<TweetV2SingleStreamResult>((resolve) =>
        stream.on(ETwitterStreamEvent.Data, (e) => resolve(toClientNames(e))),
      );
      const post = await bobClient.v2.tweet("a tulip and an orchid");
      const event = await next;
      expect(event.data).toMatchObject({
        id: post.data.id,
        text: "a tulip and an orchid",
        edit_history_tweet_ids: [post.data.id],
      });
      expect(event.includes?.users?.map((u) => u.username)).toEqual(["bob"]);
      expect(event.matching_rules).toEqual([
        { id: tulip!.id, tag: "" },
        { id: orchid!.id, tag: "orchids" },
      ]);
    } finally {
      stream.close();
    }
    const dropped = await appClient.v2.updateStreamRules({ delete: { ids: [tulip!.id, orchid!.id] } });
    expect(dropped.meta.summary).toEqual({ deleted: 2, not_deleted: 0 });
  });

  it("errors the user handles: 401, 403 (app-only posting, a duplicate), 404 and 429 with its reset", async () => {
    const wrong = new TwitterApi(
      { appKey: alice.consumer_key, appSecret: alice.consumer_secret, accessToken: alice.token, accessSecret: "wrong" },
      settings(),
    );
    const unauthorized = await apiError(wrong.v2.me());
    expect(unauthorized.code).toBe(401);
    expect(unauthorized.errors).toEqual([{ code: 32, message: "Could not authenticate you." }]);

    const appOnly = await apiError(appClient.v2.tweet("apps cannot post"));
    expect(appOnly.code).toBe(403);
    expect(appOnly.data).toMatchObject({
      title: "Unsupported Authentication",
      type: "https://api.twitter.com/2/problems/unsupported-authentication",
    });

    await aliceClient.v2.tweet("the very same words");
    const duplicate = await apiError(aliceClient.v2.tweet("the very same words"));
    expect(duplicate.code).toBe(403);
    expect(duplicate.data.detail).toMatch(/duplicate content/);

    const missing = await aliceClient.v2.singleTweet("1");
    expect(missing.errors?.[0]).toMatchObject({ resource_id: "1", resource_type: "tweet", title: "Not Found Error" });

    const freeApp = await t.admin.createApp({ plan: "free" });
    const frank = userClient(await t.account({ username: "frank", app: freeApp }));
    const post = await frank.v2.tweet("a free plan post");
    const first = await frank.v2.singleTweet(post.data.id);
    expect(first.data.id).toBe(post.data.id);
    const limited = await apiError(frank.v2.singleTweet(post.data.id));
    expect(limited.code).toBe(429);
    expect(limited.rateLimitError).toBe(true);
    expect(limited.rateLimit).toEqual({ limit: 1, remaining: 0, reset: Math.floor(t.clock.now() / 1000) + 15 * 60 });
    expect(limited.data).toMatchObject({ title: "Too Many Requests", status: 429 });
  });
});
