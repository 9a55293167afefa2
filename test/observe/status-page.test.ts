/**
 * The status page in a real headless Chromium: it loads, shows the bots of a running test
 * bed, updates after an action without a reload (server-sent events), shows user content
 * as text, stays within this machine, and pages and searches 1,000 bots. Screenshots go to
 * test-results/ (git-ignored) for a person to look at.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { startObserveServer, type ObserveServer, type StatusSource } from "../../src/observe/index.ts";
import { openChromium, TEST_RESULTS, type Chromium } from "../helpers/chromium.ts";
import { echoBot, manyBots, observedBed, T0, type ObservedBed } from "./bed.ts";

let browser: Chromium | undefined;
let t: ObservedBed | undefined;
let many: ObserveServer | undefined;

beforeAll(async () => {
  mkdirSync(TEST_RESULTS, { recursive: true });
  browser = await openChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await many?.close();
}, 30_000);

/**
 * Opens the page of a status server of its own, on `source`, in a new tab; closes both after
 * `look`, whatever happens.
 */
async function onOwnPage(source: StatusSource, look: (page: Chromium["page"]) => Promise<void>): Promise<void> {
  const server = await startObserveServer({
    host: "127.0.0.1",
    port: 0,
    clock: createClock({ frozen: true, start: T0 }),
  });
  const page = await browser!.context.newPage();
  try {
    server.attach(source);
    await page.goto(`${server.url}/`);
    await look(page);
  } finally {
    await page.close();
    await server.close();
  }
}

/** Markup in user content: shown as text, never run or rendered. */
const HOSTILE = `<img src=x onerror="document.title='pwned'"><b>bold</b>`;

describe("the status page in Chromium", () => {
  it("shows the bots of a running test bed and updates after an action without a reload", async () => {
    t = await observedBed([echoBot("greeter"), echoBot("helper"), echoBot("watcher")]);
    const { bed, server } = t;
    bed.runtime.bots
      .get("helper")!
      .pause(`the service refused the account (<script>document.title='pwned'</script>); sign it in again`);
    const page = browser!.page;

    await page.goto(`${server.url}/`);
    const greeter = page.locator('tr[data-bot="greeter"]');
    await expect.poll(() => greeter.count()).toBe(1);
    expect(await page.locator("#bots tr").count()).toBe(3);
    await expect.poll(() => page.locator("#live").textContent()).toBe("live");
    expect(await page.locator("#summary").textContent()).toContain("3 bots");
    expect(await greeter.textContent()).toContain("no action yet");
    expect(await greeter.locator(".budget").textContent()).toContain("reply");
    expect(await page.locator('tr[data-bot="helper"] .badge').first().textContent()).toBe("paused");
    expect(await page.locator("#paused").textContent()).toContain("<script>document.title='pwned'</script>");

    // An action while the page is open: it appears without a reload.
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    const alice = await bed.user("alice");
    await bed.post(alice, `@greeter ${HOSTILE}`);
    await bed.advance(10_000);
    await bed.settle();
    await expect
      .poll(() => greeter.locator(".last").textContent(), { timeout: 15_000 })
      .toContain(`echo: @greeter ${HOSTILE}`.slice(0, 40));
    expect(await page.locator("#recent").textContent()).toContain(`echo: @greeter ${HOSTILE}`);
    expect(await greeter.locator(".last .badge").first().textContent()).toBe("reply sent");
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

    // User content stayed text: no element came from it, no script of it ran.
    expect(await page.locator("main img, main b:text('bold'), main script").count()).toBe(0);
    expect(await page.title()).toBe("postbot status");
    // Nothing but this server was asked for.
    expect(browser!.requests.filter((u) => !u.startsWith(`${server.url}/`))).toEqual([]);

    await page.screenshot({ path: join(TEST_RESULTS, "status-page.png"), fullPage: true });
  }, 90_000);

  it("pages and searches 1,000 bots", async () => {
    many = await startObserveServer({ host: "127.0.0.1", port: 0, clock: createClock({ frozen: true, start: T0 }) });
    many.attach(manyBots(1_000));
    const page = browser!.page;
    await page.goto(`${many.url}/`);
    await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 1 of 20 · 1000 of 1000 bots");
    expect(await page.locator("#bots tr").count()).toBe(50);

    await page.locator("#next").click();
    await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 2 of 20 · 1000 of 1000 bots");
    expect(await page.locator("#bots tr").first().getAttribute("data-bot")).toBe("bot-0050");

    // A hundred paused bots do not push the list away: five are shown, the rest a click away.
    expect(await page.locator("#paused li").count()).toBe(6);
    expect(await page.locator("#paused").textContent()).toContain("and 95 more");

    await page.locator("#q").fill("BOT-09");
    await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 1 of 2 · 100 of 1000 bots");
    await page.locator("#show-paused").click();
    await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 1 of 1 · 10 of 1000 bots");
    expect(await page.locator("#bots tr .badge.paused").count()).toBe(10);
    // The search is kept in the address, so a reload or a shared link shows the same.
    expect(new URL(page.url()).search).toBe("?q=BOT-09&state=paused");
    await page.screenshot({ path: join(TEST_RESULTS, "status-page-1000.png"), fullPage: false });
  }, 60_000);

  it("keeps a click on next when a refresh asked before it answers after it", async () => {
    const page = await browser!.context.newPage();
    try {
      // The first answer goes through; the refresh after it (the live connection's hello) is
      // held until "next" has been clicked, as when the reader clicks during a refresh.
      let answered = 0;
      let release!: () => void;
      const clicked = new Promise<void>((resolve) => (release = resolve));
      await page.route("**/api/status?*", async (route) => {
        answered += 1;
        if (answered === 2) await clicked;
        await route.continue();
      });
      await page.goto(`${many!.url}/`);
      await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 1 of 20 · 1000 of 1000 bots");
      await expect.poll(() => answered).toBe(2);
      await page.locator("#next").click();
      release();
      await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 2 of 20 · 1000 of 1000 bots");
      expect(await page.locator("#bots tr").first().getAttribute("data-bot")).toBe("bot-0050");
      expect(new URL(page.url()).search).toBe("?page=2");
    } finally {
      await page.close();
    }
  }, 60_000);

  it("shows a bot's open dialogs in its row, and nothing of them for a bot without", async () => {
    const source = manyBots(3);
    const bots = source.bots();
    bots[1] = { ...bots[1]!, dialogs: { open: { thread: 1, dm: 1 }, started: 3, steps: 1, timeouts: 1 } };
    await onOwnPage({ ...source, bots: () => bots }, async (page) => {
      const talking = page.locator('tr[data-bot="bot-0001"] .dialogs');
      await expect.poll(() => talking.textContent()).toBe("2 dialogs open · 1 step, 1 timeout");
      expect(await page.locator('tr[data-bot="bot-0002"] .dialogs').count()).toBe(0);
    });
  }, 60_000);

  it("shows a bot's language model budget (budget.llm) in its budget cell, and nothing of it for a bot without", async () => {
    const llm = (bot: string) =>
      bot === "bot-0001"
        ? {
            tokens: { used: 49, limit: 1000, windowMs: 86_400_000, resetAt: T0 + 86_400_000 },
            requests: { used: 5, limit: 5, windowMs: 60_000, resetAt: T0 + 20_000 },
            waiting: 0,
            pausedUntil: T0 + 30_000,
          }
        : undefined;
    await onOwnPage({ ...manyBots(3), llm }, async (page) => {
      const model = page.locator('tr[data-bot="bot-0001"] .model');
      await expect.poll(() => model.count()).toBe(1);
      expect(await model.locator(".budget").textContent()).toBe(
        "tokens951/1,000 per 1drequests0/5 per 1m, more in 20s",
      );
      expect(await model.locator(".reason").textContent()).toBe("paused by the model server (429): asks again in 30s");
      // This source reads no action budgets: the cell holds the model's alone; a bot with neither shows a dash.
      expect(await page.locator('tr[data-bot="bot-0002"] td').nth(2).textContent()).toBe("—");
      expect(await page.locator('tr[data-bot="bot-0002"] .model').count()).toBe(0);
    });
  }, 60_000);

  it("on a 390 px phone: ?per=2 shows in the page-size selector, and an id stays on one line", async () => {
    const phone = await startObserveServer({
      host: "127.0.0.1",
      port: 0,
      clock: createClock({ frozen: true, start: T0 }),
    });
    const page = await browser!.context.newPage();
    try {
      phone.attach(manyBots(5));
      const liked = "2126303379847118848";
      phone.observer.action({ bot: "bot-0001", kind: "like", target: liked, status: "sent", at: T0, tookMs: 1 });
      // A like of an event's post says whose post and what it said, not its id.
      const about = '@alice: "any tips for a first week in Lis…"';
      const reposted = "2126303379847118849";
      phone.observer.action({
        bot: "bot-0002",
        kind: "repost",
        target: reposted,
        about,
        status: "sent",
        at: T0,
        tookMs: 1,
      });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${phone.url}/?per=2`);
      await expect.poll(() => page.locator("#pageinfo").textContent()).toBe("page 1 of 3 · 5 of 5 bots");
      expect(await page.locator("#per").inputValue()).toBe("2");
      expect(await page.locator("#per option:checked").textContent()).toBe("2 a page");
      expect(await page.locator("#bots tr").count()).toBe(2);

      const id = page.locator("#recent .id");
      await expect.poll(() => id.textContent()).toBe(liked);
      expect(await page.locator("#recent").textContent()).toContain(about);
      expect(await page.locator("#recent").textContent()).not.toContain(reposted);
      // The browser's globals, typed for this file (its tsconfig has no DOM library).
      type Browser = {
        getComputedStyle(e: unknown): { lineHeight: string };
        document: { documentElement: { scrollWidth: number } };
      };
      // Measured in the page at once (a live refresh may replace the row between two calls).
      const measured = () =>
        id.evaluate((e) => {
          const box = (e as { getBoundingClientRect(): { height: number; right: number } }).getBoundingClientRect();
          const line = Number.parseFloat((globalThis as unknown as Browser).getComputedStyle(e).lineHeight);
          return { lines: Math.round(box.height / line), right: box.right };
        });
      // Polled: a live refresh may detach the row being measured (its box is then empty).
      await expect.poll(measured).toEqual({ lines: 1, right: expect.any(Number) }); // one line, not four
      expect((await measured()).right).toBeLessThanOrEqual(390); // and within the screen
      // Nothing wider than the screen: no sideways scrolling.
      expect(
        await page.evaluate(() => (globalThis as unknown as Browser).document.documentElement.scrollWidth),
      ).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(TEST_RESULTS, "status-page-390.png"), fullPage: true });
    } finally {
      await page.close();
      await phone.close();
    }
  }, 60_000);
});
