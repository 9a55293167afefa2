/**
 * Clients that try to freeze the sandbox (issue 26): a post text built to be expensive to
 * count, and a request whose headers never finish, over raw sockets whose order the test
 * controls. What each client gets is asserted here; how long the other client of the
 * expensive post waited is real time, measured by `npm run bench` (hostile-clients).
 */
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crowdedPost, crowdedText, rawSocket } from "../helpers/crowded-post.ts";
import { startSandbox, type Account, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let alice: Account;

beforeAll(async () => {
  t = await startSandbox({ headersTimeoutMs: 300 });
  alice = await t.account({ username: "alice" });
});
afterAll(() => t.close());

/** Every raw socket opened, destroyed after the test file. */
const sockets: Socket[] = [];
afterAll(() => sockets.forEach((s) => s.destroy()));
const opened = (socket: Socket) => void sockets.push(socket);

describe("no request freezes the sandbox", () => {
  it("a 288 KB post of 40,000 mentions is refused; a request made right behind it is answered", async () => {
    expect(crowdedText().split("@").length - 1).toBeGreaterThanOrEqual(40_000);
    const { post, other } = await crowdedPost(t, alice, opened);
    expect(other.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(post.received).toMatch(/^HTTP\/1\.1 403 /);
    expect(post.received).toContain("Your post text is too long");
  });
});

describe("headers timeout", () => {
  it("a client that never finishes its headers gets 408 with a problem body, and the connection is closed", async () => {
    const slow = await rawSocket(Number(new URL(t.url).port), opened);
    slow.socket.write("GET /2/users/me HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: 1\r\n");
    await slow.closed;
    const [head, json] = slow.received.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    expect(JSON.parse(json!)).toMatchObject({ title: "Request Timeout", status: 408 });
  });
});
