import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bearerCache } from "../../../src/api/auth/bearer.ts";
import { createClient, type ApiClient } from "../../../src/api/client.ts";
import { ProblemError } from "../../../src/api/errors.ts";
import type { PostStream, StreamEvent } from "../../../src/api/stream/post-stream.ts";
import { createClock, type AdjustableClock } from "../../../src/clock.ts";
import { createLogger } from "../../../src/log.ts";
import { fakeService, json, type FakeService, type Received } from "../fake-service.ts";

let clock: AdjustableClock;
let service: FakeService;
let client: ApiClient;
let logged: Array<Record<string, unknown>>;
/** Open stream responses, in the order the server received them. */
let connections: Array<{ req: Received; res: ServerResponse }>;
/** How the server answers the next stream connections (shifted per connection); default: 200 and stay open. */
let plan: Array<(res: ServerResponse, req: Received) => void>;
/** Connection attempts the client started (counted when it calls the transport, before any I/O). */
let opens: number;

const post = (id: string, tag = "cats") => ({
  data: { id, text: `post ${id}`, edit_history_post_ids: [id] },
  matching_rules: [{ id: "r1", tag }],
});
const line = (m: unknown) => `${JSON.stringify(m)}\r\n`;
const open200 = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.flushHeaders();
};

beforeEach(async () => {
  bearerCache.clear();
  clock = createClock({ frozen: true, start: Date.parse("2026-03-01T12:00:00Z") });
  connections = [];
  plan = [];
  logged = [];
  service = await fakeService((req, res) => {
    if (req.path === "/oauth2/token") return json(res, 200, { token_type: "bearer", access_token: "B" });
    connections.push({ req, res });
    (plan.shift() ?? open200)(res, req);
  });
  const logger = createLogger({
    level: "debug",
    destination: { write: (s: string) => void logged.push(JSON.parse(s)) },
  });
  client = createClient({ baseUrl: service.url, clock, logger, auth: { consumer: { key: "k", secret: "s" } } });
  countOpens(client);
});
afterEach(async () => {
  await client.close();
  await service.close();
});

/** Counts the connection attempts a client starts, synchronously, before any I/O. */
function countOpens(c: ApiClient) {
  opens = 0;
  const open = c.transport.open;
  c.transport.open = (request) => {
    opens++;
    return open(request);
  };
}

/** Pulls events one at a time, so a test can move the clock between them. */
function reader(stream: PostStream) {
  const it = stream[Symbol.asyncIterator]();
  return {
    next: async (): Promise<StreamEvent> => {
      const r = await it.next();
      if (r.done) throw new Error("the stream ended");
      return r.value;
    },
    /** Starts waiting for the next event without awaiting it. */
    pending: () => it.next(),
    it,
  };
}

describe("filtered stream events", () => {
  it("delivers posts with matching_rules and keep-alives; splits on \\r\\n across chunks; skips malformed lines", async () => {
    plan.push((res) => {
      open200(res);
      const data = line(post("1")) + "\r\n" + "{not json\r\n" + line({ hello: "world" }) + line(post("2", "dogs"));
      // Cut the bytes in the middle of a line and of a JSON token.
      res.write(data.slice(0, 30));
      setImmediate(() => res.write(data.slice(30)));
    });
    const stream = client.streams.filtered({ expansions: ["author_id"] });
    const r = reader(stream);
    expect(await r.next()).toEqual({ type: "connected", attempt: 1 });
    expect(connections[0]!.req.url).toBe("/2/posts/search/stream?expansions=author_id");
    expect(connections[0]!.req.headers.authorization).toBe("Bearer B");
    expect(await r.next()).toEqual({ type: "post", ...post("1") });
    expect(await r.next()).toEqual({ type: "keep-alive" });
    const second = await r.next();
    expect(second.type === "post" && second.matching_rules).toEqual([{ id: "r1", tag: "dogs" }]);
    const skipped = logged.filter((l) => typeof l.msg === "string" && (l.msg as string).includes("skipped"));
    expect(skipped.map((l) => l.msg)).toEqual([
      "stream line is not JSON; skipped",
      "stream line is not a post or an error message; skipped",
    ]);
    stream.close();
    expect(await r.it.next()).toEqual({ done: true, value: undefined });
  });
});

describe("reconnecting", () => {
  it("reconnects at once after an established connection drops, closing the old one first", async () => {
    plan.push((res) => {
      open200(res);
      res.write(line(post("1")));
      setImmediate(() => res.end());
    });
    const r = reader(client.streams.filtered());
    expect((await r.next()).type).toBe("connected");
    expect((await r.next()).type).toBe("post");
    const ev = await r.next();
    expect(ev).toMatchObject({ type: "reconnecting", cause: "drop", delayMs: 0, attempt: 1 });
    expect(await r.next()).toEqual({ type: "connected", attempt: 2 });
    expect(connections).toHaveLength(2);
    // The server had seen the first connection close before the second arrived.
    expect(connections[0]!.req.closedSeq).toBeDefined();
    expect(connections[1]!.req.closedBefore).toBeGreaterThanOrEqual(connections[0]!.req.closedSeq!);
    expect(connections[1]!.req.closedSeq).toBeUndefined();
  });

  it("backs off HTTP errors from 5 s, doubling, and starts over after a success", async () => {
    const fail503 = (res: ServerResponse) =>
      json(res, 503, { title: "Service Unavailable", type: "about:blank", status: 503 });
    plan.push(fail503, fail503, fail503);
    const r = reader(client.streams.filtered());
    let ev = await r.next();
    for (const delay of [5_000, 10_000, 20_000]) {
      expect(ev).toMatchObject({ type: "reconnecting", cause: "http", delayMs: delay });
      expect(ev.type === "reconnecting" && ev.error).toBeInstanceOf(ProblemError);
      const before = opens;
      const next = r.pending();
      await clock.advance(delay - 1);
      expect(opens).toBe(before);
      await clock.advance(1);
      ev = (await next).value as StreamEvent;
      expect(opens).toBe(before + 1);
    }
    expect(ev).toEqual({ type: "connected", attempt: 4 });
    // After a success the back-off starts over: a drop reconnects at once, the next 503 waits 5 s.
    plan.push(fail503);
    connections.at(-1)!.res.end();
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "drop", delayMs: 0 });
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "http", delayMs: 5_000 });
  });

  it("backs off 429 from 60 s", async () => {
    plan.push((res) =>
      json(res, 429, {
        title: "ConnectionException",
        detail: "This stream is currently at the maximum allowed connection limit.",
        connection_issue: "TooManyConnections",
        type: "https://api.twitter.com/2/problems/streaming-connection",
      }),
    );
    plan.push((res) => json(res, 429, { title: "Too Many Requests", type: "about:blank" }));
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "rate-limit", delayMs: 60_000 });
    const p = r.pending();
    await clock.advance(59_999);
    expect(opens).toBe(1);
    await clock.advance(1);
    expect(opens).toBe(2);
    expect((await p).value).toMatchObject({ type: "reconnecting", cause: "rate-limit", delayMs: 120_000 });
    const q = r.pending();
    await clock.advance(120_000);
    expect((await q).value).toEqual({ type: "connected", attempt: 3 });
  });

  it("backs off network errors linearly from 250 ms", async () => {
    await service.close();
    await client.close();
    client = createClient({ baseUrl: service.url, clock, auth: { bearer: "B" } });
    countOpens(client);
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "network", delayMs: 250 });
    const p = r.pending();
    await clock.advance(249);
    expect(opens).toBe(1);
    await clock.advance(1);
    expect((await p).value).toMatchObject({ type: "reconnecting", cause: "network", delayMs: 500 });
    expect(opens).toBe(2);
    const q = r.pending();
    await clock.advance(500);
    expect((await q).value).toMatchObject({ type: "reconnecting", cause: "network", delayMs: 750 });
  });

  it("a watchdog reconnects a connection that sends neither data nor keep-alive, after 20 s and a grace second", async () => {
    const r = reader(client.streams.filtered());
    expect((await r.next()).type).toBe("connected");
    const p = r.pending();
    await clock.advance(15_000);
    connections[0]!.res.write("\r\n"); // a keep-alive resets the watchdog
    expect((await p).value).toEqual({ type: "keep-alive" });
    const q = r.pending();
    await clock.advance(20_999);
    expect(opens).toBe(1);
    await clock.advance(1);
    const ev = (await q).value as StreamEvent;
    expect(ev).toMatchObject({ type: "reconnecting", cause: "stall", delayMs: 0 });
    expect(ev.type === "reconnecting" && ev.error?.message).toMatch(/no data and no keep-alive for 21000 ms/);
    expect(await r.next()).toEqual({ type: "connected", attempt: 2 });
    expect(connections[0]!.req.closedSeq).toBeDefined();
    expect(connections[1]!.req.closedBefore).toBeGreaterThanOrEqual(connections[0]!.req.closedSeq!);
    expect(connections[1]!.req.closedSeq).toBeUndefined();
  });

  it("surfaces an in-stream error message, then reconnects at once", async () => {
    plan.push((res) => {
      open200(res);
      res.write(
        line({
          errors: [
            {
              title: "operational-disconnect",
              disconnect_type: "UpstreamOperationalDisconnect",
              detail: "This stream has been disconnected upstream for operational reasons.",
              type: "https://api.twitter.com/2/problems/operational-disconnect",
            },
          ],
        }),
      );
    });
    const r = reader(client.streams.filtered());
    expect((await r.next()).type).toBe("connected");
    const err = await r.next();
    expect(err).toMatchObject({ type: "stream-error", errors: [{ disconnect_type: "UpstreamOperationalDisconnect" }] });
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "stream-error", delayMs: 0 });
    expect(await r.next()).toEqual({ type: "connected", attempt: 2 });
  });

  it("drops a partial line when the connection ends in the middle of it", async () => {
    plan.push((res) => {
      open200(res);
      res.end(line(post("1")) + '{"data":{"id":"2","te');
    });
    const r = reader(client.streams.sample());
    expect((await r.next()).type).toBe("connected");
    expect(connections[0]!.req.path).toBe("/2/posts/sample/stream");
    expect(await r.next()).toMatchObject({ type: "post", data: { id: "1" } });
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "drop" });
    expect(logged.some((l) => l.msg === "stream ended in the middle of a line; the partial line was dropped")).toBe(
      true,
    );
  });

  it("gives up on a status retrying cannot fix, emitting gave-up and then throwing", async () => {
    plan.push((res) =>
      json(res, 403, {
        title: "Forbidden",
        detail: "Your plan does not include this endpoint.",
        type: "about:blank",
        status: 403,
      }),
    );
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "gave-up", cause: "http" });
    await expect(r.it.next()).rejects.toBeInstanceOf(ProblemError);
    expect(logged.some((l) => l.msg === "stream gave up" && l.level === 50)).toBe(true);
  });

  it("without reconnects of its own (a caller that connects again), a failure ends it without saying it gave up", async () => {
    plan.push((res) =>
      json(res, 503, { title: "Service Unavailable", detail: "busy", type: "about:blank", status: 503 }),
    );
    const r = reader(client.streams.filtered({}, { reconnect: false }));
    expect(await r.next()).toMatchObject({ type: "gave-up", cause: "http" });
    await expect(r.it.next()).rejects.toBeInstanceOf(ProblemError);
    expect(logged.filter((l) => l.level === 50)).toEqual([]);
    expect(logged.some((l) => l.msg === "stream connection ended; its caller connects again")).toBe(true);
  });

  it("waits, rather than giving up, when the bearer token cannot be had (403/99)", async () => {
    service.handle((req, res) =>
      json(res, 403, { errors: [{ code: 99, message: "Unable to verify your credentials" }] }),
    );
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "http", delayMs: 5_000 });
  });

  it("drops a bearer token the service refused (401), so the next attempt connects with the current one", async () => {
    let issued = 0;
    service.handle((req, res) => {
      if (req.path === "/oauth2/token") return json(res, 200, { token_type: "bearer", access_token: `B-${++issued}` });
      connections.push({ req, res });
      if (req.headers.authorization === "Bearer B-1")
        return json(res, 401, { errors: [{ code: 89, message: "Invalid or expired token." }] });
      open200(res);
    });
    const r = reader(client.streams.filtered());
    expect(await r.next()).toMatchObject({ type: "reconnecting", cause: "http", delayMs: 5_000 });
    const p = r.pending();
    await clock.advance(5_000);
    expect((await p).value).toEqual({ type: "connected", attempt: 2 });
    expect(service.to("/oauth2/token")).toHaveLength(2);
    expect(connections.map((c) => c.req.headers.authorization)).toEqual(["Bearer B-1", "Bearer B-2"]);
  });

  it("with reconnect off, the first failure ends the stream", async () => {
    plan.push((res) => {
      open200(res);
      res.end();
    });
    const r = reader(client.streams.filtered({}, { reconnect: false }));
    expect((await r.next()).type).toBe("connected");
    expect(await r.next()).toMatchObject({ type: "gave-up", cause: "drop" });
    await expect(r.it.next()).rejects.toThrow(/the service closed the stream/);
  });

  it("logs each lifecycle event", async () => {
    plan.push((res) => json(res, 500, { title: "Internal", type: "about:blank" }));
    const r = reader(client.streams.filtered());
    await r.next();
    const p = r.pending();
    await clock.advance(5_000);
    await p;
    const msgs = logged.map((l) => l.msg);
    expect(msgs).toContain("stream reconnecting");
    expect(msgs).toContain("stream connected");
    expect(logged.find((l) => l.msg === "stream reconnecting")).toMatchObject({
      cause: "http",
      delayMs: 5_000,
      stream: "GET /2/posts/search/stream",
    });
  });
});
