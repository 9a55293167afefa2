/**
 * A start that continues the last run says so in its log, with what it picks up: "resumed
 * from DIR/ (N bots, M events waiting)". A first start says nothing of the kind.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { start } from "../../src/hosting/start.ts";
import { seedInbox } from "../helpers/inbox.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import type { BotEvent } from "../../src/triggers/events.ts";
import { captureLogs } from "../helpers/log.ts";

let sandbox: Sandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  sandbox = dir = undefined;
});

it("logs what a start resumes from the state directory, and nothing on a first start", async () => {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  sandbox = await createSandbox({ clock });
  const app = await sandbox.admin.createApp({ plan: "pro" });
  const user = await sandbox.admin.createUser({ username: "answerer" });
  const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
  dir = await mkdtemp(join(tmpdir(), "postbot-resumed-"));
  await writeFile(
    join(dir, "answerer.yaml"),
    "name: answerer\nplan: pro\naccount:\n  token: ${T}\n  token_secret: ${S}\ntriggers:\n  followers: {}\nplugins: {}\n",
  );
  const env = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
    T: token.token,
    S: token.token_secret,
  };
  const data = join(dir, "data");
  const run = async () => {
    const { lines, logger } = captureLogs("info");
    const started = await start({ bots: dir!, plugins: "plugins", data, clock, logger, env });
    await started.stop();
    return lines.map((l) => String(l.msg)).filter((m) => m.startsWith("resumed from"));
  };

  expect(await run()).toEqual([]);
  expect(await run()).toEqual([`resumed from ${data}/ (1 bot, 0 events waiting)`]);

  // An event fetched and not handled when the last run stopped is picked up, and counted.
  const store = await openFileStore(data);
  const follow: BotEvent = { kind: "follow", id: "follow:7", user: { id: "7", name: "Ann", username: "ann" } };
  seedInbox(store, "answerer", [follow]);
  await store.close();
  expect(await run()).toEqual([`resumed from ${data}/ (1 bot, 1 event waiting)`]);
});

it("shows the last event of the last run right after a restart (bot status reads it before anything new comes)", async () => {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  sandbox = await createSandbox({ clock });
  const app = await sandbox.admin.createApp({ plan: "pro" });
  const user = await sandbox.admin.createUser({ username: "answerer" });
  const token = await sandbox.admin.createToken({ consumer_key: app.consumer_key, user_id: user.id });
  dir = await mkdtemp(join(tmpdir(), "postbot-resumed-"));
  await writeFile(
    join(dir, "answerer.yaml"),
    "name: answerer\nplan: pro\naccount:\n  token: ${T}\n  token_secret: ${S}\ntriggers:\n  dms: {}\nplugins: {}\n",
  );
  const env = {
    POSTBOT_BASE_URL: sandbox.url,
    POSTBOT_CONSUMER_KEY: app.consumer_key,
    POSTBOT_CONSUMER_SECRET: app.consumer_secret,
    T: token.token,
    S: token.token_secret,
  };
  const data = join(dir, "data");
  const ann = await sandbox.admin.createUser({ username: "ann" });
  await sandbox.admin.sendDm({ sender_id: ann.id, recipient_id: user.id, text: "hello" });
  const { logger } = captureLogs("info");
  const first = await start({ bots: dir, plugins: "plugins", data, clock, logger, env });
  const heardAt = clock.now();
  await expect.poll(() => first.runtime.status()[0]!.triggers.dms?.events).toBe(1);
  await first.stop();

  await clock.advance(60_000);
  const second = await start({ bots: dir, plugins: "plugins", data, clock, logger, env });
  try {
    expect(second.runtime.status()[0]!.triggers.dms).toMatchObject({ lastEventAt: heardAt, events: 1 });
  } finally {
    await second.stop();
  }
});
