/**
 * The accounts `bot auth` signs in, kept in the state store (the only file where secrets
 * may live; mode 0600). One record per account name: who it is, and its OAuth 1.0a token
 * and/or PKCE tokens. The app's bearer token is kept per service and app. Listing never
 * returns a secret.
 *
 * Below the runtime and the CLI alike: `bot start` reads the accounts `bot auth` stored
 * (src/hosting/service.ts), and both keep the app's bearer token the same way (./bearer.ts).
 */
import type { PkceTokens } from "../api/auth/pkce.ts";
import { serviceUrl } from "../api/http.ts";
import type { Store } from "../store/store.ts";

/** The namespace of account records. */
export const ACCOUNTS_NAMESPACE = "auth:accounts";
/** The namespace of app-only bearer tokens, by service origin and app. */
export const APP_TOKENS_NAMESPACE = "auth:app-tokens";

/** One signed-in account. */
export interface AccountRecord {
  name: string;
  /** The service it belongs to (origin and path of the base URL). */
  base_url: string;
  user_id: string;
  username: string;
  oauth1?: { token: string; secret: string; consumer_key: string };
  pkce?: PkceTokens & { client_id: string };
  updated_at: string;
}

/** What `bot auth list` shows: an account without its secrets. */
export interface AccountSummary {
  name: string;
  base_url: string;
  user_id: string;
  username: string;
  methods: Array<"oauth1" | "pkce">;
  /** When the PKCE access token expires (ISO), if there is one. */
  pkce_expires_at?: string;
  pkce_scopes?: string[];
  updated_at: string;
}

export function getAccount(store: Store, name: string): AccountRecord | undefined {
  return store.get<AccountRecord>(ACCOUNTS_NAMESPACE, name);
}

/** Saves an account, merging with what is already stored under its name. */
export function saveAccount(store: Store, record: AccountRecord): AccountRecord {
  const previous = getAccount(store, record.name);
  const merged: AccountRecord = { ...previous, ...record };
  store.set(ACCOUNTS_NAMESPACE, record.name, merged);
  return merged;
}

export function removeAccount(store: Store, name: string): void {
  store.delete(ACCOUNTS_NAMESPACE, name);
}

/** Every account, secrets left out. */
export function listAccounts(store: Store): AccountSummary[] {
  return store.entries<AccountRecord>(ACCOUNTS_NAMESPACE).map(([, a]) => {
    const s: AccountSummary = {
      name: a.name,
      base_url: a.base_url,
      user_id: a.user_id,
      username: a.username,
      methods: [...(a.oauth1 ? (["oauth1"] as const) : []), ...(a.pkce ? (["pkce"] as const) : [])],
      updated_at: a.updated_at,
    };
    if (a.pkce) {
      s.pkce_expires_at = new Date(a.pkce.expires_at).toISOString();
      s.pkce_scopes = a.pkce.scopes;
    }
    return s;
  });
}

/** The key of an app's bearer token: the service and the app's consumer key. */
export const appTokenKey = (baseUrl: URL, consumerKey: string) => `${serviceUrl(baseUrl, "")} ${consumerKey}`;

export interface AppTokenRecord {
  token: string;
  fetched_at: string;
}
