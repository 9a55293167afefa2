/**
 * Accounts that connect themselves (issue 23 item 2), through the connect pages of a running
 * fleet and the embedded sandbox's sign-in pages, driven over HTTP as a browser would (the
 * headless Chromium test, test/browser/connect.test.ts, clicks through the same pages): the
 * template's bot answers as the connected account; cancelling, a replayed, unknown or expired
 * callback store nothing; a revoked token pauses the bot and the status page offers the
 * connect link again; disconnecting revokes the token and removes the bot.
 */
import { stat } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { invalidateToken } from "../../src/api/auth/oauth1-flow.ts";
import { createClient } from "../../src/api/client.ts";
import { getAccount } from "../../src/credentials/accounts.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { credentialsPath } from "../../src/store/file-store.ts";
import { captureLogs } from "../helpers/log.ts";
import { echoTemplate, signInAndApprove, startConnectServer, type ConnectServer } from "../helpers/connect-server.ts";

let s: ConnectServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const eventually = (check: () => void | Promise<void>) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

async function user(srv: ConnectServer, username: string) {
  const { data } = srv.started.sandbox!.context;
  return (
    Object.values(data.world.users).find((u) => u.username === username) ??
    (await srv.started.sandbox!.admin.createUser({ username, name: username }))
  );
}

/** What `username` posted, oldest first. */
function postsOf(srv: ConnectServer, username: string): string[] {
  const { data } = srv.started.sandbox!.context;
  const u = Object.values(data.world.users).find((x) => x.username === username);
  return Object.values(data.world.posts)
    .filter((p) => p.author_id === u?.id)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((p) => p.text);
}

async function mention(srv: ConnectServer, text: string) {
  const bob = await user(srv, "bob");
  await srv.started.sandbox!.admin.createPost({ author_id: bob.id, text });
}

/** A page of the connect server: its status, heading and message. */
async function open(url: string, init?: RequestInit) {
  const res = await fetch(url, { redirect: "manual", ...init });
  const html = await res.text();
  return {
    status: res.status,
    res,
    html,
    title: /<h1>([^<]*)<\/h1>/.exec(html)?.[1],
    message: /<p id="message"[^>]*>([\s\S]*?)<\/p>/
      .exec(html)?.[1]
      ?.replace(/<[^>]+>/g, "")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&"),
  };
}

const messages = (lines: Array<Record<string, unknown>>) => lines.map((l) => String(l.msg));

describe("connecting an account through the web", () => {
  it("stores the token (0600) under the bot's name and starts the template's bot as the account; a replayed callback stores nothing more", async () => {
    const { lines, logger } = captureLogs("info");
    s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hello") }, logger });
    await user(s, "Ana_B");
    const index = await open(`${s.url}/connect`);
    expect(index.status).toBe(200);
    expect(index.html).toContain('href="/connect/greeter"');
    expect(index.html).toContain("<code>greeter-{account.username}</code> on the pro plan");

    const back = await signInAndApprove(`${s.url}/connect/greeter`, "Ana_B");
    expect(back).toMatch(new RegExp(`^${s.url}/connect/callback\\?oauth_token=\\w+&oauth_verifier=\\w+$`));
    const done = await open(back);
    expect(done.status).toBe(200);
    expect(done.title).toBe("@Ana_B is connected");
    expect(done.message).toBe(
      "Your account @Ana_B is now served by the bot greeter-ana-b (template greeter). It runs until you disconnect it.",
    );
    expect(done.res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(done.res.headers.get("cache-control")).toBe("no-store");

    const account = getAccount(s.started.store, "greeter-ana-b");
    expect(account).toMatchObject({ username: "Ana_B", oauth1: { consumer_key: expect.any(String) } });
    expect((await stat(credentialsPath(`${s.dir}/data`))).mode & 0o777).toBe(0o600);
    expect(await s.started.dynamic.get("greeter-ana-b")).toMatchObject({
      origin: "connect:greeter",
      by: "@Ana_B",
    });
    // The record holds the bot file, never the token.
    expect(JSON.stringify(await s.started.dynamic.list())).not.toContain(account!.oauth1!.token);
    expect(messages(lines)).toContain("connect: @Ana_B connected through greeter: bot greeter-ana-b started");
    expect(messages(lines).join("\n")).not.toContain(account!.oauth1!.secret);

    await mention(s, "@Ana_B are you there?");
    await eventually(() => expect(postsOf(s!, "Ana_B")).toEqual(["hello for @Ana_B: are you there?"]));

    const replay = await open(back);
    expect(replay.status).toBe(400);
    expect(replay.title).toBe("This sign-in is unknown or over");
    expect(replay.message).toMatch(
      /not started here, was finished already, or is older than 15 minutes\. Nothing was stored\.$/,
    );
    expect([...s.started.runtime.fleet().keys()].sort()).toEqual(["greeter-ana-b", "keeper"]);
  });

  it("stores nothing for a person who cancels, an unknown or missing token, or a flow older than 15 minutes", async () => {
    s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hello") } });
    await user(s, "carol");
    const denied = await open(await signInAndApprove(`${s.url}/connect/greeter`, "carol", "deny"));
    expect(denied.status).toBe(200);
    expect(denied.title).toBe("Nothing was connected");
    expect(denied.html).toContain('href="/connect/greeter"');

    const unknown = await open(`${s.url}/connect/callback?oauth_token=forged&oauth_verifier=x`);
    expect(unknown.status).toBe(400);
    expect(unknown.title).toBe("This sign-in is unknown or over");
    const bare = await open(`${s.url}/connect/callback`);
    expect(bare.status).toBe(400);
    expect(bare.title).toBe("Nothing to finish here");

    // Approved, but back 16 minutes later: the flow (and the service's request token) expired.
    const late = await signInAndApprove(`${s.url}/connect/greeter`, "carol");
    await s.clock.advance(16 * 60_000);
    const expired = await open(late);
    expect(expired.status).toBe(400);
    expect(expired.title).toBe("This sign-in is unknown or over");

    const missing = await open(`${s.url}/connect/nope`);
    expect(missing.status).toBe(404);
    expect(missing.message).toBe('There is no template "nope" here; the templates are greeter.');

    expect(await s.started.dynamic.list()).toEqual([]);
    expect(getAccount(s.started.store, "greeter-carol")).toBeUndefined();
    expect([...s.started.runtime.fleet().keys()]).toEqual(["keeper"]);
  });

  it("a revoked token pauses the bot and the status page links to the connect page; connecting again restarts it with the new token", async () => {
    s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hi") } });
    await user(s, "dora");
    await open(await signInAndApprove(`${s.url}/connect/greeter`, "dora"));
    // Revoked once the bot runs in sync with the stream (its rule in, its catch-up poll done):
    // the connect page answers before that, and a poll refused first would keep the mention
    // below for the account's return instead of failing its reply.
    await eventually(() => expect(s!.started.runtime.bots.get("greeter-dora")?.mentions.synced).toBe(true));
    const first = getAccount(s.started.store, "greeter-dora")!.oauth1!;
    const app = s.started.runtime.fleet().get("greeter-dora")!.app;
    await invalidateToken(s.started.baseUrl, {
      consumer: { key: app.key, secret: app.secret },
      token: { token: first.token, secret: first.secret },
      clock: s.clock,
    });
    await mention(s, "@dora hello?");
    await eventually(async () => {
      const status = (await (await fetch(`${s!.url}/api/status?state=paused`)).json()) as {
        connect?: string;
        paused: Array<{ bot: string; accountRefused?: boolean; reconnect?: string }>;
        bots: Array<{ bot: string; reconnect?: string }>;
      };
      expect(status.connect).toBe("/connect");
      expect(status.paused).toEqual([
        expect.objectContaining({ bot: "greeter-dora", accountRefused: true, reconnect: "/connect/greeter" }),
      ]);
      expect(status.bots).toEqual([expect.objectContaining({ bot: "greeter-dora", reconnect: "/connect/greeter" })]);
    });
    expect(postsOf(s, "dora")).toEqual([]);
    // What brings it back, its connect page first.
    expect(s.started.runtime.status().find((b) => b.bot === "greeter-dora")?.paused?.reason).toBe(
      "the service refused the account's token (401, code 89); connect the account again on its connect page (/connect/greeter), which restarts the bot; or sign it in again (bot auth login --account greeter-dora) and restart",
    );

    const again = await open(await signInAndApprove(`${s.url}/connect/greeter`, "dora"));
    expect(again.title).toBe("@dora is served again");
    const second = getAccount(s.started.store, "greeter-dora")!.oauth1!;
    expect(second.token).not.toBe(first.token);
    // Its reply to that mention waited for the new token and goes with it; the next one is answered too, each once.
    await mention(s, "@dora back?");
    await eventually(() => expect(postsOf(s!, "dora")).toEqual(["hi for @dora: hello?", "hi for @dora: back?"]));
    expect(s.started.runtime.status().find((b) => b.bot === "greeter-dora")?.paused).toBeUndefined();
  });

  it("connected again with a new token: a request of the bot's previous run refused afterwards (the old token) does not pause it", async () => {
    s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hi") } });
    await user(s, "fay");
    await open(await signInAndApprove(`${s.url}/connect/greeter`, "fay"));
    const first = getAccount(s.started.store, "greeter-fay")!.oauth1!;
    const app = s.started.runtime.fleet().get("greeter-fay")!.app;
    const previous = s.started.runtime.bots.get("greeter-fay")!;
    await invalidateToken(s.started.baseUrl, {
      consumer: { key: app.key, secret: app.secret },
      token: { token: first.token, secret: first.secret },
      clock: s.clock,
    });
    expect((await open(await signInAndApprove(`${s.url}/connect/greeter`, "fay"))).title).toBe("@fay is served again");
    expect(s.started.runtime.bots.get("greeter-fay")).not.toBe(previous);

    // A read of the previous run, with the old token, answered now: 401, code 89.
    const old = createClient({
      baseUrl: s.started.baseUrl,
      clock: s.clock,
      auth: { consumer: { key: app.key, secret: app.secret }, user: { token: first.token, secret: first.secret } },
    });
    try {
      await expect(
        previous.layer.read("GET /2/users/me", async (signal) => {
          const { body, headers } = await old.exchange("GET /2/users/me", {}, { signal });
          return { result: body, headers };
        }),
      ).rejects.toThrow(/89/);
    } finally {
      await old.close();
    }
    expect(s.started.runtime.status().find((b) => b.bot === "greeter-fay")?.paused).toBeUndefined();
    await mention(s, "@fay still here?");
    await eventually(() => expect(postsOf(s!, "fay")).toEqual(["hi for @fay: still here?"]));
  });

  it("disconnecting: sign in again, the form lists the bot; it revokes the token at the service, removes the bot and the token, and only from the browser that signed in", async () => {
    const { lines, logger } = captureLogs("info");
    s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hey") }, logger });
    await user(s, "eve");
    await open(await signInAndApprove(`${s.url}/connect/greeter`, "eve"));
    const token = getAccount(s.started.store, "greeter-eve")!.oauth1!;

    const signedIn = await open(await signInAndApprove(`${s.url}/connect/greeter/disconnect`, "eve"));
    expect(signedIn.title).toBe("Disconnect @eve?");
    expect(signedIn.html).toContain("<li><strong>greeter-eve</strong></li>");
    const cookie = signedIn.res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^postbot_connect=[\w-]+; Path=\/connect; HttpOnly; SameSite=Strict; Max-Age=600$/);
    const session = /name="session" value="([^"]+)"/.exec(signedIn.html)![1]!;
    // Signing in changed nothing: the bot's token is the one the service gives eve for this app.
    expect(getAccount(s.started.store, "greeter-eve")!.oauth1!.token).toBe(token.token);

    const post = (headers: Record<string, string>) =>
      open(`${s!.url}/connect/disconnect`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ session }),
      });
    const elsewhere = await post({});
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.title).toBe("Not from this browser");
    expect([...s.started.runtime.fleet().keys()]).toContain("greeter-eve");

    // The form was spent by that try: sign in again, and post it with the cookie.
    const again = await open(await signInAndApprove(`${s.url}/connect/greeter/disconnect`, "eve"));
    const form = /name="session" value="([^"]+)"/.exec(again.html)![1]!;
    const browserCookie = again.res.headers.get("set-cookie")!.split(";")[0]!;
    const done = await open(`${s.url}/connect/disconnect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: browserCookie },
      body: new URLSearchParams({ session: form }),
    });
    expect(done.status).toBe(200);
    expect(done.title).toBe("@eve is disconnected");
    expect([...s.started.runtime.fleet().keys()]).toEqual(["keeper"]);
    expect(await s.started.dynamic.get("greeter-eve")).toBeUndefined();
    expect(getAccount(s.started.store, "greeter-eve")).toBeUndefined();
    const { data } = s.started.sandbox!.context;
    expect(data.auth.access_tokens[token.token]?.invalidated_at).toBeDefined();
    expect(messages(lines)).toContain(
      "connect: @eve disconnected: access revoked at the service, greeter-eve stopped and removed, the token deleted",
    );
    // The same form again: over.
    const replayed = await open(`${s.url}/connect/disconnect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: browserCookie },
      body: new URLSearchParams({ session: form }),
    });
    expect(replayed.status).toBe(400);

    // Signing in with no bot here: nothing to disconnect, and the token that gave is revoked again.
    const fred = await user(s, "fred");
    const none = await open(await signInAndApprove(`${s.url}/connect/greeter/disconnect`, "fred"));
    expect(none.title).toBe("@fred has no bot here");
    const given = Object.values(data.auth.access_tokens).filter((t) => t.user_id === fred.id);
    expect(given.map((t) => t.invalidated_at !== undefined)).toEqual([true]);
  });

  it("a template with problems is reported at start as bot validate reports it, and its page says it cannot be used", async () => {
    const { lines, logger } = captureLogs("info");
    s = await startConnectServer({
      templates: {
        "greeter.yaml": echoTemplate("greeter", "hello"),
        "broken.yaml": echoTemplate("broken", "x").replace("plan: pro", "plan: gold"),
      },
      logger,
    });
    expect(messages(lines)).toContain(
      'templates/broken.yaml:2:7 plan: "gold" is not a plan; use one of pro, basic, free',
    );
    const page = await open(`${s.url}/connect/broken`);
    expect(page.status).toBe(500);
    expect(page.title).toBe("This template cannot be used now");
    const index = await open(`${s.url}/connect`);
    expect(index.html).toContain("not available now: the template has problems");
    expect(index.html).toContain('href="/connect/greeter"');
  });
});
