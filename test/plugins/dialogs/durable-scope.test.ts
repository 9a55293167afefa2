/**
 * A run's durable scope (src/plugins/dialogs/durable-scope.ts): a handler's session
 * changes ride with its first action's ledger record (in the same durable write, in the file
 * store; on Redis: ./session-on-redis.test.ts), or are set at its end when it sent nothing; a run cut short runs again
 * from the values it found; a session has a size cap and an optional expiry.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../../../src/actions/index.ts";
import { createClock } from "../../../src/clock.ts";
import {
  DurableScope,
  type ScopedRecord,
  type SessionSettings,
  SessionTooLargeError,
  sweepTombstones,
} from "../../../src/plugins/dialogs/durable-scope.ts";
import { openFileStore } from "../../../src/store/file-store.ts";
import { createMemoryStore, type Store } from "../../../src/store/store.ts";
import { setup, START } from "../../actions/helpers.ts";
import { takeRider } from "../../helpers/rider.ts";

const SETTINGS: SessionSettings = { maxBytes: 200 };
type Counter = { counter?: { n?: number } };

const scopeOf = (store: Store, id: string, user = "u1", session: SessionSettings = SETTINGS) =>
  new DurableScope({ store, clock: createClock({ frozen: true, start: START }), bot: "g", id, user, session });

describe("a run's scope", () => {
  it("writes a session nobody's action carried at the run's end, with the run and what it replaced", () => {
    const store = createMemoryStore();
    const first = scopeOf(store, "e1");
    first.session("counter").n = 1;
    expect(store.get("session:g", "u1")).toBeUndefined(); // nothing before the end
    expect(first.finish()).toEqual([]);
    expect(store.get("session:g", "u1")).toEqual({ v: { counter: { n: 1 } }, by: "e1", was: null, at: START });

    const second = scopeOf(store, "e2");
    expect(second.session("counter")).toEqual({ n: 1 });
    second.session("counter").n = 2;
    second.finish();
    expect(store.get<ScopedRecord<Counter>>("session:g", "u1")).toMatchObject({
      v: { counter: { n: 2 } },
      by: "e2",
      was: { counter: { n: 1 } },
    });
  });

  it("a run cut short runs again from what it found, not from what it wrote itself", () => {
    const store = createMemoryStore();
    const one = scopeOf(store, "e1");
    one.session("counter").n = 1;
    one.finish();
    const cut = scopeOf(store, "e2");
    cut.session("counter").n = 2;
    cut.apply(); // written with an action's record; then the process died before e2 left the inbox
    const again = scopeOf(store, "e2");
    expect(again.session("counter")).toEqual({ n: 1 }); // counts e2 once, not twice
    again.session("counter").n = 2;
    again.finish();
    expect(store.get<ScopedRecord<Counter>>("session:g", "u1")?.v).toEqual({ counter: { n: 2 } });
    // The same holds for what a conversation stages, deletions included (a tombstone keeps `was`).
    const conv = scopeOf(store, "e3");
    conv.stage("conv:g", "u1:thread", { step: "a" });
    conv.finish();
    const closing = scopeOf(store, "e4");
    closing.stage("conv:g", "u1:thread", null);
    closing.apply();
    expect(scopeOf(store, "e4").read("conv:g", "u1:thread")).toEqual({ step: "a" });
    expect(scopeOf(store, "e5").read("conv:g", "u1:thread")).toBeUndefined();
    // The tombstone goes once its event has left the inbox.
    expect(sweepTombstones(store, "conv:g", (id) => id === "e4")).toBe(0);
    expect(sweepTombstones(store, "conv:g", () => false)).toBe(1);
    expect(store.get("conv:g", "u1:thread")).toBeUndefined();
  });

  it("refuses a session over its cap, naming the bot, the plugin and the size, and keeps the last one", () => {
    const store = createMemoryStore();
    const scope = scopeOf(store, "e1");
    scope.session("small").n = 1;
    scope.session("notes").text = "x".repeat(300);
    expect(() => scope.check()).toThrow(SessionTooLargeError);
    expect(() => scope.check()).toThrow(
      /^bot g, plugin notes: the session of this user would be 311 bytes, over the 200-byte cap, so it was not saved \(nor the action asked for with it\); keep less in ctx\.session/,
    );
    const refused = scope.finish();
    expect(refused.map((e) => [e.plugin, e.bytes])).toEqual([["notes", 311]]);
    expect(store.get<ScopedRecord<unknown>>("session:g", "u1")?.v).toEqual({ small: { n: 1 } });
  });

  it("reads a session unchanged for longer than its ttl as new", async () => {
    const store = createMemoryStore();
    const clock = createClock({ frozen: true, start: START });
    const settings = { ...SETTINGS, ttlMs: 30 * 86_400_000 };
    const make = (id: string) => new DurableScope({ store, clock, bot: "g", id, user: "u1", session: settings });
    const first = make("e1");
    first.session("counter").n = 1;
    first.finish();
    await clock.advance(29 * 86_400_000);
    expect(make("e2").session("counter")).toEqual({ n: 1 });
    await clock.advance(86_400_000);
    expect(make("e3").session("counter")).toEqual({});
  });

  it("drops what a plugin changed since its last write when its handler threw", () => {
    const store = createMemoryStore();
    const scope = scopeOf(store, "e1");
    scope.session("a").n = 1;
    scope.session("b").n = 1;
    scope.apply();
    scope.session("a").n = 2;
    scope.session("b").n = 2;
    scope.discard("a");
    scope.finish();
    expect(store.get<ScopedRecord<unknown>>("session:g", "u1")?.v).toEqual({ a: { n: 1 }, b: { n: 2 } });
  });
});

describe("a scope's rider", () => {
  it("is plain data: what the ledger takes is written, and the run's end writes only what changed after", () => {
    const store = createMemoryStore();
    const scope = scopeOf(store, "e1");
    scope.session("counter").n = 1;
    const rider = scope.rider();
    expect(rider.writes).toEqual([
      { namespace: "session:g", key: "u1", value: { v: { counter: { n: 1 } }, by: "e1", was: null, at: START } },
    ]);
    expect(store.get("session:g", "u1")).toBeUndefined(); // the scope writes nothing itself
    takeRider(store, rider);
    let writes = 0;
    const counted: Store = { ...store, set: (ns, key, value) => (writes++, store.set(ns, key, value)) };
    // Nothing changed since: the run's end writes nothing again.
    const same = scopeOf(counted, "e2");
    same.session("counter").n = 2;
    const taken = same.rider();
    takeRider(counted, taken);
    expect(writes).toBe(1);
    same.finish();
    expect(writes).toBe(1);
    expect(store.get<{ v: Counter }>("session:g", "u1")?.v).toEqual({ counter: { n: 2 } });
  });

  it("one the ledger has not taken when the run goes on is superseded: a late ledger step never writes it", () => {
    const store = createMemoryStore();
    const scope = scopeOf(store, "e1");
    scope.session("counter").n = 1;
    const rider = scope.rider(); // its action's ledger step is checking the service, say
    scope.session("counter").n = 2;
    scope.finish();
    expect(rider.superseded).toBe(true);
    takeRider(store, rider); // the check came back: the ledger step gets to the rider now
    expect(rider.taken).toBeUndefined();
    expect(store.get<{ v: Counter }>("session:g", "u1")?.v).toEqual({ counter: { n: 2 } });
  });
});

describe("a session written with a reply", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "postbot-session-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** What the state directory holds now, as the next start would read it. */
  const onDisk = async () => {
    const store = await openFileStore(dir, { readOnly: true });
    const state = {
      session: store.get<ScopedRecord<Counter>>("session:g", "u1")?.v ?? undefined,
      ledger: store.get<LedgerEntry>("ledger", "g:reply:p1")?.state,
    };
    await store.close();
    return state;
  };

  it("file store: on disk with the reply's record before the request leaves, never before the record", async () => {
    const store = await openFileStore(dir);
    const { system, clock } = setup({ store });
    const seen: unknown[] = [];
    const layer = system.bot({
      bot: "g",
      account: { appId: "app", userId: "100", plan: "pro" },
      executor: async () => {
        seen.push(await onDisk());
        return { result: { data: { id: "9" } } };
      },
    });
    const scope = new DurableScope({ store: layer.store, clock, bot: "g", id: "e1", user: "u1", session: SETTINGS });
    scope.session("counter").n = 1;
    await store.flush(); // anything else flushed meanwhile does not carry the session
    expect(await onDisk()).toEqual({ session: undefined, ledger: undefined });
    expect(await layer.reply({ id: "p1", author_id: "u1" }, "hello", { rider: scope.rider() })).toMatchObject({
      status: "sent",
    });
    expect(seen).toEqual([{ session: { counter: { n: 1 } }, ledger: "pending" }]);
    system.close();
    await store.close();
  });

  it("file store: a reply the ledger answers as a duplicate leaves the session to the run's end", async () => {
    const store = await openFileStore(dir);
    const { system, clock } = setup({ store });
    const layer = system.bot({
      bot: "g",
      account: { appId: "app", userId: "100", plan: "pro" },
      executor: async () => ({ result: { data: { id: "9" } } }),
    });
    await layer.reply({ id: "p1", author_id: "u1" }, "hello");
    const scope = new DurableScope({ store: layer.store, clock, bot: "g", id: "e1", user: "u1", session: SETTINGS });
    scope.session("counter").n = 1;
    expect(await layer.reply({ id: "p1", author_id: "u1" }, "hello", { rider: scope.rider() })).toMatchObject({
      status: "duplicate",
    });
    expect(store.get("session:g", "u1")).toBeUndefined();
    scope.finish();
    await store.flush();
    expect((await onDisk()).session).toEqual({ counter: { n: 1 } });
    system.close();
    await store.close();
  });
});
