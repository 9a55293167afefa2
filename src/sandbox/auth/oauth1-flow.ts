/**
 * The OAuth 1.0a three-legged flow (spec 4.2, wire-facts 4.2): `POST /oauth/request_token`,
 * the `GET /oauth/authorize` and `GET /oauth/authenticate` pages where a person signs in and
 * approves, `POST /oauth/access_token`, and `POST /1.1/oauth/invalidate_token`.
 */
import { randomInt } from "node:crypto";
import type { Incoming, Platform } from "../platform.ts";
import {
  formReply,
  htmlReply,
  jsonReply,
  redirectReply,
  ReplyError,
  textReply,
  v1Error,
  v1ErrorReply,
  type Reply,
} from "../http/reply.ts";
import type { SandboxApp, SandboxUser } from "../model/index.ts";
import { issueAccessToken, randomToken, sameSecret, signInAllowed } from "./credentials.ts";
import { authorizePage, deniedPage, errorPage, pinPage } from "./html.ts";
import { CSRF_FIELD, csrfToken, refuseForgedPost } from "./csrf.ts";
import { checkCredentials, sessionUser, startSession, suggestedUsernames } from "./session.ts";
import { flows, grantKey, type RequestToken } from "./state.ts";
import { verifyOAuth1 } from "./verify-oauth1.ts";

/** How long a request token can be authorized and exchanged (sandbox clock). */
export const REQUEST_TOKEN_TTL_MS = 15 * 60_000;

const isTrue = (v: string | null | undefined) => v === "true" || v === "1";

/**
 * Whether a callback may be used with the app: `oob`, or a URL registered on the app. A
 * query string may be added to a registered URL (apps carry their own state there).
 */
export function callbackAllowed(app: SandboxApp, callback: string): boolean {
  if (callback === "oob") return true;
  const bare = callback.split("?")[0];
  return app.callback_urls.some((u) => u === callback || u === bare);
}

/** `POST /oauth/request_token`: signed with the consumer only; `oauth_callback` on every call. */
export function requestToken(p: Platform, inc: Incoming): Reply {
  const { app, params } = verifyOAuth1(p, inc, "none");
  const callback = params.get("oauth_callback");
  if (!callback) {
    throw new ReplyError(
      v1ErrorReply({
        code: 215,
        message:
          "oauth_callback is required on every request_token call: a registered callback URL, or oob for the PIN flow.",
        status: 400,
      }),
    );
  }
  if (!callbackAllowed(app, callback)) throw v1Error("callbackNotApproved");
  const accessParam = params.get("x_auth_access_type") ?? params.get("app_auth_access_type") ?? "write";
  if (accessParam !== "read" && accessParam !== "write") {
    throw new ReplyError(
      v1ErrorReply({ code: 215, message: "app_auth_access_type must be read or write.", status: 400 }),
    );
  }
  const now = p.clock.now();
  const tables = flows(p.context.data);
  for (const [k, t] of Object.entries(tables.request_tokens))
    if (t.created_at + REQUEST_TOKEN_TTL_MS <= now) delete tables.request_tokens[k];
  const rt: RequestToken = {
    token: randomToken(27),
    secret: randomToken(32),
    app_id: app.id,
    callback,
    access: accessParam,
    created_at: now,
  };
  tables.request_tokens[rt.token] = rt;
  return formReply({ oauth_token: rt.token, oauth_token_secret: rt.secret, oauth_callback_confirmed: "true" });
}

const INVALID_TOKEN_PAGE = () =>
  htmlReply(
    400,
    errorPage(
      "Whoa there!",
      "The request token for this page is invalid. It may have already been used, or expired because it is too old. Go back to the site or application that sent you here and try again.",
    ),
  );

function liveRequestToken(
  p: Platform,
  token: string | null | undefined,
): { rt: RequestToken; app: SandboxApp } | undefined {
  const rt = token ? flows(p.context.data).request_tokens[token] : undefined;
  if (!rt || rt.user_id || rt.created_at + REQUEST_TOKEN_TTL_MS <= p.clock.now()) return undefined;
  const app = p.context.data.auth.apps[rt.app_id];
  return app && { rt, app };
}

const permissions = (access: "read" | "write") =>
  access === "read"
    ? ["Read posts from your timeline.", "See who you follow."]
    : [
        "Read posts from your timeline.",
        "See who you follow, and follow new people.",
        "Update your profile.",
        "Post and delete posts for you.",
      ];

/** The user approved: remember it and send the browser back (or show the PIN). */
function approve(p: Platform, rt: RequestToken, app: SandboxApp, user: SandboxUser, cookie?: string): Reply {
  const now = p.clock.now();
  rt.user_id = user.id;
  rt.verifier = rt.callback === "oob" ? String(randomInt(1_000_000, 10_000_000)) : randomToken(32);
  flows(p.context.data).grants[grantKey(app.id, user.id)] = { created_at: now, access: rt.access };
  const headers: Record<string, string> = cookie ? { "set-cookie": cookie } : {};
  if (rt.callback === "oob") return htmlReply(200, pinPage(app.name, rt.verifier), headers);
  const sep = rt.callback.includes("?") ? "&" : "?";
  return redirectReply(
    `${rt.callback}${sep}oauth_token=${encodeURIComponent(rt.token)}&oauth_verifier=${encodeURIComponent(rt.verifier)}`,
    headers,
  );
}

/** The sign-in-and-approve page of a request token (status 401 when it shows a sign-in error). */
function pageFor(
  p: Platform,
  inc: Incoming,
  found: { rt: RequestToken; app: SandboxApp },
  mode: "authorize" | "authenticate",
  o: { force: boolean; signedInAs?: string; username?: string; error?: string },
): Reply {
  const { rt, app } = found;
  const hidden: Record<string, string> = { oauth_token: rt.token, [CSRF_FIELD]: csrfToken(p, inc, rt.token) };
  if (o.force) hidden.force_login = "true";
  return htmlReply(
    o.error ? 401 : 200,
    authorizePage({
      action: `/oauth/${mode}`,
      appName: app.name,
      hidden,
      signedInAs: o.signedInAs,
      username: o.username,
      access: rt.access,
      permissions: permissions(rt.access),
      usernames: o.signedInAs ? undefined : suggestedUsernames(p),
      error: o.error,
    }),
  );
}

/**
 * `GET /oauth/authorize` and `GET /oauth/authenticate`. Authenticate signs in with the
 * browser's session and, when that user already granted the app and the app's sign-in
 * setting is on, redirects without asking again; `force_login=true` always asks for
 * credentials; `screen_name` prefills the username.
 */
export function authorizeGet(p: Platform, inc: Incoming, mode: "authorize" | "authenticate"): Reply {
  const q = inc.target.query;
  const found = liveRequestToken(p, q.get("oauth_token"));
  if (!found) return INVALID_TOKEN_PAGE();
  const { rt, app } = found;
  const force = isTrue(q.get("force_login"));
  const user = force ? undefined : sessionUser(p, inc);
  if (
    mode === "authenticate" &&
    user &&
    signInAllowed(app) &&
    flows(p.context.data).grants[grantKey(app.id, user.id)]
  ) {
    return approve(p, rt, app, user);
  }
  return pageFor(p, inc, found, mode, {
    force,
    signedInAs: user?.username,
    username: q.get("screen_name") ?? undefined,
  });
}

/** The form of the authorize page: approve (signing in if needed) or cancel. */
export function authorizePost(p: Platform, inc: Incoming, mode: "authorize" | "authenticate"): Reply {
  const f = inc.form;
  const found = liveRequestToken(p, f.get("oauth_token"));
  if (!found) return INVALID_TOKEN_PAGE();
  const { rt, app } = found;
  const forged = refuseForgedPost(p, inc, rt.token);
  if (forged) return forged;
  if (f.get("decision") === "deny") {
    delete flows(p.context.data).request_tokens[rt.token];
    if (rt.callback === "oob") return htmlReply(200, deniedPage(app.name));
    const sep = rt.callback.includes("?") ? "&" : "?";
    return redirectReply(`${rt.callback}${sep}denied=${encodeURIComponent(rt.token)}`);
  }
  const force = isTrue(f.get("force_login"));
  const typed = f.get("username") || f.get("password");
  const session = force || typed ? undefined : sessionUser(p, inc);
  if (session) return approve(p, rt, app, session);

  const checked = checkCredentials(p, f.get("username") ?? "", f.get("password") ?? "");
  if (typeof checked === "string")
    return pageFor(p, inc, found, mode, { force, username: f.get("username") ?? undefined, error: checked });
  return approve(p, rt, app, checked, startSession(p, checked));
}

/** `POST /oauth/access_token`: signed with the request token; `oauth_verifier` strictly required. */
export function accessToken(p: Platform, inc: Incoming): Reply {
  const { app, token: rt, params } = verifyOAuth1(p, inc, "request");
  const verifier = params.get("oauth_verifier");
  const now = p.clock.now();
  if (!verifier || !rt.verifier || !sameSecret(verifier, rt.verifier) || rt.created_at + REQUEST_TOKEN_TTL_MS <= now) {
    return textReply(401, "Error processing your OAuth request: Invalid oauth_verifier parameter");
  }
  const user = p.context.data.world.users[rt.user_id!];
  delete flows(p.context.data).request_tokens[rt.token];
  if (!user) return textReply(401, "Error processing your OAuth request: Invalid oauth_verifier parameter");
  const issued = issueAccessToken(p.context.data, now, app, user, rt.access);
  return formReply({
    oauth_token: issued.token,
    oauth_token_secret: issued.token_secret,
    user_id: issued.user_id,
    screen_name: issued.screen_name,
  });
}

/**
 * `POST /1.1/oauth/invalidate_token`: signed with the token to invalidate. Afterwards it is
 * refused with 401/89, and authorizing again makes a different token.
 */
export function invalidateToken(p: Platform, inc: Incoming): Reply {
  const { app, token } = verifyOAuth1(p, inc, "access");
  token.invalidated_at = p.clock.now();
  delete flows(p.context.data).grants[grantKey(app.id, token.user_id)];
  return jsonReply(200, { access_token: token.token });
}
