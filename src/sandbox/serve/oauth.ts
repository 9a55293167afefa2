/**
 * The way of a request to the OAuth endpoints (tokens, authorization pages): its
 * request-phase fault, the body read, plain HTTP refused beyond loopback, the per-address
 * meter, then the endpoint; counted with the status it got.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { meterOAuth, OAUTH_ROUTES } from "../auth/routes.ts";
import { refusePlainHttp } from "../auth/transport.ts";
import type { Reply } from "../http/reply.ts";
import { readBody, type Target, tokenRequestFields } from "../http/request.ts";
import { countRequest } from "../meter/stats.ts";
import { requestFault } from "./request-fault.ts";
import { errorReply, incoming, send, type Serving } from "./serving.ts";

/** Answers one request to the OAuth route `route` (as `matchOAuthRoute` named it). */
export async function serveOAuth(
  s: Serving,
  req: IncomingMessage,
  res: ServerResponse,
  target: Target,
  route: string,
): Promise<void> {
  const { p } = s;
  if (p.faults.has(route) && (await requestFault(s, route, req, res))) return;
  let reply: Reply;
  try {
    const body = await readBody(req, s.bodyLimits);
    const inc = incoming(s, req, target, body, true);
    if (route.startsWith("POST /2/oauth2/")) inc.form = tokenRequestFields(req, body);
    refusePlainHttp(req);
    meterOAuth(p, route, req.socket.remoteAddress ?? "unknown");
    reply = OAUTH_ROUTES[route]!(p, inc);
  } catch (err) {
    reply = errorReply(s, err, route);
  }
  countRequest(p.context.data, route, reply.status);
  send(s, res, reply);
}
