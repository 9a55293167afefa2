/**
 * What the model test server answers, as a test scripts it (see `model-server.ts`, which
 * re-exports all of this): the {@link answer} builders, holds a test releases, and the
 * respond functions that play a safety model ({@link llamaGuard}) or a moderation endpoint
 * ({@link moderate}).
 */
import {
  contentText,
  moderationResult,
  type ChatRequest,
  type LlamaGuardCategory,
  type ModerationCategory,
  type ModerationRequest,
  type ModerationResult,
  type Usage,
} from "./model-formats.ts";

/**
 * A way for the test to let held requests through. Create one with {@link createHold}, put
 * it in answers with {@link answer}.held; requests wait on it until {@link Hold.release}.
 */
export interface Hold {
  /** Resolves when a request first waits on this hold. */
  readonly reached: Promise<void>;
  /** How many requests wait on it now. */
  readonly waiting: number;
  /** Lets every waiting request through, and every later one at once. */
  release(): void;
  /** Whether {@link Hold.release} was called. */
  readonly released: boolean;
}

/** What the server answers to one request; build these with {@link answer}. */
export type Answer =
  | { kind: "chat"; content: string; finishReason: "stop" | "length"; usage?: Partial<Usage> }
  | { kind: "moderation"; results: ModerationResult[] }
  | {
      kind: "error";
      status: number;
      message: string;
      type: string;
      code: string | null;
      param: string | null;
      headers: Record<string, string>;
    }
  | { kind: "malformed"; body: string }
  | { kind: "raw"; status: number; headers: Record<string, string>; body: string }
  | { kind: "hang" }
  | { kind: "held"; hold: Hold; then: Answer }
  | { kind: "delayed"; ms: number; then: Answer };

/** OpenAI's duration format of `x-ratelimit-reset-*`: `250ms`, `2s`, `1m30s`. */
const resetIn = (seconds: number) =>
  seconds < 1
    ? `${Math.round(seconds * 1000)}ms`
    : seconds < 60
      ? `${seconds}s`
      : `${Math.floor(seconds / 60)}m${+(seconds % 60).toFixed(3)}s`;

/** The answers a test scripts. */
export const answer = {
  /** A chat answer with this text, `finish_reason: "stop"`; `usage` defaults to word counts. */
  chat: (content: string, usage?: Partial<Usage>): Answer => ({ kind: "chat", content, finishReason: "stop", usage }),
  /** A chat answer cut short: this text with `finish_reason: "length"`. */
  length: (content: string, usage?: Partial<Usage>): Answer => ({
    kind: "chat",
    content,
    finishReason: "length",
    usage,
  }),
  /** A Llama Guard style verdict: `safe`. */
  safe: (): Answer => answer.chat("safe"),
  /** A Llama Guard style verdict: `unsafe` and, on the next line, the categories (`unsafe\nS1,S10`). */
  unsafe: (...categories: LlamaGuardCategory[]): Answer =>
    answer.chat(categories.length ? `unsafe\n${categories.join(",")}` : "unsafe"),
  /** A moderations answer: one result per entry, each built by {@link moderationResult} from scores. */
  moderation: (...scores: Array<Partial<Record<ModerationCategory, number>>>): Answer => ({
    kind: "moderation",
    results: scores.map((s) => moderationResult(s)),
  }),
  /** A moderations answer with these results exactly (mismatched counts included, to test a client's checks). */
  moderationResults: (results: ModerationResult[]): Answer => ({ kind: "moderation", results }),
  /**
   * An error status with OpenAI's body `{error: {message, type, param, code}}`. The type and
   * code default to what OpenAI sends for the status (401 `invalid_api_key`, 404
   * `model_not_found`, 500 `server_error`, 503 `engine_overloaded`...).
   */
  error: (
    status: number,
    o: {
      message?: string;
      type?: string;
      code?: string | null;
      param?: string | null;
      headers?: Record<string, string>;
    } = {},
  ): Answer => {
    const d = ERROR_DEFAULTS[status] ?? {
      message: `Error ${status} from the test model server.`,
      type: "server_error",
      code: null,
    };
    return {
      kind: "error",
      status,
      message: o.message ?? d.message,
      type: o.type ?? d.type,
      code: o.code === undefined ? d.code : o.code,
      param: o.param ?? null,
      headers: o.headers ?? {},
    };
  },
  /**
   * 429 as OpenAI sends it: `retry-after` in seconds (unless `retryAfter: false`, to test a
   * client that reads `x-ratelimit-reset-requests` instead), the `x-ratelimit-limit-*`,
   * `-remaining-*` and `-reset-*` headers for requests and tokens, and the error body with
   * code `rate_limit_exceeded`.
   */
  rateLimited: (
    retryAfterSeconds: number,
    o: { retryAfter?: boolean; limitRequests?: number; limitTokens?: number; remainingTokens?: number } = {},
  ): Answer => {
    const limitRequests = o.limitRequests ?? 60;
    const limitTokens = o.limitTokens ?? 150_000;
    const headers: Record<string, string> = {
      "x-ratelimit-limit-requests": String(limitRequests),
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": resetIn(retryAfterSeconds),
      "x-ratelimit-limit-tokens": String(limitTokens),
      "x-ratelimit-remaining-tokens": String(o.remainingTokens ?? limitTokens),
      "x-ratelimit-reset-tokens": "0s",
    };
    if (o.retryAfter !== false) headers["retry-after"] = String(retryAfterSeconds);
    return answer.error(429, {
      message: `Rate limit reached on requests per min (RPM): Limit ${limitRequests}, Used ${limitRequests}, Requested 1. Please try again in ${resetIn(retryAfterSeconds)}.`,
      type: "requests",
      code: "rate_limit_exceeded",
      headers,
    });
  },
  /** 200 with `content-type: application/json` and a body that is not JSON (by default, cut off mid-object). */
  malformed: (
    body = '{"id":"chatcmpl-test","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"unfinis',
  ): Answer => ({
    kind: "malformed",
    body,
  }),
  /** Anything at all: a status, headers and a body sent as they are. */
  raw: (status: number, body: string, headers: Record<string, string> = {}): Answer => ({
    kind: "raw",
    status,
    headers,
    body,
  }),
  /** Never answers: the connection stays open until the client gives up or the server closes. */
  hang: (): Answer => ({ kind: "hang" }),
  /** Waits until the test releases `hold`, then answers `then`. */
  held: (hold: Hold, then: Answer): Answer => ({ kind: "held", hold, then }),
  /** Waits `ms` on the server's clock (advance a frozen one to release it), then answers `then`. */
  delayed: (ms: number, then: Answer): Answer => ({ kind: "delayed", ms, then }),
};

const ERROR_DEFAULTS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid request.", type: "invalid_request_error", code: null },
  401: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" },
  403: { message: "You are not allowed to use this model.", type: "invalid_request_error", code: null },
  404: {
    message: "The model does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  },
  500: {
    message: "The server had an error while processing your request.",
    type: "server_error",
    code: "server_error",
  },
  503: {
    message: "The engine is currently overloaded, please try again later.",
    type: "server_error",
    code: "engine_overloaded",
  },
};

/** The server's side of a {@link Hold}: requests wait on it. */
class Gate implements Hold {
  #released = false;
  #waiters = new Set<() => void>();
  #reached!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.#reached = resolve));

  get waiting() {
    return this.#waiters.size;
  }

  get released() {
    return this.#released;
  }

  release() {
    this.#released = true;
    for (const w of [...this.#waiters]) w();
  }

  /** Resolves when released; rejects when `signal` aborts first (the client left, the server closed). */
  wait(signal: AbortSignal): Promise<void> {
    if (this.#released) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.#waiters.delete(done);
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#waiters.delete(done);
        reject(signal.reason);
      };
      this.#waiters.add(done);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#reached();
    });
  }
}

/** A hold for {@link answer}.held. */
export const createHold = (): Hold => new Gate();

/**
 * A respond function playing a Llama Guard 3 style safety model: `classify` gets the text of
 * the request's last user message (where a judge's prompt puts the conversation to check)
 * and names the categories it violates; none means `safe`.
 */
export function llamaGuard(
  classify: (text: string, req: ChatRequest) => readonly LlamaGuardCategory[],
): (req: ChatRequest) => Answer {
  return (req) => {
    const last = req.messages.findLast((m) => m.role === "user");
    const found = classify(last ? contentText(last.content) : "", req);
    return found.length ? answer.unsafe(...found) : answer.safe();
  };
}

/** A respond function for the moderations route: `score` gives each input's category scores. */
export function moderate(
  score: (text: string) => Partial<Record<ModerationCategory, number>>,
): (req: ModerationRequest) => Answer {
  return (req) => answer.moderation(...req.texts.map(score));
}

/**
 * The server's own use, not a test's: how it waits on a hold: resolves when it is released, rejects when `signal`
 * aborts first (the client left, or the server closed).
 */
export function waitOn(hold: Hold, signal: AbortSignal): Promise<void> {
  if (!(hold instanceof Gate)) throw new Error("answer.held needs a hold made by createHold()");
  return hold.wait(signal);
}
