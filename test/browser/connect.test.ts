/**
 * An account that connects itself (issue 23 item 2), clicked through in a real headless
 * Chromium: postbot's connect page, the sandbox's sign-in and authorize page, back to
 * postbot's page saying which bot now serves the account, whose bot then answers a mention;
 * Cancel connects nothing; the callback opened again (the browser's history) stores nothing;
 * disconnecting signs in through the service's /oauth/authenticate (at once for an account
 * that already granted the app) and, on postbot's button, revokes the token at the service
 * and removes the bot. The status page links to the connect page, and for a connected bot
 * paused because its token was revoked, to its template's page again. The fleet runs in-process with the embedded sandbox; nothing leaves
 * this machine. Screenshots go to test-results/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { invalidateToken } from "../../src/api/auth/oauth1-flow.ts";
import { getAccount } from "../../src/credentials/accounts.ts";
import { compareIds } from "../../src/sandbox/model/index.ts";
import { openChromium, TEST_RESULTS, type Chromium } from "../helpers/chromium.ts";
import { echoTemplate, startConnectServer, type ConnectServer } from "../helpers/connect-server.ts";

let browser: Chromium | undefined;
let s: ConnectServer | undefined;

beforeAll(async () => {
  mkdirSync(TEST_RESULTS, { recursive: true });
  s = await startConnectServer({ templates: { "greeter.yaml": echoTemplate("greeter", "hello") } });
  await s.started.sandbox!.admin.createUser({ username: "nina", name: "Nina" });
  await s.started.sandbox!.admin.createUser({ username: "pia", name: "Pia" });
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
}, 30_000);

const sandboxUrl = () => s!.started.sandbox!.url;
/** Requests to anything but postbot's server and the sandbox. */
const stayedHere = () =>
  browser!.requests.filter((u) => !u.startsWith(`${s!.url}/`) && !u.startsWith(`${sandboxUrl()}/`));

function postsOf(username: string): string[] {
  const { data } = s!.started.sandbox!.context;
  const u = Object.values(data.world.users).find((x) => x.username === username);
  return Object.values(data.world.posts)
    .filter((p) => p.author_id === u?.id)
    .sort((a, b) => compareIds(a.id, b.id))
    .map((p) => p.text);
}

describe("connecting an account in Chromium", () => {
  it("Connect, sign in, Authorize: the page names the bot, which answers the account's mentions; the callback again stores nothing", async () => {
    const page = browser!.page;
    // From the status page's link to the connect page, and its template's button.
    await page.goto(`${s!.url}/`);
    await page.locator("#connect-link").click();
    await page.waitForURL(`${s!.url}/connect`);
    await page.getByRole("link", { name: "Connect an account" }).click();
    await page.waitForURL(`${sandboxUrl()}/oauth/authorize?*`);
    await page.getByLabel("Username").fill("nina");
    await page.getByLabel("Password").fill("sandbox");
    await page.getByRole("button", { name: "Authorize app" }).click();
    await page.waitForURL(`${s!.url}/connect/callback?*`);
    const callback = page.url();
    expect(await page.locator("h1").textContent()).toBe("@nina is connected");
    expect(await page.locator("#message").textContent()).toBe(
      "Your account @nina is now served by the bot greeter-nina (template greeter). It runs until you disconnect it.",
    );
    await page.screenshot({ path: join(TEST_RESULTS, "connect-done.png"), fullPage: true });
    expect(getAccount(s!.started.store, "greeter-nina")?.username).toBe("nina");

    const bob = await s!.started.sandbox!.admin.createUser({ username: "bob", name: "bob" });
    await s!.started.sandbox!.admin.createPost({ author_id: bob.id, text: "@nina hi there" });
    await vi.waitFor(() => expect(postsOf("nina")).toEqual(["hello for @nina: hi there"]), {
      timeout: 20_000,
      interval: 20,
    });

    // The same callback again (reload, history, a link shared): nothing more.
    const token = getAccount(s!.started.store, "greeter-nina")!.oauth1!.token;
    await page.goto(callback);
    expect(await page.locator("h1").textContent()).toBe("This sign-in is unknown or over");
    expect(getAccount(s!.started.store, "greeter-nina")!.oauth1!.token).toBe(token);
    expect([...s!.started.runtime.fleet().keys()].sort()).toEqual(["greeter-nina", "keeper"]);
    expect(stayedHere()).toEqual([]);
  }, 60_000);

  it("Cancel on the service's page: postbot says nothing was connected, and stores nothing", async () => {
    const page = await browser!.context.newPage();
    try {
      await page.goto(`${s!.url}/connect/greeter`);
      await page.waitForURL(`${sandboxUrl()}/oauth/authorize?*`);
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.waitForURL(`${s!.url}/connect/callback?*`);
      expect(new URL(page.url()).searchParams.has("denied")).toBe(true);
      expect(await page.locator("h1").textContent()).toBe("Nothing was connected");
    } finally {
      await page.close();
    }
    expect((await s!.started.dynamic.list()).map((b) => b.name)).toEqual(["greeter-nina"]);
  }, 60_000);

  it("Disconnect: /oauth/authenticate signs the account in at once, postbot's button revokes the token and removes the bot", async () => {
    const page = browser!.page;
    const token = getAccount(s!.started.store, "greeter-nina")!.oauth1!.token;
    await page.goto(`${s!.url}/connect`);
    await page.getByRole("link", { name: "Disconnect one" }).click();
    // The service signs in through /oauth/authenticate; nina signed in and granted the app
    // in this browser before, so it sends her straight back.
    expect(browser!.requests.some((u) => u.startsWith(`${sandboxUrl()}/oauth/authenticate?`))).toBe(true);
    await page.waitForURL(`${s!.url}/connect/callback?*`);
    expect(await page.locator("h1").textContent()).toBe("Disconnect @nina?");
    expect(await page.locator("li").allTextContents()).toEqual(["greeter-nina"]);
    await page.screenshot({ path: join(TEST_RESULTS, "connect-disconnect.png"), fullPage: true });
    await page.getByRole("button", { name: "Disconnect @nina" }).click();
    await page.waitForURL(`${s!.url}/connect/disconnect`);
    expect(await page.locator("h1").textContent()).toBe("@nina is disconnected");

    const { data } = s!.started.sandbox!.context;
    expect(data.auth.access_tokens[token]?.invalidated_at).toBeDefined();
    expect([...s!.started.runtime.fleet().keys()]).toEqual(["keeper"]);
    expect(await s!.started.dynamic.list()).toEqual([]);
    expect(getAccount(s!.started.store, "greeter-nina")).toBeUndefined();
    expect(stayedHere()).toEqual([]);
  }, 60_000);
  it("a revoked token pauses the bot; the status page offers the connect link again, which signs the account in anew", async () => {
    const page = browser!.page;
    await browser!.context.clearCookies(); // another person at this browser
    await page.goto(`${s!.url}/connect/greeter`);
    await page.waitForURL(`${sandboxUrl()}/oauth/authorize?*`);
    await page.getByLabel("Username").fill("pia");
    await page.getByLabel("Password").fill("sandbox");
    await page.getByRole("button", { name: "Authorize app" }).click();
    await page.waitForURL(`${s!.url}/connect/callback?*`);
    expect(await page.locator("h1").textContent()).toBe("@pia is connected");
    // Revoked once the bot runs in sync with the stream (its rule in, its catch-up poll done):
    // the page answers before that (the rules follow the fleet's change).
    await vi.waitFor(() => expect(s!.started.runtime.bots.get("greeter-pia")?.mentions.synced).toBe(true), {
      timeout: 20_000,
      interval: 20,
    });

    const first = getAccount(s!.started.store, "greeter-pia")!.oauth1!;
    const app = s!.started.runtime.fleet().get("greeter-pia")!.app;
    await invalidateToken(s!.started.baseUrl, {
      consumer: { key: app.key, secret: app.secret },
      token: { token: first.token, secret: first.secret },
      clock: s!.clock,
    });
    const bob = Object.values(s!.started.sandbox!.context.data.world.users).find((u) => u.username === "bob")!;
    await s!.started.sandbox!.admin.createPost({ author_id: bob.id, text: "@pia still there?" });
    await vi.waitFor(
      () => expect(s!.started.runtime.status().find((b) => b.bot === "greeter-pia")?.paused).toBeDefined(),
      { timeout: 20_000, interval: 20 },
    );

    await page.goto(`${s!.url}/`);
    const again = page.locator("#paused a.reconnect");
    await again.waitFor({ timeout: 20_000 });
    expect(await again.textContent()).toBe("connect the account again");
    expect(await again.getAttribute("href")).toBe("/connect/greeter");
    await page.screenshot({ path: join(TEST_RESULTS, "connect-revoked.png"), fullPage: true });
    await again.click();
    await page.waitForURL(`${sandboxUrl()}/oauth/authorize?*`);
    await page.getByRole("button", { name: "Authorize app" }).click();
    await page.waitForURL(`${s!.url}/connect/callback?*`);
    expect(await page.locator("h1").textContent()).toBe("@pia is served again");
    expect(getAccount(s!.started.store, "greeter-pia")!.oauth1!.token).not.toBe(first.token);
    expect(s!.started.runtime.status().find((b) => b.bot === "greeter-pia")?.paused).toBeUndefined();
    expect(stayedHere()).toEqual([]);
  }, 60_000);
});
