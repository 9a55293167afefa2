import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { echoHandler, installHandler } from "../helpers/probe.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox();
  alice = await t.account({ username: "alice" });
  restore.push(installHandler("GET /2/posts/:id", echoHandler));
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

describe("injected faults", () => {
  it("answers a chosen status and body for a route, for a count of requests", async () => {
    const added = await t.adminCall("POST", "/_sandbox/faults", {
      route: "GET /2/posts/:id",
      count: 2,
      kind: "error",
      status: 503,
      body: { title: "Service Unavailable", type: "about:blank", status: 503 },
      headers: { "retry-after": "1" },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      id: expect.any(String),
      route: "GET /2/posts/:id",
      remaining: 2,
      kind: "error",
    });
    expect((await t.adminCall("GET", "/_sandbox/faults")).body.faults).toHaveLength(1);
    for (let i = 0; i < 2; i++) {
      const res = await t.signed(alice, "GET", "/2/posts/1");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ title: "Service Unavailable", type: "about:blank", status: 503 });
      expect(res.headers.get("retry-after")).toBe("1");
    }
    expect((await t.signed(alice, "GET", "/2/posts/1")).status).toBe(200);
    expect((await t.admin.stats()).routes["GET /2/posts/:id"]).toMatchObject({ "503": 2, "200": 1 });
    expect((await t.adminCall("GET", "/_sandbox/faults")).body.faults).toEqual([]);
  });

  it("delays a request on the sandbox clock", async () => {
    await t.admin.addFault({ route: "GET /2/posts/:id", kind: "delay", delay_ms: 30_000 });
    const pendingBefore = t.clock.pending();
    let done = false;
    const req = t.signed(alice, "GET", "/2/posts/2").then((r) => ((done = true), r));
    await vi.waitFor(() => expect(t.clock.pending()).toBe(pendingBefore + 1));
    await t.clock.advance(29_999);
    expect(done).toBe(false);
    await t.clock.advance(1);
    expect((await req).status).toBe(200);
  });

  it("resets the connection", async () => {
    await t.admin.addFault({ route: "GET /2/posts/:id", kind: "reset" });
    await expect(t.signed(alice, "GET", "/2/posts/3")).rejects.toThrow();
    expect((await t.signed(alice, "GET", "/2/posts/3")).status).toBe(200);
  });

  it("applies to OAuth endpoints too", async () => {
    await t.admin.addFault({ route: "POST /oauth2/token", kind: "error", status: 500 });
    await expect(t.appBearer(alice.app)).rejects.toThrow(/500/);
    expect(await t.appBearer(alice.app)).toMatch(/^A+/);
  });

  it("refuses faults for routes that do not exist, and can be cleared", async () => {
    const bad = await t.adminCall("POST", "/_sandbox/faults", { route: "GET /2/nothing", kind: "reset" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toMatch(/^route/);
    expect((await t.adminCall("POST", "/_sandbox/faults", { route: "GET /2/posts/:id", kind: "explode" })).status).toBe(
      400,
    );
    await t.admin.addFault({ route: "GET /2/posts/:id", kind: "reset", count: 5 });
    await t.admin.clearFaults();
    expect((await t.signed(alice, "GET", "/2/posts/4")).status).toBe(200);
  });
});
