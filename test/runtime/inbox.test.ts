/**
 * The inbox: a trigger's events and its cursor go into the store in one step, made durable by
 * one flush; events go to the injected plugins stage a few at a time, leave the inbox once
 * handled, and wait there while the bot is paused; it stays within its limit.
 */
import { describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { captureLogs } from "../helpers/log.ts";
import { INBOX_LIMIT, Inbox, inboxReader, waitingEvents } from "../../src/runtime/inbox.ts";
import type { EventHandling } from "../../src/runtime/types.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import type { BotEvent } from "../../src/triggers/events.ts";

const event = (i: number): BotEvent => ({
  kind: "schedule",
  id: `e${i}`,
  schedule: { name: "s", cron: "* * * * *", at: i },
});

/** A store that records, at each flush, what it held. */
function flushRecordingStore() {
  const store = createMemoryStore();
  const flushed: Array<{ inbox: string[]; cursor: unknown }> = [];
  const recording: Store = {
    ...store,
    async flush() {
      flushed.push({
        inbox: store.entries("inbox:bot").map(([id]) => id),
        cursor: store.get("cursors", "bot:mentions"),
      });
    },
  };
  return { store: recording, flushed };
}

/** A stage whose handlers finish when told; `none` kinds have no handler. */
function stage(none: BotEvent["kind"][] = []) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const handling: EventHandling = {
    handles: (kind) => !none.includes(kind),
    handle(e) {
      if (none.includes(e.kind)) return undefined;
      started.push(e.id);
      return new Promise<void>((resolve) => finish.set(e.id, resolve));
    },
    waiting: () => false,
  };
  return { handling, started, finish };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function loop(store: Store, handling: EventHandling, concurrency = 2) {
  return new Inbox({
    store,
    bot: "bot",
    handling,
    clock: createClock({ frozen: true, start: 0 }),
    log: silentLogger,
    concurrency,
    onDelivered: () => {},
  });
}

describe("Inbox", () => {
  it("keeps a trigger's events and its cursor in the one write its commit flushes", async () => {
    const { store, flushed } = flushRecordingStore();
    const { handling } = stage();
    const events = loop(store, handling);
    await events.commit([event(1), event(2)], { key: "bot:mentions", value: { since_id: "2" } });
    expect(flushed).toEqual([{ inbox: ["e1", "e2"], cursor: { since_id: "2" } }]);
    expect(events.cursor("bot:mentions")).toEqual({ since_id: "2" });
    await events.commit([], { key: "bot:mentions", value: undefined });
    expect(flushed[1]!.cursor).toBeUndefined();
  });

  it("hands events to the stage a few at a time; each leaves the inbox once handled", async () => {
    const { store } = flushRecordingStore();
    const { handling, started, finish } = stage(["follow"]);
    const events = loop(store, handling, 2);
    const inbox = inboxReader(store, "bot");
    events.deliver([event(1), event(2), event(3)]);
    await tick();
    expect(started).toEqual(["e1", "e2"]);
    expect(events.size).toBe(3);
    finish.get("e1")!();
    await tick();
    expect(started).toEqual(["e1", "e2", "e3"]);
    expect(inbox.has("e1")).toBe(false);
    expect(inbox.has("e2")).toBe(true);
    finish.get("e2")!();
    finish.get("e3")!();
    // An event no plugin takes is done at once.
    const follow: BotEvent = { kind: "follow", id: "f1", user: { id: "7", name: "", username: "ann" } };
    const handled = events.handled("f1");
    events.deliver([follow]);
    await handled;
    expect(inbox.has("f1")).toBe(false);
  });

  it("a handler awaiting an action holds no slot: events behind it start, up to the bound in flight", async () => {
    const { store } = flushRecordingStore();
    // Each handler awaits its action: told "waiting" at once; it ends when its action is let go.
    const started: string[] = [];
    const letGo = new Map<string, () => void>();
    const handling: EventHandling = {
      handles: () => true,
      handle(e, onWaiting) {
        started.push(e.id);
        onWaiting?.(true);
        return new Promise<void>((resolve) =>
          letGo.set(e.id, () => {
            onWaiting?.(false);
            resolve();
          }),
        );
      },
      waiting: () => true,
    };
    const events = new Inbox({
      store,
      bot: "bot",
      handling,
      clock: createClock({ frozen: true, start: 0 }),
      log: silentLogger,
      concurrency: 2,
      maxInFlight: 5,
      onDelivered: () => {},
    });
    events.deliver(Array.from({ length: 8 }, (_, i) => event(i)));
    await tick();
    // Two slots, but every handler awaits its action: five (the bound) are in flight, three wait.
    expect(started).toEqual(["e0", "e1", "e2", "e3", "e4"]);
    letGo.get("e2")!();
    await tick();
    expect(started).toEqual(["e0", "e1", "e2", "e3", "e4", "e5"]);
    for (const id of ["e0", "e1", "e3", "e4", "e5"]) letGo.get(id)!();
    await tick();
    await tick();
    expect(started).toHaveLength(8);
  });

  it("handles one user's events one at a time and in order, while other users' go on", async () => {
    const { store } = flushRecordingStore();
    const { handling, started, finish } = stage();
    const events = loop(store, handling, 4);
    const from = (id: string, user: string): BotEvent => ({
      kind: "follow",
      id,
      user: { id: user, name: "", username: user },
    });
    // ann's answer a2 came while a1 ran; bob's and the schedule need not wait for her.
    events.deliver([from("a1", "ann"), from("a2", "ann"), from("b1", "bob"), event(9), from("a3", "ann")]);
    await tick();
    expect(started).toEqual(["a1", "b1", "e9"]);
    expect(events.size).toBe(5);
    finish.get("b1")!();
    await tick();
    expect(started).toEqual(["a1", "b1", "e9"]); // a2 still waits for a1, however free the loop is
    finish.get("a1")!();
    await tick();
    expect(started).toEqual(["a1", "b1", "e9", "a2"]);
    finish.get("a2")!();
    await tick();
    expect(started).toEqual(["a1", "b1", "e9", "a2", "a3"]);
    finish.get("a3")!();
    finish.get("e9")!();
    await tick();
    expect(events.size).toBe(0);
    expect(waitingEvents(store, "bot")).toEqual([]);
  });

  it("after a restart, a user's events left in the inbox are handled in the order they came", async () => {
    const { store } = flushRecordingStore();
    const first = loop(store, stage().handling, 4);
    const from = (id: string): BotEvent => ({ kind: "follow", id, user: { id: "7", name: "", username: "ann" } });
    first.deliver([from("a1"), from("a2"), from("a3")]);
    // The process died with all three in the inbox; the next one resumes them.
    const { handling, started, finish } = stage();
    const second = loop(store, handling, 4);
    second.resume();
    await tick();
    expect(started).toEqual(["a1"]);
    finish.get("a1")!();
    await tick();
    finish.get("a2")!();
    await tick();
    expect(started).toEqual(["a1", "a2", "a3"]);
  });

  it("starts nothing while paused: the events wait in the inbox", async () => {
    const { store } = flushRecordingStore();
    const { handling, started } = stage();
    const events = loop(store, handling);
    events.pause("the service refused the account");
    events.deliver([event(1)]);
    await tick();
    expect(started).toEqual([]);
    expect(events.paused?.reason).toBe("the service refused the account");
    expect(waitingEvents(store, "bot").map((e) => e.id)).toEqual(["e1"]);
  });

  it("stays within its limit, dropping the oldest, counting the events an earlier run left", async () => {
    const store = createMemoryStore();
    // An earlier run left 10 events.
    for (let i = 0; i < 10; i++) store.set("inbox:bot", `e${i}`, event(i));
    const { lines, logger } = captureLogs();
    const inbox = new Inbox({
      store,
      bot: "bot",
      handling: stage().handling,
      clock: createClock({ frozen: true, start: 0 }),
      log: logger,
      onDelivered: () => {},
    });
    inbox.pause("only counting");
    await inbox.commit([event(5)]);
    expect(waitingEvents(store, "bot")).toHaveLength(10);
    await inbox.commit(Array.from({ length: INBOX_LIMIT - 10 }, (_, i) => event(10 + i)));
    expect(waitingEvents(store, "bot")).toHaveLength(INBOX_LIMIT);
    expect(lines.filter((l) => String(l.msg).startsWith("inbox full"))).toEqual([]);
    await inbox.commit([event(INBOX_LIMIT), event(INBOX_LIMIT + 1)]);
    expect(waitingEvents(store, "bot")).toHaveLength(INBOX_LIMIT);
    expect(waitingEvents(store, "bot")[0]!.id).toBe("e2");
    expect(lines.map((l) => l.msg)).toContain("inbox full: dropped the 2 oldest unhandled events");
  });

  it("counts the events it handled out: a full inbox emptied takes new ones without dropping any", async () => {
    const store = createMemoryStore();
    for (let i = 0; i < INBOX_LIMIT; i++) store.set("inbox:bot", `e${i}`, event(i));
    const { lines, logger } = captureLogs();
    // No plugin takes schedule events: each is done at once.
    const inbox = new Inbox({
      store,
      bot: "bot",
      handling: stage(["schedule"]).handling,
      clock: createClock({ frozen: true, start: 0 }),
      log: logger,
      onDelivered: () => {},
    });
    await inbox.commit([event(-1)]); // counted against the 10,000 there: the oldest goes
    expect(lines.map((l) => l.msg)).toContain("inbox full: dropped the 1 oldest unhandled events");
    inbox.resume();
    for (let i = 0; i < 5 && inbox.size > 0; i++) await tick();
    expect(inbox.size).toBe(0);
    expect(waitingEvents(store, "bot")).toEqual([]);
    await inbox.commit([event(INBOX_LIMIT + 5)]);
    expect(lines.filter((l) => String(l.msg).startsWith("inbox full"))).toHaveLength(1);
  });
});
