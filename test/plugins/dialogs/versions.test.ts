/**
 * The versions of a bot's dialogs (src/plugins/dialogs/versions.ts), on the engine alone with
 * a fake sender: a dialog made from data finishes on the version it started with when the data
 * change (the next start reads that version from the state, and says how many open dialogs
 * the change concerns), a version no open dialog is on any more is removed, a version whose data
 * are gone is said; a dialog in code goes on by step name, and its start counts the open
 * dialogs waiting in a step it no longer has. On Redis, the version is in the bot's hash, and
 * a process started later finishes the dialog on it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LayerActionOptions, Outcome, PostRef } from "../../../src/actions/index.ts";
import { createClock } from "../../../src/clock.ts";
import { DurableScope } from "../../../src/plugins/dialogs/durable-scope.ts";
import { DialogEngine, type DialogSender, type Inbound } from "../../../src/plugins/dialogs/engine.ts";
import * as drive from "./drive.ts";
import type { DialogDefinition } from "../../../src/plugins/dialogs/types.ts";
import { versionNamespace } from "../../../src/plugins/dialogs/versions.ts";
import { connectRedis } from "../../../src/redis/connect.ts";
import { redisKeys } from "../../../src/redis/keys.ts";
import { shardHash } from "../../../src/redis/store-sharding.ts";
import { openRedisStore } from "../../../src/redis/store.ts";
import { createMemoryStore, type Store } from "../../../src/store/store.ts";
import { takeRider } from "../../helpers/rider.ts";
import { startRedisServer, type RedisServer } from "../../helpers/redis-server.ts";
import { captureLogs } from "../../helpers/log.ts";

/** A sender that records each message's text and applies its rider first, as the ledger step does. */
function fakeSender(store: Store) {
  const sent: string[] = [];
  let n = 100;
  const deliver = <R>(text: string, o: LayerActionOptions, result: (id: string) => R) => {
    takeRider(store, o.rider);
    sent.push(text);
    return Promise.resolve<Outcome<R>>({ status: "sent", key: o.key!, result: result(String(++n)) });
  };
  const sender: DialogSender = {
    reply: (_to: PostRef, text, o) => deliver(text, o, (id) => ({ data: { id, text } })),
    dm: (userId, text, o) =>
      deliver(text, o, (id) => ({ data: { dm_event_id: id, dm_conversation_id: `${userId}-1` } })),
    repeatsText: () => false,
  };
  return { sender, sent };
}

/** A dialog made from data: its questions in order, each step named by its place (as the `dialog` plugin's). */
function fromData(spec: unknown): DialogDefinition<unknown> {
  const questions = (spec as { questions: string[] }).questions;
  const ask = (turn: Parameters<DialogDefinition<unknown>["start"]>[0], i: number) =>
    i < questions.length ? turn.wait(String(i + 1), { say: questions[i]! }) : turn.say("Done.");
  return {
    start: (turn) => ask(turn, 0),
    steps: Object.fromEntries(questions.map((_q, i) => [String(i + 1), (turn) => ask(turn, i + 1)])),
    versioned: { spec, make: fromData },
  };
}

/** Message ids, unique across the worlds of a test (a run's scope is named by its message's id). */
let post = 1000;

function world(store: Store = createMemoryStore()) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  /** A bot's start with these dialogs defined. */
  const start = (dialogs: Record<string, DialogDefinition<unknown>>) => {
    const { lines, logger } = captureLogs("info");
    const { sender, sent } = fakeSender(store);
    const engine = new DialogEngine({
      bot: "b",
      store,
      clock,
      log: logger,
      session: { maxBytes: 8192 },
      inInbox: () => false,
    });
    for (const [name, d] of Object.entries(dialogs)) engine.define("p", name, d);
    drive.resume(engine, { send: sender, log: logger });
    const said = (words: string) => lines.map((l) => String(l.msg)).filter((m) => m.includes(words));
    return { engine, sender, sent, said };
  };
  const silentLog = captureLogs("info").logger;
  /** A user's message in their thread; it starts the dialog, or answers it. */
  const message = async (bot: ReturnType<typeof start>, user: string, text: string, log = silentLog) => {
    const id = String(++post);
    const inbound: Inbound = {
      user: { id: `id-${user}`, username: user, name: user },
      channel: "thread",
      place: `thread-${user}`,
      message: { id, text, createdAt: new Date(clock.now()).toISOString() },
      post: { id, author_id: `id-${user}`, conversation_id: `thread-${user}` },
    };
    const scope = new DurableScope({
      store,
      clock,
      bot: "b",
      id: `m:${id}`,
      user: `id-${user}`,
      session: { maxBytes: 8192 },
    });
    const run = { scope, send: bot.sender, log };
    if (!(await drive.route(bot.engine, inbound, run))) await drive.start(bot.engine, "p", "quiz", inbound, run);
    scope.finish();
  };
  return { store, start, message };
}

describe("dialog versions", () => {
  it("a dialog made from data finishes on the version it started with; the change is counted; the old version goes once no dialog is on it", async () => {
    const w = world();
    const first = w.start({ quiz: fromData({ questions: ["Name?", "Colour?", "Pet?"] }) });
    await w.message(first, "alice", "quiz");
    await w.message(first, "alice", "Ann");
    await w.message(first, "bob", "quiz");
    expect(first.sent).toEqual(["@alice Name?", "@alice Colour?", "@bob Name?"]);
    first.engine.suspend();

    // The data changed while the bot was stopped: the colour's question removed, the others reordered.
    const second = w.start({ quiz: fromData({ questions: ["Pet?", "Name?"] }) });
    expect(second.said("open dialogs")).toEqual([
      expect.stringContaining(
        'the dialog "quiz" of plugin p changed since 2 open dialogs started: they finish on the version they started with',
      ),
    ]);
    expect(w.store.entries(versionNamespace("b"))).toHaveLength(2);
    await w.message(second, "alice", "red");
    await w.message(second, "bob", "Bob");
    await w.message(second, "carol", "quiz");
    expect(second.sent).toEqual(["@alice Pet?", "@bob Colour?", "@carol Pet?"]);
    await w.message(second, "alice", "cat");
    await w.message(second, "bob", "blue");
    await w.message(second, "bob", "dog");
    expect(second.sent.slice(3)).toEqual(["@alice Done.", "@bob Pet?", "@bob Done."]);
    second.engine.suspend();

    // No dialog is on the first version any more: the next start removes it, and says nothing.
    const third = w.start({ quiz: fromData({ questions: ["Pet?", "Name?"] }) });
    expect(w.store.entries(versionNamespace("b"))).toHaveLength(1);
    expect(third.said("open dialog")).toEqual([]);
  });

  it("a version whose data are gone from the state: the dialog goes on with the current one, by step name, and the log says so", async () => {
    const w = world();
    const first = w.start({ quiz: fromData({ questions: ["Name?", "Colour?"] }) });
    await w.message(first, "alice", "quiz");
    first.engine.suspend();
    const second = w.start({ quiz: fromData({ questions: ["Pet?", "Town?"] }) });
    for (const [version] of w.store.entries(versionNamespace("b"))) w.store.delete(versionNamespace("b"), version);
    const { lines, logger } = captureLogs("info");
    await w.message(second, "alice", "Ann", logger); // answered through a run whose log the test reads
    expect(second.sent).toEqual(["@alice Town?"]);
    expect(lines.map((l) => String(l.msg))).toEqual([
      expect.stringMatching(
        /the version this dialog started on \(.+\) is not in the state any more; it goes on with the current one, by step name/,
      ),
    ]);
  });

  it("a dialog in code goes on by step name; its start counts the open dialogs in a step it no longer has", async () => {
    const w = world();
    const code = (steps: string[]): DialogDefinition<unknown> => ({
      start: (turn) => turn.wait(steps[0]!, { say: "First?" }),
      steps: Object.fromEntries(steps.map((s) => [s, (turn) => turn.say(`Thanks (${s}).`)])),
    });
    const first = w.start({ quiz: code(["name"]) });
    await w.message(first, "alice", "quiz");
    await w.message(first, "bob", "quiz");
    first.engine.suspend();
    const second = w.start({ quiz: code(["who"]) });
    expect(second.said("no step")).toEqual([
      'the dialog "quiz" of plugin p has no step "name" any more, where 2 open dialogs wait: each is closed at its user\'s next message (keep a step\'s name while dialogs may wait in it)',
    ]);
    expect(w.store.entries(versionNamespace("b"))).toEqual([]);
  });
});

describe("dialog versions on Redis", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("the version an open dialog started on is in the bot's hash: a process started later finishes it on that version", async () => {
    const before = await openRedisStore({ redis: await connectRedis(server.url) });
    const w1 = world(before);
    const first = w1.start({ quiz: fromData({ questions: ["Name?", "Colour?"] }) });
    await w1.message(first, "alice", "quiz");
    first.engine.suspend();
    await before.close();

    const redis = await connectRedis(server.url);
    const [[version]] = (await openRedisStore({ redis, closeConnection: false })).entries(versionNamespace("b")) as [
      [string, unknown],
    ];
    expect(
      await redis.hget(shardHash(redisKeys(redis), "bots/b.json"), `dialog.versions:b\u0000${version}`),
    ).toBeTruthy();
    const after = await openRedisStore({ redis });
    const w2 = world(after);
    const second = w2.start({ quiz: fromData({ questions: ["Pet?"] }) });
    expect(second.said("1 open dialog")).toHaveLength(1);
    await w2.message(second, "alice", "Ann");
    expect(second.sent).toEqual(["@alice Colour?"]);
    await after.close();
  });
});
