/**
 * A reply waiting for its model server's request slot (src/llm/request-slots.ts, the writer's
 * wait in src/llm/writer.ts): one whose time-to-live passes while it waits is never asked for
 * (the model does no work for a text that could only be dropped), its outcome says why, and
 * the server's slots are not kept once nothing holds or waits for them. The sandbox in-process
 * and the loopback model server on one frozen clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../../src/actions/action.ts";
import { createClock } from "../../src/clock.ts";
import { chatEndpoint } from "../../src/llm/chat.ts";
import { keptModelServers, modelSlotUse } from "../../src/llm/request-slots.ts";
import { replyWriter } from "../../src/llm/writer.ts";
import { createClassifier } from "../../src/moderation/index.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
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

/**
 * The `helpdesk` bot answering each mention with a model's reply through `replyWriter`
 * (`parallel: 1`); a reply lives 30 s, or 2 min when the mention says `long-lived` (a
 * reply's default is a day). Its outcomes in `outcomes`.
 */
async function start() {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  const sandbox = (opened.sandbox = await createSandbox({ clock }));
  const model = (opened.model = await startModelServer({ clock }));
  const outcomes: Outcome[] = [];
  const classifier = createClassifier();
  const writerBot = definePlugin({
    name: "short-lived-replies",
    setup(bot) {
      const options = {
        bot: bot.name,
        target: { url: model.url, model: "llama3.2" },
        maxTokens: 60,
        clock: bot.clock,
        log: bot.log,
        classifier,
        parallel: 1,
      };
      bot.on("mention", (ctx) =>
        ctx.meanwhile(
          (async () => {
            const outcome = await ctx.replyWith(
              (signal, recorded, expiresAt) =>
                replyWriter(options, {
                  messages: [{ role: "user", content: ctx.post.text }],
                  answered: ctx.author.username,
                })(signal, recorded, expiresAt),
              { ttlMs: ctx.post.text.includes("long-lived") ? 120_000 : 30_000 },
            );
            outcomes.push(outcome);
          })(),
        ),
      );
    },
  });
  const bed = (opened.bed = await createTestBed({
    sandbox,
    bots: [
      {
        name: "helpdesk",
        plan: "pro",
        triggers: { mentions: {} },
        reply_cooldown: "0s",
        plugins: { "short-lived-replies": {} },
      },
    ],
    plugins: { "short-lived-replies": writerBot },
  }));
  return { bed, model, outcomes, endpoint: chatEndpoint(model.url) };
}

describe("a reply waiting for its model server's request slot", () => {
  it("is not asked for once its time-to-live passed while it waited; its slot is given back and its outcome says why", async () => {
    const { bed, model, outcomes, endpoint } = await start();
    // The first answer comes 40 s after its request: past the second reply's 30 s, not the first's 2 min.
    model.chat.queue(answer.delayed(40_000, answer.chat("The first answer.")), answer.chat("The second answer."));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk first? (long-lived)");
    await model.whenPending(1);
    await bed.post(alice, "@helpdesk second?");
    await until("the second reply waits for the slot", () => modelSlotUse("helpdesk")[0]?.waiting === 1);
    expect(modelSlotUse("helpdesk")).toEqual([{ server: model.url, inFlight: 1, waiting: 1 }]);

    await bed.advance(40_000);
    await until("both replies ended", () => outcomes.length === 2);
    await bed.settle();

    expect(model.chat.requests).toHaveLength(1);
    expect(bed.postsBy("helpdesk").map((p) => p.text)).toEqual(["The first answer."]);
    // The second is dropped once the first's answer is recorded (its slot then free), as the first is sent.
    expect(outcomes.map((o) => o.status).sort()).toEqual(["dropped", "sent"]);
    expect((outcomes.find((o) => o.status === "dropped") as { reason: string }).reason).toMatch(
      new RegExp(
        `^waited past its time-to-live \\(2026-03-02T12:00:3\\d\\.\\d{3}Z\\) for the model at ${model.url}; the model was not asked$`,
      ),
    );
    // Nothing holds or waits for the server's slots any more: the process keeps none for it.
    expect(modelSlotUse("helpdesk")).toEqual([]);
    expect(keptModelServers()).not.toContain(endpoint);
  });
});
