/**
 * The authentication layer's own tables inside `data.auth` (besides apps and tokens, which
 * the model types): OAuth 1.0a request tokens, the grants users gave apps, browser sessions,
 * users' passwords, PKCE codes and refresh tokens, revoked bearers, recent nonces. They are plain JSON so
 * they are saved with the rest of the sandbox, and created on first use so a state file from
 * before a table existed still loads.
 */
import type { Scope } from "../../api/endpoints.ts";
import type { SandboxData } from "../model/index.ts";

export interface RequestToken {
  token: string;
  secret: string;
  app_id: string;
  /** A registered URL, or `oob` for the PIN flow. */
  callback: string;
  access: "read" | "write";
  created_at: number;
  /** Set when a user approved: who, and the verifier to exchange. */
  user_id?: string;
  verifier?: string;
}

export interface PkceCode {
  code: string;
  app_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: Scope[];
  challenge: string;
  method: "S256" | "plain";
  expires_at: number;
}

export interface RefreshToken {
  token: string;
  app_id: string;
  user_id: string;
  scopes: Scope[];
  created_at: number;
}

export interface FlowTables {
  request_tokens: Record<string, RequestToken>;
  /** `${app_id}:${user_id}` → when the user approved the app (authenticate skips re-approval). */
  grants: Record<string, { created_at: number; access: "read" | "write" }>;
  /** Browser sessions of the authorization pages, by cookie value. */
  sessions: Record<string, { user_id: string; created_at: number }>;
  /** Passwords set for sandbox users; a user without one signs in with {@link DEFAULT_PASSWORD}. */
  passwords: Record<string, string>;
  pkce_codes: Record<string, PkceCode>;
  refresh_tokens: Record<string, RefreshToken>;
  /** Invalidated app-only bearer tokens, so using one answers 401/89 rather than 401. */
  revoked_bearers: Record<string, { app_id: string; revoked_at: number }>;
  /**
   * OAuth 1.0a nonces still inside the timestamp window (hashed key → when the entry
   * expires), saved with the state so a replay right after a restart is still refused.
   */
  nonces: Record<string, number>;
}

/**
 * The password of every sandbox user that was not given one (`POST /_sandbox/users` takes an
 * optional `password`). The sandbox holds no real accounts, so a known default keeps demos
 * and tests simple while the sign-in step stays real.
 */
export const DEFAULT_PASSWORD = "sandbox";

/** The flow tables of a sandbox, created on first use. */
export function flows(data: SandboxData): FlowTables {
  const a = data.auth as Record<string, unknown>;
  for (const t of [
    "request_tokens",
    "grants",
    "sessions",
    "passwords",
    "pkce_codes",
    "refresh_tokens",
    "revoked_bearers",
    "nonces",
  ]) {
    if (!a[t] || typeof a[t] !== "object") a[t] = {};
  }
  return a as unknown as FlowTables;
}

export const grantKey = (appId: string, userId: string) => `${appId}:${userId}`;
