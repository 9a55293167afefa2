/**
 * An answer to a direct message through the action layer, against the sandbox: it goes into
 * the message's conversation, it is filed under `<bot>:dm-reply:<message id>` (a message is
 * answered once), and one that reached the service before a crash is found there by the
 * client verifier (a budgeted read of that conversation) and not sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientExecutor, clientVerifiers } from "../../src/actions/client.ts";
import { createActionSystem } from "../../src/actions/layer.ts";
import { createMemoryStore } from "../../src/store/store.ts";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
beforeAll(async () => {
  t = await startSandbox();
});
afterAll(() => t.close());

const reads = async (route: string) =>
  Object.values((await t.admin.stats()).routes[route] ?? {}).reduce((a, b) => a + b, 0);

describe("answering a direct message", () => {
  it("goes into its conversation, once per message", async () => {
    const bot = await t.account({ plan: "pro" });
    const alice = await t.account({ app: bot.app });
    const message = await t.admin.sendDm({ sender_id: alice.user.id, recipient_id: bot.user.id, text: "hi bot" });
    const client = t.client(bot);
    const layer = createActionSystem({ store: createMemoryStore(), clock: t.clock }).bot({
      bot: "desk",
      account: { appId: bot.app.id, userId: bot.user.id, plan: "pro" },
      executor: clientExecutor(client),
    });
    const ref = { id: message.id, dm_conversation_id: message.dm_conversation_id!, sender_id: alice.user.id };
    const sent = await layer.answerDm(ref, "hello alice");
    expect(sent).toMatchObject({
      status: "sent",
      key: `desk:dm-reply:${message.id}`,
      result: { data: { dm_conversation_id: message.dm_conversation_id, dm_event_id: expect.any(String) } },
    });
    expect(await layer.answerDm(ref, "hello again")).toMatchObject({ status: "duplicate" });
    const conversation = await client.dms.conversationEvents(message.dm_conversation_id!, {
      "dm_event.fields": ["text", "sender_id"],
    });
    expect(conversation.data?.map((e) => [e.sender_id, e.text])).toEqual([
      [bot.user.id, "hello alice"],
      [alice.user.id, "hi bot"],
    ]);
  });

  it("that reached the service before a crash is found by the verifier and not sent again", async () => {
    const bot = await t.account({ plan: "pro" });
    const alice = await t.account({ app: bot.app });
    const message = await t.admin.sendDm({
      sender_id: alice.user.id,
      recipient_id: bot.user.id,
      text: "are you there?",
    });
    const ref = { id: message.id, dm_conversation_id: message.dm_conversation_id!, sender_id: alice.user.id };
    const store = createMemoryStore();
    const client = t.client(bot);
    const send = clientExecutor(client);
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
    void dying.answerDm(ref, "yes, here");
    await reached;
    expect(store.get("ledger", `desk:dm-reply:${message.id}`)).toMatchObject({ state: "pending" });

    const before = await reads("GET /2/dm_conversations/:dm_conversation_id/dm_events");
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
    // The check read the conversation itself (a group's answer is found there too).
    expect((await reads("GET /2/dm_conversations/:dm_conversation_id/dm_events")) - before).toBe(1);
    const answers = (
      await client.dms.conversationEvents(message.dm_conversation_id!, { "dm_event.fields": ["sender_id"] })
    ).data?.filter((e) => e.sender_id === bot.user.id);
    expect(answers).toHaveLength(1);
  });
});
