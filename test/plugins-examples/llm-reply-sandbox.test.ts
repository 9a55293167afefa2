/**
 * `llm-reply`'s `url: sandbox`: the bot writes with the chat-completions stand-in of the
 * sandbox it runs against, which is how the demo's helpdesk bot (bots/helpdesk.yaml, `url:
 * ${LLM_URL:-sandbox}`) answers with nothing but Node; and `${LLM_URL}` set points the same
 * file at a real model server.
 */
import { afterEach, describe, expect, it } from "vitest";
import llmReply, { llmReplyOptions } from "../../plugins/llm-reply.ts";
import { createClock } from "../../src/clock.ts";
import { savedModelBudget } from "../../src/llm/index.ts";
import { standInText } from "../../src/sandbox/chat/compose.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";
import { answer, startModelServer, type ModelServer } from "../helpers/model-server.ts";

let opened: { bed?: TestBed; model?: ModelServer; sandbox?: Sandbox } = {};
afterEach(async () => {
  await opened.bed?.close();
  await opened.model?.close();
  await opened.sandbox?.close();
  opened = {};
});

/** A helpdesk bot whose `llm-reply` url is `url`, on a sandbox and a frozen clock. */
async function helpdesk(url: string) {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  const sandbox = (opened.sandbox = await createSandbox({ clock }));
  const bed = (opened.bed = await createTestBed({
    sandbox,
    bots: [
      {
        name: "helpdesk",
        plan: "pro",
        triggers: { mentions: {} },
        plugins: { "llm-reply": { url, model: "llama3.2", system: "Be brief." } },
        budget: { llm: { tokens: 1000, per: "24h", requests: 5, per_minute: true } },
      },
    ],
    plugins: { "llm-reply": llmReply },
  }));
  return { bed, sandbox, clock };
}

describe("llm-reply with url: sandbox", () => {
  it("answers a mention with the stand-in of the sandbox the bot runs against, labelled, and counts its tokens", async () => {
    const { bed, clock } = await helpdesk("sandbox");
    const alice = await bed.user("alice");
    const mention = await bed.post(alice, "@helpdesk my brakes squeak on wet days");
    // Within the minute of budget.llm's requests window.
    await bed.advance(10_000);
    await bed.settle();
    const replies = bed.postsBy("helpdesk");
    expect(replies.map((p) => [p.in_reply_to_post_id, p.text])).toEqual([
      [mention.id, standInText("@helpdesk my brakes squeak on wet days", 1)],
    ]);
    expect(replies[0]!.text).toMatch(
      /^\(sandbox stand-in, reply 1\) .*"brakes squeak wet days"\. A language model would answer here\.$/,
    );
    // The stand-in answers with usage, which the bot's budget.llm counted.
    const budget = savedModelBudget(bed.store, "helpdesk", clock.now())!;
    expect(budget.requests).toMatchObject({ used: 1, limit: 5 });
    expect(budget.tokens!.used).toBeGreaterThan(0);
  });

  it("the same bot file pointed at a model server (LLM_URL set) asks that server instead", async () => {
    const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
    const model = (opened.model = await startModelServer({ clock }));
    model.chat.queue(answer.chat("Try a little oil on the pads' holders."));
    const sandbox = (opened.sandbox = await createSandbox({ clock }));
    const bed = (opened.bed = await createTestBed({
      sandbox,
      bots: [
        {
          name: "helpdesk",
          plan: "pro",
          triggers: { mentions: {} },
          plugins: { "llm-reply": { url: model.url, model: "llama3.2" } },
        },
      ],
      plugins: { "llm-reply": llmReply },
    }));
    const alice = await bed.user("alice");
    await bed.post(alice, "@helpdesk my brakes squeak");
    await bed.advance(60_000);
    await bed.settle();
    expect(bed.postsBy("helpdesk").map((p) => p.text)).toEqual(["Try a little oil on the pads' holders."]);
    expect(model.chat.requests).toHaveLength(1);
  });

  it("takes sandbox or an http(s) URL, and says what to write otherwise", () => {
    expect(llmReplyOptions.safeParse({ url: "sandbox", model: "m" }).success).toBe(true);
    expect(llmReplyOptions.safeParse({ url: "http://127.0.0.1:11434", model: "m" }).success).toBe(true);
    const bad = llmReplyOptions.safeParse({ url: "localhost:11434", model: "m" });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toBe(
      `"localhost:11434" is not an http(s) URL; give the server's base URL, such as http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080 (llama.cpp), or sandbox for the sandbox's stand-in`,
    );
  });
});
