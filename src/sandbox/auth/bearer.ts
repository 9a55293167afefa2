/**
 * App-only bearer tokens (spec 4.3): `POST /oauth2/token` with HTTP Basic (API key and
 * secret) and `grant_type=client_credentials`, answering the app's one outstanding token;
 * `POST /oauth2/invalidate_token`, signed with OAuth 1.0a by the app's owner.
 */
import type { Incoming, Platform } from "../platform.ts";
import { jsonReply, ReplyError, v1ErrorReply, type Reply } from "../http/reply.ts";
import type { SandboxApp } from "../model/index.ts";
import { appByConsumerKey, issueBearer, sameSecret } from "./credentials.ts";
import { flows } from "./state.ts";
import { verifyOAuth1 } from "./verify-oauth1.ts";

/**
 * "Too frequently" (spec 4.3 rule 2), a number the spec does not give: more than 10 token
 * requests by one app within 15 minutes of sandbox clock are refused with 403/99. A client
 * that caches its token, as the spec asks, asks once; one that asks on every call is caught
 * within a few calls.
 */
export const BEARER_REQUESTS = { max: 10, windowMs: 15 * 60_000 } as const;

const unableToVerify = () =>
  new ReplyError(
    v1ErrorReply({
      code: 99,
      message: "Unable to verify your credentials",
      label: "authenticity_token_error",
      status: 403,
    }),
  );

const missing = (name: string) =>
  new ReplyError(
    v1ErrorReply({
      code: 170,
      message: `Missing required parameter: ${name}`,
      label: "forbidden_missing_parameter",
      status: 403,
    }),
  );

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))`, decoded; undefined when malformed. */
export function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = text.indexOf(":");
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(text.slice(0, colon)), secret: decodeURIComponent(text.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** Counts a token request of the app; false when it asked too often. */
function allowTokenRequest(p: Platform, app: SandboxApp, now: number): boolean {
  const w = p.windows.get(`POST /oauth2/token|a:${app.id}|15m`, BEARER_REQUESTS.max, BEARER_REQUESTS.windowMs);
  if (w.remaining(now) === 0) return false;
  w.record(now);
  return true;
}

/** `POST /oauth2/token`. */
export function bearerToken(p: Platform, inc: Incoming): Reply {
  const data = p.context.data;
  const basic = parseBasic(inc.req.headers.authorization);
  if (!basic) throw unableToVerify();
  const app = appByConsumerKey(data, basic.id);
  if (!app || !sameSecret(basic.secret, app.consumer_secret)) throw unableToVerify();
  const grant = inc.form.get("grant_type") ?? inc.target.query.get("grant_type");
  if (!grant) throw missing("grant_type");
  if (grant !== "client_credentials") {
    throw new ReplyError(
      v1ErrorReply({
        code: 170,
        message: "grant_type must be client_credentials",
        label: "forbidden_missing_parameter",
        status: 403,
      }),
    );
  }
  const now = p.clock.now();
  if (!allowTokenRequest(p, app, now)) throw unableToVerify();
  return jsonReply(200, { token_type: "bearer", access_token: issueBearer(data, now, app) });
}

/**
 * `POST /oauth2/invalidate_token?access_token=...`, signed with the app's keys and its owner's
 * access token (any of the app's user tokens when the app has no owner set).
 */
export function invalidateBearer(p: Platform, inc: Incoming): Reply {
  const { app, token } = verifyOAuth1(p, inc, "access");
  if (app.owner_id && token.user_id !== app.owner_id) {
    throw new ReplyError(
      v1ErrorReply({ code: 220, message: "Your credentials do not allow access to this resource.", status: 403 }),
    );
  }
  const target = inc.target.query.get("access_token") ?? inc.form.get("access_token");
  if (!target) throw missing("access_token");
  const data = p.context.data;
  const held = data.auth.bearer_tokens[app.id];
  if (!held || !sameSecret(target, held.token)) {
    throw new ReplyError(
      v1ErrorReply({
        code: 348,
        message: "Client application is not permitted to invalidate this token.",
        status: 403,
      }),
    );
  }
  delete data.auth.bearer_tokens[app.id];
  flows(data).revoked_bearers[target] = { app_id: app.id, revoked_at: p.clock.now() };
  return jsonReply(200, { access_token: target });
}
