/**
 * Waiting for the model never holds back the bot's other actions (issue 27 item 3): with the
 * bot's `budget.llm` spent (its requests, or its tokens), a reply waits for the model's window
 * on the clock while a like of the same bot goes out at once; when the window has room again,
 * the model is asked and the reply is posted. Nor does a slow model hold back the plugins listed
 * after `llm-reply` on the same event (a like of the mention goes out while the model thinks),
 * while the event stays in the inbox until the reply is done. The sandbox in-process and the
 * loopback model server on one frozen clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import like from "../../plugins/like.ts";
import llmReply from "../../plugins/llm-reply.ts";
import type { LedgerEntry } from "../../src/actions/mechanics/idempotency-ledger.ts";
import { createClock } from "../../src/clock.ts";
import { definePlugin, type Plugin } from "../../src/plugins/plugin.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { answer, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { until } from "../helpers/until.ts";

let opened: { bed?: TestBed; model?: ModelServer; sandbox?: Sandbox } = {};
afterEach(async () => {
  await opened.bed?.close();
  await opened.model?.close();
  await opened.sandbox?.close();
  opened = {};
});

const HOUR = 3_600_000;

/**
 * The `helpdesk` bot on a sandbox and a model server sharing a frozen clock: llm-reply on its
 * mentions, then `after` (default: like on what its stream rule delivers), with this `budget.llm`.
 */
async function start(o: { llm?: Record<string, unknown>; after?: Plugin } = {}) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  const sandbox = (opened.sandbox = await createSandbox({ clock }));
  const model = (opened.model = await startModelServer({ clock }));
  const after = o.after ?? like;
  const bed = (opened.bed = await createTestBed({
    sandbox,
    bots: [
      {
        name: "helpdesk",
        plan: "pro",
        triggers: { mentions: {}, stream: [{ value: "#bikes -is:repost", tag: "bikes" }] },
        reply_cooldown: "0s",
        ...(o.llm ? { budget: { llm: o.llm } } : {}),
        plugins: { "llm-reply": { url: model.url, model: "llama3.2" }, [after.name]: {} },
      },
    ],
    plugins: { "llm-reply": llmReply, [after.name]: after },
  }));
  const id = bed.runtime.bots.get("helpdesk")!.identity.userId;
  const liked = () => bed.sandbox.context.data.world.likes.filter((l) => l.user_id === id).map((l) => l.post_id);
  const replies = () => bed.postsBy("helpdesk").map((p) => p.text);
  return { bed, model, liked, replies };
}

describe("llm-reply: a spent model budget holds back only the reply", () => {
  for (const [spent, llm] of [
    ["requests", { requests: 1, per: "1h" }],
    ["tokens", { tokens: 50, per: "1h" }],
  ] as const) {
    it(`${spent} spent: a like goes out at once while the reply waits for the model's window; the reply goes when it refills`, async () => {
      const { bed, model, liked, replies } = await start({ llm });
      model.chat.queue(
        answer.chat("First answer.", { prompt_tokens: 40, completion_tokens: 20 }),
        answer.chat("Second answer, an hour later.", { prompt_tokens: 40, completion_tokens: 20 }),
      );
      const alice = await bed.user("alice");
      await bed.post(alice, "@helpdesk first question");
      await until("the first reply", () => replies().length === 1);
      const second = await bed.post(alice, "@helpdesk second question");
      // The second reply is asked for (in the ledger, its text still to be written) and waits
      // for the model's window: the model is not asked, nothing is posted.
      await until("the second reply asked for", () =>
        bed.store
          .entries<LedgerEntry>("ledger")
          .some(([key, e]) => key.endsWith(`:reply:${second.id}`) && e.state === "queued"),
      );
      const bikes = await bed.post(alice, "new #bikes in the shop");
      // No clock moves: the like goes out while the reply waits.
      await until("the like sent while the reply waits", () => liked().includes(bikes.id));
      expect(model.chat.requests).toHaveLength(1);
      expect(replies()).toEqual(["First answer."]);

      await bed.advance(HOUR - 1_000);
      expect(model.chat.requests).toHaveLength(1);
      await bed.advance(1_000);
      await until("the reply sent once the window refilled", () => replies().length === 2);
      expect(model.chat.requests).toHaveLength(2);
      expect(replies()).toEqual(["First answer.", "Second answer, an hour later."]);
    });
  }
});

describe("llm-reply: stopping while a reply waits for the model's budget", () => {
  it("the stop does not wait for the window: the reply ends deferred, kept in the ledger for the next start, the model not asked", async () => {
    const { bed, model, replies } = await start({ llm: { requests: 1, per: "1h" } });
    model.chat.queue(answer.chat("First answer."));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk first question");
    await until("the first reply", () => replies().length === 1);
    const second = await bed.post(alice, "@helpdesk second question");
    const entry = () =>
      bed.store.entries<LedgerEntry>("ledger").find(([key]) => key.endsWith(`:reply:${second.id}`))?.[1];
    await until("the second reply waits for the model's window", () => entry()?.state === "queued");
    // The clock stays frozen: a stop that waited for the window, or for its drain time, would never end.
    await bed.stop();
    expect(model.chat.requests).toHaveLength(1);
    expect(replies()).toEqual(["First answer."]);
    // Deferred: still in the ledger as asked for, its text unwritten, for the next start to write.
    expect(entry()?.state).toBe("queued");
    expect(entry()!.action!.body).not.toHaveProperty("text");
  });
});

describe("llm-reply: the plugins after it on the same event do not wait for the model", () => {
  it("llm-reply then a plugin liking the mention: the like goes out before the model answers; the mention stays in the inbox until the reply is posted", async () => {
    const fan = definePlugin({
      name: "fan",
      setup(bot) {
        bot.on("mention", async (ctx) => {
          await ctx.like();
        });
      },
    });
    const { bed, model, liked, replies } = await start({ after: fan });
    const inInbox = (post: string) => bed.store.get("inbox:helpdesk", `mention:${post}`) !== undefined;
    model.chat.queue(answer.delayed(30_000, answer.chat("A slow answer.")));

    const alice = await bed.user("alice");
    const mention = await bed.post(alice, "@helpdesk do you fix brakes?");
    await model.whenPending(1);
    // The model thinks (its answer is 30 s away on the frozen clock): the like is not held back.
    await until("the like sent while the model thinks", () => liked().includes(mention.id));
    expect(replies()).toEqual([]);
    // The event ends with the reply: a crash now would handle the mention again.
    expect(inInbox(mention.id)).toBe(true);

    await bed.advance(30_000);
    await until("the reply posted once the model answered", () => replies().length === 1);
    expect(replies()).toEqual(["A slow answer."]);
    expect(model.chat.requests).toHaveLength(1);
    await until("the mention gone from the inbox once its reply is done", () => !inInbox(mention.id));
  });
});
