/**
 * A reply waiting for its model server's request slot (src/llm/request-slots.ts, the writer's
 * wait in src/llm/writer.ts): one whose time-to-live passes while it waits is never asked for
 * (the model does no work for a text that could only be dropped), its outcome says why, and
 * the server's slots are not kept once nothing holds or waits for them; while replies wait,
 * `/metrics` and `bot status` say how many, and how many requests are in flight. The sandbox
 * in-process and the loopback model server on one frozen clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../../src/actions/action.ts";
import { createClock } from "../../src/clock.ts";
import { collectStatus, formatStatus } from "../../src/hosting/status-report.ts";
import { chatEndpoint } from "../../src/llm/chat.ts";
import { keptModelServers, modelSlotUse } from "../../src/llm/request-slots.ts";
import { replyWriter } from "../../src/llm/writer.ts";
import { createClassifier } from "../../src/moderation/index.ts";
import { createMetrics } from "../../src/observe/metrics.ts";
import { runtimeSource } from "../../src/observe/source.ts";
import { definePlugin } from "../../src/plugins/plugin.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { answer, createHold, startModelServer, type ModelServer } from "../helpers/model-server.ts";
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
            const outcome = await ctx.reply(
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

  it("is shown while it waits: /metrics and bot status say how many wait, and how many requests are in flight", async () => {
    const { bed, model, outcomes } = await start();
    const gate = createHold();
    model.chat.queue(answer.held(gate, answer.chat("One.")), answer.chat("Two."), answer.chat("Three."));
    const alice = await bed.user("alice");
    for (const n of ["one", "two", "three"]) await bed.post(alice, `@helpdesk ${n}? (long-lived)`);
    await until("two replies wait for the slot", () => modelSlotUse("helpdesk")[0]?.waiting === 2);

    const metrics = createMetrics({ source: () => runtimeSource(bed.runtime, bed.clock, bed.store) });
    const modelLine = () =>
      formatStatus(collectStatus(bed.store, bed.clock), bed.clock.now())
        .split("\n")
        .find((line) => line.startsWith("  model "));
    try {
      const labels = `{bot="helpdesk",server="${model.url}"}`;
      const scraped = (await metrics.scrape()).body;
      expect(scraped).toContain(`postbot_llm_requests_in_flight${labels} 1`);
      expect(scraped).toContain(`postbot_llm_slot_waiting${labels} 2`);
      // bot status reads what the last status round saved (every 15 s on the runtime's clock).
      await bed.advance(15_000);
      expect(await until("bot status shows the wait", modelLine)).toBe(
        `  model      1 request in flight to ${model.url}, 2 replies waiting for a request slot (llm-reply's parallel)`,
      );
    } finally {
      gate.release();
    }
    await until("the three replies ended", () => outcomes.length === 3);
    await bed.settle();
    expect(outcomes.map((o) => o.status)).toEqual(["sent", "sent", "sent"]);
    // None in flight or waiting: the bot is left out, and its status says nothing of the model.
    const after = (await metrics.scrape()).body;
    expect(after).not.toContain("postbot_llm_requests_in_flight{");
    expect(after).not.toContain("postbot_llm_slot_waiting{");
    await bed.advance(15_000);
    await until("bot status no longer shows it", () => modelLine() === undefined);
  });
});
