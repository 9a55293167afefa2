/**
 * The conversation engine alone (src/plugins/dialogs/engine.ts), with a fake sender that
 * records each message and applies its rider as the ledger step does: turns and steps, one
 * message per turn where the conversation is, the wait's timeout on the clock (also one that
 * passed while the bot was not running), cancel words, several users at once, and a turn cut
 * short by a crash that runs again from the same state with the same message key.
 */
import { describe, expect, it } from "vitest";
import type { LayerActionOptions, Outcome, PostRef } from "../../../src/actions/index.ts";
import { createClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { DurableScope } from "../../../src/plugins/dialogs/durable-scope.ts";
import { DialogEngine, type DialogSender, type Inbound } from "../../../src/plugins/dialogs/engine.ts";
import * as drive from "./drive.ts";
import type { DialogDefinition } from "../../../src/plugins/dialogs/types.ts";
import { createMemoryStore, type Store } from "../../../src/store/store.ts";
import { takeRider } from "../../helpers/rider.ts";

const START = Date.parse("2026-03-02T12:00:00Z");

interface Sent {
  kind: "reply" | "dm";
  to: string;
  text: string;
  key: string;
  dialog?: string;
}

/** A sender that records messages and applies each one's rider first, as the ledger step does. */
function fakeSender(options: { store: Store; posted?: Set<string>; hang?: () => boolean }) {
  const sent: Sent[] = [];
  const posted = options.posted ?? new Set<string>();
  let n = 100;
  const deliver = <R>(
    kind: Sent["kind"],
    to: string,
    text: string,
    o: LayerActionOptions,
    result: (id: string) => R,
  ) => {
    takeRider(options.store, o.rider);
    if (options.hang?.()) return new Promise<Outcome<R>>(() => {});
    sent.push({ kind, to, text, key: o.key!, ...(o.dialog ? { dialog: o.dialog } : {}) });
    if (kind === "reply") posted.add(text);
    return Promise.resolve<Outcome<R>>({ status: "sent", key: o.key!, result: result(String(++n)) });
  };
  const sender: DialogSender = {
    reply: (to: PostRef, text, o) => deliver("reply", to.id, text, o, (id) => ({ data: { id, text } })),
    dm: (userId, text, o) =>
      deliver("dm", userId, text, o, (id) => ({ data: { dm_event_id: id, dm_conversation_id: `${userId}-1` } })),
    repeatsText: (text) => posted.has(text),
  };
  return { sender, sent, posted };
}

const QUIZ: DialogDefinition<{ name?: string; colour?: string }> = {
  start(turn) {
    turn.wait("name", { say: "What's your name?" });
  },
  steps: {
    name(turn) {
      turn.session.name = turn.text;
      turn.wait("colour", { say: `Hi ${turn.text}! Favourite colour: red, green or blue?` });
    },
    colour(turn) {
      if (!["red", "green", "blue"].includes(turn.text.toLowerCase())) {
        turn.say("Please answer red, green or blue.");
        return turn.wait("colour", { say: `Hi ${turn.session.name}! Favourite colour: red, green or blue?` });
      }
      turn.session.colour = turn.text;
      turn.say(`Thanks ${turn.session.name}, ${turn.text} it is. Bye!`);
    },
  },
  timeoutMs: 10 * 60_000,
  timeout(turn) {
    turn.say("No answer, so I stopped.");
  },
  cancel: ["stop", "cancel"],
  cancelled(turn) {
    turn.say("Stopped.");
  },
};

function world(store: Store = createMemoryStore(), clock = createClock({ frozen: true, start: START })) {
  const make = (sender: DialogSender) => {
    const engine = new DialogEngine({
      bot: "quiz",
      store,
      clock,
      log: silentLogger,
      session: { maxBytes: 8192 },
      inInbox: () => false,
    });
    engine.define("dialog", "quiz", QUIZ as DialogDefinition<unknown>);
    drive.resume(engine, { send: sender, log: silentLogger });
    return engine;
  };
  let post = 1000;
  /** A user's post in a thread (the first one starts the thread). */
  const said = (user: string, text: string, thread?: string): Inbound & { id: string } => {
    const id = String(++post);
    return {
      id,
      user: { id: `id-${user}`, username: user, name: user },
      channel: "thread",
      place: thread ?? id,
      message: { id, text, createdAt: new Date(clock.now()).toISOString() },
      post: { id, author_id: `id-${user}`, conversation_id: thread ?? id },
    };
  };
  const scope = (id: string, user: string) =>
    new DurableScope({ store, clock, bot: "quiz", id, user: `id-${user}`, session: { maxBytes: 8192 } });
  return { store, clock, make, said, scope };
}

/** Hands a message to the engine as the stage does: routed to a conversation, or starting one. */
async function handle(
  engine: DialogEngine,
  w: ReturnType<typeof world>,
  inbound: Inbound & { id: string },
  sender: DialogSender,
) {
  const scope = w.scope(`mention:${inbound.id}`, inbound.user.username);
  const run = { scope, send: sender, log: silentLogger };
  const taken =
    (await drive.route(engine, inbound, run)) || (await drive.start(engine, "dialog", "quiz", inbound, run)).started;
  scope.finish();
  return taken;
}

describe("the conversation engine", () => {
  it("asks, takes each answer in its step, saves to the session, and ends with the last word", async () => {
    const w = world();
    const { sender, sent } = fakeSender({ store: w.store });
    const engine = w.make(sender);
    const start = w.said("alice", "@quiz quiz");
    await handle(engine, w, start, sender);
    expect(sent.map((m) => [m.to, m.text])).toEqual([[start.id, "@alice What's your name?"]]);
    expect(engine.state("id-alice", "thread")).toMatchObject({ step: "name", turns: 1, place: start.id });
    const name = w.said("alice", "@quiz Ann", start.id);
    await handle(engine, w, name, sender);
    const wrong = w.said("alice", "purple", start.id);
    await handle(engine, w, wrong, sender);
    const right = w.said("alice", "@quiz Blue", start.id);
    await handle(engine, w, right, sender);
    expect(sent.map((m) => [m.to, m.text])).toEqual([
      [start.id, "@alice What's your name?"],
      [name.id, "@alice Hi Ann! Favourite colour: red, green or blue?"],
      [wrong.id, "@alice Please answer red, green or blue.\nHi Ann! Favourite colour: red, green or blue?"],
      [right.id, "@alice Thanks Ann, Blue it is. Bye!"],
    ]);
    // One key per turn, and each message names the conversation (reply safety's exemption).
    const id = sent[0]!.dialog!;
    expect(sent.map((m) => m.key)).toEqual([1, 2, 3, 4].map((n) => `dialog:${id}:${n}`));
    expect(sent.every((m) => m.dialog === id)).toBe(true);
    expect(engine.state("id-alice", "thread")).toBeUndefined();
    expect(w.store.get<{ v: unknown }>("session:quiz", "id-alice")?.v).toEqual({
      dialog: { name: "Ann", colour: "Blue" },
    });
    expect(engine.counters).toEqual({ steps: 3, timeouts: 0, started: 1 });
  });

  it("holds two users' conversations apart, and varies a text the bot posted within 24 hours", async () => {
    const w = world();
    const { sender, sent } = fakeSender({ store: w.store });
    const engine = w.make(sender);
    const a = w.said("alice", "@quiz quiz");
    const b = w.said("bob", "@quiz quiz");
    await Promise.all([handle(engine, w, a, sender), handle(engine, w, b, sender)]);
    expect(sent.map((m) => m.text).sort()).toEqual(["@alice What's your name?", "@bob What's your name?"]);
    // bob answers in alice's thread: not his conversation's place, so not an answer.
    const stray = w.said("bob", "Bob", a.id);
    const scope = w.scope(`mention:${stray.id}`, "bob");
    expect(await drive.route(engine, stray, { scope, send: sender, log: silentLogger })).toBe(false);
    // alice cancels and takes the quiz again at once: the same question, counted.
    await handle(engine, w, w.said("alice", "@quiz STOP", a.id), sender);
    await handle(engine, w, w.said("alice", "@quiz quiz"), sender);
    expect(sent.slice(2).map((m) => m.text)).toEqual(["@alice Stopped.", "@alice What's your name? (2)"]);
    expect(engine.state("id-bob", "thread")).toMatchObject({ step: "name" });
  });

  it("says the timeout's word in reply to its last question when the wait's time is up, and ends", async () => {
    const w = world();
    const { sender, sent } = fakeSender({ store: w.store });
    const engine = w.make(sender);
    await handle(engine, w, w.said("alice", "@quiz quiz"), sender);
    await w.clock.advance(10 * 60_000 - 1);
    expect(sent).toHaveLength(1);
    await w.clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(sent.map((m) => [m.to, m.text])).toEqual([
      [sent[0]!.to, "@alice What's your name?"],
      ["101", "@alice No answer, so I stopped."], // in reply to the bot's question (its id: 101)
    ]);
    expect(engine.state("id-alice", "thread")).toBeUndefined();
    expect(engine.counters.timeouts).toBe(1);
  });

  it("calls no stage when a wait's time is up: the due wait waits in the queue the stage takes from", async () => {
    const w = world();
    const { sender, sent } = fakeSender({ store: w.store });
    const engine = new DialogEngine({
      bot: "quiz",
      store: w.store,
      clock: w.clock,
      log: silentLogger,
      session: { maxBytes: 8192 },
      inInbox: () => false,
    });
    engine.define("dialog", "quiz", QUIZ as DialogDefinition<unknown>);
    const due = engine.resume();
    await handle(engine, w, w.said("alice", "@quiz quiz"), sender);
    await w.clock.advance(10 * 60_000);
    // The timer fired: the wait is queued, no turn ran, and the engine counts as busy until taken.
    expect(due.size).toBe(1);
    expect(engine.busy).toBe(true);
    expect(sent).toHaveLength(1);
    const [wait] = (await due.take())!;
    expect(wait).toEqual({ user: "id-alice", key: "id-alice:thread", turns: expect.any(Number) });
    expect(engine.busy).toBe(false);
    // Stopped here: the queue ends, and a wait taken late runs no turn (the next start arms it again).
    engine.suspend();
    expect(await due.take()).toBeUndefined();
    expect(engine.timeoutTurn(wait!, { send: sender, log: silentLogger })).toBeUndefined();
  });

  it("fires at start a timeout that passed while the bot was not running; an answer written in time still counts", async () => {
    const w = world();
    const first = fakeSender({ store: w.store });
    const before = w.make(first.sender);
    const a = w.said("alice", "@quiz quiz");
    const b = w.said("bob", "@quiz quiz");
    await handle(before, w, a, first.sender);
    await handle(before, w, b, first.sender);
    // bob answers in time; the process stops before it handles his answer.
    const answer = w.said("bob", "Bob", b.id);
    before.suspend();
    await w.clock.advance(60 * 60_000);
    const second = fakeSender({ store: w.store, posted: first.posted });
    const after = w.make(second.sender);
    await handle(after, w, answer, second.sender); // the inbox's event, handled first at start
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(second.sent.map((m) => m.text)).toEqual([
      "@bob Hi Bob! Favourite colour: red, green or blue?",
      "@alice No answer, so I stopped.",
    ]);
    expect(after.state("id-alice", "thread")).toBeUndefined();
    expect(after.state("id-bob", "thread")).toMatchObject({ step: "colour" });
  });

  it("a turn cut short after its message was recorded runs again from the same state, with the same key", async () => {
    const w = world();
    let dead = false;
    const first = fakeSender({ store: w.store, hang: () => dead });
    const engine = w.make(first.sender);
    const start = w.said("alice", "@quiz quiz");
    await handle(engine, w, start, first.sender);
    const name = w.said("alice", "Ann", start.id);
    dead = true; // the message's record (and the turn's state with it) is written; then the process dies
    const scope = w.scope(`mention:${name.id}`, "alice");
    void drive.route(engine, name, { scope, send: first.sender, log: silentLogger });
    await new Promise((r) => setImmediate(r));
    expect(engine.state("id-alice", "thread")).toMatchObject({ step: "colour", turns: 2 });
    engine.suspend();
    // The next start runs the event again: from the state before it, the same turn, the same key.
    const second = fakeSender({ store: w.store });
    const again = w.make(second.sender);
    await handle(again, w, name, second.sender);
    expect(second.sent).toEqual([
      expect.objectContaining({
        text: "@alice Hi Ann! Favourite colour: red, green or blue?",
        key: `dialog:${first.sent[0]!.dialog}:2`,
      }),
    ]);
    expect(again.state("id-alice", "thread")).toMatchObject({ step: "colour", turns: 2 });
  });

  it("keeps nothing of a turn whose code threw", async () => {
    const w = world();
    const { sender, sent } = fakeSender({ store: w.store });
    const engine = new DialogEngine({
      bot: "quiz",
      store: w.store,
      clock: w.clock,
      log: silentLogger,
      session: { maxBytes: 8192 },
      inInbox: () => false,
    });
    engine.define("p", "c", {
      start: (turn) => turn.wait("a", { say: "first?" }),
      steps: {
        a(turn) {
          (turn.session as { x?: number }).x = 1;
          turn.say("never said");
          throw new Error("boom");
        },
      },
    });
    drive.resume(engine, { send: sender, log: silentLogger });
    const start = w.said("alice", "go");
    const run = { scope: w.scope("s1", "alice"), send: sender, log: silentLogger };
    expect(await drive.start(engine, "p", "c", start, run)).toMatchObject({ started: true });
    run.scope.finish();
    const answer = w.said("alice", "x", start.id);
    const scope = w.scope("s2", "alice");
    expect(await drive.route(engine, answer, { scope, send: sender, log: silentLogger })).toBe(true);
    scope.finish();
    expect(sent.map((m) => m.text)).toEqual(["@alice first?"]);
    expect(engine.state("id-alice", "thread")).toMatchObject({ step: "a", turns: 1 });
    expect(w.store.get("session:quiz", "id-alice")).toBeUndefined();
  });
});
