/**
 * Clients that try to freeze the sandbox (issue 26): a post text built to be expensive to
 * count, and a request whose headers never finish. Both are about how long other clients
 * wait, so these tests measure real time, generously, over raw sockets whose order the test
 * controls.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthHeader, startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;
let port: number;

beforeAll(async () => {
  t = await startSandbox({ headersTimeoutMs: 300 });
  alice = await t.account({ username: "alice" });
  port = Number(new URL(t.url).port);
});
afterAll(() => t.close());

/** A connected raw socket and what it received; every one is destroyed after the test file. */
const sockets: Socket[] = [];
afterAll(() => sockets.forEach((s) => s.destroy()));
async function rawSocket() {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  let answered: () => void;
  const conn = {
    socket,
    received: "",
    /** When the first byte of the answer came (performance.now()). */
    firstByteAt: 0,
    /** Resolves once the answer's head is complete. */
    answered: new Promise<void>((resolve) => (answered = resolve)),
    closed: new Promise<void>((resolve) => socket.once("close", () => resolve())),
  };
  socket.on("data", (d) => {
    conn.firstByteAt ||= performance.now();
    conn.received += d.toString("latin1");
    if (conn.received.includes("\r\n\r\n")) answered();
  });
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  return conn;
}

/**
 * Waits until the socket's own buffer is empty and the loop has turned twice, so the
 * in-process server has read what was sent.
 */
async function delivered(socket: Socket): Promise<void> {
  while (socket.writableLength > 0) await new Promise((resolve) => socket.once("drain", resolve));
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("no request freezes the sandbox", () => {
  it("a 288 KB post of 40,000 mentions is refused at once: a request made meanwhile is answered within 100 ms", async () => {
    let text = "";
    for (let i = 0; text.length < 288_000; i++) text += `@m${String(i % 10_000).padStart(4, "0")} `;
    expect(text.split("@").length - 1).toBeGreaterThanOrEqual(40_000);
    const body = Buffer.from(JSON.stringify({ text }));
    const post = await rawSocket();
    post.socket.write(
      `POST /2/posts HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${oauthHeader(t.clock, alice, "POST", `${t.url}/2/posts`)}\r\n` +
        `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    // All of the body but its last byte first, so the post is handled the moment that byte arrives...
    post.socket.write(body.subarray(0, -1));
    await delivered(post.socket);
    const other = await rawSocket();
    post.socket.write(body.subarray(-1));
    // ...and another client asks for something right behind it.
    const asked = performance.now();
    other.socket.write(
      `GET /2/users/me HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: ${oauthHeader(t.clock, alice, "GET", `${t.url}/2/users/me`)}\r\n\r\n`,
    );
    await Promise.all([other.answered, post.answered]);
    expect(other.firstByteAt - asked).toBeLessThan(100);
    expect(other.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(post.received).toMatch(/^HTTP\/1\.1 403 /);
    expect(post.received).toContain("Your post text is too long");
  });
});

describe("headers timeout", () => {
  it("a client that never finishes its headers gets 408 with a problem body, and the connection is closed", async () => {
    const slow = await rawSocket();
    slow.socket.write("GET /2/users/me HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: 1\r\n");
    await slow.closed;
    const [head, json] = slow.received.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(JSON.parse(json!)).toMatchObject({ title: "Request Timeout", status: 408 });
  });
});
