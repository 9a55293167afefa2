/**
 * The CSRF token of the authorization pages. The danger is a page elsewhere making a
 * signed-in browser post "Authorize" for someone else's request token or PKCE request: the
 * session cookie would approve it without a password. So each form carries a token bound to
 * both the flow (the request token, or the PKCE request's client, redirect, state and
 * challenge) and the browser's session cookie: a token fetched by anyone else (another
 * browser, a server) does not match the victim's cookie, and a post without one, or with a
 * wrong one, is refused with 403.
 *
 * The token is an HMAC under a key kept in the sandbox's state, so nothing per form is
 * stored and a form opened before a restart still works after it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { htmlReply, type Reply } from "../http/reply.ts";
import type { Incoming, Platform } from "../platform.ts";
import { errorPage } from "./html.ts";
import { sameSecret } from "./credentials.ts";
import { SESSION_COOKIE } from "./session.ts";

/** The hidden field's name. */
export const CSRF_FIELD = "csrf_token";

function key(p: Platform): string {
  const auth = p.context.data.auth as Record<string, unknown>;
  if (typeof auth.csrf_key !== "string") auth.csrf_key = randomBytes(32).toString("base64url");
  return auth.csrf_key as string;
}

/** The token for this flow in this browser (as its session cookie says). */
export function csrfToken(p: Platform, inc: Incoming, flow: string): string {
  return createHmac("sha256", key(p))
    .update(`${flow}\n${inc.cookies.get(SESSION_COOKIE) ?? ""}`)
    .digest("base64url");
}

/** The 403 page for a post whose token is missing or wrong; undefined when it is right. */
export function refuseForgedPost(p: Platform, inc: Incoming, flow: string): Reply | undefined {
  const given = inc.form.get(CSRF_FIELD) ?? "";
  if (given && sameSecret(given, csrfToken(p, inc, flow))) return undefined;
  return htmlReply(
    403,
    errorPage(
      "This form cannot be used",
      "The form was not sent from this browser's authorization page (its security token is missing or wrong). Open the authorization link again.",
    ),
  );
}
