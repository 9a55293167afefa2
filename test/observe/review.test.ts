/**
 * The status server's review page and moderation metrics: `/api/review` lists what the
 * `moderate` plugin hid or was unsure of, `/review` serves the page, `/metrics` counts
 * verdicts by bot, verdict and source; and a decision made through the admin API
 * (`POST /api/admin/review/BOT/POST_ID`, behind POSTBOT_ADMIN_TOKEN, as `/review`'s buttons
 * send it) goes once through the bot's action pipeline.
 */
import { afterEach, describe, expect, it } from "vitest";
import { moderationTallies } from "../../src/moderation/index.ts";
import { operatorLabels } from "../../src/moderation/training/labels.ts";
import { startReviewBed, type ReviewBed } from "../helpers/review-bed.ts";
import { parseExposition, value } from "./bed.ts";

let rb: ReviewBed | undefined;
afterEach(async () => {
  await rb?.close();
  rb = undefined;
});

describe("the review page and moderation metrics", () => {
  it("list the hidden and unsure replies with why, and count the verdicts", async () => {
    rb = await startReviewBed();
    const { bed, server, root } = rb;
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
      // What the page shows, in bot review's words.
      why: `insult:idiot matched "${view.items[0]!.match}"`,
    });
    expect(view.items[0]!.match).toBeTruthy();

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

  it("decide through the admin API with its token: sent once through the pipeline, refused without the token", async () => {
    const token = "review-admin-token-0123456789";
    rb = await startReviewBed({ admin: { token, name: "ops" } });
    const { bed, server, root, desk, sandbox, hidden } = rb;
    const alice = await bed.user("alice");
    const rude = await bed.post(alice, "@warden you're an idiot", root.id);
    await bed.settle();
    expect(hidden(rude.id)).toBe(true);
    const decide = (decision: unknown, auth?: string, post = rude.id) =>
      fetch(`${server.url}/api/admin/review/warden/${post}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
        body: JSON.stringify({ decision }),
      });

    expect(((await (await fetch(`${server.url}/api/review`)).json()) as { admin: boolean }).admin).toBe(true);
    // Before the desk is given: starting.
    expect((await decide("unhide", token)).status).toBe(503);
    server.review(desk);
    expect((await decide("unhide")).status).toBe(401);
    expect((await decide("unhide", "not-the-token-at-all-000")).status).toBe(401);
    const bad = await decide("delete", token);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toBe(
      '"decision" is "delete": write one of hide, unhide, keep',
    );
    const missing = await decide("hide", token, "123");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toContain(
      "post 123 is not on bot warden's review list",
    );
    expect(hidden(rude.id)).toBe(true);

    const before = moderationTallies.reviews.get({ bot: "warden", decision: "unhide" });
    const res = await decide("unhide", token);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "sent",
      item: { post: rude.id, state: "visible", decision: { decision: "unhide", by: "admin:ops" } },
    });
    expect(hidden(rude.id)).toBe(false);
    // Sent once: the same decision again sends nothing.
    expect(await (await decide("unhide", token)).json()).toMatchObject({ status: "done already" });
    expect(sandbox.context.data.meter.stats["PUT /2/posts/:id/hidden"]).toEqual({ "200": 2 });
    expect(moderationTallies.reviews.get({ bot: "warden", decision: "unhide" }) - before).toBe(1);
    // The page's decision is one of the operator's labels, once: the reply's text is fine.
    expect(operatorLabels(bed.store).map((l) => [l.text, l.abusive, l.by, l.bot, l.post])).toEqual([
      ["@warden you're an idiot", false, "admin:ops", "warden", rude.id],
    ]);
  });
});
