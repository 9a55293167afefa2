/**
 * The way of a request to the v2 API: its request-phase fault, the body read with its cap,
 * authentication, the endpoint's access (scopes, plan), the usage cap, the rate-limit
 * windows, the endpoint's handler, then a JSON answer or a stream; every request is counted
 * with the status it got.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Endpoint } from "../../api/endpoints.ts";
import { checkAccess } from "../auth/access.ts";
import { authenticate } from "../auth/authenticate.ts";
import { hasBody, jsonBody, NO_BODY, readBody, type Target } from "../http/request.ts";
import { PlatformRequest } from "../http/route-request.ts";
import { type OpenStream, writeStream } from "../http/stream.ts";
import { checkCap } from "../meter/cap.ts";
import { meterRequest } from "../meter/limits.ts";
import { countRequest } from "../meter/stats.ts";
import { notFound } from "../problems.ts";
import { isStream, type StreamResult } from "../route.ts";
import { routes } from "../routes/index.ts";
import { requestFault } from "./request-fault.ts";
import { errorReply, incoming, send, type Serving } from "./serving.ts";

/** Answers one request to a v2 endpoint (see the module comment). */
export async function serveV2(
  s: Serving,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  endpoint: Endpoint,
  params: Record<string, string>,
): Promise<void> {
  const { p } = s;
  const data = p.context.data;
  const route = endpoint.key;
  if (p.faults.has(route) && (await requestFault(s, route, req, res))) return;
  let headers: Record<string, string> = {};
  let status = 500;
  try {
    const body = hasBody(req) ? await readBody(req, s.bodyLimits) : NO_BODY;
    const inc = incoming(s, req, target, body);
    const { caller, userKey, access } = authenticate(p, inc);
    checkAccess(endpoint, caller, access);
    const now = p.clock.now();
    checkCap(data, route, caller.app, now);
    headers = meterRequest(p.windows, route, caller.app, userKey, now);
    const json = jsonBody(req, body);
    const handler = routes[route];
    if (!handler) throw notFound(`${route} has no handler in this sandbox yet.`);
    const rr = new PlatformRequest(p.context, endpoint, params, target.query, json, caller, res);
    const answer = handler(rr);
    const result = answer instanceof Promise ? await answer : answer;
    if (isStream(result)) {
      status = 200;
      openStream(s, res, route, rr, result, headers);
      return;
    }
    status = result.status;
    send(s, res, {
      status,
      headers: { "content-type": "application/json; charset=utf-8", ...headers, ...result.headers },
      body: result.body === undefined ? "" : JSON.stringify(result.body),
    });
  } catch (err) {
    const reply = errorReply(s, err, route);
    status = reply.status;
    send(s, res, { ...reply, headers: { ...headers, ...reply.headers } });
  } finally {
    countRequest(data, route, status);
  }
}

/** Writes a handler's stream, with its stream-phase fault, kept among the open streams until it ends. */
function openStream(
  s: Serving,
  res: ServerResponse,
  route: string,
  rr: PlatformRequest,
  result: StreamResult,
  headers: Record<string, string>,
): void {
  // The stream may end before writeStream returns (a drop fault at message 0), so
  // onEnd must not need what it returns.
  let open: OpenStream | undefined;
  open = writeStream({
    res,
    clock: s.p.clock,
    logger: s.p.logger,
    result,
    headers,
    fault: s.p.faults.take(route, "stream"),
    onEnd: () => {
      if (open) s.streams.delete(open);
      rr.leave();
    },
  });
  if (!res.writableEnded) s.streams.add(open);
}
