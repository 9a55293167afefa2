/**
 * A real headless Chromium for tests of pages postbot serves (the status page of
 * `bot start --http`): Debian's `chromium` (`.ci/run` installs it when missing), driven by
 * playwright-core, on a fresh profile, with everything that would reach beyond this machine
 * switched off (without those flags Chromium keeps calling home on a closed network).
 *
 * Always close it (`afterAll`/`finally`): {@link Chromium.close} ends the browser and
 * removes its profile, and does not wait longer than a bound for either.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Where tests keep what a person may look at afterwards (git-ignored). */
export const TEST_RESULTS = "test-results";

export interface Chromium {
  context: BrowserContext;
  page: Page;
  /** Every URL the browser asked for, in order (to check that nothing left this machine). */
  requests: string[];
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile and one page; rejects after `timeoutMs` (default 60 s). */
export async function openChromium(timeoutMs = 60_000): Promise<Chromium> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install it with apt-get install -y --no-install-recommends chromium (.ci/run does)`,
    );
  const profile = await mkdtemp(join(tmpdir(), "postbot-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      timeout: timeoutMs,
      viewport: { width: 1400, height: 900 },
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const requests: string[] = [];
  context.on("request", (r) => requests.push(r.url()));
  return {
    context,
    page,
    requests,
    async close() {
      await Promise.race([context.close(), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
