/**
 * Hosting many bots in one process (issue 9): mentions through the app's stream, no lost
 * posts across a stream drop, a stream that never gives up, a bearer token kept across
 * restarts, and several apps side by side. All on the sandbox, with a frozen clock; where
 * the stream's delivery crosses a real socket, the tests wait for the outcome (never for
 * a time).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createClock } from "../../src/clock.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createSandbox } from "../../src/sandbox/index.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { APP_TOKENS_NAMESPACE, appTokenKey } from "../../src/credentials/accounts.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { T0 } from "../helpers/sandbox.ts";

const echo = definePlugin({
  name: "echo",
  options: z.object({ text: z.string() }),
  setup(bot, options) {
    bot.on("mention", async (ctx) => {
      await ctx.reply(options.text.replace("{author.username}", ctx.author.username).replace("{bot}", bot.name));
    });
  },
});

const seen: string[] = [];
const recorder = definePlugin({
  name: "recorder",
  setup(bot) {
    bot.on("post", (ctx) => void seen.push(`${bot.name} post ${ctx.post.text}`));
    bot.on("mention", (ctx) => void seen.push(`${bot.name} mention ${ctx.post.text}`));
  },
});

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  seen.length = 0;
});

/** Waits (on real time, polling) until the check passes: the stream crosses a socket. */
const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });

const statsOf = async (b: TestBed, route: string) => {
  const stats = (await b.sandbox.admin.stats()) as { routes: Record<string, Record<string, number>> };
  return stats.routes[route] ?? {};
};

describe("hosting many bots", () => {
  it("gives 500 bots of one app their mentions through the stream, each once, with one catch-up poll each", {
    timeout: 60_000,
  }, async () => {
    const bots = Array.from({ length: 500 }, (_, i) => ({
      name: `b${i}`,
      plan: "pro" as const,
      triggers: { mentions: {} },
      plugins: { recorder: {} },
    }));
    bed = await createTestBed({ bots, plugins: { recorder } });
    const alice = await bed.user("alice");
    // The mention rules pack the 500 names, within the pro caps.
    const rules = Object.values(bed.sandbox.context.data.world.stream_rules).filter(
      (r) => r.tag === "postbot:mentions",
    );
    expect(rules.length).toBeGreaterThan(1);
    expect(rules.length).toBeLessThan(50);
    expect(rules.every((r) => r.value.length <= 1024)).toBe(true);
    await eventually(() => expect(bed!.runtime.apps()[0]!.stream?.state).toBe("connected"));

    for (let i = 0; i < 500; i++) await bed.post(alice, `@b${i} question number ${i}`);
    const expected = Array.from({ length: 500 }, (_, i) => `b${i} mention @b${i} question number ${i}`).sort();
    // Without the clock moving: the stream brought them, each to the bot it named.
    await eventually(() => expect([...seen].sort()).toEqual(expected));

    // The catch-up polls spread within the app's window (450 per 15 minutes): one per bot, no polling loop.
    const polls = async () =>
      Object.values(await statsOf(bed!, "GET /2/users/:id/mentions")).reduce((a, b) => a + b, 0);
    expect(await polls()).toBe(450);
    await bed.advance(15 * 60_000);
    await bed.settle();
    expect(await polls()).toBe(500);
    await bed.advance(15 * 60_000);
    await bed.settle();
    expect(await polls()).toBe(500);
    expect([...seen].sort()).toEqual(expected);
  });

  it("loses nothing when the stream drops in the middle of a flood: the gap is recovered by search and mentions by the catch-up polls", async () => {
    const { lines, logger } = captureLogs("info");
    const sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
    // The first connection drops after 6 posts: in the middle of the flood below.
    await sandbox.admin.addFault({ route: "GET /2/posts/search/stream", count: 1, kind: "drop", after_messages: 6 });
    bed = await createTestBed({
      sandbox,
      logger,
      bots: [
        {
          name: "fan",
          plan: "pro",
          triggers: { stream: [{ value: "#flood", tag: "flood" }] },
          plugins: { recorder: {} },
        },
        { name: "listener", plan: "pro", triggers: { mentions: {} }, plugins: { recorder: {} } },
      ],
      plugins: { recorder },
    });
    const alice = await bed.user("alice");
    const hub = () => bed!.runtime.apps()[0]!.stream!;
    await eventually(() => expect(hub().state).toBe("connected"));
    const posts: string[] = [];
    for (let i = 0; i < 30; i++) {
      const text = i % 3 === 0 ? `@listener mention ${i}` : `#flood post ${i}`;
      posts.push(text);
      await bed.post(alice, text);
    }
    await eventually(() => expect(hub().connects).toBe(2));
    await eventually(() => {
      const got = seen.map((s) => s.replace(/^\S+ \S+ /, ""));
      expect([...got].sort()).toEqual([...posts].sort());
    });
    await bed.settle();
    // Each once: no post handed out twice by the stream, the search and the catch-up poll.
    const counts = new Map<string, number>();
    for (const s of seen) counts.set(s, (counts.get(s) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(
      lines.some((l) => /^stream gap of [\d.]+ s closed: recent search recovered \d+ posts/.test(String(l.msg))),
    ).toBe(true);
    expect(hub().gaps.count).toBe(1);
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });

  it("keeps the windows of two apps apart: each app's bots share only their own", async () => {
    const bots = ["a", "b"].flatMap((app) =>
      Array.from({ length: 5 }, (_, i) => ({
        name: `${app}${i}`,
        plan: "basic" as const,
        app: { consumer_key: `key-${app}`, consumer_secret: `secret-${app}` },
        triggers: { mentions: {} },
        plugins: { recorder: {} },
      })),
    );
    bed = await createTestBed({ bots, plugins: { recorder } });
    const apps = bed.runtime.apps();
    expect(apps).toHaveLength(2);
    // Basic allows 15 mention reads per 15 minutes per app: 5 bots each are polled every 5 minutes.
    for (const app of apps)
      expect(app.capacity).toEqual([
        `5 bots poll mentions on basic (app ${app.appId}): each is polled every 5 min; pro delivers them through the stream`,
      ]);
    const alice = await bed.user("alice");
    for (const bot of bots) await bed.post(alice, `@${bot.name} hello`);
    await bed.advance(5 * 60_000);
    await bed.settle();
    // 20 reads in 5 minutes: more than one app's window holds, none refused.
    expect([...seen].sort()).toEqual(bots.map((b) => `${b.name} mention @${b.name} hello`).sort());
    const polls = await statsOf(bed, "GET /2/users/:id/mentions");
    expect(polls).toEqual({ 200: 20 });
  });

  it("streams after 11 restarts within 15 minutes: the bearer token is fetched once and kept", {
    timeout: 60_000,
  }, async () => {
    const sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
    const store = createMemoryStore();
    const bots = [
      {
        name: "news",
        plan: "pro" as const,
        triggers: { stream: [{ value: "#news", tag: "news" }] },
        plugins: { recorder: {} },
      },
    ];
    for (let start = 1; start <= 11; start++) {
      bed = await createTestBed({ sandbox, store, bots, plugins: { recorder } });
      await eventually(() => expect(bed!.runtime.apps()[0]!.stream?.state).toBe("connected"));
      if (start < 11) {
        await bed.stop();
        await bed.advance(60_000);
      }
    }
    const alice = await bed!.user("alice");
    await bed!.post(alice, "#news after eleven starts");
    await eventually(() => expect(seen).toEqual(["news post #news after eleven starts"]));
    expect(await statsOf(bed!, "POST /oauth2/token")).toEqual({ 200: 1 });
    await bed!.close();
    await sandbox.close();
    bed = undefined;
  });

  it("never gives up on the stream: a failing rules call and refused connects (4xx, 5xx) are retried by the reconnect policy, and the status says why", async () => {
    const { lines, logger } = captureLogs("info");
    const sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
    await sandbox.admin.addFault({ route: "GET /2/posts/search/stream/rules", count: 1, kind: "error", status: 400 });
    await sandbox.admin.addFault({ route: "GET /2/posts/search/stream", count: 1, kind: "error", status: 503 });
    await sandbox.admin.addFault({ route: "GET /2/posts/search/stream", count: 1, kind: "error", status: 403 });
    bed = await createTestBed({
      sandbox,
      logger,
      bots: [{ name: "news", plan: "pro", triggers: { stream: [{ value: "#news" }] }, plugins: { recorder: {} } }],
      plugins: { recorder },
    });
    const stream = () => bed!.runtime.apps()[0]!.stream!;
    // Each failure backs off as the documented policy says for HTTP errors: 5 s, 10 s, 20 s.
    await eventually(() =>
      expect(stream()).toMatchObject({ state: "reconnecting", reconnects: 1, lastError: { cause: "http" } }),
    );
    expect(stream().lastError!.message).toMatch(/400/);
    expect(stream().retryAt! - bed.clock.now()).toBe(5_000);
    await bed.advance(5_000);
    await eventually(() => expect(stream()).toMatchObject({ state: "reconnecting", reconnects: 2 }));
    expect(stream().lastError!.message).toMatch(/503/);
    await bed.advance(10_000);
    await eventually(() => expect(stream()).toMatchObject({ state: "reconnecting", reconnects: 3 }));
    expect(stream().lastError!.message).toMatch(/403/);
    await bed.advance(20_000);
    await eventually(() => expect(stream().state).toBe("connected"));
    const alice = await bed.user("alice");
    await bed.post(alice, "#news still there");
    await eventually(() => expect(seen).toEqual(["news post #news still there"]));
    expect(lines.some((l) => l.level === 40 && /reconnecting in 5\.0 s \(http\)/.test(String(l.msg)))).toBe(true);
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });

  it("fetches the bearer token anew when the service refuses the stored one", async () => {
    const sandbox = await createSandbox({ clock: createClock({ frozen: true, start: T0 }) });
    const app = await sandbox.admin.createApp({ name: "postbot-pro", plan: "pro" });
    const store = createMemoryStore();
    const key = appTokenKey(new URL(sandbox.url), app.consumer_key);
    store.set(APP_TOKENS_NAMESPACE, key, {
      token: "AAAA-invalidated-long-ago",
      fetched_at: new Date(T0 - 86_400_000).toISOString(),
    });
    bed = await createTestBed({
      sandbox,
      store,
      bots: [{ name: "news", plan: "pro", triggers: { stream: [{ value: "#news" }] }, plugins: { recorder: {} } }],
      plugins: { recorder },
    });
    const stream = () => bed!.runtime.apps()[0]!.stream!;
    await eventually(() => expect(stream()).toMatchObject({ state: "reconnecting", lastError: { cause: "http" } }));
    expect(stream().lastError!.message).toMatch(/401/);
    await bed.advance(5_000);
    await eventually(() => expect(stream().state).toBe("connected"));
    expect(store.get<{ token: string }>(APP_TOKENS_NAMESPACE, key)?.token).toBe(
      sandbox.context.data.auth.bearer_tokens[app.id]!.token,
    );
    await bed.close();
    await sandbox.close();
    bed = undefined;
  });
});
