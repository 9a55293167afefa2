/**
 * A loopback test server for the model APIs postbot calls: the moderation judge (issue 24)
 * and the `llm-reply` plugin (issue 27). It speaks two public, documented wire formats:
 *
 * - `POST /v1/moderations`: OpenAI's moderation endpoint. Request `{model?, input}` with
 *   `input` a string or an array (of strings, or of `{type: "text", text}` parts); answer
 *   `{id, model, results: [{flagged, categories, category_scores,
 *   category_applied_input_types}]}`, one result per input, in order, with the 13 category
 *   names of {@link MODERATION_CATEGORIES}.
 * - `POST /v1/chat/completions`: OpenAI's chat format, which Ollama, llama.cpp's server and
 *   vLLM serve too. Request `{model, messages: [{role, content}], max_tokens?, ...}`; answer
 *   `{id, object: "chat.completion", created, model, choices: [{index, message: {role:
 *   "assistant", content}, finish_reason}], usage}`. It plays a plain chat model, or a
 *   Llama Guard 3 style safety model (`safe`, or `unsafe\nS1,S10`; see {@link llamaGuard}).
 *
 * **The test decides every answer**, per route: scripted answers used once each, in order
 * (`server.chat.queue(...)`), then a default that is fixed or a function of the request
 * (`server.chat.respond(...)`). Answers are built with {@link answer}: a chat text, a
 * truncated one (`finish_reason: "length"`), moderation results, an error status with
 * OpenAI's error body (400, 401, 404, 500, 503...), 429 with `retry-after` and the
 * `x-ratelimit-*` headers, a malformed JSON body, a connection that never answers, and an
 * answer held until the test releases it or delayed on the test's clock.
 *
 * **It records every request** (method, path, headers, raw and parsed body) in arrival
 * order, refused ones too, so a test can assert what was sent: the key, the model, that the
 * user's words went only in the user role.
 *
 * Before any scripted answer it checks what a real server checks, and answers in OpenAI's
 * shape without using up a scripted answer: 401 when the server has a `key` and the request
 * does not send it as `Authorization: Bearer KEY`; 400 for a body that is not JSON or not a
 * request of the route's format (`param` names the field; `stream: true` is refused, the
 * server does not stream); 404 for another path; 405 for another method.
 *
 * Start it on port 0 in a test and always close it (`afterAll`/`finally`): `close()` ends
 * held, delayed and hanging requests by closing their connections.
 *
 * @example
 * ```ts
 * const model = await startModelServer({ key: "sk-test", clock });
 * afterAll(() => model.close());
 * // A safety model that finds a threat in any text with "vets on Park Road" in it:
 * model.chat.respond(llamaGuard((text) => (text.includes("vets on Park Road") ? ["S1"] : [])));
 * // The first call is rate limited, the second waits until the test lets it through:
 * const gate = createHold();
 * model.chat.queue(answer.rateLimited(2), answer.held(gate, answer.safe()));
 * // ... the client under test calls `${model.url}/v1/chat/completions` ...
 * await model.whenPending(1);        // the second call has arrived and is held
 * gate.release();
 * expect(model.chat.bodies[0].messages.at(-1).role).toBe("user");
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createClock, type Clock } from "../../src/clock.ts";
import { answer, waitOn, type Answer } from "./model-answers.ts";
import { contentText, type ChatMessage, type ChatRequest, type ModerationRequest } from "./model-formats.ts";

export * from "./model-answers.ts";
export * from "./model-formats.ts";

/** One request as it arrived, whatever was answered. */
export interface RecordedRequest {
  method: string;
  /** The path without the query (`/v1/chat/completions`). */
  path: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body as sent. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  /** When it arrived, on the server's clock. */
  at: number;
}

/** How a route's default answer is given: fixed, or from the request (may be async). */
export type Responder<Req> = Answer | ((req: Req, recorded: RecordedRequest) => Answer | Promise<Answer>);

/** One of the server's two routes: its script, its default, and what it received. */
export interface ModelRoute<Req> {
  /** Adds answers used once each, in order, before the default. Returns the route. */
  queue(...answers: Answer[]): ModelRoute<Req>;
  /** Sets the default answer, used when the queue is empty. Returns the route. */
  respond(responder: Responder<Req>): ModelRoute<Req>;
  /** The requests this route received (checked ones and refused ones), in order. */
  readonly requests: RecordedRequest[];
  /** The parsed bodies of the requests that passed the checks and got a scripted or default answer. */
  readonly bodies: Req[];
  /** How many queued answers are not used yet. */
  readonly queued: number;
}

export interface ModelServerOptions {
  /** The API key requests must send as `Authorization: Bearer KEY`; without one, any or none is accepted. */
  key?: string;
  /**
   * The clock {@link answer}.delayed waits on and {@link RecordedRequest.at} reads: pass the
   * test's frozen clock to release delays with `clock.advance(ms)`. Default: real time (for
   * benchmarks, where a model "answers in 1 s").
   */
  clock?: Clock;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ModelServer {
  /** The base URL, `http://127.0.0.1:PORT`; clients call `${url}/v1/chat/completions`. */
  url: string;
  /** `POST /v1/chat/completions`. Default answer: {@link DEFAULT_CHAT_TEXT}. */
  chat: ModelRoute<ChatRequest>;
  /** `POST /v1/moderations`. Default answer: nothing flagged, every score 0. */
  moderations: ModelRoute<ModerationRequest>;
  /** Every request, in arrival order, on any path. */
  readonly requests: RecordedRequest[];
  /** Requests waiting now on a hold, a delay or a hang. */
  readonly pending: number;
  /**
   * Resolves once at least `n` requests wait on a hold, a delay or a hang: await it before
   * `clock.advance` so a delay has started when the clock moves. Rejects after `boundMs`
   * of real time (default 10 s) naming what it waited for.
   */
  whenPending(n: number, boundMs?: number): Promise<void>;
  /** Closes every connection (held, delayed and hanging requests included) and the server. */
  close(): Promise<void>;
}

/** What the chat route answers when the test set nothing. */
export const DEFAULT_CHAT_TEXT = "Hello from the test model.";

/** Words, as this server counts tokens when an answer does not set `usage`. */
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** OpenAI's error body as a finished response. */
function errorBody(a: Extract<Answer, { kind: "error" }>) {
  return JSON.stringify({ error: { message: a.message, type: a.type, param: a.param, code: a.code } });
}

/** A 400 of the request checks, naming the field. */
const invalid = (message: string, param: string | null, code: string | null = null) => ({
  refusal: answer.error(400, { message, param, code }),
});

/** What a route's check finds: the request to answer, or the refusal to send instead. */
type Checked<Req> = { request: Req } | { refusal: Answer };

/** Checks a chat request as a real server would. */
function checkChat(body: unknown): Checked<ChatRequest> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    return invalid("The body must be a JSON object with model and messages.", null);
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || !b.model)
    return invalid("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  if (!Array.isArray(b.messages) || b.messages.length === 0)
    return invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  for (const [i, m] of b.messages.entries()) {
    if (!m || typeof m !== "object" || typeof (m as ChatMessage).role !== "string")
      return invalid(`messages[${i}].role is required.`, `messages[${i}].role`);
    const c = (m as ChatMessage).content;
    if (c !== null && typeof c !== "string" && !Array.isArray(c))
      return invalid(`messages[${i}].content must be a string or an array of parts.`, `messages[${i}].content`);
  }
  if (
    b.max_tokens !== undefined &&
    b.max_tokens !== null &&
    !(Number.isInteger(b.max_tokens) && (b.max_tokens as number) >= 1)
  )
    return invalid("max_tokens must be a positive integer.", "max_tokens");
  if (b.stream === true) return invalid("This test server does not stream; send stream: false.", "stream");
  return { request: b as ChatRequest };
}

/** Checks a moderations request as a real server would; collects its inputs' texts. */
function checkModeration(body: unknown): Checked<ModerationRequest> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    return invalid("The body must be a JSON object with input.", null);
  const b = body as Record<string, unknown>;
  const input = b.input;
  const items = typeof input === "string" ? [input] : Array.isArray(input) ? input : undefined;
  if (!items || items.length === 0)
    return invalid("Missing required parameter: 'input'.", "input", "missing_required_parameter");
  const texts: string[] = [];
  for (const [i, item] of items.entries()) {
    if (typeof item === "string") texts.push(item);
    else if (
      item &&
      typeof item === "object" &&
      (item as { type?: unknown }).type === "text" &&
      typeof (item as { text?: unknown }).text === "string"
    )
      texts.push((item as { text: string }).text);
    else return invalid(`input[${i}] must be a string or {type: "text", text}.`, `input[${i}]`);
  }
  if (b.model !== undefined && typeof b.model !== "string") return invalid("model must be a string.", "model");
  return { request: { ...b, input, texts } as ModerationRequest };
}

interface RouteState<Req> {
  route: ModelRoute<Req>;
  requests: RecordedRequest[];
  bodies: Req[];
  queue: Answer[];
  responder: Responder<Req>;
  check(body: unknown): Checked<Req>;
}

function routeState<Req>(check: (body: unknown) => Checked<Req>, initial: Responder<Req>): RouteState<Req> {
  const s: RouteState<Req> = {
    requests: [],
    bodies: [],
    queue: [],
    responder: initial,
    check,
    route: {
      queue(...answers) {
        s.queue.push(...answers);
        return s.route;
      },
      respond(responder) {
        s.responder = responder;
        return s.route;
      },
      get requests() {
        return s.requests;
      },
      get bodies() {
        return s.bodies;
      },
      get queued() {
        return s.queue.length;
      },
    },
  };
  return s;
}

/** Starts the server on 127.0.0.1, port 0. Always `close()` it. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const clock = options.clock ?? createClock();
  const closing = new AbortController();
  const requests: RecordedRequest[] = [];
  let pending = 0;
  let seq = 0;
  const pendingWatchers = new Set<() => void>();
  const notifyPending = () => {
    for (const w of pendingWatchers) w();
  };

  const chat = routeState<ChatRequest>(checkChat, answer.chat(DEFAULT_CHAT_TEXT));
  const moderations = routeState<ModerationRequest>(checkModeration, (req) =>
    answer.moderation(...req.texts.map(() => ({}))),
  );
  const routes: Record<string, RouteState<ChatRequest> | RouteState<ModerationRequest>> = {
    "/v1/chat/completions": chat,
    "/v1/moderations": moderations,
  };

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      ...headers,
    });
    res.end(body);
  };

  /** Waits (pending) until `wait` settles; false when the request was ended meanwhile. */
  const waitPending = async (wait: Promise<void>): Promise<boolean> => {
    pending += 1;
    notifyPending();
    try {
      await wait;
      return true;
    } catch {
      return false;
    } finally {
      pending -= 1;
    }
  };

  /** Performs an answer (waiting first for holds and delays). */
  const perform = async (a: Answer, req: unknown, res: ServerResponse, signal: AbortSignal): Promise<void> => {
    switch (a.kind) {
      case "held":
        if (!(await waitPending(waitOn(a.hold, signal)))) return;
        return perform(a.then, req, res, signal);
      case "delayed":
        if (!(await waitPending(clock.sleep(a.ms, signal)))) return;
        return perform(a.then, req, res, signal);
      case "hang":
        await waitPending(
          new Promise<void>((_, reject) => {
            if (signal.aborted) return reject(signal.reason);
            signal.addEventListener("abort", () => reject(signal.reason), { once: true });
          }),
        );
        res.destroy();
        return;
      case "error":
        return send(res, a.status, errorBody(a), a.headers);
      case "malformed":
        return send(res, 200, a.body);
      case "raw":
        return send(res, a.status, a.body, a.headers);
      case "moderation":
        seq += 1;
        return send(
          res,
          200,
          JSON.stringify({
            id: `modr-test-${seq}`,
            model: (req as ModerationRequest | undefined)?.model ?? "omni-moderation-latest",
            results: a.results,
          }),
        );
      case "chat": {
        seq += 1;
        const c = req as ChatRequest | undefined;
        const prompt =
          a.usage?.prompt_tokens ?? (c?.messages ?? []).reduce((n, m) => n + words(contentText(m.content)), 0);
        const completion = a.usage?.completion_tokens ?? words(a.content);
        return send(
          res,
          200,
          JSON.stringify({
            id: `chatcmpl-test-${seq}`,
            object: "chat.completion",
            created: Math.floor(clock.now() / 1000),
            model: c?.model ?? "test-model",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: a.content },
                logprobs: null,
                finish_reason: a.finishReason,
              },
            ],
            usage: {
              prompt_tokens: prompt,
              completion_tokens: completion,
              total_tokens: a.usage?.total_tokens ?? prompt + completion,
            },
          }),
        );
      }
    }
  };

  const authError = (header: string | undefined): Answer | undefined => {
    if (options.key === undefined) return undefined;
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
    if (!given)
      return answer.error(401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.",
        code: null,
      });
    if (given !== options.key) return answer.error(401);
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const path = new URL(req.url ?? "/", "http://model.test").pathname;
    const recorded: RecordedRequest = { method: req.method ?? "GET", path, headers, text, body, at: clock.now() };
    requests.push(recorded);

    const signal = AbortSignal.any([closing.signal, clientGone(res)]);
    const route = routes[path];
    if (!route)
      return perform(
        answer.error(404, {
          message: `No route ${path} on the test model server; it serves POST /v1/chat/completions and POST /v1/moderations.`,
          code: "unknown_url",
        }),
        undefined,
        res,
        signal,
      );
    route.requests.push(recorded);
    if (recorded.method !== "POST")
      return perform(
        answer.error(405, {
          message: `Use POST on ${path}.`,
          type: "invalid_request_error",
          headers: { allow: "POST" },
        }),
        undefined,
        res,
        signal,
      );
    const refused = authError(req.headers.authorization);
    if (refused) return perform(refused, undefined, res, signal);
    if (body === undefined) {
      const why = invalid(text ? "The body is not valid JSON." : "The request has no body.", null);
      return perform(why.refusal, undefined, res, signal);
    }
    const { chosen, request } = await choose(route as RouteState<unknown>, body, recorded);
    return perform(chosen, request, res, signal);
  };

  /** The route's answer to a request that passed the auth check: a refusal, a scripted answer, or the default. */
  async function choose<Req>(
    route: RouteState<Req>,
    body: unknown,
    recorded: RecordedRequest,
  ): Promise<{ chosen: Answer; request?: Req }> {
    const checked = route.check(body);
    if ("refusal" in checked) return { chosen: checked.refusal };
    const request = checked.request;
    route.bodies.push(request);
    const next = route.queue.shift();
    if (next) return { chosen: next, request };
    const r = route.responder;
    return { chosen: typeof r === "function" ? await r(request, recorded) : r, request };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) =>
      send(
        res,
        500,
        JSON.stringify({
          error: { message: `test model server: ${String(err)}`, type: "server_error", param: null, code: null },
        }),
      ),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    chat: chat.route,
    moderations: moderations.route,
    requests,
    get pending() {
      return pending;
    },
    whenPending(n, boundMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pending < n) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`not within ${boundMs / 1000} s: ${n} request(s) waiting on the model server (${pending} are)`),
          );
        }, boundMs);
        const cleanup = () => {
          clearTimeout(timer);
          pendingWatchers.delete(check);
        };
        pendingWatchers.add(check);
        check();
      });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort(new Error("model server closed"));
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** An abort signal for a client that hangs up before its answer. */
function clientGone(res: ServerResponse): AbortSignal {
  const c = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) c.abort(new Error("the client closed the connection"));
  });
  return c.signal;
}
