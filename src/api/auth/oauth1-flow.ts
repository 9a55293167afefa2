/**
 * The 3-legged OAuth 1.0a flow (spec 4.2) as four functions: get a request token, send the
 * person to the authorize page, trade the verifier (or PIN) for an access token, and later
 * invalidate it. `bot auth login` strings them together in a terminal; a web app can call
 * them from its own routes.
 *
 * @example
 * ```ts
 * const rt = await requestToken(baseUrl, { consumer, callback: "oob", clock });
 * console.log(authorizeUrl(baseUrl, rt.token));
 * const at = await accessToken(baseUrl, { consumer, requestToken: rt, verifier: pin, clock });
 * ```
 */
import type { Clock } from "../../clock.ts";
import { ResponseError, type RequestInfo } from "../errors.ts";
import { encodeQuery } from "../query.ts";
import { parseEnvelope, parseForm } from "../responses.ts";
import { oauth1Header, type ConsumerCredentials, type OAuth1Token } from "./oauth1.ts";
import { expectSuccess, pageUrl, withService, type ServiceRef } from "./service.ts";

/** A request token: step one's answer, signed into step three. */
export interface RequestToken extends OAuth1Token {
  /** The service confirmed the callback (`oauth_callback_confirmed=true`). */
  callbackConfirmed: boolean;
}

/** An account's access token, with who it belongs to. */
export interface AccessToken extends OAuth1Token {
  userId: string;
  screenName: string;
}

/** Signs and sends one POST of the flow; answers the body of a success, or throws its typed error. */
async function signedPost(
  service: ServiceRef,
  path: string,
  opts: {
    consumer: ConsumerCredentials;
    token?: OAuth1Token;
    query?: Record<string, string>;
    oauthParams?: Record<string, string>;
    clock: Clock;
    signal?: AbortSignal;
  },
) {
  return withService(service, async (transport) => {
    const query = encodeQuery(opts.query);
    const url = transport.url(path, query);
    const authorization = oauth1Header({
      consumer: opts.consumer,
      method: "POST",
      url,
      clock: opts.clock,
      ...(opts.token ? { token: opts.token } : {}),
      ...(opts.oauthParams ? { oauthParams: opts.oauthParams } : {}),
    });
    const info: RequestInfo = { method: "POST", path };
    const res = await transport.send({
      ...info,
      query,
      headers: { authorization },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return { info, res: expectSuccess(info, res) };
  });
}

/**
 * Step 1: `POST /oauth/request_token`. `callback` is a URL registered on the app, or `"oob"`
 * for the PIN flow; the spec requires it on every call. `accessType` asks for less than the
 * app's level (`read` for a read/write app).
 */
export async function requestToken(
  service: ServiceRef,
  opts: {
    consumer: ConsumerCredentials;
    callback: string;
    accessType?: "read" | "write";
    clock: Clock;
    signal?: AbortSignal;
  },
): Promise<RequestToken> {
  const { info, res } = await signedPost(service, "/oauth/request_token", {
    consumer: opts.consumer,
    clock: opts.clock,
    oauthParams: { oauth_callback: opts.callback },
    ...(opts.accessType ? { query: { app_auth_access_type: opts.accessType } } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const f = parseForm(info, res, ["oauth_token", "oauth_token_secret"]);
  if (f.oauth_callback_confirmed !== "true") {
    throw new ResponseError(
      info,
      "the service did not confirm the callback (oauth_callback_confirmed is not true); refusing the request token",
    );
  }
  return { token: f.oauth_token!, secret: f.oauth_token_secret!, callbackConfirmed: true };
}

/**
 * Step 2: the page where the person signs in and approves. `authenticate` uses
 * `/oauth/authenticate` (sign-in flow: no re-approval once granted); desktop apps and the
 * PIN flow use `/oauth/authorize` (the default).
 */
export function authorizeUrl(
  service: ServiceRef,
  requestToken: string,
  opts: { forceLogin?: boolean; screenName?: string; authenticate?: boolean } = {},
): string {
  const query = encodeQuery({
    oauth_token: requestToken,
    force_login: opts.forceLogin ? "true" : undefined,
    screen_name: opts.screenName,
  });
  return pageUrl(service, `/oauth/${opts.authenticate ? "authenticate" : "authorize"}`, query);
}

/**
 * Step 3: `POST /oauth/access_token`, signed with the request token, carrying the verifier
 * (the callback's `oauth_verifier`, or the PIN) in the query string as the spec says.
 */
export async function accessToken(
  service: ServiceRef,
  opts: {
    consumer: ConsumerCredentials;
    requestToken: OAuth1Token;
    verifier: string;
    clock: Clock;
    signal?: AbortSignal;
  },
): Promise<AccessToken> {
  const verifier = opts.verifier.trim();
  const { info, res } = await signedPost(service, "/oauth/access_token", {
    consumer: opts.consumer,
    token: opts.requestToken,
    clock: opts.clock,
    query: { oauth_verifier: verifier },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const f = parseForm(info, res, ["oauth_token", "oauth_token_secret", "user_id"]);
  return { token: f.oauth_token!, secret: f.oauth_token_secret!, userId: f.user_id!, screenName: f.screen_name ?? "" };
}

/**
 * `POST /1.1/oauth/invalidate_token`: revokes an access token, signed with that token. Every
 * later use of it answers 401 with code 89.
 */
export async function invalidateToken(
  service: ServiceRef,
  opts: { consumer: ConsumerCredentials; token: OAuth1Token; clock: Clock; signal?: AbortSignal },
): Promise<void> {
  const { info, res } = await signedPost(service, "/1.1/oauth/invalidate_token", {
    consumer: opts.consumer,
    token: opts.token,
    clock: opts.clock,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const body = parseEnvelope(info, res);
  if (typeof body.access_token !== "string")
    throw new ResponseError(info, "the answer lacks access_token", { status: res.status });
}
