import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { installHandler, streamProbe } from "../helpers/probe.ts";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.ts";
import { openStream } from "../helpers/stream.ts";

let t: TestSandbox;
let bearer: string;
let probe: ReturnType<typeof streamProbe>;
let restore: () => void;
const PATH = "/2/posts/sample/stream";

beforeAll(async () => {
  t = await startSandbox();
  const app = await t.admin.createApp({ plan: "pro" });
  bearer = await t.appBearer(app);
});
beforeEach(() => {
  probe = streamProbe();
  restore?.();
  restore = installHandler("GET /2/posts/sample/stream", probe.handler);
});
afterAll(async () => {
  restore?.();
  await t.close();
});

const connect = async () => {
  const s = await openStream(t.url + PATH, { authorization: `Bearer ${bearer}` });
  await vi.waitFor(() => expect(probe.connections.length).toBeGreaterThan(0));
  return { s, conn: probe.connections.at(-1)! };
};

describe("streams", () => {
  it("answers 200 application/json with rate-limit headers; each message is a JSON line ended by \\r\\n", async () => {
    const { s, conn } = await connect();
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toBe("application/json");
    expect(s.headers.get("x-rate-limit-limit")).toBe("50");
    conn.sink.send({ data: { id: "1", text: "a" } });
    conn.sink.send({ data: { id: "2", text: "b" } });
    await s.until((x) => x.includes('"2"'));
    expect(s.text()).toBe('{"data":{"id":"1","text":"a"}}\r\n{"data":{"id":"2","text":"b"}}\r\n');
    s.close();
  });

  it("sends a keep-alive after every 20 s of sandbox clock with nothing else sent", async () => {
    const { s, conn } = await connect();
    await t.clock.advance(20_000);
    await s.until((x) => x === "\r\n");
    conn.sink.send({ n: 1 });
    await t.clock.advance(10_000);
    conn.sink.send({ n: 2 });
    await t.clock.advance(10_000); // only 10 s since the last message: no keep-alive
    conn.sink.send({ n: 3 });
    await s.until((x) => x.includes('{"n":3}'));
    expect(s.text()).toBe('\r\n{"n":1}\r\n{"n":2}\r\n{"n":3}\r\n');
    await t.clock.advance(40_000);
    await s.until((x) => x.endsWith('{"n":3}\r\n\r\n\r\n'));
    s.close();
  });

  it("calls the handler's close function when the client hangs up", async () => {
    const { s, conn } = await connect();
    expect(conn.closed).toBe(false);
    s.close();
    await vi.waitFor(() => expect(conn.closed).toBe(true));
    expect(conn.req.signal.aborted).toBe(true);
  });

  it("ends the response when the handler ends it", async () => {
    const { s, conn } = await connect();
    conn.sink.send({ bye: true });
    conn.sink.end();
    await s.ended;
    expect(s.text()).toBe('{"bye":true}\r\n');
    expect(conn.closed).toBe(true);
  });

  it("a drop fault ends the stream after N messages", async () => {
    await t.admin.addFault({ route: "GET /2/posts/sample/stream", kind: "drop", after_messages: 2 });
    const { s, conn } = await connect();
    for (let i = 1; i <= 3; i++) conn.sink.send({ i });
    await s.ended;
    expect(s.text()).toBe('{"i":1}\r\n{"i":2}\r\n');
    expect(conn.closed).toBe(true);
    // The fault was used up: the next connection is normal.
    const next = await connect();
    next.conn.sink.send({ i: 4 });
    await next.s.until((x) => x === '{"i":4}\r\n');
    next.s.close();
  });

  it("a stall fault stops everything after N messages, keep-alives included", async () => {
    await t.admin.addFault({ route: "GET /2/posts/sample/stream", kind: "stall", after_messages: 1 });
    const { s, conn } = await connect();
    conn.sink.send({ i: 1 });
    conn.sink.send({ i: 2 });
    await t.clock.advance(60_000);
    conn.sink.end();
    await s.ended;
    expect(s.text()).toBe('{"i":1}\r\n');
  });

  it("closing the sandbox ends open streams and their handlers", async () => {
    const own = await startSandbox();
    const app = await own.admin.createApp();
    const token = await own.appBearer(app);
    const s = await openStream(own.url + PATH, { authorization: `Bearer ${token}` });
    await vi.waitFor(() => expect(probe.connections.length).toBe(1));
    await own.close();
    await s.ended;
    expect(probe.connections[0]!.closed).toBe(true);
    expect(own.clock.pending()).toBe(0);
  });
});
