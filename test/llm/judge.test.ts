/**
 * The model's text goes through the bot's moderation judge (issue 27 item 5): a bot whose
 * `moderate` options configure a judge has every text `llm-reply` writes judged too, after the
 * classifier; a text the judge flags is not posted, and the log and
 * `postbot_llm_refused_total{by="judge"}` say so; a judge that does not answer within its
 * timeout leaves the classifier's verdict standing, as it does for the replies `moderate`
 * judges. The sandbox in-process and the loopback model server (the model on its chat route,
 * the judge on its moderations route), on one frozen clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import llmReply from "../../plugins/llm-reply.ts";
import moderate from "../../plugins/moderate.ts";
import { createClock } from "../../src/clock.ts";
import { createMetrics } from "../../src/observe/metrics.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { captureLogs } from "../helpers/log.ts";
import { answer, moderate as scored, startModelServer, type ModelServer } from "../helpers/model-server.ts";
import { until } from "../helpers/until.ts";

let opened: { bed?: TestBed; model?: ModelServer; sandbox?: Sandbox } = {};
afterEach(async () => {
  await opened.bed?.close();
  await opened.model?.close();
  await opened.sandbox?.close();
  opened = {};
});

/** What the judge flags: a text naming where someone works (a doxxing the classifier does not see). */
const DOXXING = "She works at the vets on Park Road, early shifts.";

/**
 * The `helpdesk` bot answering mentions with `llm-reply`; `moderate` (listed first or last, with
 * these options) configures a judge of kind openai-moderation on the same model server.
 */
async function start(o: { judge?: Record<string, unknown> | false; moderateFirst?: boolean } = {}) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  const sandbox = (opened.sandbox = await createSandbox({ clock }));
  const model = (opened.model = await startModelServer({ clock }));
  const metrics = createMetrics({ source: () => undefined });
  const { lines, logger } = captureLogs();
  const llm = { "llm-reply": { url: model.url, model: "llama3.2" } };
  const mod =
    o.judge === false
      ? { moderate: {} }
      : { moderate: { judge: { kind: "openai-moderation", url: model.url, ...o.judge } } };
  const bed = (opened.bed = await createTestBed({
    logger,
    sandbox,
    bots: [
      {
        name: "helpdesk",
        plan: "pro",
        triggers: { mentions: {} },
        reply_cooldown: "0s",
        plugins: o.moderateFirst ? { ...mod, ...llm } : { ...llm, ...mod },
      },
    ],
    plugins: { "llm-reply": llmReply, moderate },
    runtime: { observer: metrics.observer },
  }));
  const judgeName = `openai-moderation at ${new URL(model.url).host}`;
  return { bed, model, metrics, lines, judgeName };
}

const replyTexts = (bed: TestBed) => bed.postsBy("helpdesk").map((p) => p.text);

describe("llm-reply: the bot's moderation judge checks the model's text", () => {
  it("a text the judge flags is not posted, and the log and postbot_llm_refused_total{by=judge} say so; one it clears is", async () => {
    const { bed, model, metrics, lines, judgeName } = await start();
    model.moderations.respond(scored((text) => (text.includes("vets on Park Road") ? { harassment: 0.9 } : {})));
    model.chat.queue(answer.chat(DOXXING), answer.chat("We open at nine, see you then!"));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk where does the vet nurse work?");
    await until("the first text judged", () => model.moderations.bodies.length === 1);
    await bed.settle();
    await bed.post(alice, "@helpdesk when do you open?");
    await until("the second text judged", () => model.moderations.bodies.length === 2);
    await bed.settle();

    expect(model.moderations.bodies.map((b) => b.texts)).toEqual([[DOXXING], ["We open at nine, see you then!"]]);
    expect(replyTexts(bed)).toEqual(["We open at nine, see you then!"]);
    const refused = lines.find((l) => String(l.msg).startsWith(`judge ${judgeName} refused the model's text`));
    expect(refused, JSON.stringify(lines.map((l) => l.msg))).toMatchObject({
      level: 40,
      judge: judgeName,
      categories: ["harassment"],
    });
    expect(refused!.msg).toBe(`judge ${judgeName} refused the model's text (harassment); not posted`);
    // The reply's own line says why nothing was posted.
    expect(
      lines.some((l) => String(l.msg).includes(`judge ${judgeName} refused the model's text`) && l.level === 30),
    ).toBe(true);
    const { body } = await metrics.scrape();
    expect(body).toContain('postbot_llm_refused_total{bot="helpdesk",by="judge"} 1');
    expect(body).not.toContain('postbot_llm_refused_total{bot="helpdesk",by="classifier"}');
  });

  it("the judge is asked whichever plugin the bot file lists first; a text the classifier refused is not sent to it", async () => {
    const { bed, model } = await start({ moderateFirst: true });
    model.chat.queue(answer.chat("Nobody would miss you, you worthless idiot."), answer.chat("Happy to help."));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk be mean");
    await until("the model asked", () => model.chat.bodies.length === 1);
    await bed.settle();
    await bed.post(alice, "@helpdesk be kind");
    await until("the kind text judged", () => model.moderations.bodies.length === 1);
    await bed.settle();
    expect(model.moderations.bodies.map((b) => b.texts)).toEqual([["Happy to help."]]);
    expect(replyTexts(bed)).toEqual(["Happy to help."]);
  });

  it("without a judge in the bot file, nothing is sent to one", async () => {
    const { bed, model } = await start({ judge: false });
    model.chat.queue(answer.chat(DOXXING));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk where does the vet nurse work?");
    await until("the text posted", () => replyTexts(bed).length === 1);
    expect(model.moderations.requests).toHaveLength(0);
  });

  it("a judge that does not answer within its timeout leaves the classifier's verdict: the text is posted, and the log says it was not judged", async () => {
    const { bed, model, metrics, lines, judgeName } = await start({ judge: { timeout: "2s" } });
    model.moderations.respond(answer.hang());
    model.chat.queue(answer.chat("Our shop opens at nine."));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk hours?");
    await model.whenPending(1);
    await bed.advance(1_999);
    expect(replyTexts(bed)).toEqual([]);
    await bed.advance(1);
    await until("the text posted at the judge's timeout", () => replyTexts(bed).length === 1);
    expect(replyTexts(bed)).toEqual(["Our shop opens at nine."]);
    // As for the replies `moderate` judges: the outage is logged once, each text says it was not judged.
    const outage = lines.filter((l) => String(l.msg).startsWith(`moderation judge ${judgeName} `) && l.level === 40);
    expect(outage).toHaveLength(1);
    expect(lines.find((l) => String(l.msg).includes("gave no opinion of the model's text"))).toMatchObject({
      judge: judgeName,
      reason: "timeout",
      msg: `judge ${judgeName} gave no opinion of the model's text (timeout); the classifier's verdict stands`,
    });
    const { body } = await metrics.scrape();
    expect(body).not.toContain("postbot_llm_refused_total{");
  });
});
