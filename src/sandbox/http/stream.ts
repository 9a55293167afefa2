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

export function writeStream(o: StreamOptions): OpenStream {
  const { res, clock } = o;
  let ended = false;
  let stalled = false;
  let sent = 0;
  let cancelKeepAlive: (() => void) | undefined;
  let closeHandler: (() => void) | undefined;
  let closeRequested = false;

  const armKeepAlive = () => {
    cancelKeepAlive?.();
    cancelKeepAlive = clock.setTimeout(() => {
      cancelKeepAlive = undefined;
      if (ended || stalled) return;
      res.write("\r\n");
      armKeepAlive();
    }, KEEP_ALIVE_MS);
  };

  const finish = () => {
    if (ended) return;
    ended = true;
    cancelKeepAlive?.();
    cancelKeepAlive = undefined;
    if (!res.writableEnded) res.end();
    if (closeHandler) runClose();
    else closeRequested = true;
    o.onEnd();
  };

  const runClose = () => {
    const fn = closeHandler;
    closeHandler = undefined;
    try {
      fn?.();
    } catch (err) {
      o.logger.error({ err }, "stream close handler failed");
    }
  };

  /** Applies the fault's threshold once `sent` messages went out. */
  const applyFault = () => {
    if (!o.fault || sent < (o.fault.kind === "drop" || o.fault.kind === "stall" ? o.fault.after_messages : Infinity))
      return;
    if (o.fault.kind === "drop") finish();
    else if (o.fault.kind === "stall") {
      stalled = true;
      cancelKeepAlive?.();
      cancelKeepAlive = undefined;
    }
  };

  const sink: StreamSink = {
    send(message) {
      if (ended || stalled) return;
      res.write(JSON.stringify(message) + "\r\n");
      sent += 1;
      armKeepAlive();
      applyFault();
    },
    end: finish,
  };

  if (res.destroyed) {
    // The client left before the stream began (during an injected delay, say): its
    // handler never runs, and whatever it claimed is released through `onEnd`.
    finish();
    return { end: finish };
  }
  res.writeHead(200, {
    date: new Date(o.clock.now()).toUTCString(),
    "content-type": "application/json",
    "cache-control": "no-cache",
    ...o.headers,
  });
  res.flushHeaders();
  res.on("close", finish);
  armKeepAlive();
  applyFault();
  if (!ended) {
    try {
      closeHandler = o.result.stream(sink);
    } catch (err) {
      o.logger.error({ err }, "stream handler failed");
      finish();
    }
    if (closeRequested) runClose();
  }
  return { end: finish };
}
