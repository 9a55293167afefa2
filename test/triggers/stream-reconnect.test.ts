/**
 * The stream hub reconnecting when the service refuses the connection as taken (429,
 * TooManyConnections) right after the hub's own connection ended: the service may not have
 * seen that connection close yet, so the first refusal is tried again after a few seconds,
 * not after the rate limit's back-off of a minute; a second refusal is another's connection
 * and backs off as documented. On the sandbox with a frozen clock and injected faults; the
 * stream crosses a real socket, so the test waits for outcomes (never for a time).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { RATE_LIMIT_START_MS } from "../../src/api/stream/reconnect-policy.ts";
import { createClock } from "../../src/clock.ts";
import type { Sandbox } from "../../src/sandbox/index.ts";
import { startStreamHub } from "../../src/triggers/stream-hub.ts";
import { OWN_CONNECTION_RETRY_MS } from "../../src/triggers/stream/connection.ts";
import { captureLogs } from "../helpers/log.ts";
import { recordTaken, SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";

const t = new SandboxHubs();
afterEach(() => t.close());

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });
const ROUTE = "GET /2/posts/search/stream";
const TAKEN = {
  title: "ConnectionException",
  detail: "This stream is currently at the maximum allowed connection limit.",
  connection_issue: "TooManyConnections",
  type: "https://api.twitter.com/2/problems/streaming-connection",
};

/** A sandbox with a fan whose rule is `#cats`, after `before` (the faults) a hub for it, and what it delivered. */
async function hubOfFan(before: (sandbox: Sandbox) => Promise<unknown>) {
  const clock = createClock({ frozen: true, start: T0 });
  const { sandbox, connection } = await t.open(clock);
  const fan = await sandbox.admin.createUser({ username: "fan", name: "fan" });
  await before(sandbox);
  const { lines, logger } = captureLogs("info");
  const hub = startStreamHub({
    appId: "app",
    clock,
    log: logger,
    ...connection,
    wants: [{ bot: "fan", userId: fan.id, rules: [{ value: "#cats" }] }],
    resume: async () => undefined,
    onMark: () => {},
  });
  const delivered: string[] = [];
  recordTaken(hub, { post: (_bot, event) => void delivered.push(event.kind === "post" ? event.post.text : "") });
  t.hub = hub;
  return { clock, sandbox, hub, lines, delivered };
}

describe("a refused reconnect right after the hub's own connection ended", () => {
  it("is tried again after a few seconds once; a second refusal backs off a minute", async () => {
    // The first connection ends after one post; the next two connects are refused as taken.
    const { clock, sandbox, hub, lines, delivered } = await hubOfFan((sandbox) =>
      sandbox.admin.addFault({ route: ROUTE, kind: "drop", after_messages: 1 }),
    );
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    await eventually(() => expect(hub.status().state).toBe("connected"));
    await sandbox.admin.addFault({ route: ROUTE, count: 2, kind: "error", status: 429, body: TAKEN });

    await sandbox.admin.createPost({ author_id: alice.id, text: "#cats 1" });
    await eventually(() => expect(hub.status().state).toBe("reconnecting"));
    expect(delivered).toEqual(["#cats 1"]);
    expect(hub.status().retryAt! - clock.now()).toBe(OWN_CONNECTION_RETRY_MS);
    expect(lines.map((l) => String(l.msg))).toContainEqual(
      expect.stringMatching(
        /^stream of app app: .*; reconnecting in 5\.0 s \(rate-limit\), the connection that holds it most likely this process's own, which just ended$/,
      ),
    );

    // Refused again: not its own any more, the documented back-off.
    await clock.advance(OWN_CONNECTION_RETRY_MS);
    await eventually(() => expect(hub.status().reconnects).toBe(3));
    expect(hub.status().retryAt! - clock.now()).toBe(RATE_LIMIT_START_MS);
    await clock.advance(RATE_LIMIT_START_MS);
    await eventually(() => expect(hub.status().state).toBe("connected"));
    await sandbox.admin.createPost({ author_id: alice.id, text: "#cats 2" });
    await eventually(() => expect(delivered).toEqual(["#cats 1", "#cats 2"]));
  });

  it("a refusal with no connection of its own before it backs off a minute", async () => {
    const { clock, hub } = await hubOfFan((sandbox) =>
      sandbox.admin.addFault({ route: ROUTE, kind: "error", status: 429, body: TAKEN }),
    );
    await eventually(() => expect(hub.status().state).toBe("reconnecting"));
    expect(hub.status().retryAt! - clock.now()).toBe(RATE_LIMIT_START_MS);
  });
});
