import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoHandler, installHandler } from "../helpers/probe.ts";
import { createUser, startSandbox, T0, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox({ plan: "basic", adminToken: "admin-secret" });
  restore.push(installHandler("PUT /2/posts/:id/hidden", echoHandler), installHandler("GET /2/posts/:id", echoHandler));
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

describe("the admin API", () => {
  it("needs the admin token", async () => {
    expect((await t.adminCall("GET", "/_sandbox/stats", undefined, "wrong")).status).toBe(401);
    const none = await t.raw("GET", "/_sandbox/stats");
    expect(none.status).toBe(401);
    expect(none.body.detail).toContain("admin token");
  });

  it("creates apps with every credential, on the sandbox's default plan unless told", async () => {
    const res = await t.adminCall("POST", "/_sandbox/apps", {
      name: "greeter",
      callback_urls: ["http://127.0.0.1:1/cb"],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      name: "greeter",
      plan: "basic",
      consumer_key: expect.stringMatching(/^\w{25}$/),
      consumer_secret: expect.stringMatching(/^\w{50}$/),
      client_id: expect.any(String),
      client_secret: expect.any(String),
      callback_urls: ["http://127.0.0.1:1/cb"],
      academic: false,
      created_at: new Date(T0).toISOString(),
    });
    expect((await t.adminCall("POST", "/_sandbox/apps", { plan: "free", academic: true })).body).toMatchObject({
      plan: "free",
      academic: true,
    });
  });

  it("refuses bad bodies with a 400 naming the field", async () => {
    const bad = await t.adminCall("POST", "/_sandbox/apps", { plan: "gold" });
    expect(bad.status).toBe(400);
    expect(bad.body.type).toBe("https://api.twitter.com/2/problems/invalid-request");
    expect(bad.body.errors[0].message).toMatch(/^plan: /);
    expect(bad.body.errors[0].parameters).toEqual({ plan: [] });
    expect((await t.adminCall("POST", "/_sandbox/apps", { colour: "red" })).body.errors[0].message).toContain("colour");
    expect((await t.adminCall("POST", "/_sandbox/apps", { callback_urls: ["not a url"] })).status).toBe(400);
    expect(
      (await t.adminCall("POST", "/_sandbox/tokens", { consumer_key: "nope", user_id: "1" })).body.errors[0].message,
    ).toMatch(/^consumer_key/);
    expect((await t.adminCall("POST", "/_sandbox/clock", { advance_ms: -5 })).body.errors[0].message).toMatch(
      /^advance_ms/,
    );
    expect((await t.adminCall("POST", "/_sandbox/clock", { advance_ms: "soon" })).status).toBe(400);
    const notJson = await t.raw("POST", "/_sandbox/apps", {
      raw: "{oops",
      headers: { authorization: `Bearer admin-secret`, "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0].message).toContain("not valid JSON");
    expect((await t.adminCall("POST", "/_sandbox/nothing", {})).status).toBe(404);
  });

  it("makes tokens as the 3-legged flow would", async () => {
    const app = await t.admin.createApp();
    const user = await createUser(t.sandbox, "tokenuser");
    const res = await t.adminCall("POST", "/_sandbox/tokens", { consumer_key: app.consumer_key, user_id: user.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      token: expect.stringMatching(new RegExp(`^${user.id}-\\w{40}$`)),
      token_secret: expect.stringMatching(/^\w{45}$/),
      user_id: user.id,
      screen_name: "tokenuser",
    });
    expect(
      (await t.adminCall("POST", "/_sandbox/tokens", { consumer_key: app.consumer_key, user_id: "999" })).body.errors[0]
        .message,
    ).toMatch(/^user_id/);
  });

  it("moves the clock and answers the new time", async () => {
    const before = t.clock.now();
    const res = await t.adminCall("POST", "/_sandbox/clock", { advance_ms: 90_000 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ now: new Date(before + 90_000).toISOString(), now_ms: before + 90_000 });
    expect(t.clock.now()).toBe(before + 90_000);
    expect(await t.admin.advanceClock(10_000)).toEqual({
      now: new Date(before + 100_000).toISOString(),
      now_ms: before + 100_000,
    });
  });

  it("counts service requests by route template and status, exactly in the documented shape", async () => {
    const fresh = await startSandbox();
    const r = installHandler("PUT /2/posts/:id/hidden", echoHandler);
    try {
      const a = await fresh.account({ plan: "free" });
      await fresh.signed(a, "PUT", "/2/posts/77/hidden", { json: { hidden: true } });
      await fresh.signed(a, "PUT", "/2/posts/78/hidden", { json: { hidden: true } }); // free: 1/15m U → 429
      await fresh.raw("PUT", "/2/posts/79/hidden");
      await fresh.adminCall("GET", "/_sandbox/stats");
      await fresh.raw("GET", "/nowhere");
      const stats = await fresh.adminCall("GET", "/_sandbox/stats");
      expect(stats.body).toEqual({ routes: { "PUT /2/posts/:id/hidden": { "200": 1, "429": 1, "401": 1 } } });
      expect(await fresh.admin.stats()).toEqual(stats.body);
      await fresh.appBearer(a.app);
      expect((await fresh.admin.stats()).routes["POST /oauth2/token"]).toEqual({ "200": 1 });
    } finally {
      r();
      await fresh.close();
    }
  });

  it("shows a user's one-to-one conversation after an id, oldest first, reading no window of the user's", async () => {
    const ann = await t.admin.createUser({ username: "dm_ann" });
    const bob = await t.admin.createUser({ username: "dm_bob" });
    const carl = await t.admin.createUser({ username: "dm_carl" });
    const first = await t.admin.sendDm({ sender_id: ann.id, recipient_id: bob.id, text: "hi bob" });
    const answer = await t.admin.sendDm({ sender_id: bob.id, recipient_id: ann.id, text: "hi ann" });
    await t.admin.sendDm({ sender_id: carl.id, recipient_id: ann.id, text: "another conversation" });
    const before = await t.admin.stats();
    const all = await t.adminCall("GET", `/_sandbox/dm_events?user_id=${ann.id}&participant_id=${bob.id}`);
    expect(all.status).toBe(200);
    expect(
      all.body.data.map((e: { id: string; text: string; sender_id: string }) => [e.id, e.text, e.sender_id]),
    ).toEqual([
      [first.id, "hi bob", ann.id],
      [answer.id, "hi ann", bob.id],
    ]);
    expect(all.body.data[0]).toMatchObject({ event_type: "MessageCreate", created_at: expect.any(String) });
    const after = await t.adminCall(
      "GET",
      `/_sandbox/dm_events?user_id=${ann.id}&participant_id=${bob.id}&since_id=${first.id}`,
    );
    expect(after.body.data.map((e: { id: string }) => e.id)).toEqual([answer.id]);
    expect(await t.admin.stats()).toEqual(before);
    const bad = await t.adminCall("GET", `/_sandbox/dm_events?user_id=${ann.id}`);
    expect([bad.status, bad.body.errors[0].message]).toEqual([400, "participant_id: expected a numeric id"]);
  });

  it("refuses an admin call in-process with the same validation", async () => {
    await expect(t.admin.createApp({ plan: "gold" as never })).rejects.toThrow(/plan/);
  });
});
