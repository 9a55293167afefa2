/**
 * The status page's pause and resume buttons in a real headless Chromium (issue 23 item 3):
 * with the admin API on, each bot has one; the first click asks for the admin token (a wrong
 * one is refused in the dialog), the page keeps it in memory only (nothing in storage or
 * cookies; a reload forgets it), and the change shows on the page at once through its live
 * updates.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChromium, TEST_RESULTS, type Chromium } from "../helpers/chromium.ts";
import { echoBotFile, startFleetServer, type FleetServer } from "../helpers/fleet-server.ts";

const TOKEN = "status-page-admin-token-0123456789";
let browser: Chromium | undefined;
let fleet: FleetServer | undefined;

beforeAll(async () => {
  fleet = await startFleetServer({
    files: { "alpha.yaml": echoBotFile("alpha", "alpha"), "beta.yaml": echoBotFile("beta", "beta") },
    token: TOKEN,
    tokenName: "page-user",
  });
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.close();
}, 30_000);

describe("the status page's pause and resume buttons", () => {
  it("ask for the token once, keep it in memory only, and show the change at once", async () => {
    const page = browser!.page;
    await page.goto(`${fleet!.server.url}/`);
    const alpha = page.locator('tr[data-bot="alpha"]');
    await expect.poll(() => alpha.locator("button.fleet").textContent()).toBe("pause");
    await expect.poll(() => page.locator("#live").textContent()).toBe("live");

    // The first click asks for the token; a wrong one is refused in the dialog.
    await alpha.locator("button.fleet").click();
    const dialog = page.locator("#token-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.locator("#token").fill("not-the-admin-token-at-all");
    await page.locator("#token-ok").click();
    await expect.poll(() => page.locator("#token-error").textContent()).toMatch(/That token was refused/);
    expect(fleet!.started.fleet.list().find((e) => e.name === "alpha")!.state).toBe("running");
    await page.locator("#token").fill(TOKEN);
    await page.locator("#token-ok").click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect.poll(() => alpha.locator(".badge").first().textContent()).toBe("paused");
    expect(await alpha.locator(".reason").textContent()).toContain("paused by page-user");
    expect(await alpha.locator("button.fleet").textContent()).toBe("resume");
    expect(fleet!.started.fleet.list().find((e) => e.name === "alpha")!.state).toBe("paused");
    await page.screenshot({ path: join(TEST_RESULTS, "status-page-paused.png"), fullPage: true });

    // The token is remembered for the next click, and nowhere but in the page's memory.
    await alpha.locator("button.fleet").click();
    await expect.poll(() => alpha.locator(".badge").first().textContent()).toBe("running");
    expect(await dialog.isVisible()).toBe(false);
    expect(
      await page.evaluate(() => {
        const w = globalThis as unknown as {
          localStorage: { length: number };
          sessionStorage: { length: number };
          document: { cookie: string };
          location: { href: string };
        };
        return {
          local: w.localStorage.length,
          session: w.sessionStorage.length,
          cookie: w.document.cookie,
          url: w.location.href,
        };
      }),
    ).toEqual({ local: 0, session: 0, cookie: "", url: `${fleet!.server.url}/` });

    // A reload forgets it: the next click asks again (cancelled: nothing changes).
    await page.reload();
    const beta = page.locator('tr[data-bot="beta"]');
    await expect.poll(() => beta.locator("button.fleet").textContent()).toBe("pause");
    await beta.locator("button.fleet").click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await page.locator("#token-cancel").click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(fleet!.started.fleet.list().find((e) => e.name === "beta")!.state).toBe("running");
    // Nothing but this server was asked for.
    expect(browser!.requests.filter((u) => !u.startsWith(`${fleet!.server.url}/`))).toEqual([]);
  }, 90_000);
});
