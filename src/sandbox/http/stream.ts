/**
 * Writing a streaming answer (wire-facts 2.8): a 200 with `content-type: application/json`,
 * chunked, each message one JSON line ended by `\r\n`, and a keep-alive `\r\n` after every
 * 20 s of sandbox clock in which nothing else was sent. Stream faults (a drop after N
 * messages, a stall) are applied here, so every stream handler gets them for free.
 */
import type { ServerResponse } from "node:http";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { Fault } from "../faults.ts";
import type { StreamResult, StreamSink } from "../route.ts";

/** Seconds of silence after which a keep-alive line is sent (the real service's 20 s). */
export const KEEP_ALIVE_MS = 20_000;

export interface OpenStream {
  /** Ends the stream from the server side (the sandbox is closing). */
  end(): void;
}

export interface StreamOptions {
  res: ServerResponse;
  clock: Clock;
  logger: Logger;
  result: StreamResult;
  headers: Record<string, string>;
  /** A `drop` or `stall` fault to apply to this connection. */
  fault?: Fault;
  /** Called once when the stream has ended, whoever ended it. */
  onEnd(): void;
}

/**
 * One streaming answer under way: what it sent, whether it ended or stalls, its keep-alive
 * timer, and the close handler its route returned (run once, whoever ends the stream).
 */
class StreamConnection {
  ended = false;
  private stalled = false;
  private sent = 0;
  private cancelKeepAlive: (() => void) | undefined;
  private closeHandler: (() => void) | undefined;
  private closeRequested = false;

  constructor(private readonly o: StreamOptions) {}

  /** What the route's handler writes to. */
  readonly sink: StreamSink = {
    send: (message) => {
      if (this.ended || this.stalled) return;
      this.o.res.write(JSON.stringify(message) + "\r\n");
      this.sent += 1;
      this.armKeepAlive();
      this.applyFault();
    },
    end: () => this.finish(),
  };

  /** Sends a keep-alive line after {@link KEEP_ALIVE_MS} of silence, again and again. */
  armKeepAlive(): void {
    this.cancelKeepAlive?.();
    this.cancelKeepAlive = this.o.clock.setTimeout(() => {
      this.cancelKeepAlive = undefined;
      if (this.ended || this.stalled) return;
      this.o.res.write("\r\n");
      this.armKeepAlive();
    }, KEEP_ALIVE_MS);
  }

  private stopKeepAlive(): void {
    this.cancelKeepAlive?.();
    this.cancelKeepAlive = undefined;
  }

  /** Ends the stream once (the client left, the server ends it, a drop fault): one function, so it can be a listener. */
  readonly finish = (): void => {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    if (!this.o.res.writableEnded) this.o.res.end();
    if (this.closeHandler) this.runClose();
    else this.closeRequested = true;
    this.o.onEnd();
  };

  private runClose(): void {
    const fn = this.closeHandler;
    this.closeHandler = undefined;
    try {
      fn?.();
    } catch (err) {
      this.o.logger.error({ err }, "stream close handler failed");
    }
  }

  /** Applies the fault's threshold once `sent` messages went out. */
  applyFault(): void {
    const { fault } = this.o;
    if (!fault || this.sent < (fault.kind === "drop" || fault.kind === "stall" ? fault.after_messages : Infinity))
      return;
    if (fault.kind === "drop") this.finish();
    else if (fault.kind === "stall") {
      this.stalled = true;
      this.stopKeepAlive();
    }
  }

  /** Runs the route's stream handler on the sink; a handler that throws ends the stream. */
  start(): void {
    try {
      this.closeHandler = this.o.result.stream(this.sink);
    } catch (err) {
      this.o.logger.error({ err }, "stream handler failed");
      this.finish();
    }
    if (this.closeRequested) this.runClose();
  }
}

/** Answers with a stream: its headers, then the route's messages and keep-alives until either side ends it. */
export function writeStream(o: StreamOptions): OpenStream {
  const { res } = o;
  const stream = new StreamConnection(o);
  if (res.destroyed) {
    // The client left before the stream began (during an injected delay, say): its
    // handler never runs, and whatever it claimed is released through `onEnd`.
    stream.finish();
    return { end: stream.finish };
  }
  res.writeHead(200, {
    date: new Date(o.clock.now()).toUTCString(),
    "content-type": "application/json",
    "cache-control": "no-cache",
    ...o.headers,
  });
  res.flushHeaders();
  res.on("close", stream.finish);
  stream.armKeepAlive();
  stream.applyFault();
  if (!stream.ended) stream.start();
  return { end: stream.finish };
}
