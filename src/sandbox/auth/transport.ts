/**
 * Spec part 5 rule 1: every OAuth step requires HTTPS. The sandbox serves plain HTTP, and
 * postbot's rule for that (`src/api/secure-origin.ts`) is that plain HTTP is fine only on
 * loopback, where nothing leaves the machine. The sandbox keeps the same rule from its side:
 * an OAuth step (request token, the authorize pages with their passwords, access token)
 * arriving over plain HTTP from another machine is refused with the real service's answer to
 * a request that is not over TLS (403, code 92 "SSL is required"). A TLS-terminating proxy in
 * front of the sandbox that says `X-Forwarded-Proto: https` counts as HTTPS.
 */
import type { IncomingMessage } from "node:http";
import { isLoopbackHost } from "../../api/secure-origin.ts";
import { ReplyError, v1ErrorReply } from "../http/reply.ts";

/** Whether an OAuth step may be answered on this connection: loopback, or HTTPS before a proxy. */
export function secureEnough(remoteAddress: string | undefined, forwardedProto: string | string[] | undefined) {
  if (remoteAddress && isLoopbackHost(remoteAddress)) return true;
  const proto = Array.isArray(forwardedProto) ? forwardedProto[0] : forwardedProto;
  return proto?.split(",")[0]?.trim().toLowerCase() === "https";
}

/** Throws the 403 (code 92) for an OAuth step over plain HTTP from another machine. */
export function refusePlainHttp(req: Pick<IncomingMessage, "headers" | "socket">): void {
  if (secureEnough(req.socket.remoteAddress, req.headers["x-forwarded-proto"])) return;
  throw new ReplyError(
    v1ErrorReply({
      code: 92,
      message:
        "SSL is required: OAuth steps need HTTPS (spec part 5). The sandbox serves plain HTTP only to this machine (loopback); connect from it, or put a TLS proxy in front that sends X-Forwarded-Proto: https.",
      status: 403,
    }),
  );
}
