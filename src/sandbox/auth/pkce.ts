/**
 * OAuth 2.0 Authorization Code with PKCE (wire-facts 4.4): the authorize page
 * `GET /i/oauth2/authorize`, the token endpoint `POST /2/oauth2/token` (authorization_code and
 * refresh_token grants), and `POST /2/oauth2/revoke`. Access tokens live two hours of sandbox
 * clock; a refresh token is issued only with `offline.access` and rotates on every use.
 */
import { createHash } from "node:crypto";
import { ALL_SCOPES, type Scope } from "../../api/endpoints.ts";
import type { Incoming, Platform } from "../platform.ts";
import { htmlReply, jsonReply, redirectReply, type Reply } from "../http/reply.ts";
import type { SandboxApp, SandboxUser } from "../model/index.ts";
import { appByClientId, randomToken, sameSecret } from "./credentials.ts";
import { parseBasic } from "./bearer.ts";
import { authorizePage, errorPage } from "./html.ts";
import { CSRF_FIELD, csrfToken, refuseForgedPost } from "./csrf.ts";
import { checkCredentials, sessionUser, startSession, suggestedUsernames } from "./session.ts";
import { flows, type PkceCode } from "./state.ts";

/** Access token lifetime: two hours (`expires_in: 7200`). */
export const PKCE_ACCESS_TTL_MS = 2 * 3_600_000;
/** How long an authorization code can be exchanged (RFC 6749 recommends at most 10 minutes). */
export const PKCE_CODE_TTL_MS = 10 * 60_000;

const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const KNOWN_SCOPES = new Set<string>(ALL_SCOPES);

/** The authorization request's parameters, validated. */
interface AuthorizeParams {
  app: SandboxApp;
  redirect_uri: string;
  scopes: Scope[];
  state: string;
  challenge: string;
  method: "S256" | "plain";
}

const redirectWith = (uri: string, params: Record<string, string>) =>
  redirectReply(`${uri}${uri.includes("?") ? "&" : "?"}${new URLSearchParams(params).toString()}`);

/**
 * Validates an authorization request (from the page's query or its form). Errors about the
 * client or redirect URI are shown on a page (the URI cannot be trusted with a redirect);
 * every other error goes back to the app as `error=...` (RFC 6749 4.1.2.1).
 */
function readAuthorize(p: Platform, q: URLSearchParams): AuthorizeParams | Reply {
  const app = appByClientId(p.context.data, q.get("client_id") ?? "");
  if (!app) return htmlReply(400, errorPage("Something went wrong", "The client_id does not name a registered app."));
  const redirect_uri = q.get("redirect_uri") ?? "";
  if (!app.callback_urls.includes(redirect_uri)) {
    return htmlReply(
      400,
      errorPage(
        "Something went wrong",
        "The redirect_uri is not one of the app's registered callback URLs; it must match exactly.",
      ),
    );
  }
  const state = q.get("state") ?? "";
  const fail = (error: string, description: string) =>
    redirectWith(redirect_uri, { error, error_description: description, ...(state ? { state } : {}) });
  if (q.get("response_type") !== "code") return fail("unsupported_response_type", "response_type must be code.");
  if (!state) return fail("invalid_request", "Missing required parameter [state].");
  const scopeText = (q.get("scope") ?? "").trim();
  if (!scopeText) return fail("invalid_scope", "Missing required parameter [scope].");
  const scopes = [...new Set(scopeText.split(/\s+/))];
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length > 0) return fail("invalid_scope", `Unknown scope: ${unknown.join(", ")}.`);
  const challenge = q.get("code_challenge") ?? "";
  if (!challenge) return fail("invalid_request", "Missing required parameter [code_challenge].");
  const m = (q.get("code_challenge_method") ?? "plain").toLowerCase();
  if (m !== "s256" && m !== "plain") return fail("invalid_request", "code_challenge_method must be S256 or plain.");
  return { app, redirect_uri, scopes: scopes as Scope[], state, challenge, method: m === "s256" ? "S256" : "plain" };
}

const FORWARDED = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
];

/** What a CSRF token of the page binds to: the request's client, redirect, state and challenge. */
const flowOf = (a: AuthorizeParams) => [a.app.client_id, a.redirect_uri, a.state, a.challenge].join("\n");

function pageFor(
  p: Platform,
  inc: Incoming,
  a: AuthorizeParams,
  q: URLSearchParams,
  user: SandboxUser | undefined,
  error?: string,
  status = 200,
): Reply {
  const hidden: Record<string, string> = {};
  for (const k of FORWARDED) {
    const v = q.get(k);
    if (v !== null) hidden[k] = v;
  }
  hidden[CSRF_FIELD] = csrfToken(p, inc, flowOf(a));
  return htmlReply(
    status,
    authorizePage({
      action: "/i/oauth2/authorize",
      appName: a.app.name,
      hidden,
      signedInAs: user?.username,
      permissions: a.scopes,
      usernames: user ? undefined : suggestedUsernames(p),
      error,
    }),
  );
}

/** `GET /i/oauth2/authorize`: the sign-in-and-approve page. */
export function pkceAuthorizeGet(p: Platform, inc: Incoming): Reply {
  const a = readAuthorize(p, inc.target.query);
  if ("status" in a) return a;
  return pageFor(p, inc, a, inc.target.query, sessionUser(p, inc));
}

/** The page's form: approve (signing in when needed) or cancel. */
export function pkceAuthorizePost(p: Platform, inc: Incoming): Reply {
  const f = inc.form;
  const a = readAuthorize(p, f);
  if ("status" in a) return a;
  const forged = refuseForgedPost(p, inc, flowOf(a));
  if (forged) return forged;
  if (f.get("decision") === "deny") return redirectWith(a.redirect_uri, { error: "access_denied", state: a.state });
  let user = f.get("username") || f.get("password") ? undefined : sessionUser(p, inc);
  let cookie: string | undefined;
  if (!user) {
    const checked = checkCredentials(p, f.get("username") ?? "", f.get("password") ?? "");
    if (typeof checked === "string") return pageFor(p, inc, a, f, undefined, checked, 401);
    user = checked;
    cookie = startSession(p, user);
  }
  const code: PkceCode = {
    code: randomToken(60, URL_SAFE),
    app_id: a.app.id,
    user_id: user.id,
    redirect_uri: a.redirect_uri,
    scopes: a.scopes,
    challenge: a.challenge,
    method: a.method,
    expires_at: p.clock.now() + PKCE_CODE_TTL_MS,
  };
  flows(p.context.data).pkce_codes[code.code] = code;
  const reply = redirectWith(a.redirect_uri, { state: a.state, code: code.code });
  if (cookie) reply.headers["set-cookie"] = cookie;
  return reply;
}

/** An RFC 6749 error answer. */
const oauthError = (status: number, error: string, description: string) =>
  jsonReply(status, { error, error_description: description });

/**
 * The client of a token or revoke request: HTTP Basic (confidential clients) or `client_id`
 * in the body (public clients).
 */
function client(p: Platform, inc: Incoming): SandboxApp | Reply {
  const data = p.context.data;
  const bodyId = inc.form.get("client_id");
  if (inc.req.headers.authorization) {
    const basic = parseBasic(inc.req.headers.authorization);
    const app = basic && appByClientId(data, basic.id);
    if (!basic || !app || !sameSecret(basic.secret, app.client_secret))
      return oauthError(401, "invalid_client", "Client authentication failed.");
    if (bodyId && bodyId !== basic.id)
      return oauthError(400, "invalid_request", "client_id does not match the authenticated client.");
    return app;
  }
  if (!bodyId) return oauthError(400, "invalid_request", "Missing required parameter [client_id].");
  return appByClientId(data, bodyId) ?? oauthError(401, "invalid_client", "Client authentication failed.");
}

/** Issues an access token (and a refresh token with `offline.access`). */
function issue(p: Platform, app: SandboxApp, userId: string, scopes: Scope[]): Reply {
  const data = p.context.data;
  const now = p.clock.now();
  for (const [k, t] of Object.entries(data.auth.pkce_tokens))
    if (t.expires_at + 30 * 24 * 3_600_000 < now) delete data.auth.pkce_tokens[k];
  const access_token = randomToken(80, URL_SAFE);
  data.auth.pkce_tokens[access_token] = {
    token: access_token,
    app_id: app.id,
    user_id: userId,
    scopes,
    expires_at: now + PKCE_ACCESS_TTL_MS,
  };
  const body: Record<string, unknown> = {
    token_type: "bearer",
    expires_in: PKCE_ACCESS_TTL_MS / 1000,
    access_token,
    scope: scopes.join(" "),
  };
  if (scopes.includes("offline.access")) {
    const refresh_token = randomToken(80, URL_SAFE);
    flows(data).refresh_tokens[refresh_token] = {
      token: refresh_token,
      app_id: app.id,
      user_id: userId,
      scopes,
      created_at: now,
    };
    body.refresh_token = refresh_token;
  }
  return jsonReply(200, body);
}

/** `S256`: base64url(SHA-256(verifier)) without padding; `plain`: the verifier itself. */
export function challengeOf(verifier: string, method: "S256" | "plain"): string {
  return method === "plain" ? verifier : createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** `POST /2/oauth2/token`. */
export function pkceToken(p: Platform, inc: Incoming): Reply {
  const app = client(p, inc);
  if ("status" in app) return app;
  const f = inc.form;
  const tables = flows(p.context.data);
  const grant = f.get("grant_type");
  if (grant === "authorization_code") {
    const codeValue = f.get("code");
    if (!codeValue) return oauthError(400, "invalid_request", "Missing required parameter [code].");
    const code = tables.pkce_codes[codeValue];
    if (!code || code.app_id !== app.id || code.expires_at <= p.clock.now()) {
      return oauthError(400, "invalid_request", "Value passed for the authorization code was invalid.");
    }
    if (f.get("redirect_uri") !== code.redirect_uri)
      return oauthError(
        400,
        "invalid_request",
        "Value passed for the redirect_uri did not match the authorization request.",
      );
    const verifier = f.get("code_verifier");
    if (!verifier) return oauthError(400, "invalid_request", "Missing required parameter [code_verifier].");
    if (challengeOf(verifier, code.method) !== code.challenge) {
      return oauthError(400, "invalid_request", "Value passed for the code verifier did not match the code challenge.");
    }
    delete tables.pkce_codes[codeValue];
    return issue(p, app, code.user_id, code.scopes);
  }
  if (grant === "refresh_token") {
    const value = f.get("refresh_token");
    if (!value) return oauthError(400, "invalid_request", "Missing required parameter [refresh_token].");
    const rt = tables.refresh_tokens[value];
    if (!rt || rt.app_id !== app.id)
      return oauthError(400, "invalid_request", "Value passed for the token was invalid.");
    delete tables.refresh_tokens[value];
    return issue(p, app, rt.user_id, rt.scopes);
  }
  if (!grant) return oauthError(400, "invalid_request", "Missing required parameter [grant_type].");
  return oauthError(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
}

/** `POST /2/oauth2/revoke`: revokes an access or refresh token of the client. */
export function pkceRevoke(p: Platform, inc: Incoming): Reply {
  const app = client(p, inc);
  if ("status" in app) return app;
  const value = inc.form.get("token");
  if (!value) return oauthError(400, "invalid_request", "Missing required parameter [token].");
  const data = p.context.data;
  const access = data.auth.pkce_tokens[value];
  if (access && access.app_id === app.id) access.revoked_at ??= p.clock.now();
  const refresh = flows(data).refresh_tokens[value];
  if (refresh && refresh.app_id === app.id) delete flows(data).refresh_tokens[value];
  return jsonReply(200, { revoked: true });
}
