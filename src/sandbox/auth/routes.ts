/**
 * The OAuth endpoints of spec 4.2 and 4.3 and the PKCE endpoints of wire-facts 4.4, by route
 * template. They answer form bodies, HTML pages, redirects and v1.1-style errors rather than
 * v2 JSON, so they have their own table next to the v2 routes.
 */
import { v1ErrorReply, ReplyError, type Reply } from "../http/reply.ts";
import type { Incoming, Platform } from "../platform.ts";
import { bearerToken, invalidateBearer } from "./bearer.ts";
import { accessToken, authorizeGet, authorizePost, invalidateToken, requestToken } from "./oauth1-flow.ts";
import { pkceAuthorizeGet, pkceAuthorizePost, pkceRevoke, pkceToken } from "./pkce.ts";

export type OAuthHandler = (p: Platform, inc: Incoming) => Reply;

/** OAuth routes by `"METHOD /path"` (the same keys stats and faults use). */
export const OAUTH_ROUTES: Record<string, OAuthHandler> = {
  "POST /oauth/request_token": requestToken,
  "GET /oauth/authorize": (p, inc) => authorizeGet(p, inc, "authorize"),
  "POST /oauth/authorize": (p, inc) => authorizePost(p, inc, "authorize"),
  "GET /oauth/authenticate": (p, inc) => authorizeGet(p, inc, "authenticate"),
  "POST /oauth/authenticate": (p, inc) => authorizePost(p, inc, "authenticate"),
  "POST /oauth/access_token": accessToken,
  "POST /1.1/oauth/invalidate_token": invalidateToken,
  "POST /oauth2/token": bearerToken,
  "POST /oauth2/invalidate_token": invalidateBearer,
  "GET /i/oauth2/authorize": pkceAuthorizeGet,
  "POST /i/oauth2/authorize": pkceAuthorizePost,
  "POST /2/oauth2/token": pkceToken,
  "POST /2/oauth2/revoke": pkceRevoke,
};

/** Paths that name the same route (the real service's shown request uses the `.json` suffix). */
const ALIASES: Record<string, string> = { "/1.1/oauth/invalidate_token.json": "/1.1/oauth/invalidate_token" };

/** The route template of an OAuth request, if it is one. */
export function matchOAuthRoute(method: string, pathname: string): string | undefined {
  const key = `${method} ${ALIASES[pathname] ?? pathname}`;
  return key in OAUTH_ROUTES ? key : undefined;
}

/**
 * The OAuth endpoints are "rate limited" with numbers the spec does not show (8.1 rule 6).
 * The sandbox allows each client address 900 calls per route in any 15 minutes: far above
 * what a flow needs (a handful of calls per sign-in), low enough that a client stuck in a
 * loop meets a 429. `POST /oauth2/token` has its own, stricter rule (403/99; see bearer.ts).
 */
export const OAUTH_LIMIT = { max: 900, windowMs: 15 * 60_000 } as const;

/** Counts an OAuth call; throws 429 (code 88, with the rate-limit headers) when over the limit. */
export function meterOAuth(p: Platform, route: string, client: string): void {
  const now = p.clock.now();
  const w = p.windows.get(`${route}|ip:${client}|15m`, OAUTH_LIMIT.max, OAUTH_LIMIT.windowMs);
  if (w.remaining(now) === 0) {
    throw new ReplyError(
      v1ErrorReply(
        { code: 88, message: "Rate limit exceeded", status: 429 },
        {
          "x-rate-limit-limit": String(OAUTH_LIMIT.max),
          "x-rate-limit-remaining": "0",
          "x-rate-limit-reset": String(Math.ceil(w.resetAt(now) / 1000)),
        },
      ),
    );
  }
  w.record(now);
}
