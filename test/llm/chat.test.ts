/**
 * One request to the model (src/llm/chat.ts) and the signal it is given: the bot's, which
 * lives as long as the bot. A request that ends leaves nothing on it; a bot that stops while
 * the model has not answered ends the request at once; a signal aborted before the request
 * sends nothing. The loopback model server on a frozen clock.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { createClock } from "../../src/clock.ts";
import { chatCompletion, ModelError } from "../../src/llm/chat.ts";
import { answer, startModelServer, type ModelServer } from "../helpers/model-server.ts";

let model: ModelServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const messages = [{ role: "user" as const, content: "when do you open?" }];

async function setUp() {
  const clock = createClock({ frozen: true, start: Date.parse("2026-03-02T12:00:00Z") });
  model = await startModelServer({ clock });
  return { clock, model, target: { url: model.url, model: "llama3.2" } };
}

describe("chatCompletion and the bot's signal", () => {
  it("leaves no listener on the bot's signal, answered or failed", async () => {
    const { clock, model, target } = await setUp();
    const bot = new AbortController();
    model.chat.queue(answer.chat("We open at nine."), answer.error(500), answer.chat("At nine."));
    const first = await chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal);
    expect(first.text).toBe("We open at nine.");
    await expect(chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal)).rejects.toMatchObject({
      reason: "server-error",
    });
    expect((await chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal)).text).toBe("At nine.");
    expect(getEventListeners(bot.signal, "abort")).toHaveLength(0);
  });

  it("a bot that stops while the model has not answered ends the request at once", async () => {
    const { clock, model, target } = await setUp();
    const bot = new AbortController();
    model.chat.queue(answer.hang());
    const asked = chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal);
    await model.whenPending(1);
    bot.abort(new Error("the bot stops"));
    const error = await asked.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(bot.signal.aborted).toBe(true);
    expect(getEventListeners(bot.signal, "abort")).toHaveLength(0);
  });

  it("a signal aborted before the request sends nothing", async () => {
    const { clock, model, target } = await setUp();
    const bot = new AbortController();
    bot.abort(new Error("stopped"));
    await expect(chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal)).rejects.toBeInstanceOf(
      ModelError,
    );
    expect(model.chat.requests).toHaveLength(0);
  });

  it("the timeout runs on the clock, and the bot's signal is left as it was", async () => {
    const { clock, model, target } = await setUp();
    const bot = new AbortController();
    model.chat.queue(answer.hang());
    const asked = chatCompletion(target, { messages, maxTokens: 50 }, clock, bot.signal, 5_000).catch(
      (e: unknown) => e,
    );
    await model.whenPending(1);
    await clock.advance(5_000);
    const error = await asked;
    expect(error).toMatchObject({ reason: "timeout", message: "no answer within 5 s" });
    expect(bot.signal.aborted).toBe(false);
    expect(getEventListeners(bot.signal, "abort")).toHaveLength(0);
  });
});
