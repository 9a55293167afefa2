/**
 * `POST /v1/chat/completions`: a small, clearly labelled stand-in for a language model, so
 * the demo's `llm-reply` bot works with nothing but Node. It is not part of the service: it
 * takes no OAuth, counts against no plan, limit or cap (only `GET /_sandbox/stats` counts its
 * calls), and answers in OpenAI's documented format, which Ollama, llama.cpp's server and
 * vLLM serve too, so a bot pointed at the stand-in can be pointed at a real model unchanged.
 *
 * Request: `{model, messages: [{role, content}], max_tokens?, max_completion_tokens?,
 * stream?: false}` (other fields, such as `temperature`, are accepted and ignored). Answer:
 * `{id, object: "chat.completion", created, model, choices: [{index: 0, message: {role:
 * "assistant", content}, finish_reason: "stop" | "length"}], usage: {prompt_tokens,
 * completion_tokens, total_tokens}}`. The text is deterministic (`chat/compose.ts`: the prompt
 * and the answer's number), tokens are counted by the rule of `chat/tokens.ts`, and
 * `max_tokens` cuts the text.
 *
 * Errors have OpenAI's shape, `{error: {message, type, param, code}}`: 400 for a body that is
 * not JSON or not a chat request (`param` names the field), 401 when the sandbox was given a
 * key (`chatCompletionsKey`) and the request has none or another, 405 for another method,
 * 413 and 408 for a body too large or too slow.
 *
 * The platform routes this path here before the v2 catalog (see `server.ts`).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import type { Clock } from "../../clock.ts";
import { sameSecret } from "../auth/credentials.ts";
import { standInText } from "../chat/compose.ts";
import { countTokens, cutToTokens, promptTokens } from "../chat/tokens.ts";
import { jsonReply, type Reply } from "../http/reply.ts";
import { jsonBody, readBody, type BodyLimits } from "../http/request.ts";
import { ApiProblem } from "../problems.ts";

export const CHAT_COMPLETIONS_PATH = "/v1/chat/completions";

/** What the platform hands over: the request with its body not yet read. */
export interface ChatCompletionsRequest {
  req: IncomingMessage;
  clock: Clock;
  limits: BodyLimits;
  /** The key callers must send as `Authorization: Bearer KEY`; without one, any or none is accepted. */
  key?: string;
  /** Numbers an answer (the sandbox's count of them, kept with its state): none repeats an earlier one. */
  nextAnswer?(): number;
}

/** OpenAI's error body. */
export function openAiError(
  status: number,
  message: string,
  o: { type?: string; param?: string | null; code?: string | null; headers?: Record<string, string> } = {},
): Reply {
  return jsonReply(
    status,
    { error: { message, type: o.type ?? "invalid_request_error", param: o.param ?? null, code: o.code ?? null } },
    o.headers,
  );
}

const textPart = z.object({ type: z.literal("text"), text: z.string() });
const message = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(textPart), z.null()]),
});
const chatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stream: z.boolean().nullish(),
});
type ChatMessage = z.infer<typeof message>;

/** A zod path as OpenAI names params: `messages[0].role`. */
const paramName = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");

const textOf = (m: ChatMessage) =>
  typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text).join("\n");

/** Answers one request to the stand-in: the caller may ask, the body is a chat request, then the answer. */
export async function chatCompletions(r: ChatCompletionsRequest): Promise<Reply> {
  const refused = refusal(r);
  if (refused) return refused;
  const input = await chatRequestOf(r);
  if (!("messages" in input)) return input;
  return completion(input, r);
}

/** OpenAI's answer to a request that may not ask at all: another method, or a missing or wrong key. */
function refusal(r: ChatCompletionsRequest): Reply | undefined {
  if (r.req.method !== "POST") {
    return openAiError(405, `${r.req.method} is not allowed on ${CHAT_COMPLETIONS_PATH}; send POST with a JSON body.`, {
      headers: { allow: "POST" },
    });
  }
  if (r.key === undefined) return undefined;
  const given = /^Bearer\s+(\S+)\s*$/i.exec(r.req.headers.authorization ?? "")?.[1];
  if (!given)
    return openAiError(
      401,
      "You didn't provide an API key. Send it as Authorization: Bearer KEY (the key the sandbox was started with).",
    );
  if (!sameSecret(given, r.key))
    return openAiError(401, "Incorrect API key provided. Use the key the sandbox was started with.", {
      code: "invalid_api_key",
    });
  return undefined;
}

type ChatRequest = z.infer<typeof chatRequest>;

/** The request's body as a chat request, or OpenAI's 400 (or the body's 413/408) naming what is wrong. */
async function chatRequestOf(r: ChatCompletionsRequest): Promise<ChatRequest | Reply> {
  let body: Record<string, unknown> | undefined;
  try {
    body = jsonBody(r.req, await readBody(r.req, r.limits));
  } catch (err) {
    if (err instanceof ApiProblem) {
      const specific = (err.problem.errors as Array<{ message?: string }> | undefined)?.[0]?.message;
      return openAiError(err.status, specific ?? err.problem.detail ?? err.problem.title);
    }
    throw err;
  }
  if (body === undefined)
    return openAiError(400, "The request has no body; send a JSON object with model and messages.", {
      param: "messages",
      code: "missing_required_parameter",
    });
  const parsed = chatRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = paramName(issue.path);
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    return openAiError(400, missing ? `Missing required parameter: '${param}'.` : `${param}: ${issue.message}`, {
      param,
      code: missing ? "missing_required_parameter" : "invalid_value",
    });
  }
  if (parsed.data.stream)
    return openAiError(
      400,
      "stream: true is not supported by the sandbox stand-in; send stream: false or leave it out.",
      {
        param: "stream",
        code: "unsupported_value",
      },
    );
  return parsed.data;
}

/** The stand-in's answer to a well-formed request, in OpenAI's `chat.completion` shape. */
function completion(input: ChatRequest, r: ChatCompletionsRequest): Reply {
  const texts = input.messages.map(textOf);
  const lastUser = input.messages.findLast((m) => m.role === "user");
  const full = standInText(lastUser ? textOf(lastUser) : "", r.nextAnswer?.());
  const max = input.max_completion_tokens ?? input.max_tokens ?? undefined;
  const { text, cut } = max === undefined ? { text: full, cut: false } : cutToTokens(full, max);
  const created = Math.floor(r.clock.now() / 1000);
  const prompt = promptTokens(texts);
  const completion = countTokens(text);
  const id = createHash("sha256")
    .update(`${created}\n${JSON.stringify(input.messages)}`)
    .digest("hex")
    .slice(0, 24);
  return jsonReply(
    200,
    {
      id: `chatcmpl-standin-${id}`,
      object: "chat.completion",
      created,
      model: input.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text },
          logprobs: null,
          finish_reason: cut ? "length" : "stop",
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    },
    { "x-sandbox-stand-in": "chat-completions" },
  );
}
