/**
 * The request-phase faults a test injects through the admin API (`faults.ts` keeps them): a
 * delay before the request is handled, a reset connection, or an error answer in place of the
 * handler's. Applied before the body is read, as the service's front end would fail.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { jsonReply, textReply } from "../http/reply.ts";
import { countRequest } from "../meter/stats.ts";
import { CLIENT_GONE, send, type Serving } from "./serving.ts";

/** Applies a request-phase fault of `route`; true when it answered (or killed) the request. */
export async function requestFault(
  s: Serving,
  route: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const fault = s.p.faults.take(route, "request");
  if (!fault) return false;
  const data = s.p.context.data;
  if (fault.kind === "delay") {
    // A client that hangs up during the delay is gone: its request is not handled (a
    // stream would take the app's one connection for nobody).
    const gone = new AbortController();
    const leave = () => gone.abort();
    res.once("close", leave);
    try {
      await s.p.clock.sleep(fault.delay_ms, AbortSignal.any([s.closing, gone.signal]));
    } catch (err) {
      if (s.closing.aborted) throw err;
      countRequest(data, route, CLIENT_GONE);
      return true;
    } finally {
      res.off("close", leave);
    }
    return false;
  }
  if (fault.kind === "reset") {
    req.socket.destroy();
    return true;
  }
  if (fault.kind === "error") {
    const body =
      fault.body === undefined
        ? {
            title: STATUS_CODES[fault.status] ?? "Error",
            detail: STATUS_CODES[fault.status] ?? "Error",
            type: "about:blank",
            status: fault.status,
          }
        : fault.body;
    const reply = typeof body === "string" ? textReply(fault.status, body) : jsonReply(fault.status, body);
    send(s, res, { ...reply, headers: { ...reply.headers, ...fault.headers } });
    countRequest(data, route, fault.status);
    return true;
  }
  return false;
}
