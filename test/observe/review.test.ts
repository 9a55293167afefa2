/**
 * The status server's review page and moderation metrics: `/api/review` lists what the
 * `moderate` plugin hid or was unsure of (read-only), `/review` serves the page, and
 * `/metrics` counts verdicts by bot, verdict and source.
 */
import { afterEach, describe, expect, it } from "vitest";
import moderate from "../../plugins/moderate.ts";
import { createClock } from "../../src/clock.ts";
import { sandboxUsername } from "../../src/hosting/provision.ts";
import { runtimeSource, startObserveServer, type ObserveServer } from "../../src/observe/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { parseExposition, T0, value } from "./bed.ts";

let bed: TestBed | undefined;
let server: ObserveServer | undefined;
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await server?.close();
  await bed?.close();
  await sandbox?.close();
  bed = server = sandbox = undefined;
});

describe("the review page and moderation metrics", () => {
  it("list the hidden and unsure replies with why, and count the verdicts", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    sandbox = await createSandbox({ clock });
    server = await startObserveServer({ host: "127.0.0.1", port: 0, clock });
    bed = await createTestBed({
      sandbox,
      bots: [{ name: "warden", plan: "pro", triggers: { mentions: {} }, plugins: { moderate: {} } }],
      plugins: { moderate },
      runtime: { observer: server.observer },
    });
    server.attach(runtimeSource(bed.runtime, clock, bed.store));
    const me = await bed.user(sandboxUsername("warden"));
    const root = await bed.post(me, "Ask me anything");
    const alice = await bed.user("alice");
    const rude = await bed.post(alice, "@warden you're an idiot <script>alert(1)</script>", root.id);
    await bed.post(alice, "@warden lovely, thanks", root.id);
    await bed.settle();

    const res = await fetch(`${server.url}/api/review`);
    expect(res.status).toBe(200);
    const view = (await res.json()) as { now: number; items: Array<Record<string, unknown>> };
    expect(view.items).toHaveLength(1);
    expect(view.items[0]).toMatchObject({
      bot: "warden",
      post: rude.id,
      state: "hidden",
      source: "built-in",
      rule: "insult:idiot",
      text: "@warden you're an idiot <script>alert(1)</script>",
    });

    const page = await fetch(`${server.url}/review`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script src="/review.js" defer></script>');
    expect((await fetch(`${server.url}/review.js`)).status).toBe(200);

    const m = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
    expect(
      value(m, "postbot_moderation_verdicts_total", { bot: "warden", verdict: "hidden", source: "built-in" }),
    ).toBe(1);
    expect(value(m, "postbot_moderation_verdicts_total", { bot: "warden", verdict: "kept", source: "built-in" })).toBe(
      1,
    );
  });
});
