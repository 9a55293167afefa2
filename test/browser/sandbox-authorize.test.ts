/**
 * The sandbox's OAuth 1.0a authorize page in a real headless Chromium, as a person uses it
 * (issue 23 item 4): it names the app and the access asked for, signs in as a sandbox user,
 * and Authorize lands on the app's callback (a tiny loopback server of this test) with
 * `oauth_token` and `oauth_verifier`, which exchange for the user's token; Cancel lands there
 * with `denied`. Nothing leaves this machine. Screenshots go to test-results/.
 */
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppView } from "../../src/sandbox/index.ts";
import { openChromium, TEST_RESULTS, type Chromium } from "../helpers/chromium.ts";
import { createUser, startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

let browser: Chromium | undefined;
let t: TestSandbox | undefined;
let callbackServer: Server | undefined;
let callbackUrl = "";
let app: AppView;
/** The query of every request the app's callback received, in order. */
const callbacks: URLSearchParams[] = [];

/** The app's side of the flow: records the callback's query and answers a small page. */
async function startCallbackServer(): Promise<void> {
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/callback") callbacks.push(url.searchParams);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Bike Shop Helper</title><h1 id=done>Back at the app</h1>");
  });
  await new Promise<void>((resolve) => callbackServer!.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
}

beforeAll(async () => {
  mkdirSync(TEST_RESULTS, { recursive: true });
  await startCallbackServer();
  t = await startSandbox();
  app = await t.admin.createApp({ name: "Bike Shop Helper", callback_urls: [callbackUrl] });
  await createUser(t.sandbox, "alice");
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  if (callbackServer) {
    callbackServer.closeAllConnections();
    await new Promise((resolve) => callbackServer!.close(resolve));
  }
}, 30_000);

const consumer = () => ({ consumer_key: app.consumer_key, consumer_secret: app.consumer_secret });

async function requestToken(): Promise<{ token: string; secret: string }> {
  const res = await t!.signed(consumer(), "POST", "/oauth/request_token", { oauth: { oauth_callback: callbackUrl } });
  expect(res.status, res.text).toBe(200);
  const f = new URLSearchParams(res.text);
  return { token: f.get("oauth_token")!, secret: f.get("oauth_token_secret")! };
}

const stayedHere = () =>
  browser!.requests.filter((u) => !u.startsWith(`${t!.url}/`) && !u.startsWith(callbackUrl.replace(/callback$/, "")));

describe("the sandbox's authorize page in Chromium", () => {
  it("sign in as a sandbox user, Authorize, land on the callback with a verifier that exchanges for a token", async () => {
    const rt = await requestToken();
    const page = browser!.page;
    await page.goto(`${t!.url}/oauth/authorize?oauth_token=${rt.token}`);
    expect(await page.locator("h1").textContent()).toBe("Authorize Bike Shop Helper to use your account?");
    expect(await page.locator("#access").textContent()).toBe("Access requested: read and write.");
    expect(await page.locator("#sign-in-help").textContent()).toContain("password sandbox");
    await page.screenshot({ path: join(TEST_RESULTS, "sandbox-authorize.png"), fullPage: true });

    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill("sandbox");
    await page.getByRole("button", { name: "Authorize app" }).click();
    await page.waitForURL(`${callbackUrl}?*`);
    expect(await page.locator("#done").textContent()).toBe("Back at the app");

    const back = callbacks.at(-1)!;
    expect(back.get("oauth_token")).toBe(rt.token);
    const verifier = back.get("oauth_verifier")!;
    expect(verifier).toMatch(/^\w{20,}$/);
    const access = await t!.signed(
      { ...consumer(), token: rt.token, token_secret: rt.secret },
      "POST",
      "/oauth/access_token",
      {
        oauth: { oauth_verifier: verifier },
      },
    );
    expect(access.status, access.text).toBe(200);
    expect(new URLSearchParams(access.text).get("screen_name")).toBe("alice");
    expect(stayedHere()).toEqual([]);
  }, 60_000);

  it("Cancel lands on the callback with denied=<request token>, and the token is spent", async () => {
    const rt = await requestToken();
    const page = await browser!.context.newPage();
    try {
      await page.goto(`${t!.url}/oauth/authorize?oauth_token=${rt.token}`);
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.waitForURL(`${callbackUrl}?*`);
      const back = callbacks.at(-1)!;
      expect([...back.keys()]).toEqual(["denied"]);
      expect(back.get("denied")).toBe(rt.token);
      await page.goto(`${t!.url}/oauth/authorize?oauth_token=${rt.token}`);
      expect(await page.locator("h1").textContent()).toBe("Whoa there!");
    } finally {
      await page.close();
    }
    expect(stayedHere()).toEqual([]);
  }, 60_000);
});
