/**
 * The stream hub at start: where the app's stream left off in an earlier run (its mark, kept
 * in the state) is where the first connection's gap search begins, as after a reconnect. The
 * posts that matched while no process held the stream are delivered once; the log and the
 * status say how long the gap was, what it recovered, and what was too old for recent search
 * (7 days). On the sandbox with a frozen clock; the stream crosses a real socket, so the test
 * waits for outcomes (never for a time).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { startStreamHub } from "../../src/triggers/stream-hub.ts";
import { MarkKeeper, type StreamMark } from "../../src/triggers/stream/marks.ts";
import type { Budgeted } from "../../src/triggers/stream/search.ts";
import { captureLogs } from "../helpers/log.ts";
import { recordTaken, SandboxHubs } from "../helpers/hub.ts";
import { T0 } from "../helpers/sandbox.ts";

const t = new SandboxHubs();
afterEach(() => t.close());

const eventually = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 10 });
const DAY = 86_400_000;

/** A sandbox, an app, a user who posts, and a hub for one bot with the rule `#cats`, resuming from `resume`. */
async function world(clock: AdjustableClock) {
  const { sandbox, app, connection } = await t.open(clock);
  const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
  const fan = await sandbox.admin.createUser({ username: "fan", name: "fan" });
  const post = async (text: string) => (await sandbox.admin.createPost({ author_id: alice.id, text })).id;
  const start = (resume: StreamMark | undefined | (() => Promise<StreamMark | undefined>)) => {
    const { lines, logger } = captureLogs("info");
    const delivered: string[] = [];
    const marks: StreamMark[] = [];
    /** The gaps closed when the hub said it caught up (once, after its first connection). */
    const caughtUp: number[] = [];
    const hub = startStreamHub({
      appId: "app",
      clock,
      log: logger,
      ...connection,
      wants: [{ bot: "fan", userId: fan.id, rules: [{ value: "#cats" }] }],
      resume: typeof resume === "function" ? resume : async () => resume,
      onMark: (mark) => void marks.push(mark),
      onCaughtUp: () => void caughtUp.push(hub.status().gaps.count),
    });
    recordTaken(hub, {
      post: (_bot, event) => void delivered.push(event.kind === "post" ? event.post.text : event.id),
    });
    t.hub = hub;
    return { lines, delivered, marks, caughtUp, hub };
  };
  return { post, start };
}

describe("the stream hub closes the gap since an earlier run at start", () => {
  it("reads where the stream left off while it syncs the rules, not before, and closes that gap", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { post, start } = await world(clock);
    const last = await post("#cats 1");
    await clock.advance(60_000);
    const mark: StreamMark = { id: last, at: T0, until: clock.now() };
    await clock.advance(60_000);
    await post("#cats 2");
    await clock.advance(60_000);
    // The mark's reading answers only once the service has the hub's rule: read one after
    // the other (the mark first), the hub would wait for it forever.
    const ruled = () => Object.values(t.sandbox!.context.data.world.stream_rules).some((r) => r.value === "#cats");
    const run = start(async () => {
      await vi.waitFor(() => expect(ruled()).toBe(true), { timeout: 10_000, interval: 10 });
      return mark;
    });
    await eventually(() => expect(run.hub.status().gaps.count).toBe(1));
    expect(run.delivered).toEqual(["#cats 2"]);
  }, 60_000);

  it("delivers once what matched while no process held the stream, says so, and moves the mark on", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { post, start } = await world(clock);
    // An earlier run delivered up to "#cats 1" and was connected until a minute later.
    await post("#cats 0");
    const last = await post("#cats 1");
    await clock.advance(60_000);
    const mark: StreamMark = { id: last, at: T0, until: clock.now() };
    // While no process held the stream: three matching posts, one not matching.
    await clock.advance(10 * 60_000);
    for (const text of ["#cats 2", "#dogs 3", "#cats 4", "#cats 5"]) await post(text);
    await clock.advance(60_000);
    const run = start(mark);
    await eventually(() => expect(run.hub.status().gaps.count).toBe(1));
    expect(run.delivered).toEqual(["#cats 2", "#cats 4", "#cats 5"]);
    // Caught up once the gap was searched (what a take-over's bot starts wait for).
    await eventually(() => expect(run.caughtUp).toEqual([1]));
    // Streamed from now on, each once.
    await post("#cats 6");
    await eventually(() => expect(run.delivered).toHaveLength(4));
    expect(run.delivered.at(-1)).toBe("#cats 6");
    const gap = run.lines.find((l) => /^stream gap of/.test(String(l.msg)))!;
    expect(gap.msg).toBe(
      "stream gap of 660.0 s since this app's stream last ran (a restart, or a process that held it stopped) closed: recent search recovered 3 posts that matched the rules meanwhile",
    );
    expect(run.hub.status().gaps).toMatchObject({ count: 1, lastMs: 660_000, recovered: 3 });
    expect(run.hub.status().gaps.unrecovered).toBeUndefined();
    // The mark: on to the newest post delivered, the stream connected until now.
    const newest = Object.values(t.sandbox!.context.data.world.posts).find((p) => p.text === "#cats 6")!.id;
    expect(run.marks.at(-1)).toMatchObject({ id: newest, until: clock.now() });
    expect(run.hub.mark()).toMatchObject({ id: newest });
  });

  it("a gap longer than recent search reaches: what it can is recovered, the rest is named in the log and the status", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { post, start } = await world(clock);
    const last = await post("#cats old");
    const mark: StreamMark = { id: last, at: T0, until: T0 };
    await clock.advance(DAY);
    await post("#cats beyond reach"); // 9 days before the start below
    await clock.advance(8 * DAY);
    await post("#cats within reach");
    await clock.advance(60_000);
    const run = start(mark);
    await eventually(() => expect(run.hub.status().gaps.count).toBe(1));
    expect(run.delivered).toEqual(["#cats within reach"]);
    const to = clock.now() - 7 * DAY + 60_000;
    expect(run.hub.status().gaps.unrecovered).toEqual({ from: T0, to });
    expect(run.lines.map((l) => l.msg)).toContain(
      `stream gap of 9.0 days is longer than recent search reaches (7 days): posts that matched the rules between ${new Date(T0).toISOString()} and ${new Date(to).toISOString()} could not be recovered`,
    );
  });

  it("a gap of many mention bots is searched in queries packed by username, many at once, each query's posts delivered as it ends", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { sandbox, app, connection } = await t.open(clock);
    const alice = await sandbox.admin.createUser({ username: "alice", name: "alice" });
    // 12,000 mention bots, in mention rules of ~39 (1,024 characters): packed by username into the
    // app's 4,096-character searches, ~145 bots a query.
    const mentionBots = Array.from({ length: 12_000 }, (_, i) => ({
      bot: `b${i}`,
      userId: String(900_000 + i),
      username: `bot${String(i).padStart(5, "0")}`,
    }));
    for (const i of [5, 11990]) {
      const user = await sandbox.admin.createUser({ username: mentionBots[i]!.username, name: "bot" });
      mentionBots[i]!.userId = user.id;
    }
    const last = (await sandbox.admin.createPost({ author_id: alice.id, text: "before" })).id;
    await clock.advance(60_000);
    for (const i of [5, 11990])
      await sandbox.admin.createPost({ author_id: alice.id, text: `@${mentionBots[i]!.username} hello` });
    await clock.advance(60_000);
    let searching = 0;
    let most = 0;
    let searches = 0;
    const budgeted: Budgeted = async (endpoint, run) => {
      if (endpoint !== "GET /2/posts/search/recent") return (await run(new AbortController().signal)).result;
      searches++;
      most = Math.max(most, ++searching);
      try {
        return (await run(new AbortController().signal)).result;
      } finally {
        searching--;
      }
    };
    const delivered: string[] = [];
    const hub = startStreamHub({
      appId: app.id,
      clock,
      log: captureLogs("info").logger,
      ...connection,
      wants: [],
      mentionBots,
      budgeted,
      resume: async () => ({ id: last, at: T0, until: T0 }),
      onMark: () => {},
    });
    recordTaken(hub, { mentions: (bot) => void delivered.push(bot) });
    t.hub = hub;
    await eventually(() => expect(hub.status().gaps.count).toBe(1));
    expect(delivered.sort()).toEqual(["b11990", "b5"]);
    expect(searches).toBe(83);
    expect(most).toBe(64); // 16 at once before, four before that, one after another before that
  });

  it("without a mark (the app's stream never ran) nothing is searched; the first connection makes one", async () => {
    const clock = createClock({ frozen: true, start: T0 });
    const { post, start } = await world(clock);
    await post("#cats before any run");
    const run = start(undefined);
    await eventually(() => expect(run.hub.status().state).toBe("connected"));
    expect(run.marks[0]).toEqual({ at: T0, until: T0 });
    await post("#cats streamed");
    await eventually(() => expect(run.delivered).toEqual(["#cats streamed"]));
    expect(run.hub.status().gaps.count).toBe(0);
    expect(run.caughtUp).toEqual([0]);
  });
});

describe("MarkKeeper", () => {
  it("moves with streamed posts, holds still while a gap is recovered, and stays where a gap could not be", () => {
    const saved: StreamMark[] = [];
    const keeper = new MarkKeeper((m) => void saved.push(m));
    keeper.resume({ id: "100", at: 1, until: 2 });
    expect(keeper.now(10, false)).toEqual({ id: "100", at: 1, until: 2 });
    keeper.holdForGap();
    keeper.delivered("120", 11, true); // streamed while the gap since 100 is searched
    keeper.delivered("110", 12, false); // found by the search
    expect(saved).toEqual([]);
    expect(keeper.now(13, true)).toEqual({ id: "100", at: 1, until: 2 });
    keeper.gapEnded(true, 14);
    expect(saved.at(-1)).toEqual({ id: "120", at: 14, until: 14 });
    keeper.delivered("130", 15, true);
    expect(saved.at(-1)).toEqual({ id: "130", at: 15, until: 15 });
    expect(keeper.now(20, true)).toEqual({ id: "130", at: 15, until: 20 });
    keeper.lostAt(21);
    expect(saved.at(-1)).toEqual({ id: "130", at: 15, until: 21 });
    // A gap that could not be recovered: the mark stays for the next start to try again.
    keeper.holdForGap();
    keeper.gapEnded(false, 30);
    keeper.delivered("140", 31, true);
    keeper.lostAt(32);
    expect(keeper.now(33, true)).toEqual({ id: "130", at: 15, until: 21 });
  });
});
