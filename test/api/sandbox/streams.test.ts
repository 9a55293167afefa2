/**
 * The filtered and sample streams against the sandbox, across the faults it injects
 * (`POST /_sandbox/faults`): a dropped connection, a stalled one, 5xx and 429 at connect.
 * The clock is moved, never waited for; each test asserts the delay the client chose and
 * that it did not reconnect before it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bearerCache } from "../../../src/api/auth/bearer.ts";
import { createClient, type ApiClient } from "../../../src/api/client.ts";
import type { PostStream, StreamEvent } from "../../../src/api/stream/post-stream.ts";
import type { AppView } from "../../../src/sandbox/index.ts";
import { inSample } from "../../../src/sandbox/domain/streams.ts";
import { createUser, startSandbox, type TestSandbox } from "../../helpers/sandbox.ts";

const ROUTE = "GET /2/posts/search/stream";
let t: TestSandbox;
let app: AppView;
let poster: { id: string };
let client: ApiClient;
let stream: PostStream | undefined;
let opens = 0;

beforeAll(async () => {
  t = await startSandbox();
  app = await t.admin.createApp({ plan: "pro" });
  poster = await createUser(t.sandbox, "poster");
});
afterAll(() => t.close());
beforeEach(async () => {
  bearerCache.clear();
  client = createClient({
    baseUrl: t.url,
    clock: t.clock,
    auth: { consumer: { key: app.consumer_key, secret: app.consumer_secret } },
  });
  opens = 0;
  const open = client.transport.open;
  client.transport.open = (r) => {
    opens++;
    return open(r);
  };
  const rules = await client.streams.rules();
  if (rules.data?.length) await client.streams.deleteRules({ ids: rules.data.map((r) => r.id) });
  await client.streams.addRules([{ value: "cats", tag: "felines" }]);
});
afterEach(async () => {
  stream?.close();
  await t.admin.clearFaults();
  await client.close();
});

function reader(s: PostStream) {
  stream = s;
  const it = s[Symbol.asyncIterator]();
  return {
    next: async () => (await it.next()).value as StreamEvent,
    pending: () => it.next().then((r) => r.value as StreamEvent),
  };
}

/** Moves the clock to just before `delayMs`, checks nothing reconnected, then to the delay. */
async function waitOut(delayMs: number, next: Promise<StreamEvent>): Promise<StreamEvent> {
  const before = opens;
  await t.clock.advance(delayMs - 1);
  expect(opens, `reconnected before ${delayMs} ms`).toBe(before);
  await t.clock.advance(1);
  const ev = await next;
  expect(opens).toBe(before + 1);
  return ev;
}

describe("the filtered stream against the sandbox", () => {
  it("delivers matching posts with their rules and the sandbox's keep-alives", async () => {
    const r = reader(client.streams.filtered({ "post.fields": ["author_id"] }));
    expect(await r.next()).toEqual({ type: "connected", attempt: 1 });
    await t.admin.createPost({ author_id: poster.id, text: "dogs only" });
    await t.admin.createPost({ author_id: poster.id, text: "I like cats" });
    const ev = await r.next();
    expect(ev).toMatchObject({
      type: "post",
      data: { text: "I like cats", author_id: poster.id },
      matching_rules: [{ tag: "felines" }],
    });
    const ka = r.pending();
    await t.clock.advance(20_000);
    expect(await ka).toEqual({ type: "keep-alive" });
  });

  it("reconnects at once after the sandbox drops the connection, without tripping the one-connection rule", async () => {
    await t.admin.addFault({ route: ROUTE, kind: "drop", after_messages: 1 });
    const r = reader(client.streams.filtered());
    expect((await r.next()).type).toBe("connected");
    await t.admin.createPost({ author_id: poster.id, text: "cats one" });
    expect(await r.next()).toMatchObject({ type: "post", data: { text: "cats one" } });
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "drop", delayMs: 0 });
    expect(await r.next()).toEqual({ type: "connected", attempt: 2 });
    await t.admin.createPost({ author_id: poster.id, text: "cats two" });
    expect(await r.next()).toMatchObject({ type: "post", data: { text: "cats two" } });
  });

  it("a stalled connection (no data, no keep-alive) is replaced after 21 s", async () => {
    await t.admin.addFault({ route: ROUTE, kind: "stall", after_messages: 0 });
    const r = reader(client.streams.filtered());
    expect((await r.next()).type).toBe("connected");
    const next = r.pending();
    await t.clock.advance(20_999);
    expect(opens).toBe(1);
    await t.clock.advance(1);
    expect(await next).toMatchObject({ type: "reconnecting", cause: "stall", delayMs: 0 });
    expect(await r.next()).toEqual({ type: "connected", attempt: 2 });
  });

  it("backs off 503s at connect from 5 s, doubling", async () => {
    await t.admin.addFault({ route: ROUTE, kind: "error", status: 503, count: 2 });
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "http", delayMs: 5_000 });
    expect(await waitOut(5_000, r.pending())).toMatchObject({ type: "reconnecting", cause: "http", delayMs: 10_000 });
    expect(await waitOut(10_000, r.pending())).toEqual({ type: "connected", attempt: 3 });
  });

  it("backs off 429 at connect from 60 s", async () => {
    await t.admin.addFault({ route: ROUTE, kind: "error", status: 429, count: 1 });
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "rate-limit", delayMs: 60_000 });
    expect(await waitOut(60_000, r.pending())).toEqual({ type: "connected", attempt: 2 });
  });

  it("a second connection of the app gets 429 TooManyConnections and waits 60 s", async () => {
    const first = reader(client.streams.filtered());
    expect((await first.next()).type).toBe("connected");
    const second = client.streams.filtered()[Symbol.asyncIterator]();
    const ev = (await second.next()).value as StreamEvent;
    expect(ev).toMatchObject({ type: "reconnecting", cause: "rate-limit", delayMs: 60_000 });
    expect(ev.type === "reconnecting" && ev.error?.message).toMatch(/maximum allowed connection limit/);
    await second.return?.();
  });
});

describe("the sample stream against the sandbox", () => {
  it("delivers the posts of the 1% sample", async () => {
    const r = reader(client.streams.sample());
    expect((await r.next()).type).toBe("connected");
    let sampledId: string | undefined;
    for (let i = 0; i < 1000 && !sampledId; i++) {
      const p = await t.admin.createPost({ author_id: poster.id, text: `sample ${i}` });
      if (inSample(p.id)) sampledId = p.id;
    }
    expect(sampledId).toBeDefined();
    const ev = await r.next();
    expect(ev).toMatchObject({ type: "post", data: { id: sampledId } });
    expect(ev.type === "post" && ev.matching_rules).toBeUndefined();
  });
});
