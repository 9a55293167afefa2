/**
 * An answer to a direct message through the action layer, against the sandbox: it goes to its
 * sender through the one-to-one endpoint every DM uses (`/with/:participant_id/messages`; a
 * group's answer into its conversation), it is filed under `<bot>:dm:re:<message id>` (a
 * message is answered once), one that reached the service before a crash is found there by
 * the client verifier and not sent again, and a ledger written before postbot 0.2 (answers
 * under `<bot>:dm-reply:<message id>`, a dialog's turns under `<bot>:dm:conv:...`) is still
 * recognised: nothing it recorded is sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../src/actions/action.ts";
import { clientVerifiers } from "../../src/actions/verifiers.ts";
import { dialogTarget } from "../../src/actions/keys.ts";
import { createActionSystem } from "../../src/actions/layer.ts";
import type { LedgerEntry } from "../../src/actions/index.ts";
import { createMemoryStore, type Store } from "../../src/store/store.ts";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox();
});
afterAll(() => t.close());

const reads = async (route: string) =>
  Object.values((await t.admin.stats()).routes[route] ?? {}).reduce((a, b) => a + b, 0);

/** A bot and a user who sent it a message, and the bot's layer on `store` (counting what it sends). */
async function deskWithMessage(store: Store = createMemoryStore(), text = "hi bot") {
  const bot = await t.account({ plan: "pro" });
  const alice = await t.account({ app: bot.app });
  const message = await t.admin.sendDm({ sender_id: alice.user.id, recipient_id: bot.user.id, text });
  const client = t.client(bot);
  const send = client.send.bind(client);
  const sent: Action[] = [];
  const layer = createActionSystem({ store, clock: t.clock }).bot({
    bot: "desk",
    account: { appId: bot.app.id, userId: bot.user.id, plan: "pro" },
    executor: (action, signal) => {
      sent.push(action);
      return send(action, signal);
    },
    verifiers: clientVerifiers(client, bot.user.id),
  });
  const ref = { id: message.id, dm_conversation_id: message.dm_conversation_id!, sender_id: alice.user.id };
  return { bot, alice, message, client, layer, ref, sent, store };
}

describe("answering a direct message", () => {
  it("goes to its sender through the one-to-one endpoint, once per message", async () => {
    const { bot, alice, message, client, layer, ref, sent } = await deskWithMessage();
    const answered = await layer.dm(ref, "hello alice");
    expect(answered).toMatchObject({
      status: "sent",
      key: `desk:dm:re:${message.id}`,
      result: { data: { dm_conversation_id: message.dm_conversation_id, dm_event_id: expect.any(String) } },
    });
    expect(sent.map((a) => [a.endpoint, a.path])).toEqual([
      ["POST /2/dm_conversations/with/:participant_id/messages", { participant_id: alice.user.id }],
    ]);
    expect(await layer.dm(ref, "hello again")).toMatchObject({ status: "duplicate" });
    // A DM to the same user is the same endpoint, keyed by the user and its text.
    expect(await layer.dm(alice.user.id, "and a note")).toMatchObject({
      status: "sent",
      key: expect.stringMatching(new RegExp(`^desk:dm:${alice.user.id}:[0-9a-f]{16}$`)),
    });
    expect(new Set(sent.map((a) => a.endpoint)).size).toBe(1);
    const conversation = await client.dms.conversationEvents(message.dm_conversation_id!, {
      "dm_event.fields": ["text", "sender_id"],
    });
    expect(conversation.data?.map((e) => [e.sender_id, e.text])).toEqual([
      [bot.user.id, "and a note"],
      [bot.user.id, "hello alice"],
      [alice.user.id, "hi bot"],
    ]);
  });

  it("in a group goes into that conversation, which has no one participant", async () => {
    const bot = await t.account({ plan: "pro" });
    const [alice, bob] = await Promise.all([t.account({ app: bot.app }), t.account({ app: bot.app })]);
    const made = await t.client(alice).dms.createGroup([bot.user.id, bob.user.id], { text: "hello you two" });
    const group = made.data!.dm_conversation_id;
    const client = t.client(bot);
    const layer = createActionSystem({ store: createMemoryStore(), clock: t.clock }).bot({
      bot: "desk",
      account: { appId: bot.app.id, userId: bot.user.id, plan: "pro" },
      executor: client.send.bind(client),
    });
    const ref = { id: made.data!.dm_event_id, dm_conversation_id: group, sender_id: alice.user.id };
    expect(await layer.dm(ref, "hello both")).toMatchObject({
      status: "sent",
      key: `desk:dm:re:${ref.id}`,
      result: { data: { dm_conversation_id: group } },
    });
    const read = await t.client(bob).dms.conversationEvents(group, { "dm_event.fields": ["text"] });
    expect(read.data?.map((e) => e.text)).toContain("hello both");
  });

  it("that reached the service before a crash is found by the verifier and not sent again", async () => {
    const store = createMemoryStore();
    const { bot, alice, message, client, ref } = await deskWithMessage(store, "are you there?");
    const send = client.send.bind(client);
    const account = { appId: bot.app.id, userId: bot.user.id, plan: "pro" as const };
    // Run 1 sends the answer, but "dies" before the service's answer: its executor never returns.
    let arrived!: () => void;
    const reached = new Promise<void>((r) => (arrived = r));
    const dying = createActionSystem({ store, clock: t.clock }).bot({
      bot: "desk",
      account,
      executor: async (action, signal) => {
        await send(action, signal);
        arrived();
        return new Promise<never>(() => {});
      },
    });
    void dying.dm(ref, "yes, here");
    await reached;
    expect(store.get("ledger", `desk:dm:re:${message.id}`)).toMatchObject({ state: "pending" });

    const before = await reads("GET /2/dm_conversations/with/:participant_id/dm_events");
    let resent = 0;
    const layer = createActionSystem({ store, clock: t.clock }).bot({
      bot: "desk",
      account,
      executor: async (action, signal) => {
        resent++;
        return send(action, signal);
      },
      verifiers: clientVerifiers(client, bot.user.id),
    });
    const [outcome] = await layer.recover();
    expect(outcome).toMatchObject({
      status: "duplicate",
      result: { data: { dm_event_id: expect.any(String), dm_conversation_id: message.dm_conversation_id } },
    });
    expect(resent).toBe(0);
    // The check read the one-to-one conversation with the sender.
    expect((await reads("GET /2/dm_conversations/with/:participant_id/dm_events")) - before).toBe(1);
    const answers = (
      await client.dms.conversationEvents(message.dm_conversation_id!, { "dm_event.fields": ["sender_id"] })
    ).data?.filter((e) => e.sender_id === bot.user.id);
    expect(answers).toHaveLength(1);
    expect(alice.user.id).toBe(ref.sender_id);
  });
});

/** A ledger entry as postbot 0.1 wrote it for an answer to `message` (`<bot>:dm-reply:<id>`). */
function oldAnswer(
  state: "done" | "pending",
  bot: { user: { id: string } },
  message: { id: string; dm_conversation_id?: string },
  sender: string,
  now: number,
): LedgerEntry {
  const action: Action = {
    key: `desk:dm-reply:${message.id}`,
    kind: "dm",
    bot: "desk",
    userId: bot.user.id,
    endpoint: "POST /2/dm_conversations/:dm_conversation_id/messages",
    target: message.id,
    path: { dm_conversation_id: message.dm_conversation_id! },
    body: { text: "answered before the upgrade" },
    context: { authorId: sender },
    priority: 2,
    createdAt: now,
    expiresAt: now + 86_400_000,
  };
  return {
    state,
    kind: "dm",
    bot: "desk",
    target: message.id,
    ...(state === "pending" ? { action } : { result: { data: { dm_event_id: "1" } } }),
    createdAt: now,
    updatedAt: now,
  };
}

describe("a ledger written before postbot 0.2", () => {
  it("answers a message answered under its old key as a duplicate, and sends nothing", async () => {
    const store = createMemoryStore();
    const { bot, alice, message, layer, ref, sent } = await deskWithMessage(store);
    store.set("ledger", `desk:dm-reply:${message.id}`, oldAnswer("done", bot, message, alice.user.id, t.clock.now()));
    expect(await layer.dm(ref, "the same answer, after the upgrade")).toMatchObject({
      status: "duplicate",
      key: `desk:dm-reply:${message.id}`,
    });
    expect(sent).toEqual([]);
  });

  it("resumes an answer left pending under its old key, checks it with the service, and sends it once", async () => {
    const store = createMemoryStore();
    const { bot, alice, message, client, layer, ref, sent } = await deskWithMessage(store);
    store.set(
      "ledger",
      `desk:dm-reply:${message.id}`,
      oldAnswer("pending", bot, message, alice.user.id, t.clock.now()),
    );
    // The start resumes it, and the event (still in the inbox) asks again under the new key.
    const [resumed, asked] = await Promise.all([layer.recover(), layer.dm(ref, "answered after the upgrade")]);
    expect(resumed.map((o) => o.status)).toEqual(["sent"]);
    expect(asked).toMatchObject({ status: "duplicate", key: `desk:dm-reply:${message.id}` });
    expect(sent).toHaveLength(1);
    const answers = (
      await client.dms.conversationEvents(message.dm_conversation_id!, { "dm_event.fields": ["sender_id", "text"] })
    ).data?.filter((e) => e.sender_id === bot.user.id);
    expect(answers?.map((e) => e.text)).toEqual(["answered before the upgrade"]);
  });

  it("recognises a dialog's turn recorded under its old key, in DMs and in a thread", async () => {
    const store = createMemoryStore();
    const { bot, alice, layer, sent } = await deskWithMessage(store);
    const now = t.clock.now();
    for (const kind of ["dm", "reply"])
      store.set("ledger", `desk:${kind}:conv:abc123:2`, {
        state: "done",
        kind,
        bot: "desk",
        target: kind === "dm" ? alice.user.id : "42",
        createdAt: now,
        updatedAt: now,
      } satisfies LedgerEntry);
    const key = dialogTarget("abc123", 2);
    expect(await layer.dm(alice.user.id, "What's your name?", { key, dialog: "abc123" })).toMatchObject({
      status: "duplicate",
      key: "desk:dm:conv:abc123:2",
    });
    expect(await layer.reply({ id: "42" }, `@${alice.user.username} What's your name?`, { key })).toMatchObject({
      status: "duplicate",
      key: "desk:reply:conv:abc123:2",
    });
    expect(sent).toEqual([]);
    expect(bot.user.id).toBeTruthy();
  });
});
