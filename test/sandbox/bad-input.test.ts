import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { invalidRequest } from "../../src/sandbox/problems.ts";
import { echoHandler, installHandler, removeHandler } from "../helpers/probe.ts";
import { captureLogs } from "../helpers/log.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;
const logs = captureLogs("debug");
const restore: Array<() => void> = [];

beforeAll(async () => {
  t = await startSandbox({ maxBodyBytes: 4096, bodyTimeoutMs: 10_000, logger: logs.logger });
  alice = await t.account({ username: "alice" });
  restore.push(
    installHandler("POST /2/posts", echoHandler),
    installHandler("GET /2/posts/:id", echoHandler),
    installHandler("GET /2/users/:id", () => {
      throw new Error("a bug in a handler");
    }),
    installHandler("GET /2/users/by", () => {
      throw invalidRequest("The usernames query parameter can not be empty", { usernames: [] });
    }),
  );
});
afterAll(async () => {
  restore.forEach((r) => r());
  await t.close();
});

const INVALID = "https://api.twitter.com/2/problems/invalid-request";

/** An open connection that sends raw bytes; `received` is what came back so far. */
function rawConnection(port: number) {
  const socket = connect(port, "127.0.0.1");
  const conn = { socket, received: "", closed: false };
  socket.on("data", (d) => (conn.received += d.toString("latin1")));
  socket.on("close", () => (conn.closed = true));
  socket.on("error", () => {});
  return conn;
}

/** A response's status line and parsed JSON body. */
function parseResponse(raw: string): { statusLine: string; body: any } {
  const [head, body] = raw.split("\r\n\r\n");
  return { statusLine: head!.split("\r\n")[0]!, body: body ? JSON.parse(body) : undefined };
}

const postHead = (length: number) =>
  `POST /2/posts HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;

/** Sends raw bytes and returns the status line. */
function rawRequest(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let out = "";
    socket.on("data", (d) => (out += d.toString("latin1")));
    socket.on("end", () => resolve(out.split("\r\n")[0]!));
    socket.on("error", reject);
  });
}

describe("bad input never crashes the sandbox", () => {
  it("malformed JSON: 400 invalid-request naming the problem", async () => {
    const res = await t.signed(alice, "POST", "/2/posts", {
      raw: '{"text": "hi"',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({
      title: "Invalid Request",
      type: INVALID,
      detail: "One or more parameters to your request was invalid.",
    });
    expect(res.body.errors[0].message).toMatch(/^The request body is not valid JSON/);
  });

  it("JSON that is not an object, and form bodies where JSON is expected: 400", async () => {
    for (const raw of ["[1,2]", '"text"', "null", "42"]) {
      const res = await t.signed(alice, "POST", "/2/posts", { raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(400);
      expect(res.body.errors[0].message).toMatch(/must be a JSON object/);
    }
    const form = await t.signed(alice, "POST", "/2/posts", { form: { text: "hi" } });
    expect(form.status).toBe(400);
    expect(form.body.errors[0].message).toContain("JSON body");
  });

  it("an oversized body: 413", async () => {
    const res = await t.signed(alice, "POST", "/2/posts", { json: { text: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ title: "Payload Too Large", type: "about:blank", status: 413 });
    expect(res.body.detail).toContain("the limit is 4096 bytes");
    expect((await t.signed(alice, "POST", "/2/posts", { json: { text: "fine" } })).status).toBe(200);
  });

  it("bad UTF-8 in the body, the query or the path: 400", async () => {
    const body = await t.signed(alice, "POST", "/2/posts", {
      raw: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    expect(body.status).toBe(400);
    expect(body.body.errors[0].message).toBe("The request body is not valid UTF-8.");
    const query = await t.raw("GET", "/2/posts/1?ids=%FF%FE");
    expect(query.status).toBe(400);
    expect(query.body.type).toBe(INVALID);
    expect(query.body.errors[0].parameters).toEqual({ ids: [] });
    expect((await t.raw("GET", "/2/posts/%E0%A4%A")).status).toBe(400);
    expect((await t.raw("GET", "/2/posts/1?x=%zz")).status).toBe(400);
  });

  it("raw bytes outside ASCII in the request line: 400", async () => {
    const port = Number(new URL(t.url).port);
    const line = await rawRequest(
      port,
      Buffer.concat([
        Buffer.from("GET /2/posts/"),
        Buffer.from([0xc3, 0xa9]),
        Buffer.from(" HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
      ]),
    );
    expect(line).toMatch(/^HTTP\/1\.1 400/);
    const garbage = await rawRequest(port, Buffer.from("NONSENSE\r\n\r\n"));
    expect(garbage).toMatch(/^HTTP\/1\.1 400/);
  });

  it("an unknown route: 404 problem", async () => {
    for (const [method, path] of [
      ["GET", "/2/nothing/here"],
      ["PATCH", "/2/posts/1"],
      ["GET", "/"],
    ] as const) {
      const res = await t.raw(method, path);
      expect(res.status, path).toBe(404);
      expect(res.body.type).toBe("https://api.twitter.com/2/problems/resource-not-found");
    }
  });

  it("a handler's ApiProblem is answered as is; any other exception is a 500 problem, and the server lives on", async () => {
    const problem = await t.signed(alice, "GET", "/2/users/by", { query: { usernames: "" } });
    expect(problem.status).toBe(400);
    expect(problem.body.errors[0].message).toBe("The usernames query parameter can not be empty");
    expect(problem.headers.get("x-rate-limit-limit")).toBeTruthy();

    const bug = await t.signed(alice, "GET", "/2/users/5");
    expect(bug.status).toBe(500);
    expect(bug.body).toMatchObject({ title: "Internal Server Error", type: "about:blank", status: 500 });
    expect(bug.text).not.toContain("a bug in a handler");
    expect((await t.signed(alice, "GET", "/2/posts/1")).status).toBe(200);
  });

  it("an endpoint without a handler yet: 404 problem naming it", async () => {
    const r = removeHandler("GET /2/spaces/search");
    try {
      const res = await t.bearer(await t.appBearer(alice.app), "GET", "/2/spaces/search");
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe("GET /2/spaces/search has no handler in this sandbox yet.");
    } finally {
      r();
    }
  });

  it("JSON sent as text/plain: 400 naming the content-type to use", async () => {
    const res = await t.signed(alice, "POST", "/2/posts", {
      raw: JSON.stringify({ text: "hi" }),
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe(INVALID);
    expect(res.body.errors[0].message).toBe(
      "This endpoint takes a JSON body; send it with content-type application/json, not text/plain.",
    );
    const charset = await t.signed(alice, "POST", "/2/posts", {
      raw: JSON.stringify({ text: "hi" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(charset.status).toBe(200);
  });

  it("a body far over the cap: 413 with a problem body, not a reset, by declared length or as it arrives", async () => {
    const big = JSON.stringify({ text: "x".repeat(100_000) });
    const declared = await t.signed(alice, "POST", "/2/posts", {
      raw: big,
      headers: { "content-type": "application/json" },
    });
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({
      title: "Payload Too Large",
      status: 413,
      detail: expect.stringContaining("the limit is 4096 bytes"),
    });
    const chunked = await fetch(`${t.url}/2/posts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ title: "Payload Too Large", status: 413 });
  });

  it("a 60 KB query string: 431 with a problem body", async () => {
    const res = await fetch(`${t.url}/2/posts/search/recent?query=${"a".repeat(60_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({
      title: "Request Header Fields Too Large",
      type: "about:blank",
      status: 431,
      detail: expect.stringContaining("16 KiB"),
    });
  });

  it("a body that stalls: 408 with a problem body once the body timeout passes, and the connection is closed", async () => {
    const conn = rawConnection(Number(new URL(t.url).port));
    conn.socket.write(postHead(100) + '{"text":');
    // Moves the sandbox's clock until the stalled read has been cut (its deadline is set when the headers arrive).
    await vi.waitFor(async () => {
      await t.clock.advance(10_000);
      expect(conn.closed).toBe(true);
    });
    const res = parseResponse(conn.received);
    expect(res.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(res.body).toMatchObject({
      title: "Request Timeout",
      status: 408,
      detail: "The request body did not arrive within 10 s. Send the whole body promptly.",
    });
  });

  it("a client that hangs up mid-body is neither a server error in the stats nor an error in the log", async () => {
    const stats = () => t.sandbox.context.data.meter.stats["POST /2/posts"] ?? {};
    const before = stats()["500"] ?? 0;
    const conn = rawConnection(Number(new URL(t.url).port));
    conn.socket.write(postHead(100) + '{"text":', () => conn.socket.destroy());
    await vi.waitFor(() => expect(stats()["499"]).toBe(1));
    expect(stats()["500"] ?? 0).toBe(before);
    expect(
      logs.lines.filter(
        (l) =>
          (l.level as number) >= 50 &&
          String(l.msg).includes("sandbox handler failed") &&
          !String(l.where).startsWith("GET /2/users/"),
      ),
    ).toEqual([]);
    expect(logs.lines.some((l) => l.msg === "client closed the connection mid-body" && l.level === 20)).toBe(true);
  });
});
