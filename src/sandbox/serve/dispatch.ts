/**
 * Which part of the sandbox answers a request, by its path: the admin API, the compliance
 * jobs' file URLs, the language-model stand-in, the OAuth endpoints, else the v2 catalog (a
 * path it does not know is a 404 naming the spec's list).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { matchEndpoint } from "../../api/endpoints.ts";
import { matchOAuthRoute } from "../auth/routes.ts";
import { replyOf } from "../http/reply.ts";
import { parseTarget, type Target } from "../http/request.ts";
import { countRequest } from "../meter/stats.ts";
import { notFound } from "../problems.ts";
import { CHAT_COMPLETIONS_PATH, chatCompletions } from "../routes/chat-completions.ts";
import { fileRoute } from "../routes/files.ts";
import { serveAdmin } from "./admin.ts";
import { serveOAuth } from "./oauth.ts";
import { errorReply, send, type Serving } from "./serving.ts";
import { serveV2 } from "./v2.ts";

/** Answers one request (see the module comment); a failure of its own is an answer too. */
export async function dispatch(s: Serving, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? "GET";
  let target: Target;
  try {
    target = parseTarget(req.url ?? "/");
  } catch (err) {
    return send(s, res, errorReply(s, err, "the request target"));
  }
  const path = target.pathname;
  const { context, clock } = s.p;
  if (path === "/_sandbox" || path.startsWith("/_sandbox/")) return serveAdmin(s, req, res, target);
  // Compliance jobs' pre-signed upload and download URLs: outside the v2 API, no credentials.
  const file = fileRoute(method, path);
  if (file)
    return send(
      s,
      res,
      await file({ sandbox: context, req, query: target.query, limits: s.bodyLimits }).catch((err) =>
        errorReply(s, err, path),
      ),
    );
  // The language-model stand-in of the demo: not part of the service, outside every plan.
  if (path === CHAT_COMPLETIONS_PATH) {
    const data = context.data;
    const reply = await chatCompletions({
      req,
      clock,
      limits: s.bodyLimits,
      key: s.chatCompletionsKey,
      nextAnswer: () => (data.meter.stand_in_answers = (data.meter.stand_in_answers ?? 0) + 1),
    }).catch((err) => errorReply(s, err, path));
    countRequest(data, `${method} ${path}`, reply.status);
    return send(s, res, reply);
  }
  const oauth = matchOAuthRoute(method, path);
  if (oauth) return serveOAuth(s, req, res, target, oauth);
  let match: ReturnType<typeof matchEndpoint>;
  try {
    match = matchEndpoint(method, path);
  } catch {
    return send(s, res, errorReply(s, notFound(), path));
  }
  if (!match) {
    return send(
      s,
      res,
      replyOf(notFound(`No route matches ${method} ${path}. The service's endpoints are listed in spec part 4.`)),
    );
  }
  return serveV2(s, req, res, target, match.endpoint, match.params);
}
