/**
 * The way of a request to the sandbox's own admin API (`/_sandbox/...`): the admin token
 * checked in constant time, the route, the body read, then the route's answer. Not counted:
 * it is not part of the service.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { adminHandler } from "../admin/routes.ts";
import { sameSecret } from "../auth/credentials.ts";
import { jsonReply, type Reply } from "../http/reply.ts";
import { jsonBody, readBody, type Target } from "../http/request.ts";
import { httpProblem, notFound } from "../problems.ts";
import { errorReply, send, type Serving } from "./serving.ts";

/** Answers one request to the admin API. */
export async function serveAdmin(s: Serving, req: IncomingMessage, res: ServerResponse, target: Target): Promise<void> {
  const key = `${req.method} ${target.pathname}`;
  let reply: Reply;
  try {
    const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!given || !sameSecret(given, s.p.adminToken)) {
      throw httpProblem(
        401,
        "Unauthorized",
        "The admin API needs Authorization: Bearer <admin token> (printed by `bot sandbox` at start).",
      );
    }
    const handler = adminHandler(s.adminTable, key);
    if (!handler) throw notFound(`${key} is not an admin route.`);
    const body = await readBody(req, s.bodyLimits);
    const result = await handler({ sandbox: s.p.context, query: target.query, body: jsonBody(req, body) });
    reply = jsonReply(result.status, result.body, result.headers);
  } catch (err) {
    reply = errorReply(s, err, key);
  }
  send(s, res, reply);
}
