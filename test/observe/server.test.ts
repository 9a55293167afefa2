import { afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { Activity, readiness, startObserveServer, streamStates, type ObserveServer } from "../../src/observe/index.ts";
import type { LiveUpdate } from "../../src/observe/live.ts";
import type { StatusView } from "../../src/observe/status-view.ts";
import { echoBot, manyBots, observedBed, T0, type ObservedBed } from "./bed.ts";

let t: ObservedBed | undefined;
let server: ObserveServer | undefined;
afterEach(async () => {
  await t?.close();
  await server?.close();
  t = undefined;
  server = undefined;
});

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Reads server-sent events from `url` until `until` returns true for one; aborts the connection after. */
async function readEvents(
  url: string,
  until: (event: string, data: unknown) => boolean,
  started?: () => Promise<void>,
): Promise<Array<{ event: string; data: unknown }>> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: Array<{ event: string; data: unknown }> = [];
  let buffer = "";
  let kicked = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended; saw ${JSON.stringify(seen)}`);
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!event || data === undefined) continue;
        const parsed = { event, data: JSON.parse(data) as unknown };
        seen.push(parsed);
        if (until(parsed.event, parsed.data)) return seen;
        if (event === "hello" && !kicked) {
          kicked = true;
          void started?.();
        }
      }
    }
  } finally {
    abort.abort();
  }
}

describe("/healthz and /readyz", () => {
  it("is live at once; ready once every bot started, still ready with a paused bot (naming why), not ready while stopping", async () => {
    t = await observedBed([echoBot("greeter"), echoBot("helper")], { attach: false });
    const { bed, server: s } = t;
    expect(await getJson(`${s.url}/healthz`)).toEqual({ status: 200, body: { live: true } });
    const starting = await getJson(`${s.url}/readyz`);
    expect(starting.status).toBe(503);
    expect(starting.body).toMatchObject({ ready: false, phase: "starting" });

    const { runtimeSource } = await import("../../src/observe/index.ts");
    s.attach(runtimeSource(bed.runtime, bed.clock));
    expect(await getJson(`${s.url}/readyz`)).toEqual({ status: 200, body: { ready: true, phase: "running", bots: 2 } });

    bed.runtime.bots.get("helper")!.pause("the service refused the account; sign it in again");
    expect(await getJson(`${s.url}/readyz`)).toEqual({
      status: 200,
      body: {
        ready: true,
        phase: "running",
        bots: 2,
        paused: [{ bot: "helper", reason: "the service refused the account; sign it in again" }],
      },
    });

    s.stopping();
    const stopping = await getJson(`${s.url}/readyz`);
    expect(stopping.status).toBe(503);
    expect(stopping.body).toMatchObject({
      ready: false,
      phase: "stopping",
      notReady: [{ why: "postbot is stopping" }],
    });
  });

  it("names a bot that is paused without a reason, or stopped", () => {
    const source = manyBots(3);
    const bots = source.bots();
    bots[1] = { ...bots[1]!, paused: { reason: " ", at: T0 } };
    bots[2] = { ...bots[2]!, stoppedAt: T0 };
    const r = readiness("running", source);
    expect(r.status).toBe(503);
    expect(r.body.notReady).toEqual([
      { bot: "bot-0001", why: "paused without a reason" },
      { bot: "bot-0002", why: "stopped" },
    ]);
  });
});

describe("/events (live updates)", () => {
  it("says hello, then sends an update naming the bot and its action when it acts", async () => {
    t = await observedBed([echoBot("greeter")]);
    const { bed, server: s } = t;
    const alice = await bed.user("alice");
    const seen = await readEvents(
      `${s.url}/events`,
      (event, data) => event === "update" && (data as LiveUpdate).actions.length > 0,
      async () => {
        await bed.post(alice, "@greeter live?");
        await bed.advance(3_000);
        await bed.settle();
      },
    );
    expect(seen[0]!.event).toBe("hello");
    const update = seen.at(-1)!.data as LiveUpdate;
    expect(update.bots).toContain("greeter");
    expect(update.actions).toEqual([
      expect.objectContaining({ bot: "greeter", kind: "reply", status: "sent", text: "echo: @greeter live?" }),
    ]);
    expect(update.now).toBe(bed.clock.now());
  });

  it("tells open pages at once when a bot is paused by a refused poll, with no action", async () => {
    t = await observedBed([echoBot("greeter"), { ...echoBot("helper"), triggers: { mentions: { via: "poll" } } }]);
    const { bed, server: s } = t;
    await bed.advance(60_000);
    await bed.settle();
    const helper = bed.runtime.bots.get("helper")!.identity.userId;
    const seen = await readEvents(
      `${s.url}/events`,
      (event, data) =>
        event === "update" &&
        Array.isArray((data as LiveUpdate).bots) &&
        ((data as LiveUpdate).bots as string[]).includes("helper"),
      async () => {
        for (const tok of Object.values(bed.sandbox.context.data.auth.access_tokens))
          if (tok.user_id === helper) tok.invalidated_at = bed.clock.now();
        await bed.advance(60_000); // two bots of one app share the mentions window: polls are further apart
        await bed.settle();
      },
    );
    expect((seen.at(-1)!.data as LiveUpdate).actions).toEqual([]);
    const view = (await getJson(`${s.url}/api/status?state=paused`)).body as unknown as StatusView;
    expect(view.paused).toEqual([
      expect.objectContaining({ bot: "helper", reason: expect.stringContaining("401, code 89") }),
    ]);
  });

  it("gathers a burst of changes into one message", async () => {
    server = await startObserveServer({ host: "127.0.0.1", port: 0, clock: createClock({ frozen: true, start: T0 }) });
    const s = server;
    const seen = await readEvents(
      `${s.url}/events`,
      (event) => event === "update",
      async () => {
        for (let i = 0; i < 100; i++)
          s.observer.action({
            bot: `bot-${i % 7}`,
            kind: "like",
            target: String(i),
            status: "sent",
            at: T0,
            tookMs: 0,
          });
      },
    );
    const update = seen.at(-1)!.data as LiveUpdate;
    expect(update.actions).toHaveLength(100);
    expect(update.actions[0]!.target).toBe("99"); // newest first
    expect([...(update.bots as string[])].sort()).toEqual([
      "bot-0",
      "bot-1",
      "bot-2",
      "bot-3",
      "bot-4",
      "bot-5",
      "bot-6",
    ]);
  });
});

describe("/api/status with 1,000 bots", () => {
  const start = async () => {
    server = await startObserveServer({ host: "127.0.0.1", port: 0, clock: createClock({ frozen: true, start: T0 }) });
    const source = manyBots(1_000);
    server.attach(source);
    const view = async (qs: string) => (await getJson(`${server!.url}/api/status?${qs}`)).body as unknown as StatusView;
    return { source, view };
  };

  it("pages the bots (50 a page by default), reading budgets only for the page shown", async () => {
    const { source, view } = await start();
    const first = await view("");
    expect(first).toMatchObject({
      total: 1_000,
      matched: 1_000,
      pages: 20,
      counts: { running: 900, paused: 100 },
      query: { page: 1, per: 50 },
    });
    expect(first.bots.map((b) => b.bot)).toEqual(
      Array.from({ length: 50 }, (_, i) => `bot-${String(i).padStart(4, "0")}`),
    );
    expect(source.budgetReads).toBe(50);
    expect(first.paused).toHaveLength(100);

    const last = await view("page=20&per=50");
    expect(last.bots.map((b) => b.bot).at(-1)).toBe("bot-0999");
    // Past the end: the last page.
    expect((await view("page=99")).query.page).toBe(20);
    expect((await view("per=100")).pages).toBe(10);
    // Out of range: the default.
    expect((await view("per=100000")).query.per).toBe(50);
  });

  it("searches names and usernames in any case, and filters by state", async () => {
    const { view } = await start();
    const one = await view("q=BOT-0999");
    expect(one.bots.map((b) => b.bot)).toEqual(["bot-0999"]);
    expect(one).toMatchObject({ matched: 1, pages: 1, total: 1_000 });
    expect((await view("q=bot-09")).matched).toBe(100);
    expect((await view("q=0042_user")).bots.map((b) => b.bot)).toEqual(["bot-0042"]);
    const paused = await view("state=paused&per=200");
    expect(paused.matched).toBe(100);
    expect(paused.bots.every((b) => b.state === "paused" && b.paused!.reason.startsWith("the service refused"))).toBe(
      true,
    );
    expect((await view("state=running")).matched).toBe(900);
    expect((await view("q=nobody")).bots).toEqual([]);
  });
});

describe("the status server", () => {
  it("serves the page with a policy that allows this server only, and refuses other methods and paths", async () => {
    server = await startObserveServer({ host: "127.0.0.1", port: 0, clock: createClock({ frozen: true, start: T0 }) });
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/status.js" defer></script>');
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${server.url}/status.js`)).headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await fetch(`${server.url}/metrics`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}/nothing`)).status).toBe(404);
  });

  it("shows each app's stream as the runtime records it: state, since, reconnects, posts, the last error", () => {
    const stream = (over: object) => ({
      state: "connected",
      since: T0,
      connects: 1,
      reconnects: 0,
      posts: 3,
      rules: { own: 1, mentions: 0 },
      mentionBots: 0,
      gaps: { count: 0, recovered: 0 },
      ...over,
    });
    const app = (appId: string, over?: object) => ({
      appId,
      plan: "pro" as const,
      bots: 1,
      capacity: [],
      updatedAt: T0,
      ...(over ? { stream: stream(over) as never } : {}),
    });
    expect(
      streamStates([
        app("a", {}),
        app("b", {
          state: "reconnecting",
          since: T0 + 9_000,
          reconnects: 2,
          retryAt: T0 + 14_000,
          lastError: { message: "no data for 90 s", cause: "stall", at: T0 + 9_000 },
        }),
        app("c"),
      ]),
    ).toEqual([
      { app: "a", state: "connected", since: T0, reconnects: 0, posts: 3 },
      {
        app: "b",
        state: "reconnecting",
        since: T0 + 9_000,
        reconnects: 2,
        posts: 3,
        cause: "stall",
        lastError: "no data for 90 s",
        retryAt: T0 + 14_000,
      },
    ]);
  });

  it("keeps each bot's last five actions and the thirty latest", () => {
    const activity = new Activity();
    for (let i = 0; i < 40; i++)
      activity.action({
        bot: i % 2 ? "odd" : "even",
        kind: "like",
        target: String(i),
        status: "sent",
        at: T0 + i,
        tookMs: 0,
      });
    expect(activity.lastActions("odd").map((a) => a.target)).toEqual(["39", "37", "35", "33", "31"]);
    expect(activity.recent()).toHaveLength(30);
    expect(activity.recent()[0]!.target).toBe("39");
  });
});
