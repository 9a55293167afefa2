/**
 * One request to a language model in OpenAI's chat format (`POST /v1/chat/completions`),
 * which Ollama, llama.cpp's server, vLLM and the sandbox's stand-in all serve, and every way
 * it can fail as a {@link ModelError}: a reason a metric and the retry can sort
 * (`timeout`, `unreachable`, `rate-limited` with the server's wait, `server-error`,
 * `refused`, `bad-answer`) and a message a log can print (the server's own words, never the
 * key). The HTTP part is the moderation judge's (`postJson`): one client for model servers.
 */
import type { Clock } from "../clock.ts";
import { endpointUrl } from "../moderation/judge/clients.ts";
import { JudgeError, postJson, type JudgeFailure } from "../moderation/judge/request.ts";

/** Why a model gave no answer. */
export type ModelFailure = JudgeFailure;

/** A model that gave no answer: why, in words, and for a 429 how long the server asked to wait. */
export class ModelError extends Error {
  override name = "ModelError";
  constructor(
    readonly reason: ModelFailure,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** One message of a chat: the system's instructions, a person's words, or the bot's own. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What the model answered. */
export interface ChatAnswer {
  text: string;
  /** `stop`, or `length` when `max_tokens` cut it short. */
  finishReason: string;
  /** Tokens of the prompt and of the answer, from the answer's `usage` (estimated when the server sends none). */
  usage: { prompt: number; completion: number };
}

/** Where the model is and what to ask it. */
export interface ChatTarget {
  /** The server's base URL (`http://127.0.0.1:11434`); `/v1/chat/completions` is added. */
  url: string;
  key?: string | undefined;
  model: string;
}

/** The URL requests to the model server at `url` (its base URL) go to. */
export const chatEndpoint = (url: string): string => endpointUrl(url, "/v1/chat/completions");

/** How long one request may take before it counts as a `timeout`. */
export const CHAT_TIMEOUT_MS = 60_000;

/** Tokens as estimated when a server sends no `usage`: about four characters each. */
const estimateTokens = (text: string) => Math.ceil(text.length / 4);

const count = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;

/**
 * Asks the model once. Gives up after {@link CHAT_TIMEOUT_MS} on `clock` (or when `signal`
 * aborts). Throws {@link ModelError}.
 */
export async function chatCompletion(
  target: ChatTarget,
  request: { messages: readonly ChatMessage[]; maxTokens: number },
  clock: Clock,
  signal: AbortSignal,
  timeoutMs = CHAT_TIMEOUT_MS,
): Promise<ChatAnswer> {
  // One controller aborted by the timeout or by `signal`: `AbortSignal.any` would do the same
  // at several times the cost (Node 20 keeps a weak reference per call on `signal`, which
  // lives as long as the bot).
  const both = new AbortController();
  const cancel = clock.setTimeout(() => both.abort(), timeoutMs);
  const stop = () => both.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  let body: unknown;
  try {
    body = await postJson({
      url: chatEndpoint(target.url),
      ...(target.key ? { key: target.key } : {}),
      body: { model: target.model, messages: request.messages, max_tokens: request.maxTokens, stream: false },
      signal: both.signal,
      now: clock.now(),
    });
  } catch (err) {
    if (err instanceof JudgeError) {
      const message = err.reason === "timeout" ? `no answer within ${Math.round(timeoutMs / 1000)} s` : err.message;
      throw new ModelError(err.reason, message, err.retryAfterMs);
    }
    throw err;
  } finally {
    cancel();
    signal.removeEventListener("abort", stop);
  }
  const choice = (body as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> })
    ?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== "string") throw new ModelError("bad-answer", "answered no message content");
  const usage = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
  const prompt = count(usage?.prompt_tokens) ?? estimateTokens(request.messages.map((m) => m.content).join("\n"));
  const completion = count(usage?.completion_tokens) ?? estimateTokens(content);
  return {
    text: content,
    finishReason: typeof choice?.finish_reason === "string" ? choice.finish_reason : "stop",
    usage: { prompt, completion },
  };
}
