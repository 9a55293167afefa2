/**
 * Direct messages in (issue 22 item 1), against the sandbox on a frozen clock: the `dms`
 * trigger delivers each message someone sends the bot once, oldest first, across a restart;
 * the bot's own messages never come back; `ctx.reply` answers in the same conversation; the
 * poll runs as fast as the plan allows (pro every minute, basic once a day).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../../src/actions/index.ts";
import type { BotFileInput } from "../../src/config/index.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { openFileStore } from "../../src/store/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";

let bed: TestBed | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bed?.close();
  bed = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A plugin that answers every DM, recording what it saw and how each answer ended. */
function answering() {
  const seen: Array<{ bot: string; text: string; from: string; conversation: string }> = [];
  const outcomes: Outcome[] = [];
  const plugin = definePlugin({
    name: "answer",
    setup(bot) {
      bot.on("dm", async (ctx) => {
        seen.push({
          bot: ctx.bot.name,
          text: ctx.message.text,
          from: ctx.sender.username,
          conversation: ctx.conversation.id,
        });
        outcomes.push(await ctx.reply(`got "${ctx.message.text}"`));
      });
    },
  });
  return { plugin, seen, outcomes };
}

const helpdesk = (plan: "pro" | "basic" = "pro"): BotFileInput => ({
  name: "helpdesk",
  plan,
  triggers: { dms: {} },
  plugins: { answer: {} },
});

/** Runs the clock on a minute at a time (each dms poll of a pro bot), settling after each. */
async function minutes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await bed!.advance(MINUTE);
    await bed!.settle();
  }
}

describe("the dms trigger against the sandbox", () => {
  it("delivers each message once, oldest first, and answers in the same conversation (pro)", async () => {
    const { plugin, seen, outcomes } = answering();
    bed = await createTestBed({ bots: [helpdesk()], plugins: { answer: plugin } });
    const alice = await bed.user("alice");
    const bob = await bed.user("bob");
    await bed.dm(alice, "helpdesk", "my order is late");
    await bed.dm(bob, "helpdesk", "hello?");
    await bed.dm(alice, "helpdesk", "order 1234");
    await minutes(1);
    expect(seen.map((s) => `${s.from}: ${s.text}`)).toEqual([
      "alice: my order is late",
      "bob: hello?",
      "alice: order 1234",
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["sent", "sent", "sent"]);

    // The answers are in the conversation each message came in, after it.
    const withAlice = bed.dmsWith(alice, "helpdesk").map((m) => `${m.sender}: ${m.text}`);
    expect(withAlice.slice(0, 2)).toEqual(["alice: my order is late", "alice: order 1234"]);
    expect(withAlice.slice(2).sort()).toEqual(['helpdesk: got "my order is late"', 'helpdesk: got "order 1234"']);
    const conversation = bed.dmsWith(bob, "helpdesk")[0]!.dm_conversation_id;
    expect(seen[1]!.conversation).toBe(conversation);
    const sent = outcomes[1] as Extract<Outcome, { status: "sent" }>;
    expect(sent.key).toBe(`helpdesk:dm:re:${bed.dmsWith(bob, "helpdesk")[0]!.id}`);
    expect(sent.result).toMatchObject({ data: { dm_conversation_id: conversation, dm_event_id: expect.any(String) } });

    // The bot's own three answers are in its DM events too; none comes back as an event, and
    // nothing is delivered twice however often it polls.
    await minutes(5);
    expect(seen).toHaveLength(3);
    await bed.dm(bob, "helpdesk", "thanks");
    await minutes(1);
    expect(seen.map((s) => s.text)).toEqual(["my order is late", "hello?", "order 1234", "thanks"]);
    expect(bed.runtime.status()[0]!.triggers.dms).toMatchObject({ events: 4 });
  });

  it("continues from its cursor across a restart (file store): nothing twice, nothing lost", async () => {
    const dir = await mkdtemp(join(tmpdir(), "postbot-dms-"));
    dirs.push(dir);
    const { plugin, seen } = answering();
    bed = await createTestBed({ bots: [helpdesk()], plugins: { answer: plugin }, store: await openFileStore(dir) });
    const alice = await bed.user("alice");
    await bed.dm(alice, "helpdesk", "one");
    await bed.dm(alice, "helpdesk", "two");
    await minutes(1);
    expect(seen.map((s) => s.text)).toEqual(["one", "two"]);
    await bed.stop();
    await bed.store.close();

    // While the bot is down, two more messages come, an hour apart (past the backfill too).
    await bed.dm(alice, "helpdesk", "three");
    await bed.advance(2 * 60 * MINUTE);
    await bed.dm(alice, "helpdesk", "four");
    const sandbox = bed.sandbox;
    bed = await createTestBed({
      sandbox,
      bots: [helpdesk()],
      plugins: { answer: plugin },
      store: await openFileStore(dir),
    });
    await minutes(3);
    expect(seen.map((s) => s.text)).toEqual(["one", "two", "three", "four"]);
    expect(bed.dmsWith(alice, "helpdesk").filter((m) => m.sender === "helpdesk")).toHaveLength(4);
    await bed.stop();
    await bed.store.close();
    await sandbox.close();
    bed = undefined;
  });

  it("checks DMs once a day on basic", async () => {
    const { plugin, seen } = answering();
    bed = await createTestBed({ bots: [helpdesk("basic")], plugins: { answer: plugin } });
    const polls = async () =>
      Object.values((await bed!.sandbox.admin.stats()).routes["GET /2/dm_events"] ?? {}).reduce((a, b) => a + b, 0);
    expect(await polls()).toBe(1); // at start
    const alice = await bed.user("alice");
    await bed.dm(alice, "helpdesk", "anyone there?");
    await bed.advance(DAY - MINUTE);
    await bed.settle();
    expect(seen).toEqual([]);
    expect(await polls()).toBe(1);
    await bed.advance(MINUTE);
    await bed.settle();
    expect(seen.map((s) => s.text)).toEqual(["anyone there?"]);
    expect(await polls()).toBe(2);
    // basic sends one DM a day for the whole app: the answer went out.
    expect(bed.dmsWith(alice, "helpdesk").map((m) => m.sender)).toEqual(["alice", "helpdesk"]);
  });

  it("does not answer another bot of the process unless reply_to_bots", async () => {
    const { plugin, seen, outcomes } = answering();
    bed = await createTestBed({
      bots: [
        helpdesk(),
        { name: "shop", plan: "pro", triggers: { dms: {} }, plugins: { answer: {} }, reply_to_bots: true },
      ],
      plugins: { answer: plugin },
    });
    const shop = await bed.user("shop");
    await bed.dm(shop, "helpdesk", "hello from a bot");
    await minutes(1);
    expect(seen.map((s) => `${s.bot}: ${s.text}`)).toEqual(["helpdesk: hello from a bot"]);
    expect(outcomes[0]).toMatchObject({
      status: "refused",
      reason: expect.stringMatching(/is from another bot of this process .*reply_to_bots: true/),
    });
    expect(bed.dmsWith(shop, "helpdesk").map((m) => m.sender)).toEqual(["shop"]);
  });

  it("warns at start when a plugin handles dm events and the bot has no dms trigger", async () => {
    const { plugin } = answering();
    const { lines, logger } = captureLogs();
    bed = await createTestBed({
      bots: [{ name: "helpdesk", plan: "pro", triggers: { mentions: {} }, plugins: { answer: {} } }],
      plugins: { answer: plugin },
      logger,
    });
    expect(lines.map((l) => String(l.msg))).toContain(
      'a plugin handles "dm" events but the bot has no dms trigger, so none will come; add triggers: { dms: {} } to helpdesk.yaml',
    );
  });
});
