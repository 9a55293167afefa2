/**
 * What the sandbox's request pipelines share (the platform, the body limits, the admin
 * routes, the open streams, the signal of the close) and what every one of them does: write
 * an answer, turn anything thrown into one, read the request into an {@link Incoming}. Kept
 * apart from the server's wiring (`server.ts`) so each pipeline reads on its own.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseCookies } from "../../cookies.ts";
import { baseStringUri } from "../auth/oauth1.ts";
import { problemReply, replyOf, ReplyError, type Reply } from "../http/reply.ts";
import { type BodyLimits, ClientGone, formBody, type Target } from "../http/request.ts";
import type { OpenStream } from "../http/stream.ts";
import type { Incoming, Platform } from "../platform.ts";
import { ApiProblem } from "../problems.ts";
import type { AdminRouteTable } from "../route.ts";

/** One sandbox's request pipelines' shared parts, made by `createSandbox`. */
export interface Serving {
  p: Platform;
  bodyLimits: BodyLimits;
  adminTable: AdminRouteTable;
  /** The streams open now: the close ends them. */
  streams: Set<OpenStream>;
  /** Aborted by the close: a fault's delay ends with it. */
  closing: AbortSignal;
  /** `HOST:PORT` as clients reach the sandbox, for a request without a Host header (set once it listens). */
  hostHeader: string;
  /** The key of the chat-completions stand-in (`SandboxOptions.chatCompletionsKey`). */
  chatCompletionsKey: string | undefined;
}

/** Status counted for a request whose client hung up mid-body (nginx's "client closed request"). */
export const CLIENT_GONE = 499;

const NO_COOKIES: ReadonlyMap<string, string> = new Map();

/** Writes an answer, dated on the sandbox's clock; nothing when one was written or the client left. */
export function send(s: Serving, res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, {
    // The service's own time, as a client reads it to sign with (Node's default Date is the host's).
    date: new Date(s.p.clock.now()).toUTCString(),
    ...reply.headers,
    "content-length": String(Buffer.byteLength(reply.body)),
  });
  res.end(reply.body);
}

/** Any thrown value as an answer; a bug is logged and answered with a 500 problem. */
export function errorReply(s: Serving, err: unknown, where: string): Reply {
  if (err instanceof ApiProblem) return replyOf(err);
  if (err instanceof ReplyError) return err.reply;
  if (err instanceof ClientGone) {
    s.p.logger.debug({ where }, "client closed the connection mid-body");
    return { status: CLIENT_GONE, headers: {}, body: "" };
  }
  s.p.logger.error({ err, where }, "sandbox handler failed");
  return problemReply(500, {
    title: "Internal Server Error",
    detail: `The sandbox failed while handling ${where}; the error is in its log.`,
    type: "about:blank",
    status: 500,
  });
}

/** The request as the platform's parts read it; cookies only where pages use them. */
export function incoming(
  s: Serving,
  req: IncomingMessage,
  target: Target,
  body: Buffer,
  withCookies = false,
): Incoming {
  return {
    req,
    method: req.method ?? "GET",
    target,
    body,
    form: formBody(req, body),
    uri: baseStringUri("http", req.headers.host ?? s.hostHeader, target.pathname),
    cookies: withCookies ? parseCookies(req.headers.cookie) : NO_COOKIES,
  };
}
