/**
 * The status page's `/review` in a real headless Chromium (issue 24 item 4): the replies the
 * `moderate` plugin hid, each reply's text shown as text (never as markup); with the admin API
 * on, a decision is made with the admin token typed in the page: a wrong token is refused
 * and nothing is sent; the right one unhides the reply through the bot's action pipeline,
 * and the page shows the decision.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import { createClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { ReviewDesk } from "../../src/hosting/review-desk.ts";
import { silentLogger } from "../../src/log.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { openChromium, type Chromium } from "../helpers/chromium.ts";
import { T0 } from "../helpers/sandbox.ts";

const TOKEN = "review-page-admin-token-0123456789";
let browser: Chromium | undefined;
let server: ObserveServer | undefined;
let sandbox: Sandbox | undefined;
let bed: TestBed | undefined;

beforeAll(async () => {
  const clock = createClock({ frozen: true, start: T0 });
  sandbox = await createSandbox({ clock });
  server = await startObserveServer({ host: "127.0.0.1", port: 0, clock, admin: { token: TOKEN, name: "page-user" } });
  bed = await createTestBed({
    sandbox,
    bots: [{ name: "warden", plan: "pro", triggers: { mentions: {} }, plugins: { moderate: {} } }],
    plugins: { moderate },
    runtime: { observer: server.observer },
  });
  server.attach(runtimeSource(bed.runtime, clock, bed.store));
  server.review(
    new ReviewDesk({ store: bed.store, clock, log: silentLogger, layerOf: (b) => bed!.runtime.bots.get(b)?.layer }),
  );
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await bed?.close();
  await sandbox?.close();
}, 30_000);

describe("the review page", () => {
  it("lists a hidden reply as text, refuses a wrong token, and unhides it with the right one", async () => {
    const me = await bed!.user(sandboxUsername("warden"));
    const root = await bed!.post(me, "Ask me anything");
    const alice = await bed!.user("alice");
    const rude = await bed!.post(alice, "@warden you're an idiot <b>bold</b>", root.id);
    await bed!.settle();
    const posts = sandbox!.context.data.world.posts;
    expect(posts[rude.id]!.hidden).toBe(true);

    const page = browser!.page;
    await page.goto(`${server!.url}/review`);
    const row = page.locator(`tr[data-post="${rude.id}"]`);
    await expect.poll(() => row.locator("button").allTextContents()).toEqual(["unhide", "keep"]);
    expect(await row.textContent()).toContain("@alice: @warden you're an idiot <b>bold</b>");
    expect(await row.locator("b").count()).toBe(0);

    await page.locator("#token").fill("not-the-admin-token-at-all");
    await row.locator('button[data-decision="unhide"]').click();
    await expect.poll(() => page.locator("#admin-note").textContent()).toMatch(/unhide of reply \d+ refused/);
    expect(posts[rude.id]!.hidden).toBe(true);

    await page.locator("#token").fill(TOKEN);
    await row.locator('button[data-decision="unhide"]').click();
    await expect
      .poll(() => page.locator("#admin-note").textContent())
      .toBe(`unhide of warden's reply ${rude.id}: sent`);
    expect(posts[rude.id]!.hidden).toBe(false);
    await expect.poll(() => row.locator("td").last().textContent()).toBe("unhide by admin:page-user (sent)");
  });
});
