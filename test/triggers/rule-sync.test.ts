/**
 * The app's rules while its stream stays connected: the changes of the bots that come while a
 * rules update is under way wait as one update, which sends what is wanted when its turn
 * comes, not one update each (an update plans the rules of all the app's mention bots: at
 * 10,000 bots, each of them planned again, back to back, held up every bot's events). And
 * when the stream moves to another hub: a write of the closed hub is never sent late, and a
 * hub's check of the rules puts back what a write that landed late deleted anyway.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { RuleSync } from "../../src/triggers/stream/rule-sync.ts";
import { Routes, type MentionBot } from "../../src/triggers/stream/routing.ts";
import { direct, type Budgeted } from "../../src/triggers/stream/search.ts";
import { HubStatus } from "../../src/triggers/stream/status.ts";
import { rulesOf } from "../../src/sandbox/domain/rules.ts";
import { SandboxHubs } from "../helpers/hub.ts";
import { captureLogs } from "../helpers/log.ts";

const hubs = new SandboxHubs();
afterEach(() => hubs.close());

const RULES = "POST /2/posts/search/stream/rules";
const bot = (name: string, i: number): MentionBot => ({ bot: name, userId: String(1000 + i), username: name });

describe("RuleSync", () => {
  it("makes the changes that come during a rules update one update after it", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const { connection } = await hubs.open(clock);
    // The first rules request waits until the test lets it go; each one is counted.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const posts: unknown[] = [];
    const budgeted: Budgeted = async (endpoint, run) => {
      if (endpoint === RULES && posts.push(endpoint) === 1) await held;
      return (await run(new AbortController().signal)).result;
    };
    // Each update (each attempt) asks for a client, and tells the status once it is through.
    let clients = 0;
    let told = 0;
    const status = new HubStatus(clock, () => told++);
    const routes = new Routes({ status, routed: () => {} });
    const sync = new RuleSync({
      ...connection,
      client: () => (clients++, connection.client()),
      appId: "app",
      clock,
      log: silentLogger,
      budgeted,
      routes,
      status,
      closed: new AbortController().signal,
    });
    await sync.syncIfNeeded(await connection.client());
    expect([clients, told]).toEqual([0, 0]);

    const names = ["ann", "bob", "cid", "dan", "eve", "fay"];
    const wanted: MentionBot[] = [bot(names[0]!, 0)];
    routes.want([], [...wanted]);
    const updates = [sync.apply()];
    await vi.waitFor(() => expect(posts).toHaveLength(1));
    // Five bots come while the first one's rule is being sent.
    for (const [i, name] of names.slice(1).entries()) {
      wanted.push(bot(name, i + 1));
      routes.want([], [...wanted]);
      updates.push(sync.apply());
    }
    release();
    await Promise.all(updates);

    // The first bot's update, then one for the five.
    expect([clients, told]).toEqual([2, 2]);
    expect(posts).toHaveLength(2);
    const values = sync.mentionValues();
    expect(values).toHaveLength(2);
    for (const name of names) expect(values.join(" ")).toContain(`@${name} OR to:${name}`);
  });

  it("sends no rule write of a hub that closed while it waited for the budget (the next hub keeps that rule)", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const { sandbox, app, connection } = await hubs.open(clock);
    const syncOf = (bots: MentionBot[], budgeted: Budgeted = direct, closed = new AbortController().signal) => {
      const status = new HubStatus(clock, () => {});
      const routes = new Routes({ status, routed: () => {} });
      routes.want([], bots);
      const sync = new RuleSync({
        ...connection,
        appId: "app",
        clock,
        log: silentLogger,
        routes,
        status,
        closed,
        budgeted,
      });
      return { sync, synced: () => connection.client().then((c) => sync.syncIfNeeded(c)) };
    };
    const ann = bot("ann", 0);
    const bob = bot("bob", 1);
    // An earlier hub gave ann and bob their rule.
    await syncOf([ann, bob]).synced();
    const [packed] = rulesOf(sandbox.context, app.id);
    expect(packed?.value).toContain("@bob OR to:bob");

    // A hub whose directory was behind (bob not read yet) plans to delete that rule; its
    // write waits for the budget (a loaded process) until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const slow: Budgeted = async (endpoint, run) => {
      if (endpoint === RULES) {
        waiting++;
        await held;
      }
      return (await run(new AbortController().signal)).result;
    };
    const close = new AbortController();
    const stale = syncOf([ann], slow, close.signal).synced();
    await vi.waitFor(() => expect(waiting).toBe(1));
    // Its lease lapsed: it closes, and the next hub (every bot read) finds the rule right.
    close.abort();
    const next = syncOf([ann, bob]);
    await next.synced();
    expect(next.sync.mentionValues()).toEqual([packed!.value]);

    // The budget lets the closed hub's write go at last: it must not delete the rule.
    release();
    await stale.catch(() => undefined);
    expect(rulesOf(sandbox.context, app.id).map((r) => r.value)).toEqual([packed!.value]);
  });

  it("a check finds a rule gone behind the hub's back and puts it back, said once; the rules right, it reads their list and no more", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const { sandbox, app, connection } = await hubs.open(clock);
    const requests: string[] = [];
    const budgeted: Budgeted = async (endpoint, run) => {
      requests.push(endpoint);
      return (await run(new AbortController().signal)).result;
    };
    const { lines, logger } = captureLogs("info");
    const status = new HubStatus(clock, () => {});
    const routes = new Routes({ status, routed: () => {} });
    routes.want([], [bot("ann", 0), bot("bob", 1)]);
    const sync = new RuleSync({
      ...connection,
      appId: "app",
      clock,
      log: logger,
      budgeted,
      routes,
      status,
      closed: new AbortController().signal,
    });
    await sync.syncIfNeeded(await connection.client());
    const [packed] = rulesOf(sandbox.context, app.id);

    // The rules right: one read of their list, no write, nothing said.
    requests.length = 0;
    await sync.check();
    expect(requests).toEqual(["GET /2/posts/search/stream/rules"]);

    // A late write of the hub that ran the stream before deletes the rule.
    const other = await connection.client();
    await other.exchange("POST /2/posts/search/stream/rules", { body: { delete: { ids: [packed!.id] } } });
    expect(rulesOf(sandbox.context, app.id)).toEqual([]);
    requests.length = 0;
    await sync.check();
    const values = rulesOf(sandbox.context, app.id).map((r) => r.value);
    expect(values).toEqual([packed!.value]);
    expect(sync.mentionValues()).toEqual(values);
    expect(lines.filter((l) => String(l.msg).includes("not those it had made"))).toHaveLength(1);

    // Put right, the next check reads the list and leaves it.
    requests.length = 0;
    await sync.check();
    expect(requests).toEqual(["GET /2/posts/search/stream/rules"]);
    expect(lines.filter((l) => String(l.msg).includes("not those it had made"))).toHaveLength(1);
  });
});
