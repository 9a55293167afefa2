/**
 * The two wire formats a judge speaks, each as one function from a reply's text to the
 * judge's {@link JudgeOpinion}:
 *
 * - `openai-moderation`: `POST /v1/moderations` with `{model, input}`, answered with
 *   `{results: [{flagged, categories: {harassment: true, ...}}]}` (OpenAI's
 *   `omni-moderation-latest`, or any server speaking that format). The categories the
 *   server flags are taken as it flags them (its own cut per category).
 * - `chat`: `POST /v1/chat/completions` with the Llama Guard 3 prompt (`llama-guard.ts`)
 *   as the one user message (or, with `prompt: none`, the reply alone, for servers whose
 *   chat template writes that prompt themselves), answered `safe` or `unsafe\nS1,S10`.
 *
 * Either way the categories are mapped onto postbot's kinds (`categories.ts`): a reply is
 * flagged when one of them stands for abuse.
 */
import { kindOfCategory, type JudgeKind } from "./categories.ts";
import { llamaGuardPrompt, parseLlamaGuard } from "./llama-guard.ts";
import { JudgeError, postJson } from "./request.ts";

/** The `judge` of a bot's `moderate` options, as the plugin's schema outputs it. */
export interface JudgeConfig {
  kind: "openai-moderation" | "chat";
  /** The server's base URL (`https://api.openai.com`, `http://127.0.0.1:11434`); `/v1/...` is added. */
  url: string;
  /** The API key (from `${VAR}` in the bot file); absent for a local server without one. */
  key?: string;
  /** The model to ask (`omni-moderation-latest`, `llama-guard3:8b`). */
  model?: string;
  /** `chat` only: `llama-guard` sends the Llama Guard 3 prompt; `none` the reply alone. */
  prompt?: "llama-guard" | "none";
}

/** What a judge said of one reply. */
export interface JudgeOpinion {
  /** Whether a category it named stands for abuse (see `categories.ts`). */
  flagged: boolean;
  /** Every category it named (`S1`, `harassment/threatening`), mapped or not. */
  categories: string[];
  /** The postbot kinds those categories stand for, without repeats. */
  kinds: JudgeKind[];
}

/** Asks one judge about one text; throws {@link JudgeError}. */
export type JudgeCall = (text: string, signal: AbortSignal, now: number) => Promise<JudgeOpinion>;

/** The endpoint of `path` (`/v1/moderations`) on a base URL that may already end with `/v1` or the path. */
export function endpointUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, "");
  if (trimmed.endsWith(path)) return trimmed;
  if (trimmed.endsWith("/v1")) return trimmed + path.slice("/v1".length);
  return trimmed + path;
}

/** An opinion from the categories a judge named. */
export function opinionOf(categories: readonly string[]): JudgeOpinion {
  const kinds = new Set<JudgeKind>();
  for (const c of categories) {
    const kind = kindOfCategory(c);
    if (kind) kinds.add(kind);
  }
  return { flagged: kinds.size > 0, categories: [...categories], kinds: [...kinds] };
}

function bad(message: string): JudgeError {
  return new JudgeError("bad-answer", message);
}

/** `openai-moderation`: see the module comment. */
function moderationCall(config: JudgeConfig): JudgeCall {
  const url = endpointUrl(config.url, "/v1/moderations");
  return async (text, signal, now) => {
    const body = await postJson({
      url,
      ...(config.key ? { key: config.key } : {}),
      body: { ...(config.model ? { model: config.model } : {}), input: text },
      signal,
      now,
    });
    const result = (body as { results?: unknown })?.results;
    if (!Array.isArray(result) || result.length !== 1)
      throw bad(`answered ${Array.isArray(result) ? `${result.length} results` : "no results"} for one input`);
    const categories = (result[0] as { categories?: unknown })?.categories;
    if (!categories || typeof categories !== "object" || Array.isArray(categories))
      throw bad("answered a result without its categories");
    const named = Object.entries(categories as Record<string, unknown>)
      .filter(([, on]) => on === true)
      .map(([c]) => c);
    return opinionOf(named);
  };
}

/** `chat`: see the module comment. */
function chatCall(config: JudgeConfig): JudgeCall {
  const url = endpointUrl(config.url, "/v1/chat/completions");
  const prompt = config.prompt ?? "llama-guard";
  return async (text, signal, now) => {
    const body = await postJson({
      url,
      ...(config.key ? { key: config.key } : {}),
      body: {
        model: config.model,
        messages: [{ role: "user", content: prompt === "none" ? text : llamaGuardPrompt(text) }],
        // "unsafe\nS1,S10,S12" and a little room: the verdict, never an essay.
        max_tokens: 20,
        temperature: 0,
        stream: false,
      },
      signal,
      now,
    });
    const choice = (body as { choices?: Array<{ message?: { content?: unknown } }> })?.choices?.[0];
    const content = choice?.message?.content;
    if (typeof content !== "string") throw bad("answered no message content");
    const answer = parseLlamaGuard(content);
    if (typeof answer === "string") throw bad(answer);
    if (!answer.unsafe) return opinionOf([]);
    // "unsafe" naming no category: abusive, of no kind we can tell, so a harassment.
    return answer.categories.length > 0 ? opinionOf(answer.categories) : unsafeOf();
  };
}

/** An `unsafe` answer that named no category: flagged, as harassment, with no category to log. */
function unsafeOf(): JudgeOpinion {
  return { flagged: true, categories: ["unsafe"], kinds: ["harassment"] };
}

/** The call for a judge's format. */
export function judgeCall(config: JudgeConfig): JudgeCall {
  return config.kind === "chat" ? chatCall(config) : moderationCall(config);
}
