/**
 * The `bot auth` flows against the sandbox in-process, with a scripted terminal: the test
 * reads what the flow prints, plays the person at the browser on the sandbox's pages, and
 * types the answer back. The store is the memory store; the CLI test covers the file store.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client.ts";
import { InvalidTokenError } from "../../src/api/errors.ts";
import {
  bearer,
  getAccount,
  list,
  login,
  logout,
  pkceLogin,
  verifierFrom,
  type AuthFlowContext,
  type Terminal,
} from "../../src/auth-flows/index.ts";
import { UserError } from "../../src/errors.ts";
import type { AppView } from "../../src/sandbox/index.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { approveInBrowser, pinOn } from "../helpers/browser.ts";
import { createUser, startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

const CALLBACK = "http://127.0.0.1:9/cb";
let t: TestSandbox;
let app: AppView;
let store: Store;
let printed: string[];

beforeAll(async () => {
  t = await startSandbox();
  app = await t.admin.createApp({ name: "Bots", callback_urls: [CALLBACK] });
  await createUser(t.sandbox, "greeter");
  await createUser(t.sandbox, "helper");
});
afterAll(() => t.close());
beforeEach(() => {
  store = createMemoryStore();
  printed = [];
});

/** A terminal whose answer is computed from the URL the flow printed. */
function terminal(answer: (url: string) => Promise<string>): Terminal {
  return {
    print: (line) => void printed.push(line),
    ask: async () => answer(printed.map((l) => l.trim()).findLast((l) => l.startsWith("http"))!),
  };
}

const pin = (username: string) => async (url: string) => pinOn(await (await approveInBrowser(url, username)).text());

function ctx(term: Terminal, vars: Record<string, string> = {}): AuthFlowContext {
  return {
    store,
    terminal: term,
    vars: {
      POSTBOT_BASE_URL: t.url,
      POSTBOT_CONSUMER_KEY: app.consumer_key,
      POSTBOT_CONSUMER_SECRET: app.consumer_secret,
      POSTBOT_CLIENT_ID: app.client_id,
      ...vars,
    },
    envFile: ".env",
    clock: t.clock,
    statePath: ".postbot/state.json",
  };
}

describe("bot auth login", () => {
  it("PIN flow: prints the authorize page, takes the PIN, stores a working token under the screen name", async () => {
    const rec = await login(ctx(terminal(pin("greeter"))));
    expect(printed[1]).toMatch(new RegExp(`^  ${t.url}/oauth/authorize\\?oauth_token=`));
    expect(rec.name).toBe("greeter");
    const stored = getAccount(store, "greeter")!;
    expect(stored.oauth1?.consumer_key).toBe(app.consumer_key);
    const me = createClient({
      baseUrl: t.url,
      clock: t.clock,
      auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret }, user: stored.oauth1! },
    });
    expect((await me.users.me()).data?.username).toBe("greeter");
    await me.close();
    expect(printed.at(-1)).toBe(
      `Signed in: account greeter is @greeter (user ${stored.user_id}); its token is stored in .postbot/state.json.`,
    );
    expect(printed.join("\n")).not.toContain(stored.oauth1!.token);
  });

  it("callback flow: takes the address the browser landed on, under a chosen account name", async () => {
    const term = terminal(async (url) => (await approveInBrowser(url, "helper")).headers.get("location")!);
    const rec = await login(ctx(term), { account: "help-bot", callback: CALLBACK });
    expect(rec).toMatchObject({ name: "help-bot", username: "helper" });
  });

  it("a wrong PIN is the service's refusal, and nothing is stored", async () => {
    await expect(login(ctx(terminal(async () => "1234567")))).rejects.toThrow(/Invalid oauth_verifier parameter/);
    expect(store.entries("auth:accounts")).toEqual([]);
  });

  it("names every missing setting at once, not one per try", async () => {
    const c = ctx(terminal(pin("greeter")));
    const none = { ...c.vars, POSTBOT_BASE_URL: "", POSTBOT_CONSUMER_KEY: "", POSTBOT_CONSUMER_SECRET: "" };
    await expect(login({ ...c, vars: none })).rejects.toThrow(
      new RegExp(
        [
          "POSTBOT_BASE_URL is not set",
          "\\nPOSTBOT_CONSUMER_KEY is not set",
          "\\nPOSTBOT_CONSUMER_SECRET is not set",
        ].join("[^\\n]*"),
      ),
    );
  });

  it("explains a missing setting, naming the variable and the .env file", async () => {
    const c = ctx(terminal(pin("greeter")));
    await expect(login({ ...c, vars: { ...c.vars, POSTBOT_CONSUMER_SECRET: "" } })).rejects.toThrow(
      "POSTBOT_CONSUMER_SECRET is not set: it is the app's API key secret. Set it (export POSTBOT_CONSUMER_SECRET=...) or add a line POSTBOT_CONSUMER_SECRET=... to .env",
    );
    await expect(login(ctx(terminal(pin("greeter")), { POSTBOT_BASE_URL: "http://api.example.com" }))).rejects.toThrow(
      /POSTBOT_BASE_URL http:\/\/api\.example\.com uses plain HTTP/,
    );
    await expect(login(ctx(terminal(pin("greeter"))), { account: "no spaces" })).rejects.toBeInstanceOf(UserError);
  });

  it("reads the verifier from a pasted address, refusing one of another sign-in", () => {
    expect(verifierFrom("1234567", "rt")).toBe("1234567");
    expect(verifierFrom("http://x/cb?oauth_token=rt&oauth_verifier=abc", "rt")).toBe("abc");
    expect(() => verifierFrom("http://x/cb?oauth_token=other&oauth_verifier=abc", "rt")).toThrow(/another sign-in/);
    expect(() => verifierFrom("http://x/cb?denied=rt", "rt")).toThrow(/cancelled/);
  });
});

describe("bot auth list and logout", () => {
  it("lists accounts without secrets; logout invalidates on the service and forgets", async () => {
    const rec = await login(ctx(terminal(pin("greeter"))));
    printed = [];
    list(ctx(terminal(async () => "")));
    expect(printed[0]).toMatch(/^ACCOUNT\s+USER\s+ID\s+AUTH\s+EXPIRES\s+SERVICE$/);
    expect(printed[1]).toMatch(new RegExp(`^greeter\\s+@greeter\\s+${rec.user_id}\\s+oauth1\\s+${t.url}/$`));
    expect(printed.join("\n")).not.toContain(rec.oauth1!.token);
    expect(printed.join("\n")).not.toContain(rec.oauth1!.secret);

    await logout(ctx(terminal(async () => "")));
    expect(getAccount(store, "greeter")).toBeUndefined();
    const old = createClient({
      baseUrl: t.url,
      clock: t.clock,
      auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret }, user: rec.oauth1! },
    });
    await expect(old.users.me()).rejects.toBeInstanceOf(InvalidTokenError);
    await old.close();
  });

  it("keeps the account when the service cannot be reached, unless asked to forget it locally", async () => {
    await login(ctx(terminal(pin("greeter"))));
    const offline = ctx(
      terminal(async () => ""),
      { POSTBOT_BASE_URL: "http://127.0.0.1:9" },
    );
    await expect(logout(offline, { account: "greeter" })).rejects.toThrow(
      /connection refused.*The account is still stored; try again, or use --local-only/,
    );
    expect(getAccount(store, "greeter")).toBeDefined();
    await logout(offline, { account: "greeter", localOnly: true });
    expect(getAccount(store, "greeter")).toBeUndefined();
  });

  it("asks which account when several are stored, and names the known ones", async () => {
    await login(ctx(terminal(pin("greeter"))));
    await login(ctx(terminal(pin("helper"))));
    await expect(logout(ctx(terminal(async () => "")))).rejects.toThrow(
      "several accounts are stored (greeter, helper); say which with --account NAME",
    );
    await expect(logout(ctx(terminal(async () => "")), { account: "nobody" })).rejects.toThrow(
      'no account named "nobody" in .postbot/state.json; known: greeter, helper',
    );
  });
});

describe("bot auth bearer", () => {
  it("asks the service once, stores the token, and invalidates it with the owner's account", async () => {
    const before = (await t.admin.stats()).routes["POST /oauth2/token"]?.["200"] ?? 0;
    await bearer(ctx(terminal(async () => "")));
    await bearer(ctx(terminal(async () => "")));
    expect((await t.admin.stats()).routes["POST /oauth2/token"]?.["200"]).toBe(before + 1);
    expect(printed.at(-1)).toMatch(/already stored .* not asking the service again/);
    expect(store.entries("auth:app-tokens")).toHaveLength(1);
    await login(ctx(terminal(pin("greeter"))));
    await bearer(ctx(terminal(async () => "")), { invalidate: true, account: "greeter" });
    expect(store.entries("auth:app-tokens")).toEqual([]);
    expect((await t.admin.stats()).routes["POST /oauth2/invalidate_token"]).toEqual({ "200": 1 });
  });
});

describe("bot auth pkce", () => {
  it("prints the consent page, takes the redirect, stores tokens with a refresh token; logout revokes", async () => {
    const term = terminal(async (url) => (await approveInBrowser(url, "helper")).headers.get("location")!);
    const rec = await pkceLogin(ctx(term), {
      redirect: CALLBACK,
      scopes: ["post.read", "users.read", "offline.access"],
    });
    expect(printed[1]).toMatch(new RegExp(`^  ${t.url}/i/oauth2/authorize\\?client_id=.*code_challenge_method=S256`));
    expect(rec).toMatchObject({
      name: "helper",
      username: "helper",
      pkce: { client_id: app.client_id, scopes: ["post.read", "users.read", "offline.access"] },
    });
    expect(rec.pkce!.refresh_token).toBeDefined();
    await logout(ctx(terminal(async () => "")), { account: "helper" });
    expect((await t.admin.stats()).routes["POST /2/oauth2/revoke"]?.["200"]).toBeGreaterThanOrEqual(1);
    const revoked = await t.bearer(rec.pkce!.access_token, "GET", "/2/users/me");
    expect(revoked.status).toBe(401);
  });

  it("refuses a redirect of another sign-in and unknown scopes", async () => {
    await expect(
      pkceLogin(ctx(terminal(async () => `${CALLBACK}?state=forged&code=x`)), { redirect: CALLBACK }),
    ).rejects.toThrow(/another sign-in/);
    await expect(
      pkceLogin(ctx(terminal(async () => "")), { redirect: CALLBACK, scopes: ["tweet.read"] }),
    ).rejects.toThrow(/unknown scope tweet.read/);
  });
});
