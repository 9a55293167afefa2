/**
 * The filtered and sample streams as one async iterator of typed events: the posts, and what
 * happens to the connection (connected, keep-alive, an in-stream error message, reconnecting
 * with its cause and delay, gave up). Reconnecting is on by default and follows
 * {@link ReconnectPolicy}; the old connection is always closed before a new one is opened;
 * a watchdog on the injected Clock reconnects when neither data nor keep-alive arrives.
 *
 * @example
 * ```ts
 * for await (const event of client.streams.filtered({ expansions: ["author_id"] })) {
 *   if (event.type === "post") console.log(event.matching_rules, event.data.text);
 * }
 * ```
 */
import type { Readable } from "node:stream";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { ApiError, BearerTooFrequentError, NetworkError, type RequestInfo } from "../errors.ts";
import type { HttpStreamResponse } from "../http.ts";
import { errorFromResponse } from "../responses.ts";
import type { Problem, StreamMessage } from "../types.ts";
import { LineSplitter } from "./lines.ts";
import { ReconnectPolicy, type ReconnectCause } from "./reconnect-policy.ts";

/** A keep-alive is due every 20 s (wire-facts 2.8). */
export const KEEP_ALIVE_INTERVAL_MS = 20_000;
/**
 * The watchdog waits the keep-alive interval plus this grace before calling the connection
 * stalled, so a keep-alive sent exactly on time is never mistaken for a stall (tweepy's v2
 * client reads with a 21 s timeout for the same reason).
 */
export const STALL_GRACE_MS = 1_000;

/** Everything a stream iterator yields. */
export type StreamEvent =
  | ({ type: "post" } & StreamMessage)
  | { type: "connected"; attempt: number }
  | { type: "keep-alive" }
  | { type: "stream-error"; errors: Problem[] }
  | { type: "reconnecting"; cause: ReconnectCause; delayMs: number; attempt: number; error?: ApiError }
  | { type: "gave-up"; cause: ReconnectCause; error: ApiError };

/**
 * What the stream needs from the client: a way to open one authorized connection (the
 * client reads each answer's rate-limit headers and drops a refused bearer token itself).
 */
export interface StreamSource {
  info: RequestInfo;
  open(signal: AbortSignal): Promise<HttpStreamResponse>;
}

export interface StreamOptions {
  /** Reconnect after failures (default true). Off: the first failure ends the stream. */
  reconnect?: boolean;
  /** Give up after this many reconnects in a row without an established connection (default: never). */
  maxRetries?: number;
  /** Silence (no data, no keep-alive) that counts as a stall (default 20 s + 1 s grace). */
  stallTimeoutMs?: number;
  signal?: AbortSignal;
}

/** Statuses that retrying cannot fix: the request or the app's access is wrong. */
const FATAL_STATUSES = new Set([400, 403, 404]);

/** Why one connection ended, and whether retrying cannot help. */
type ConnectionEnd = { cause: ReconnectCause; error?: ApiError; fatal?: boolean };

/** Why opening a connection failed; anything but the client's errors is a bug and thrown on. */
function openFailure(err: unknown): ConnectionEnd {
  if (err instanceof NetworkError) return { cause: "network", error: err };
  // The bearer token could not be had just now (asked too often): wait, do not give up.
  if (err instanceof BearerTooFrequentError) return { cause: "http", error: err };
  if (err instanceof ApiError)
    return {
      cause: err.status === 429 ? "rate-limit" : "http",
      error: err,
      fatal: err.status !== undefined && FATAL_STATUSES.has(err.status),
    };
  throw err;
}

/** The end of a connection the service answered with another status than 200, read from its body. */
async function refusal(info: RequestInfo, res: HttpStreamResponse): Promise<ConnectionEnd> {
  const text = await readAll(res.body).catch(() => "");
  const error = errorFromResponse(info, { status: res.status, headers: res.headers, text });
  // A rate limit or a spent usage cap: both 429, both the rate-limit back-off.
  if (res.status === 429) return { cause: "rate-limit", error };
  return { cause: "http", error, fatal: FATAL_STATUSES.has(res.status) };
}

class Stall extends Error {
  constructor() {
    super("stalled");
  }
}

/** A running stream. Iterate it once; {@link close} ends it from outside. */
export class PostStream implements AsyncIterable<StreamEvent> {
  private readonly closer = new AbortController();
  private started = false;
  private readonly policy = new ReconnectPolicy();

  constructor(
    private readonly source: StreamSource,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly options: StreamOptions = {},
  ) {
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  /** Ends the stream: the connection is closed and the iterator finishes. */
  close(): void {
    this.closer.abort();
  }

  get closed(): boolean {
    return this.closer.signal.aborted;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.started) throw new Error("a stream can be iterated only once; open another with client.streams");
    this.started = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<StreamEvent> {
    const stallMs = this.options.stallTimeoutMs ?? KEEP_ALIVE_INTERVAL_MS + STALL_GRACE_MS;
    const maxRetries = this.options.maxRetries ?? Infinity;
    const reconnect = this.options.reconnect ?? true;
    let connections = 0;
    try {
      while (!this.closed) {
        const outcome = yield* this.connectOnce(stallMs, ++connections);
        if (this.closed) return;
        if (outcome.fatal || !reconnect || this.policy.attempts >= maxRetries) {
          const error = outcome.error ?? new NetworkError(this.source.info, "the stream ended");
          const gaveUp: StreamEvent = { type: "gave-up", cause: outcome.cause, error };
          // Without reconnecting of its own, the caller decides what comes next (the stream
          // hub connects again, and says when): this stream merely ended.
          if (!reconnect)
            this.log.debug(
              { endpoint: this.source.info.endpoint, cause: outcome.cause, err: error.message },
              "stream connection ended; its caller connects again",
            );
          else
            this.log.error(
              { endpoint: this.source.info.endpoint, cause: outcome.cause, err: error.message },
              "stream gave up",
            );
          yield gaveUp;
          throw error;
        }
        const delayMs = this.policy.next(outcome.cause);
        const event: StreamEvent = {
          type: "reconnecting",
          cause: outcome.cause,
          delayMs,
          attempt: this.policy.attempts,
          ...(outcome.error ? { error: outcome.error } : {}),
        };
        this.log.warn(
          {
            endpoint: this.source.info.endpoint,
            cause: outcome.cause,
            delayMs,
            attempt: this.policy.attempts,
            err: outcome.error?.message,
          },
          "stream reconnecting",
        );
        yield event;
        if (delayMs > 0) {
          try {
            await this.clock.sleep(delayMs, this.closer.signal);
          } catch {
            return;
          }
        }
      }
    } finally {
      this.closer.abort();
    }
  }

  /** One connection, from opening to its end; returns why it ended. The connection is closed on every way out. */
  private async *connectOnce(stallMs: number, attempt: number): AsyncGenerator<StreamEvent, ConnectionEnd> {
    const connection = new AbortController();
    const stopConnection = () => connection.abort();
    this.closer.signal.addEventListener("abort", stopConnection, { once: true });
    let res: HttpStreamResponse | undefined;
    try {
      try {
        res = await this.source.open(connection.signal);
      } catch (err) {
        return openFailure(err);
      }
      if (res.status !== 200) return await refusal(this.source.info, res);

      this.policy.connected();
      this.log.info({ endpoint: this.source.info.endpoint, attempt }, "stream connected");
      yield { type: "connected", attempt };
      return yield* this.events(res.body, connection, stallMs);
    } finally {
      this.closer.signal.removeEventListener("abort", stopConnection);
      connection.abort();
      if (res) await destroy(res.body);
    }
  }

  /** An open connection's lines as events, until it ends; returns why it ended. */
  private async *events(
    body: Readable,
    connection: AbortController,
    stallMs: number,
  ): AsyncGenerator<StreamEvent, ConnectionEnd> {
    const iterator = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const splitter = new LineSplitter();
    for (;;) {
      const chunk = await this.watchedChunk(iterator, connection, stallMs);
      if ("cause" in chunk) return chunk;
      if (chunk.done) {
        const rest = splitter.takeRest();
        if (rest)
          this.log.warn(
            { endpoint: this.source.info.endpoint, bytes: rest.length },
            "stream ended in the middle of a line; the partial line was dropped",
          );
        return { cause: "drop", error: new NetworkError(this.source.info, "the service closed the stream") };
      }
      for (const line of splitter.push(chunk.value)) {
        const event = this.parseLine(line);
        if (!event) continue;
        yield event;
        if (event.type === "stream-error")
          return {
            cause: "stream-error",
            error: new NetworkError(
              this.source.info,
              `the service sent an error in the stream: ${describeProblems(event.errors)}`,
            ),
          };
      }
    }
  }

  /**
   * The connection's next chunk, under the stall watchdog: when neither data nor keep-alive
   * comes within `stallMs`, the connection is aborted and the end is a stall, not a drop.
   */
  private async watchedChunk(
    iterator: AsyncIterator<Buffer>,
    connection: AbortController,
    stallMs: number,
  ): Promise<IteratorResult<Buffer> | ConnectionEnd> {
    let stalled = false;
    const cancelWatchdog = this.clock.setTimeout(() => {
      stalled = true;
      connection.abort(new Stall());
    }, stallMs);
    try {
      return await iterator.next();
    } catch (err) {
      if (this.closed) return { cause: "drop" };
      if (stalled)
        return {
          cause: "stall",
          error: new NetworkError(
            this.source.info,
            `no data and no keep-alive for ${stallMs} ms: the connection stalled`,
          ),
        };
      return {
        cause: "drop",
        error: new NetworkError(this.source.info, `the stream connection broke: ${(err as Error).message}`, {
          cause: err,
        }),
      };
    } finally {
      cancelWatchdog();
    }
  }

  /** One line as an event; undefined (logged) for a line that is not a message. */
  private parseLine(line: string): StreamEvent | undefined {
    if (line.trim() === "") {
      this.log.debug({ endpoint: this.source.info.endpoint }, "stream keep-alive");
      return { type: "keep-alive" };
    }
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.log.warn(
        { endpoint: this.source.info.endpoint, bytes: line.length, start: line.slice(0, 80) },
        "stream line is not JSON; skipped",
      );
      return undefined;
    }
    if (typeof message === "object" && message !== null && !Array.isArray(message)) {
      const m = message as Record<string, unknown>;
      const data = m.data as Record<string, unknown> | undefined;
      if (data && typeof data === "object" && typeof data.id === "string") {
        return { type: "post", ...(m as unknown as StreamMessage) };
      }
      if (!("data" in m) && Array.isArray(m.errors)) {
        const errors = m.errors as Problem[];
        this.log.warn(
          { endpoint: this.source.info.endpoint, errors: describeProblems(errors) },
          "stream error message",
        );
        return { type: "stream-error", errors };
      }
    }
    this.log.warn(
      { endpoint: this.source.info.endpoint, bytes: line.length, start: line.slice(0, 80) },
      "stream line is not a post or an error message; skipped",
    );
    return undefined;
  }
}

const describeProblems = (errors: Problem[]) =>
  errors
    .map((p) => [p.title, (p as { disconnect_type?: string }).disconnect_type, p.detail].filter(Boolean).join(": "))
    .join("; ") || "no detail";

async function readAll(body: Readable): Promise<string> {
  let text = "";
  for await (const chunk of body as AsyncIterable<Buffer>) {
    text += chunk.toString("utf8");
    if (text.length > 64_000) break;
  }
  return text;
}

/** Closes a response body and waits until its connection is released. */
async function destroy(body: Readable): Promise<void> {
  if (body.destroyed) return;
  await new Promise<void>((resolve) => {
    body.once("close", () => resolve());
    body.destroy();
  });
}
