/**
 * The status page's `/review` in a real headless Chromium (issue 24 item 4): the replies the
 * `moderate` plugin hid, each reply's text shown as text (never as markup); with the admin API
 * on, a decision is made with the admin token typed in the page: a wrong token is refused
 * and nothing is sent; the right one unhides the reply through the bot's action pipeline,
 * and the page shows the decision.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChromium, type Chromium } from "../helpers/chromium.ts";
import { startReviewBed, type ReviewBed } from "../helpers/review-bed.ts";

const TOKEN = "review-page-admin-token-0123456789";
let browser: Chromium | undefined;
let rb: ReviewBed | undefined;

beforeAll(async () => {
  rb = await startReviewBed({ admin: { token: TOKEN, name: "page-user" } });
  rb.server.review(rb.desk);
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await rb?.close();
}, 30_000);

describe("the review page", () => {
  it("lists a hidden reply as text, refuses a wrong token, and unhides it with the right one", async () => {
    const { bed, server, root, hidden } = rb!;
    const alice = await bed.user("alice");
    const rude = await bed.post(alice, "@warden you're an idiot <b>bold</b>", root.id);
    await bed.settle();
    expect(hidden(rude.id)).toBe(true);

    const page = browser!.page;
    await page.goto(`${server.url}/review`);
    const row = page.locator(`tr[data-post="${rude.id}"]`);
    await expect.poll(() => row.locator("button").allTextContents()).toEqual(["unhide", "keep"]);
    expect(await row.textContent()).toContain("@alice: @warden you're an idiot <b>bold</b>");
    expect(await row.locator("b").count()).toBe(0);
    // Why, in bot review's words (the fifth cell's first line).
    expect(await row.locator("td").nth(4).locator("div").first().textContent()).toMatch(/^insult:idiot matched "/);

    await page.locator("#token").fill("not-the-admin-token-at-all");
    await row.locator('button[data-decision="unhide"]').click();
    await expect.poll(() => page.locator("#admin-note").textContent()).toMatch(/unhide of reply \d+ refused/);
    expect(hidden(rude.id)).toBe(true);

    await page.locator("#token").fill(TOKEN);
    await row.locator('button[data-decision="unhide"]').click();
    await expect
      .poll(() => page.locator("#admin-note").textContent())
      .toBe(`unhide of warden's reply ${rude.id}: sent`);
    expect(hidden(rude.id)).toBe(false);
    await expect.poll(() => row.locator("td").last().textContent()).toBe("unhide by admin:page-user (sent)");
  });
});
