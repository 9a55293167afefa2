/**
 * Who is calling a v2 endpoint (spec part 5): an OAuth 1.0a signature, an app-only bearer
 * token, or a PKCE user token. Bearer and PKCE tokens both travel as
 * `Authorization: Bearer` (wire-facts 4.3); they are told apart by looking the value up.
 */
import { createHash } from "node:crypto";
import type { Incoming, Platform } from "../platform.ts";
import type { Caller } from "../route.ts";
import { unauthorized, v1Error } from "../http/reply.ts";
import { appByBearer } from "./credentials.ts";
import { flows } from "./state.ts";
import { hasOAuthHeader, verifyOAuth1 } from "./verify-oauth1.ts";

export interface Authenticated {
  caller: Caller;
  /**
   * The key of the caller's U windows (spec 8.1 rule 2): one per OAuth 1.0a access token,
   * one per user and app under PKCE (so a refreshed token keeps its count). Absent for
   * app-only callers, which have only A windows.
   */
  userKey?: string;
  /** The access level an OAuth 1.0a token was granted (`app_auth_access_type`). */
  access: "read" | "write";
}

/** A short, non-secret name for a token, so windows and logs never hold the token itself. */
export function tokenId(token: string): string {
  let id = tokenIds.get(token);
  if (id === undefined) {
    id = createHash("sha256").update(token).digest("base64url").slice(0, 16);
    if (tokenIds.size >= 10_000) tokenIds.clear();
    tokenIds.set(token, id);
  }
  return id;
}

/** Hashing on every request shows in profiles; tokens are few, so their ids are remembered. */
const tokenIds = new Map<string, string>();

/** Authenticates a v2 request, or throws the reply the real service would give. */
export function authenticate(p: Platform, inc: Incoming): Authenticated {
  const data = p.context.data;
  const header = inc.req.headers.authorization ?? "";
  if (hasOAuthHeader(inc)) {
    const { app, token } = verifyOAuth1(p, inc, "access");
    const user = data.world.users[token.user_id];
    if (!user || user.suspended || user.deactivated) throw v1Error("invalidOrExpiredToken");
    return { caller: { method: "oauth1", app, user }, userKey: `t:${tokenId(token.token)}`, access: token.access };
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!bearer) throw unauthorized();

  const app = appByBearer(data, bearer);
  if (app) return { caller: { method: "app", app }, access: "write" };

  const pkce = data.auth.pkce_tokens[bearer];
  if (pkce) {
    if (pkce.revoked_at !== undefined || pkce.expires_at <= p.clock.now()) throw v1Error("invalidOrExpiredToken");
    const pkceApp = data.auth.apps[pkce.app_id];
    const user = data.world.users[pkce.user_id];
    if (!pkceApp || !user || user.suspended || user.deactivated) throw v1Error("invalidOrExpiredToken");
    return {
      caller: { method: "pkce", app: pkceApp, user, scopes: pkce.scopes },
      userKey: `p:${pkceApp.id}:${user.id}`,
      access: "write",
    };
  }
  if (flows(data).revoked_bearers[bearer]) throw v1Error("invalidOrExpiredToken");
  throw unauthorized();
}
