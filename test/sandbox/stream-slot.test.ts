/**
 * The filtered stream's one connection per app must come back after every injected fault,
 * whatever the fault and wherever it strikes: a slot that is never released answers every
 * later connect with 429, and the bot backs off for minutes (issue 26).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AppView } from "../../src/sandbox/index.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";
import { openStream } from "../helpers/stream.ts";

const ROUTE = "GET /2/posts/search/stream";
const PATH = "/2/posts/search/stream";
let t: TestSandbox;
let author: Account;

beforeAll(async () => {
  t = await startSandbox();
  author = await t.account({ username: "slot_author" });
});
afterAll(() => t.close());

/** A pro app of its own (the slot is per app) with a rule matching "slotword", and its bearer. */
async function appWithRule(): Promise<{ app: AppView; bearer: string }> {
  const app = await t.admin.createApp({ plan: "pro" });
  const bearer = await t.appBearer(app);
  const added = await t.bearer(bearer, "POST", `${PATH}/rules`, { json: { add: [{ value: "slotword" }] } });
  expect(added.status).toBe(201);
  return { app, bearer };
}

let n = 0;
/** A post the rule matches (each text new: the service refuses duplicates). */
const matching = () => t.admin.createPost({ author_id: author.user.id, text: `slotword ${++n}` });

/** The slot is free: a new connection is answered 200 (then closed). */
async function slotIsFree(bearer: string): Promise<void> {
  await vi.waitFor(async () => {
    const s = await openStream(t.url + PATH, { authorization: `Bearer ${bearer}` });
    s.close();
    expect(s.status).toBe(200);
  });
}

const stats = async () => (await t.admin.stats()).routes[ROUTE] ?? {};

describe("every stream fault releases the filtered stream's connection slot", () => {
  for (const after of [0, 1, 2]) {
    it(`drop after ${after} messages: the stream ends and the next connect gets 200`, async () => {
      const { bearer } = await appWithRule();
      const errorsBefore = (await stats())["500"] ?? 0;
      await t.admin.addFault({ route: ROUTE, kind: "drop", after_messages: after });
      const s = await openStream(t.url + PATH, { authorization: `Bearer ${bearer}` });
      expect(s.status).toBe(200);
      for (let i = 0; i <= after; i++) await matching();
      await s.ended;
      expect(s.text().split("\r\n").filter(Boolean)).toHaveLength(after);
      expect((await stats())["500"] ?? 0).toBe(errorsBefore);
      await slotIsFree(bearer);
    });

    it(`stall after ${after} messages: once the client hangs up, the next connect gets 200`, async () => {
      const { bearer } = await appWithRule();
      await t.admin.addFault({ route: ROUTE, kind: "stall", after_messages: after });
      const s = await openStream(t.url + PATH, { authorization: `Bearer ${bearer}` });
      expect(s.status).toBe(200);
      for (let i = 0; i <= after; i++) await matching();
      await t.clock.advance(60_000);
      expect(s.text().split("\r\n").filter(Boolean)).toHaveLength(after);
      s.close();
      await slotIsFree(bearer);
    });
  }

  it("drop inside the backfill (messages sent before the stream handler returns): the next connect gets 200", async () => {
    const { bearer } = await appWithRule();
    await matching();
    await matching();
    await t.admin.addFault({ route: ROUTE, kind: "drop", after_messages: 1 });
    const s = await openStream(`${t.url}${PATH}?backfill_minutes=1`, { authorization: `Bearer ${bearer}` });
    await s.ended;
    expect(s.text().split("\r\n").filter(Boolean)).toHaveLength(1);
    await slotIsFree(bearer);
  });

  it("an error fault: the connect is answered with it, and the next one gets 200", async () => {
    const { bearer } = await appWithRule();
    await t.admin.addFault({ route: ROUTE, kind: "error", status: 503 });
    expect((await t.bearer(bearer, "GET", PATH)).status).toBe(503);
    await slotIsFree(bearer);
  });

  it("a reset fault: the connection is cut, and the next connect gets 200", async () => {
    const { bearer } = await appWithRule();
    await t.admin.addFault({ route: ROUTE, kind: "reset" });
    await expect(t.bearer(bearer, "GET", PATH)).rejects.toThrow();
    await slotIsFree(bearer);
  });

  it("a delay fault: the stream opens late, and once it is closed the next connect gets 200", async () => {
    const { bearer } = await appWithRule();
    const pending = t.clock.pending();
    await t.admin.addFault({ route: ROUTE, kind: "delay", delay_ms: 5_000 });
    const opening = openStream(t.url + PATH, { authorization: `Bearer ${bearer}` });
    await vi.waitFor(() => expect(t.clock.pending()).toBeGreaterThan(pending));
    await t.clock.advance(5_000);
    const s = await opening;
    expect(s.status).toBe(200);
    s.close();
    await slotIsFree(bearer);
  });

  it("a delay fault the client does not wait for: the slot it would have taken stays free", async () => {
    const { bearer } = await appWithRule();
    const pending = t.clock.pending();
    await t.admin.addFault({ route: ROUTE, kind: "delay", delay_ms: 5_000 });
    const gone = new AbortController();
    const connect = fetch(t.url + PATH, { headers: { authorization: `Bearer ${bearer}` }, signal: gone.signal });
    await vi.waitFor(() => expect(t.clock.pending()).toBeGreaterThan(pending));
    gone.abort();
    await expect(connect).rejects.toThrow();
    // The server sees the hang-up: the delay is called off, and the request counted as 499.
    await vi.waitFor(() => expect(t.clock.pending()).toBe(pending));
    expect((await stats())["499"]).toBeGreaterThan(0);
    await t.clock.advance(5_000);
    await slotIsFree(bearer);
  });
});
