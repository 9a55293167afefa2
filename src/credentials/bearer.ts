/**
 * The app's bearer token (app-only: the filtered stream and its rules) as kept in the state
 * store, by service and app: `bot start` and `bot auth bearer` both read and keep it here.
 */
import { fetchBearerToken } from "../api/auth/bearer.ts";
import type { ConsumerCredentials } from "../api/auth/oauth1.ts";
import type { Clock } from "../clock.ts";
import type { Store } from "../store/store.ts";
import { APP_TOKENS_NAMESPACE, appTokenKey, type AppTokenRecord } from "./accounts.ts";

/**
 * The app's bearer token as kept in the state store, fetched (and kept) only when none is:
 * the service keeps one token per app, valid until invalidated, and refuses to be asked
 * for it often (10 times per 15 minutes), so every start asking anew would lock the
 * stream out after a few restarts.
 */
export async function storedBearer(
  store: Store,
  baseUrl: string | URL,
  consumer: ConsumerCredentials,
  clock: Clock,
  signal?: AbortSignal,
): Promise<string> {
  const key = appTokenKey(new URL(baseUrl), consumer.key);
  const stored = store.get<AppTokenRecord>(APP_TOKENS_NAMESPACE, key);
  if (stored) return stored.token;
  const token = await fetchBearerToken(baseUrl, consumer, signal);
  store.set<AppTokenRecord>(APP_TOKENS_NAMESPACE, key, { token, fetched_at: new Date(clock.now()).toISOString() });
  await store.flush();
  return token;
}

/** Forgets the stored token the service refused (401), so the next {@link storedBearer} fetches the current one. */
export function forgetStoredBearer(store: Store, baseUrl: string | URL, consumerKey: string): void {
  store.delete(APP_TOKENS_NAMESPACE, appTokenKey(new URL(baseUrl), consumerKey));
}
