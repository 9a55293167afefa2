/**
 * The sandbox's apps and credentials: everything the authentication layer verifies.
 * Plain JSON, so the whole sandbox state can be saved to a file and loaded again.
 */
import type { Scope } from "../../api/endpoints.ts";
import type { Plan } from "../../limits/types.ts";

/** An app (a developer's client). Each has its own plan; apps of different plans coexist. */
export interface SandboxApp {
  id: string;
  name: string;
  plan: Plan;
  consumer_key: string;
  consumer_secret: string;
  /** Callback URLs registered for the 3-legged flow and PKCE redirects. */
  callback_urls: string[];
  /** Academic Research access: needed for full-archive search. */
  academic: boolean;
  /**
   * The app record's sign-in setting (spec 4.2, `GET /oauth/authenticate`): when on, a user
   * who already granted the app is sent back without being asked again. Absent (state from
   * before the setting) means on; read it through `signInAllowed`.
   */
  allow_sign_in?: boolean;
  /** The OAuth 2.0 client id used by PKCE. */
  client_id: string;
  /** The OAuth 2.0 client secret: confidential PKCE clients authenticate with HTTP Basic. */
  client_secret: string;
  /**
   * The user who owns the app: `POST /oauth2/invalidate_token` must be signed with this
   * user's access token. When unset, any of the app's user tokens is accepted there.
   */
  owner_id?: string;
  created_at: number;
}

/** An OAuth 1.0a access token of one user for one app. These do not expire. */
export interface SandboxAccessToken {
  token: string;
  secret: string;
  app_id: string;
  user_id: string;
  access: "read" | "write";
  created_at: number;
  invalidated_at?: number;
}

/** A PKCE (OAuth 2.0 user) access token. */
export interface SandboxPkceToken {
  token: string;
  app_id: string;
  user_id: string;
  scopes: Scope[];
  expires_at: number;
  revoked_at?: number;
}

export interface AuthData {
  apps: Record<string, SandboxApp>;
  /** OAuth 1.0a access tokens by token value. */
  access_tokens: Record<string, SandboxAccessToken>;
  /** PKCE access tokens by token value. */
  pkce_tokens: Record<string, SandboxPkceToken>;
  /** The one outstanding app-only bearer token per app, by app id. */
  bearer_tokens: Record<string, { token: string; issued_at: number; last_requested_at: number }>;
  /** Other flow state (request tokens, verifiers, grants, PKCE codes, refresh tokens): the auth layer's own. */
  [table: string]: unknown;
}

export const createAuthData = (): AuthData => ({ apps: {}, access_tokens: {}, pkce_tokens: {}, bearer_tokens: {} });
