/**
 * The memory of open conversations, in a process of its own (./dialogs.bench.ts runs it
 * with --expose-gc): BOTS bots with a conversation engine each, their state in a file store;
 * RSS after a full GC with the bots idle, then after USERS users of each have a conversation
 * open (each waiting for an answer, with its timeout armed on the clock). Prints one JSON
 * line: `{ idleMb, openMb, open }`.
 *
 * Usage: node --expose-gc --import tsx test/bench/dialogs-child.ts DATA_DIR BOTS USERS
 */
import { createClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { DurableScope } from "../../src/plugins/dialogs/durable-scope.ts";
import { DialogEngine, type DialogSender } from "../../src/plugins/dialogs/engine.ts";
import * as drive from "../plugins/dialogs/drive.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { takeRider } from "../helpers/rider.ts";
import dialog, { dialogDefinition, dialogOptions } from "../../plugins/dialog.ts";
import { QUIZ } from "../fixtures/quiz-bot.ts";

const [dir, botsText, usersText] = process.argv.slice(2);
const BOTS = Number(botsText);
const USERS = Number(usersText);
void dialog;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const rssMb = () => {
  gc();
  gc();
  return process.memoryUsage().rss / 1024 / 1024;
};

const store = await openFileStore(dir!);
const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
const definition = dialogDefinition(dialogOptions.parse(QUIZ.plugins!.dialog));
let id = 1_000_000;
const sender: DialogSender = {
  reply(_to, _text, o) {
    takeRider(store, o.rider);
    return Promise.resolve({ status: "sent", result: { data: { id: String(++id), text: _text } } });
  },
  dm(_to, _text, o) {
    takeRider(store, o.rider);
    return Promise.resolve({
      status: "sent",
      result: { data: { dm_event_id: String(++id), dm_conversation_id: `${_to}-${id}` } },
    });
  },
  repeatsText: () => false,
};
const engines: DialogEngine[] = [];
for (let b = 0; b < BOTS; b++) {
  const engine = new DialogEngine({
    bot: `bot-${b}`,
    store,
    clock,
    log: silentLogger,
    session: { maxBytes: 8192 },
    inInbox: () => false,
  });
  engine.define("dialog", "dialog", definition as never);
  drive.resume(engine, { send: sender, log: silentLogger });
  engines.push(engine);
}
await store.flush();
const idleMb = rssMb();

for (let b = 0; b < BOTS; b++) {
  for (let u = 0; u < USERS; u++) {
    const userId = String(2_000_000 + b * USERS + u);
    const post = String(3_000_000 + b * USERS + u);
    const scope = new DurableScope({
      store,
      clock,
      bot: `bot-${b}`,
      id: `mention:${post}`,
      user: userId,
      session: { maxBytes: 8192 },
    });
    await drive.start(
      engines[b]!,
      "dialog",
      "dialog",
      {
        user: { id: userId, username: `user${u}`, name: `User ${u}` },
        channel: "thread",
        place: post,
        message: { id: post, text: "@quiz quiz", createdAt: new Date(clock.now()).toISOString() },
        post: { id: post, author_id: userId, conversation_id: post },
      },
      { scope, send: sender, log: silentLogger },
    );
    scope.finish();
  }
  await store.flush();
}
const openMb = rssMb();
const open = engines.reduce((n, e) => n + e.openCount, 0);
process.stdout.write(`${JSON.stringify({ idleMb, openMb, open, timers: clock.pending() })}\n`);
await store.close();
process.exit(0);
