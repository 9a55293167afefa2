import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../src/api/endpoints.ts";
import { createClock } from "../../src/clock.ts";
import { BudgetBook } from "../../src/limits/budget.ts";
import { limitsFor, MONTHLY_POST_CAP, PLANS, WINDOW_MS } from "../../src/limits/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { captureLogs } from "../helpers/log.ts";

const START = Date.parse("2026-01-05T12:00:00Z");

function setup(store = createMemoryStore()) {
  const clock = createClock({ frozen: true, start: START });
  const { lines, logger } = captureLogs();
  const book = new BudgetBook({ store, clock, logger });
  return { clock, book, store, lines };
}

/** Takes slots until the budget says no; returns how many it gave. */
function drain(
  budget: ReturnType<BudgetBook["account"]>,
  endpoint: Parameters<typeof limitsFor>[0],
  action?: string,
): number {
  let n = 0;
  while (budget.check(endpoint, action).ok) {
    budget.take(endpoint, action);
    if (++n > 20_000) throw new Error("no limit");
  }
  return n;
}

describe("budget windows", () => {
  it("on every plan and endpoint, allows exactly the tightest window and names when room returns", () => {
    for (const plan of PLANS) {
      for (const { key } of ENDPOINTS) {
        const limits = limitsFor(key, plan);
        const { book } = setup();
        const budget = book.account({ appId: "app", userId: "u1", plan });
        if (limits === "unavailable") {
          const r = budget.check(key);
          expect(r.ok).toBe(false);
          if (!r.ok) {
            expect(r.readyAt).toBe(Infinity);
            expect(r.reason).toContain(`not available on the ${plan} plan`);
          }
          continue;
        }
        const allowed = Math.min(...limits.map((l) => l.max));
        expect(drain(budget, key), `${plan} ${key}`).toBe(allowed);
        const r = budget.check(key);
        expect(r.ok).toBe(false);
        // Room returns when the binding window's first event leaves it.
        const binding = Math.max(...limits.filter((l) => l.max === allowed).map((l) => WINDOW_MS[l.per]));
        if (!r.ok) expect(r.readyAt).toBe(START + binding);
      }
    }
  });

  it("slides: after a window passes, the whole limit is available again, and not before", async () => {
    const { book, clock } = setup();
    const budget = book.account({ appId: "app", userId: "u1", plan: "basic" });
    // basic mentions: 10/15m U; 15/15m A
    expect(drain(budget, "GET /2/users/:id/mentions")).toBe(10);
    await clock.advance(15 * 60_000 - 1);
    expect(budget.check("GET /2/users/:id/mentions").ok).toBe(false);
    await clock.advance(1);
    expect(drain(budget, "GET /2/users/:id/mentions")).toBe(10);
  });

  it("counts U windows per account and A windows shared by the accounts of one app", () => {
    const { book } = setup();
    const a = book.account({ appId: "app1", userId: "a", plan: "basic" });
    const b = book.account({ appId: "app1", userId: "b", plan: "basic" });
    const c = book.account({ appId: "app2", userId: "c", plan: "basic" });
    expect(drain(a, "GET /2/users/:id/mentions")).toBe(10); // U 10 binds
    expect(drain(b, "GET /2/users/:id/mentions")).toBe(5); // A 15 shared: 5 left
    const r = b.check("GET /2/users/:id/mentions");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/app app1's 15\/15m window/);
    expect(drain(c, "GET /2/users/:id/mentions")).toBe(10); // another app: its own A window
  });

  it("keeps a reserve of every window unused, never rounding a window of 1 to 0", () => {
    const { book } = setup();
    const basic = book.account({ appId: "app", userId: "u", plan: "basic" }, { reserve: 0.1 });
    expect(drain(basic, "GET /2/users/:id/mentions")).toBe(9); // 10 - floor(1.0)
    const free = book.account({ appId: "app2", userId: "v", plan: "free" }, { reserve: 0.5 });
    expect(drain(free, "POST /2/users/:id/likes")).toBe(1); // 1/15m: 1 - floor(0.5)
    const r = basic.check("GET /2/users/:id/mentions");
    if (!r.ok) expect(r.reason).toContain("9 usable after the reserve");
    expect(() => book.account({ appId: "x", userId: "y", plan: "pro" }, { reserve: 1 })).toThrow(/reserve/);
  });

  it("applies a per-action cap on top of the plan, per action, and a cap of 0 turns the action off", async () => {
    const { book, clock } = setup();
    const budget = book.account(
      { appId: "app", userId: "u", plan: "pro", bot: "greeter" },
      { caps: { reply: { max: 2, per: 3_600_000 }, like: { max: 0, per: 60_000 } } },
    );
    expect(drain(budget, "POST /2/posts", "reply")).toBe(2);
    const r = budget.check("POST /2/posts", "reply");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.readyAt).toBe(START + 3_600_000);
      expect(r.reason).toMatch(/cap of 2 reply/);
    }
    expect(budget.check("POST /2/posts", "post").ok).toBe(true); // the same endpoint, another action
    const off = budget.check("POST /2/users/:id/likes", "like");
    expect(off.ok === false && off.readyAt === Infinity).toBe(true);
    await clock.advance(3_600_000);
    expect(budget.check("POST /2/posts", "reply").ok).toBe(true);
  });

  it("persists windows in the store, so a new process remembers what was spent, and compacts old events", async () => {
    const store = createMemoryStore();
    const first = setup(store);
    const budget = first.book.account({ appId: "app", userId: "u", plan: "basic" });
    drain(budget, "POST /2/users/:id/following"); // 5/15m U
    await Promise.resolve(); // windows are written in a microtask
    const second = new BudgetBook({ store, clock: first.clock });
    expect(second.account({ appId: "app", userId: "u", plan: "basic" }).check("POST /2/users/:id/following").ok).toBe(
      false,
    );
    expect(store.entries("budget.windows")).toHaveLength(1);
    await first.clock.advance(15 * 60_000);
    new BudgetBook({ store, clock: first.clock }); // compaction on open
    expect(store.entries("budget.windows")).toHaveLength(0);
  });

  it("moves a slot to the time the answer came, so latency cannot make the local window free early", async () => {
    const { book, clock } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "free" });
    const slot = budget.take("POST /2/users/:id/following"); // 1/15m U
    await clock.advance(700); // the answer takes 700 ms
    budget.settle(slot);
    const r = budget.check("POST /2/users/:id/following");
    expect(r.ok === false && r.readyAt === START + 700 + 15 * 60_000).toBe(true);
  });
});

describe("corrections from the service's headers", () => {
  it("corrects the matching window down to the reported remaining", () => {
    const { book, clock } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "pro" });
    // pro mentions: 300/15m U; 450/15m A. Another process used 100 of the user's window.
    budget.take("GET /2/users/:id/mentions");
    budget.observe("GET /2/users/:id/mentions", {
      window: { limit: 300, remaining: 199, resetAt: clock.now() + 900_000 },
    });
    expect(budget.remaining("GET /2/users/:id/mentions")).toBe(199);
    // A report of more room than counted frees nothing.
    budget.observe("GET /2/users/:id/mentions", {
      window: { limit: 300, remaining: 299, resetAt: clock.now() + 900_000 },
    });
    expect(budget.remaining("GET /2/users/:id/mentions")).toBe(199);
  });

  it("matches equal limits to the tighter window (the one the service reports)", () => {
    const { book } = setup();
    // basic GET /2/posts/:id: 15/15m U; 15/15m A. Another account of the app used 5 of A.
    const other = book.account({ appId: "app", userId: "o", plan: "basic" });
    for (let i = 0; i < 5; i++) other.take("GET /2/posts/:id");
    const budget = book.account({ appId: "app", userId: "u", plan: "basic" });
    budget.take("GET /2/posts/:id");
    budget.observe("GET /2/posts/:id", { window: { limit: 15, remaining: 5, resetAt: START + 900_000 } });
    const windows = budget.describe("GET /2/posts/:id").windows;
    expect(windows.find((w) => w.scope === "app")!.used).toBe(10);
    expect(windows.find((w) => w.scope === "user")!.used).toBe(1);
  });

  it("corrects the 24-hour windows from their own headers", () => {
    const { book, clock } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "basic" });
    // basic POST /2/posts: 100/24h U; 1667/24h A
    budget.take("POST /2/posts");
    budget.observe("POST /2/posts", {
      window: { limit: 100, remaining: 99, resetAt: clock.now() + 86_400_000 },
      app24h: { limit: 1667, remaining: 1000, resetAt: clock.now() + 86_400_000 },
      user24h: { limit: 100, remaining: 90, resetAt: clock.now() + 86_400_000 },
    });
    const windows = budget.describe("POST /2/posts").windows;
    expect(windows.find((w) => w.scope === "app")!.used).toBe(667);
    expect(windows.find((w) => w.scope === "user")!.used).toBe(10);
  });

  it("pauses on a reported remaining of 0 even for a window it does not know, and warns once about the plan", () => {
    const { book, clock, lines } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "pro" });
    const reset = clock.now() + 120_000;
    for (let i = 0; i < 3; i++)
      budget.observe("POST /2/users/:id/likes", { window: { limit: 200, remaining: 0, resetAt: reset } });
    const r = budget.check("POST /2/users/:id/likes");
    expect(r.ok === false && r.readyAt === reset).toBe(true);
    const warnings = lines.filter((l) => String(l.msg).includes("is the bot file's plan the app's plan"));
    expect(warnings).toHaveLength(1);
  });

  it("on a 429 pauses until the reset without touching the counts", () => {
    const { book, clock } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "basic" });
    budget.take("GET /2/users/:id/mentions");
    budget.observe(
      "GET /2/users/:id/mentions",
      { window: { limit: 10, remaining: 0, resetAt: clock.now() + 60_000 } },
      429,
    );
    expect(budget.describe("GET /2/users/:id/mentions").windows.find((w) => w.scope === "user")!.used).toBe(1);
    const r = budget.check("GET /2/users/:id/mentions");
    expect(r.ok === false && r.readyAt === clock.now() + 60_000 && /paused/.test(r.reason)).toBe(true);
  });
});

describe("the monthly read cap", () => {
  it("holds capped reads on basic until the enrolment day once spent, and says so", () => {
    const { book, lines } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "basic" }, { enrolmentDay: 20 });
    budget.countPostsRead(MONTHLY_POST_CAP.basic! - 1);
    expect(budget.check("GET /2/posts/search/recent").ok).toBe(true);
    budget.countPostsRead(1);
    const r = budget.check("GET /2/posts/search/recent");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.readyAt).toBe(Date.parse("2026-01-20T00:00:00Z"));
      expect(r.reason).toContain("monthly cap of 500000 posts");
    }
    expect(lines.some((l) => String(l.msg).includes("monthly cap of 500000 posts") && l.level === 40)).toBe(true);
    expect(budget.check("GET /2/users/:id/mentions").ok).toBe(true); // not a capped read
    expect(budget.monthlyUsage()).toMatchObject({ cap: 500_000, used: 500_000 });
  });

  it("a usage-capped answer spends the cap whatever the local count", () => {
    const { book } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "basic" });
    budget.markCapSpent();
    expect(budget.check("GET /2/posts/search/recent").ok).toBe(false);
  });

  it("has no cap on plans without one", () => {
    const { book } = setup();
    const budget = book.account({ appId: "app", userId: "u", plan: "pro" });
    budget.countPostsRead(10_000_000);
    expect(budget.monthlyUsage()).toBeUndefined();
    expect(budget.check("GET /2/posts/search/recent").ok).toBe(true);
  });
});
