import { afterEach, describe, expect, it } from "vitest";
import { createMetrics } from "../../src/observe/metrics.ts";
import type { BotStatus } from "../../src/runtime/types.ts";
import { echoBot, observedBed, parseExposition, samples, value, type ObservedBed } from "./bed.ts";

let t: ObservedBed | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const scrape = async (url: string) => {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
};

describe("/metrics", () => {
  it("counts actions by bot, kind and outcome, events handled, and shows budget, queue and poll lag", async () => {
    t = await observedBed([{ ...echoBot("greeter"), budget: { reply: { max: 5, per: "1h" } } }, echoBot("quiet")]);
    const { bed, server } = t;
    const alice = await bed.user("alice");
    await bed.post(alice, "@greeter one");
    await bed.post(alice, "@greeter two");
    await bed.advance(60_000); // two bots of one app share the mentions window: polls are further apart
    await bed.settle();

    const m = await scrape(server.url);
    expect(value(m, "postbot_actions_total", { bot: "greeter", kind: "reply", outcome: "sent" })).toBe(2);
    expect(samples(m, "postbot_actions_total", { bot: "quiet" })).toEqual([]);
    expect(value(m, "postbot_events_handled_total", { bot: "greeter", kind: "mention" })).toBe(2);
    expect(value(m, "postbot_action_wait_seconds_count", { kind: "reply" })).toBe(2);

    // Budget left per window: the user's 15-minute window of POST /2/posts lost two requests...
    const posts = { endpoint: "POST /2/posts", action: "" };
    const limit = value(m, "postbot_budget_limit", { ...posts, bot: "greeter", scope: "user", window: "15m" });
    expect(value(m, "postbot_budget_remaining", { ...posts, bot: "greeter", scope: "user", window: "15m" })).toBe(
      limit - 2,
    );
    expect(value(m, "postbot_budget_remaining", { ...posts, bot: "quiet", scope: "user", window: "15m" })).toBe(limit);
    // ...so did the app's 24-hour window ("1d"), shown once for both bots...
    const app = samples(m, "postbot_budget_remaining", { ...posts, scope: "app", window: "1d" });
    expect(app.map((s) => s.labels.bot)).toEqual([""]);
    expect(app[0]!.value).toBe(value(m, "postbot_budget_limit", { ...posts, scope: "app", window: "1d" }) - 2);
    // ...and the bot file's cap on replies.
    expect(value(m, "postbot_budget_remaining", { bot: "greeter", action: "reply", scope: "cap", window: "1h" })).toBe(
      3,
    );
    expect(value(m, "postbot_budget_limit", { bot: "greeter", action: "reply", scope: "cap", window: "1h" })).toBe(5);

    expect(value(m, "postbot_queue_depth")).toBe(0);
    expect(value(m, "postbot_bots", { state: "running" })).toBe(2);
    expect(value(m, "postbot_bots", { state: "paused" })).toBe(0);
    // Poll lag: the age of the trigger's last check, on the runtime's clock.
    const checkedAt = bed.runtime.status().find((s) => s.bot === "greeter")!.triggers.mentions!.lastCheckAt!;
    expect(value(m, "postbot_poll_lag_seconds", { bot: "greeter", trigger: "mentions" })).toBe(
      (bed.clock.now() - checkedAt) / 1000,
    );
    expect(value(m, "postbot_poll_lag_seconds", { bot: "greeter", trigger: "mentions" })).toBeLessThan(60);
    // prom-client's process metrics come along.
    expect(samples(m, "process_cpu_user_seconds_total").length).toBe(1);
  });

  it("lists postbot's own metrics before Node's process metrics, so the head of /metrics is postbot's", async () => {
    t = await observedBed([echoBot("greeter")]);
    const text = await (await fetch(`${t.server.url}/metrics`)).text();
    const names = [...text.matchAll(/^# HELP (\S+)/gm)].map((m) => m[1]!);
    const firstOther = names.findIndex((n) => !n.startsWith("postbot_"));
    expect(firstOther).toBeGreaterThan(0);
    expect(names.slice(firstOther).filter((n) => n.startsWith("postbot_"))).toEqual([]);
  });

  it("counts waits for budget once each, and each request's time in the queue", async () => {
    t = await observedBed([{ ...echoBot("greeter"), budget: { reply: { max: 1, per: "1h" } } }]);
    const { bed, server } = t;
    const alice = await bed.user("alice");
    await bed.post(alice, "@greeter one");
    await bed.post(alice, "@greeter two");
    await bed.post(alice, "@greeter three");
    await bed.advance(3_000);
    await bed.settle();
    let m = await scrape(server.url);
    // One reply went; the other two wait for the cap: one wait begins, counted once.
    expect(value(m, "postbot_budget_waits_total", { bot: "greeter", endpoint: "POST /2/posts" })).toBe(1);
    expect(value(m, "postbot_queue_wait_seconds_count", { endpoint: "POST /2/posts" })).toBe(1);
    expect(value(m, "postbot_queue_depth")).toBe(2);
    await bed.advance(3_600_000);
    await bed.settle();
    m = await scrape(server.url);
    // The next went after the hour's wait, and its time in the queue shows; the third is still
    // in the same wait (a wait is counted when it begins, not at every wake).
    expect(value(m, "postbot_queue_wait_seconds_count", { endpoint: "POST /2/posts" })).toBe(2);
    expect(value(m, "postbot_queue_wait_seconds_bucket", { endpoint: "POST /2/posts", le: "86400" })).toBe(2);
    expect(value(m, "postbot_queue_wait_seconds_bucket", { endpoint: "POST /2/posts", le: "900" })).toBe(1);
    expect(value(m, "postbot_budget_waits_total", { bot: "greeter", endpoint: "POST /2/posts" })).toBe(1);
    expect(value(m, "postbot_queue_depth")).toBe(1);
  });

  it("reads each app's stream from the runtime's record of its apps, as bot status does", async () => {
    t = await observedBed([
      { name: "fan", plan: "pro", triggers: { stream: [{ value: "#flood", tag: "flood" }] }, plugins: { echo: {} } },
    ]);
    const { bed, server } = t;
    await bed.advance(3_000);
    await bed.settle();
    const app = bed.runtime.apps()[0]!;
    expect(app.stream?.state).toBe("connected");
    const m = await scrape(server.url);
    expect(value(m, "postbot_stream_connected", { app: app.appId })).toBe(1);
    const view = (await (await fetch(`${server.url}/api/status`)).json()) as {
      streams: Array<Record<string, unknown>>;
    };
    expect(view.streams).toEqual([
      expect.objectContaining({ app: app.appId, state: "connected", reconnects: 0, posts: 0 }),
    ]);
  });

  it("counts 429s and other error answers of the service by endpoint and status", async () => {
    t = await observedBed([echoBot("greeter")]);
    const { bed, server } = t;
    await bed.sandbox.admin.addFault({
      route: "POST /2/posts",
      count: 1,
      kind: "error",
      status: 429,
      headers: { "x-rate-limit-reset": String(Math.floor(bed.clock.now() / 1000) + 1) },
    });
    await bed.sandbox.admin.addFault({ route: "GET /2/users/:id/mentions", count: 1, kind: "error", status: 503 });
    const alice = await bed.user("alice");
    await bed.post(alice, "@greeter hello");
    await bed.advance(3_000); // this poll gets the 503
    await bed.settle();
    await bed.advance(3_000); // this one gets the mention; its reply gets the 429 and waits
    await bed.settle();
    await bed.advance(60_000); // the retry after the reset and back-off
    await bed.settle();

    const m = await scrape(server.url);
    expect(value(m, "postbot_service_errors_total", { bot: "greeter", endpoint: "POST /2/posts", status: "429" })).toBe(
      1,
    );
    expect(
      value(m, "postbot_service_errors_total", {
        bot: "greeter",
        endpoint: "GET /2/users/:id/mentions",
        status: "503",
      }),
    ).toBe(1);
    expect(value(m, "postbot_actions_total", { bot: "greeter", kind: "reply", outcome: "sent" })).toBe(1);
    expect(bed.postsBy("greeter").map((p) => p.text)).toEqual(["echo: @greeter hello"]);
  });

  it("leaves the runtime's states out while the bots start, and answers", async () => {
    t = await observedBed([echoBot("greeter")], { attach: false });
    const m = await scrape(t.server.url);
    expect(samples(m, "postbot_bots")).toEqual([]);
    expect(value(m, "postbot_queue_depth")).toBe(0);
  });

  it("shows each bot's replies waiting for its budget.llm, as bot status reads them from the store", async () => {
    const bot = (name: string): BotStatus => ({
      bot: name,
      appId: "app",
      userId: "1",
      username: name,
      plan: "pro",
      triggers: {},
      inbox: 0,
      updatedAt: 0,
    });
    const metrics = createMetrics({
      source: () => ({
        bots: () => [bot("helpdesk"), bot("idle"), bot("plain")],
        budget: () => undefined,
        queueDepth: () => 0,
        apps: () => [],
        now: () => 0,
        llm: (name) => (name === "plain" ? undefined : { waiting: name === "helpdesk" ? 2 : 0 }),
      }),
    });
    const m = parseExposition((await metrics.scrape()).body);
    expect(samples(m, "postbot_llm_budget_waiting")).toEqual([
      expect.objectContaining({ labels: { bot: "helpdesk" }, value: 2 }),
    ]);
  });
});
