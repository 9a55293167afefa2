/**
 * The sandbox's chat-completions stand-in (issue 27 item 6): OpenAI's request and answer
 * format, a deterministic labelled text built from the prompt, tokens counted by the
 * documented rule, `max_tokens` honoured, errors in OpenAI's shape, an optional key, and
 * nothing counted against the service's plans.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPENERS, standInText } from "../../src/sandbox/chat/compose.ts";
import { countTokens, cutToTokens, promptTokens } from "../../src/sandbox/chat/tokens.ts";
import { startSandbox, T0, type TestSandbox } from "../helpers/sandbox.ts";

let t: TestSandbox;
let keyed: TestSandbox;
const KEY = "sk-sandbox-test-key";

beforeAll(async () => {
  t = await startSandbox({ plan: "free", maxBodyBytes: 4096 });
  keyed = await startSandbox({ chatCompletionsKey: KEY });
});
afterAll(async () => {
  await t.close();
  await keyed.close();
});

const chat = (body: unknown, headers: Record<string, string> = {}, on = t) =>
  on.raw("POST", "/v1/chat/completions", { json: body, headers });

const ask = (text: string, extra: Record<string, unknown> = {}) =>
  chat({
    model: "llama3.2",
    messages: [
      { role: "system", content: "You are the help desk of a bike shop. Be brief and kind." },
      { role: "user", content: text },
    ],
    ...extra,
  });

/** The sandbox's number of a stand-in answer (`(sandbox stand-in, reply 12) ...`). */
const answerNumber = (text: string) => Number(/^\(sandbox stand-in, reply (\d+)\) /.exec(text)?.[1]);

describe("the chat-completions stand-in", () => {
  it("answers in OpenAI's format, with a labelled text built from the last user message", async () => {
    const res = await ask("@shop my front brakes squeak, see https://x.example/a #bikes");
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("x-sandbox-stand-in")).toBe("chat-completions");
    expect(res.body).toEqual({
      id: expect.stringMatching(/^chatcmpl-standin-[0-9a-f]{24}$/),
      object: "chat.completion",
      created: T0 / 1000,
      model: "llama3.2",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: expect.any(String) },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      },
    });
    const content: string = res.body.choices[0].message.content;
    expect(content).toMatch(
      /^\(sandbox stand-in, reply \d+\) [^"]+ You wrote about "front brakes squeak see"\. A language model would answer here\.$/,
    );
    expect(OPENERS.some((o) => content.includes(o))).toBe(true);
    // No mention, hashtag or link of the user's is echoed.
    expect(content).not.toMatch(/@|#|https?:/);
  });

  it("is deterministic: the same prompt gives the same words, each answer numbered so none repeats; openers vary with the message", async () => {
    const a: string = (await ask("where is my order?")).body.choices[0].message.content;
    const b: string = (await ask("where is my order?")).body.choices[0].message.content;
    const n = answerNumber(a);
    expect(a).toBe(standInText("where is my order?", n));
    expect(b).toBe(standInText("where is my order?", n + 1));
    const openers = new Set<string>();
    for (const word of ["bell", "chain", "saddle", "pedal", "tyre", "spoke", "lamp", "lock", "frame", "gear"])
      openers.add(standInText(`a question about the ${word}`).split(/(?<=[.!]) /)[0]!);
    expect(openers.size).toBeGreaterThan(2);
    expect(standInText("")).toMatch(/^\(sandbox stand-in\) .+ A language model would answer here\.$/);
  });

  it("counts tokens by the documented rule: word runs and single other characters; 3 per message, 3 to prime", async () => {
    expect(countTokens("Hello, world!")).toBe(4);
    expect(countTokens("  naïve café — 42 ")).toBe(4);
    expect(countTokens("")).toBe(0);
    expect(promptTokens(["Hello, world!", "Hi"])).toBe(4 + 3 + 1 + 3 + 3);

    const res = await chat({
      model: "m",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Hello, world!" }] },
      ],
    });
    const content: string = res.body.choices[0].message.content;
    expect(res.body.usage).toEqual({
      prompt_tokens: 3 + 3 + 4 + 3 + 3,
      completion_tokens: countTokens(content),
      total_tokens: 16 + countTokens(content),
    });
    expect(content).toContain(`You wrote about "Hello world"`);
  });

  it("honours max_tokens (and max_completion_tokens): the text is cut there, finish_reason length", async () => {
    const prompt = "tell me about tubeless tyres";
    const full: string = (await ask(prompt)).body.choices[0].message.content;
    let n = answerNumber(full);
    for (const field of ["max_tokens", "max_completion_tokens"]) {
      const res = await ask(prompt, { [field]: 9 });
      expect(res.status, res.text).toBe(200);
      const content: string = res.body.choices[0].message.content;
      expect(res.body.choices[0].finish_reason).toBe("length");
      expect(res.body.usage.completion_tokens).toBe(9);
      expect(countTokens(content)).toBe(9);
      // The label and the answer's number come first: a cut keeps them.
      expect(content).toBe(`(sandbox stand-in, reply ${++n})`);
      expect(standInText(prompt, n).startsWith(content)).toBe(true);
    }
    const roomy = await ask(prompt, { max_tokens: 500 });
    expect(roomy.body.choices[0].finish_reason).toBe("stop");
    expect(roomy.body.choices[0].message.content).toBe(standInText(prompt, ++n));
    // Exactly enough tokens is not a cut.
    const exact = await ask(prompt, { max_tokens: countTokens(full) });
    expect(exact.body.choices[0].finish_reason).toBe("stop");
    expect(cutToTokens("one two three", 2)).toEqual({ text: "one two", cut: true });
  });

  it("ignores fields it does not use (temperature, stream: false, an assistant turn without text)", async () => {
    const res = await chat({
      model: "m",
      temperature: 0.2,
      stream: false,
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: null },
        { role: "user", content: "second question" },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.choices[0].message.content).toContain(`"second question"`);
  });
});

describe("the stand-in's errors, in OpenAI's shape", () => {
  const error = (message: RegExp | string, param: string | null, code: string | null) => ({
    error: {
      message: typeof message === "string" ? message : expect.stringMatching(message),
      type: "invalid_request_error",
      param,
      code,
    },
  });

  it("400 for a body that is not JSON, not an object, or not a chat request, naming the field", async () => {
    const notJson = await t.raw("POST", "/v1/chat/completions", {
      raw: "{oops",
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual(error(/not valid JSON/, null, null));
    expect((await chat([1, 2])).body).toEqual(error(/must be a JSON object/, null, null));
    const empty = await t.raw("POST", "/v1/chat/completions");
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("missing_required_parameter");

    expect((await chat({ model: "m" })).body).toEqual(
      error("Missing required parameter: 'messages'.", "messages", "missing_required_parameter"),
    );
    expect((await chat({ messages: [{ role: "user", content: "hi" }] })).body).toEqual(
      error("Missing required parameter: 'model'.", "model", "missing_required_parameter"),
    );
    const role = await chat({ model: "m", messages: [{ role: "robot", content: "hi" }] });
    expect(role.status).toBe(400);
    expect(role.body).toEqual(error(/^messages\[0\]\.role: /, "messages[0].role", "invalid_value"));
    expect((await ask("hi", { max_tokens: 0 })).body.error.param).toBe("max_tokens");
    expect((await chat({ model: "m", messages: [] })).body.error.param).toBe("messages");
    const stream = await ask("hi", { stream: true });
    expect(stream.status).toBe(400);
    expect(stream.body).toEqual(error(/stream: true is not supported/, "stream", "unsupported_value"));
  });

  it("405 for another method, 413 for a body over the sandbox's cap", async () => {
    const get = await t.raw("GET", "/v1/chat/completions");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(get.body.error.message).toContain("send POST");
    const big = await ask("x".repeat(5000));
    expect(big.status).toBe(413);
    expect(big.body.error.type).toBe("invalid_request_error");
  });

  it("with a key configured: 401 without one, 401 invalid_api_key with another, 200 with it", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }] };
    const none = await chat(body, {}, keyed);
    expect(none.status).toBe(401);
    expect(none.body).toEqual(error(/^You didn't provide an API key/, null, null));
    const wrong = await chat(body, { authorization: "Bearer sk-other" }, keyed);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(error(/^Incorrect API key provided/, null, "invalid_api_key"));
    expect(wrong.text).not.toContain("sk-other");
    expect((await chat(body, { authorization: `Bearer ${KEY}` }, keyed)).status).toBe(200);
    // Without a key configured, any key (or none) is accepted.
    expect((await chat(body, { authorization: "Bearer anything" })).status).toBe(200);
  });
});

describe("the stand-in and the service's plans", () => {
  it("counts against no limit: no rate-limit headers, the v2 windows untouched; the stats count its calls", async () => {
    const alice = await t.account({ username: "alice" });
    const before = await t.signed(alice, "GET", "/2/users/me");
    expect(before.status).toBe(200);
    const remaining = Number(before.headers.get("x-rate-limit-remaining"));
    const statsBefore = (await t.admin.stats()).routes["POST /v1/chat/completions"]?.["200"] ?? 0;
    for (let i = 0; i < 30; i++) {
      const res = await ask(`question ${i}`);
      expect(res.status).toBe(200);
      expect([...res.headers.keys()].filter((h) => h.startsWith("x-rate-limit"))).toEqual([]);
    }
    const after = await t.signed(alice, "GET", "/2/users/me");
    expect(Number(after.headers.get("x-rate-limit-remaining"))).toBe(remaining - 1);
    expect((await t.admin.stats()).routes["POST /v1/chat/completions"]?.["200"]).toBe(statsBefore + 30);
  });
});
