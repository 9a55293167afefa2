/**
 * Authenticating an OAuth 1.0a signed request against the sandbox's state: the header's
 * parameters, the consumer, the token (an access token, a request token, or none), the
 * timestamp window and the nonce, then the signature (RFC 5849 3.2). Every refusal is the
 * real service's v1.1-style error (wire-facts 3.3).
 */
import { type SandboxAccessToken, type SandboxApp } from "../model/index.ts";
import type { Incoming, Platform } from "../platform.ts";
import { v1Error, ReplyError, v1ErrorReply } from "../http/reply.ts";
import { parseOAuthHeader, verifySignature } from "./oauth1.ts";
import { appByConsumerKey } from "./credentials.ts";
import { flows, type RequestToken } from "./state.ts";

/** How far `oauth_timestamp` may be from the sandbox clock (the real service allows 5 minutes). */
export const TIMESTAMP_WINDOW_MS = 5 * 60_000;

const REQUIRED = [
  "oauth_consumer_key",
  "oauth_nonce",
  "oauth_signature",
  "oauth_signature_method",
  "oauth_timestamp",
] as const;

export type TokenKind = "access" | "request" | "none";

export interface VerifiedOAuth1<K extends TokenKind> {
  app: SandboxApp;
  token: K extends "access" ? SandboxAccessToken : K extends "request" ? RequestToken : undefined;
  /** Every parameter of the request (query, form body, header), for the endpoints that read `oauth_*` ones. */
  params: Map<string, string>;
}

/** Whether the request carries an `Authorization: OAuth` header at all. */
export const hasOAuthHeader = (inc: Incoming) => /^\s*OAuth\s/i.test(inc.req.headers.authorization ?? "");

const badData = () => new ReplyError(v1ErrorReply({ code: 215, message: "Bad Authentication data.", status: 400 }));

/**
 * Verifies the request's OAuth 1.0a signature. `kind` says which token must sign it:
 * an access token (v2 endpoints, invalidate_token), a request token (access_token step), or
 * none (request_token step).
 */
export function verifyOAuth1<K extends TokenKind>(p: Platform, inc: Incoming, kind: K): VerifiedOAuth1<K> {
  const header = parseOAuthHeader(inc.req.headers.authorization ?? "");
  if (!header) throw badData();
  for (const name of REQUIRED) if (!header.params.get(name)) throw badData();
  const h = header.params;
  if (h.get("oauth_signature_method") !== "HMAC-SHA1") throw v1Error("couldNotAuthenticate");
  const version = h.get("oauth_version");
  if (version !== undefined && version !== "1.0") throw v1Error("couldNotAuthenticate");

  const data = p.context.data;
  const app = appByConsumerKey(data, h.get("oauth_consumer_key")!);
  if (!app) throw v1Error("couldNotAuthenticate");

  const ts = h.get("oauth_timestamp")!;
  const now = p.clock.now();
  if (!/^\d{1,12}$/.test(ts) || Math.abs(Number(ts) * 1000 - now) > TIMESTAMP_WINDOW_MS) {
    throw v1Error("timestampOutOfBounds");
  }

  const tokenValue = h.get("oauth_token");
  let tokenSecret = "";
  let token: SandboxAccessToken | RequestToken | undefined;
  if (kind === "access") {
    const t = tokenValue ? data.auth.access_tokens[tokenValue] : undefined;
    if (!t || t.app_id !== app.id) throw v1Error("couldNotAuthenticate");
    token = t;
    tokenSecret = t.secret;
  } else if (kind === "request") {
    const t = tokenValue ? flows(data).request_tokens[tokenValue] : undefined;
    if (!t || t.app_id !== app.id) throw v1Error("couldNotAuthenticate");
    token = t;
    tokenSecret = t.secret;
  }

  const signed: Array<[string, string]> = [];
  for (const [k, v] of inc.target.query) signed.push([k, v]);
  for (const [k, v] of inc.form) signed.push([k, v]);
  for (const [k, v] of h) signed.push([k, v]);

  const check = (params: Array<[string, string]>) =>
    verifySignature(
      { method: inc.method, uri: inc.uri, params, signature: h.get("oauth_signature")! },
      app.consumer_secret,
      tokenSecret,
    );
  // RFC 5849 signs a parameter sent twice twice; widely used clients (twitter-api-v2's
  // `login`) also send `oauth_token` in the body of the access_token step and sign it once,
  // and the service accepts both.
  const once = () => signed.filter(([k, v], i) => !(i < signed.length - h.size && h.get(k) === v));
  if (!check(signed) && !check(once())) throw v1Error("couldNotAuthenticate");

  if (kind === "access" && (token as SandboxAccessToken).invalidated_at !== undefined)
    throw v1Error("invalidOrExpiredToken");

  const nonceKey = `${app.consumer_key}|${tokenValue ?? ""}|${h.get("oauth_nonce")}`;
  if (!p.nonces.use(nonceKey, Number(ts) * 1000, now)) throw v1Error("couldNotAuthenticate");

  return {
    app,
    token: token as VerifiedOAuth1<K>["token"],
    // Built on demand (v2 requests never read it). Later entries win: header over form over query.
    get params() {
      return new Map(signed);
    },
  };
}
