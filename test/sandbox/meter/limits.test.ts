import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capPeriodStart, capResetDay } from "../../../src/sandbox/meter/cap.ts";
import { echoHandler, installHandler } from "../../helpers/probe.ts";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";
import type { RouteRequest } from "../../../src/sandbox/route.ts";

let t: TestSandbox;
const restore: Array<() => void> = [];
const MIN15 = 15 * 60_000;

beforeAll(async () => {
  t = await startSandbox();
  for (const key of [
    "GET /2/users/:id/mentions",
    "GET /2/posts/:id",
    "POST /2/posts",
    "GET /2/posts/counts/all",
  ] as const)
    restore.push(installHandler(key, echoHandler));
  restore.push(
    installHandler("GET /2/posts/search/recent", (req: RouteRequest) => {
      req.countPostsRead(Number(req.query.get("deliver") ?? "0"));
      return { status: 200, body: { meta: { result_count: 0 } } };
    }),
  );
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const limitHeaders = (h: Headers) => ({
  limit: h.get("x-rate-limit-limit"),
  remaining: h.get("x-rate-limit-remaining"),
  reset: h.get("x-rate-limit-reset"),
});
const seconds = (ms: number) => String(Math.ceil(ms / 1000));

describe("rate limits (spec part 8)", () => {
  it("U windows per user token and the A window per app apply together (basic mentions: 10/15m U; 15/15m A)", async () => {
    const one = await t.account({ plan: "basic" });
    const two = await t.account({ app: one.app });
    const start = t.clock.now();
    const path = (a: typeof one) => `/2/users/${a.user.id}/mentions`;
    for (let i = 1; i <= 10; i++) {
      const res = await t.signed(one, "GET", path(one));
      expect(res.status).toBe(200);
      // The tightest window is the user's: 10 - i left (the app has 15 - i).
      expect(limitHeaders(res.headers)).toEqual({
        limit: "10",
        remaining: String(10 - i),
        reset: seconds(start + MIN15),
      });
    }
    const over = await t.signed(one, "GET", path(one));
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      title: "Too Many Requests",
      detail: "Too Many Requests",
      type: "about:blank",
      status: 429,
    });
    expect(limitHeaders(over.headers)).toEqual({ limit: "10", remaining: "0", reset: seconds(start + MIN15) });

    // The second user has its own U window but shares the app's A window (10 of 15 spent).
    for (let i = 1; i <= 5; i++) {
      const res = await t.signed(two, "GET", path(two));
      expect(res.status).toBe(200);
      expect(limitHeaders(res.headers)).toMatchObject({ limit: "15", remaining: String(5 - i) });
    }
    const appFull = await t.signed(two, "GET", path(two));
    expect(appFull.status).toBe(429);
    expect(limitHeaders(appFull.headers)).toMatchObject({ limit: "15", remaining: "0" });

    // Refused requests were not counted: once the first window passes, both users have room again.
    await t.clock.advance(MIN15);
    const again = await t.signed(two, "GET", path(two));
    expect(again.status).toBe(200);
    expect(limitHeaders(again.headers)).toEqual({ limit: "10", remaining: "9", reset: seconds(t.clock.now() + MIN15) });
  });

  it("the reset header follows a moved clock, and windows slide", async () => {
    const a = await t.account({ plan: "free" }); // GET /2/posts/:id on free: 1/15m U; 1/15m A
    const first = t.clock.now();
    expect((await t.signed(a, "GET", "/2/posts/1")).status).toBe(200);
    await t.clock.advance(5 * 60_000);
    const refused = await t.signed(a, "GET", "/2/posts/1");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-rate-limit-reset")).toBe(seconds(first + MIN15));
    await t.clock.advance(MIN15 - 5 * 60_000 - 1_000);
    expect((await t.signed(a, "GET", "/2/posts/1")).status).toBe(429);
    await t.clock.advance(1_000);
    const ok = await t.signed(a, "GET", "/2/posts/1");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-rate-limit-reset")).toBe(seconds(t.clock.now() + MIN15));
  });

  it("each app has its own plan: a pro app is untouched by a basic app's spending", async () => {
    const basic = await t.account({ plan: "basic" });
    const pro = await t.account({ plan: "pro" });
    for (let i = 0; i < 15; i++) expect((await t.signed(basic, "GET", "/2/posts/2")).status).toBe(200);
    expect((await t.signed(basic, "GET", "/2/posts/2")).status).toBe(429);
    const res = await t.signed(pro, "GET", "/2/posts/2");
    expect(res.status).toBe(200);
    // pro: 900/15m U; 450/15m A; the tightest is the app's.
    expect(limitHeaders(res.headers)).toMatchObject({ limit: "450", remaining: "449" });
  });

  it("an app-only caller has only the A window", async () => {
    const a = await t.account({ plan: "basic" });
    const bearer = await t.appBearer(a.app);
    const res = await t.bearer(bearer, "GET", "/2/posts/3");
    expect(limitHeaders(res.headers)).toMatchObject({ limit: "15", remaining: "14" });
  });

  it("post creation carries the 24-hour headers of its U and A windows", async () => {
    const a = await t.account({ plan: "basic" }); // 100/24h U; 1667/24h A
    const res = await t.signed(a, "POST", "/2/posts", { json: { text: "hi" } });
    const reset = seconds(t.clock.now() + 24 * 3_600_000);
    expect(res.headers.get("x-user-limit-24hour-limit")).toBe("100");
    expect(res.headers.get("x-user-limit-24hour-remaining")).toBe("99");
    expect(res.headers.get("x-user-limit-24hour-reset")).toBe(reset);
    expect(res.headers.get("x-app-limit-24hour-limit")).toBe("1667");
    expect(res.headers.get("x-app-limit-24hour-remaining")).toBe("1666");
    expect(limitHeaders(res.headers)).toMatchObject({ limit: "100", remaining: "99" });
    // Other endpoints do not carry them.
    expect((await t.signed(a, "GET", "/2/posts/4")).headers.get("x-app-limit-24hour-limit")).toBeNull();
  });

  it("an endpoint the plan does not offer is refused with 403, naming the plan that has it", async () => {
    const a = await t.account({ plan: "basic" });
    const res = await t.bearer(await t.appBearer(a.app), "GET", "/2/posts/counts/all");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      title: "Client Forbidden",
      type: "https://api.twitter.com/2/problems/client-forbidden",
      reason: "client-not-enrolled",
    });
    expect(res.body.detail).toBe(
      "GET /2/posts/counts/all is not available on the basic plan; it is available on the pro plan.",
    );
  });

  it("keeps the windows in the sandbox state", async () => {
    const a = await t.account({ plan: "pro" });
    await t.signed(a, "GET", "/2/posts/5");
    await t.sandbox.save();
    const keys = Object.keys(t.sandbox.context.data.meter.windows).filter((k) =>
      k.startsWith("GET /2/posts/:id|a:" + a.app.id),
    );
    expect(keys).toEqual([`GET /2/posts/:id|a:${a.app.id}|15m`]);
  });
});

describe("the monthly post cap (basic: 500,000 posts through recent search and the filtered stream)", () => {
  it("answers 429 usage-capped once spent, until the enrolment day of the month", async () => {
    const a = await t.account({ plan: "basic" }); // created at the current sandbox time
    const enrolled = new Date(t.clock.now()).getUTCDate();
    expect((await t.signed(a, "GET", "/2/posts/search/recent", { query: { deliver: "499999" } })).status).toBe(200);
    expect((await t.signed(a, "GET", "/2/posts/search/recent", { query: { deliver: "1" } })).status).toBe(200);
    const capped = await t.signed(a, "GET", "/2/posts/search/recent");
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({
      title: "UsageCapExceeded",
      detail: "Usage cap exceeded: Monthly product cap",
      type: "https://api.twitter.com/2/problems/usage-capped",
      period: "Monthly",
      scope: "Product",
    });
    // Other endpoints are not capped.
    expect((await t.signed(a, "GET", "/2/posts/6")).status).toBe(200);
    // On the next enrolment day the cap is fresh.
    const next = new Date(capResetDay(Date.parse(a.app.created_at), t.clock.now()) + "T00:00:00Z");
    expect(next.getUTCDate()).toBe(enrolled);
    await t.clock.advance(next.getTime() - t.clock.now() - 60_000);
    expect((await t.signed(a, "GET", "/2/posts/search/recent")).status).toBe(429);
    await t.clock.advance(60_000);
    expect((await t.signed(a, "GET", "/2/posts/search/recent")).status).toBe(200);
  });

  it("does not cap the pro plan", async () => {
    const a = await t.account({ plan: "pro" });
    await t.signed(a, "GET", "/2/posts/search/recent", { query: { deliver: "600000" } });
    expect((await t.signed(a, "GET", "/2/posts/search/recent")).status).toBe(200);
  });

  it("computes the period from the enrolment day, clamped to short months", () => {
    const jan31 = Date.parse("2026-01-31T10:00:00Z");
    expect(capPeriodStart(jan31, Date.parse("2026-02-15T00:00:00Z"))).toBe("2026-01-31");
    expect(capPeriodStart(jan31, Date.parse("2026-02-28T00:00:00Z"))).toBe("2026-02-28");
    expect(capResetDay(jan31, Date.parse("2026-02-15T00:00:00Z"))).toBe("2026-02-28");
    expect(capPeriodStart(jan31, Date.parse("2026-03-30T00:00:00Z"))).toBe("2026-02-28");
    expect(capPeriodStart(jan31, Date.parse("2026-03-31T00:00:00Z"))).toBe("2026-03-31");
    const dec15 = Date.parse("2025-12-15T00:00:00Z");
    expect(capPeriodStart(dec15, Date.parse("2026-01-10T00:00:00Z"))).toBe("2025-12-15");
    expect(capResetDay(dec15, Date.parse("2025-12-20T00:00:00Z"))).toBe("2026-01-15");
  });
});
