/**
 * What a client can authenticate with, and which of it each call uses. A client may hold an
 * app's keys (OAuth 1.0a signing, and the app-only bearer fetched with them), a user's
 * OAuth 1.0a token and a PKCE session at once; each call takes the first method its endpoint
 * accepts (endpoints.ts, in the order listed there) that the client holds, or the one the
 * caller asks for. A method the endpoint refuses fails here, before any request.
 */
import { AUTH_METHOD_NAMES, type AuthMethod, type Endpoint } from "../endpoints.ts";
import { AuthMethodError } from "../errors.ts";
import type { ConsumerCredentials, OAuth1Token } from "./oauth1.ts";
import { fingerprint } from "./fingerprint.ts";
import type { PkceSession } from "./pkce.ts";

/** The credentials of one client. */
export interface ClientAuth {
  /** The app's API key and secret: sign OAuth 1.0a requests; fetch the app-only bearer. */
  consumer?: ConsumerCredentials;
  /** OAuth 1.0a user context: the account's access token (needs `consumer`). */
  user?: OAuth1Token;
  /**
   * App-only: a bearer token already in hand. Without it, a client with `consumer` fetches
   * the app's token when an app-only call needs it. `false` turns app-only off.
   */
  bearer?: string | false;
  /** OAuth 2.0 PKCE user context. */
  pkce?: PkceSession;
  /** A non-secret name of the account (for rate-limit accounting and logs); default: a fingerprint of the token. */
  label?: string;
  /** A non-secret name of the app; default: a fingerprint of the consumer key. */
  appLabel?: string;
}

/**
 * Who a call was made as, without secrets: the budget layer keys its A windows by `app` and
 * its U windows by `user` (spec 8.1 rule 2).
 */
export interface CredentialIdentity {
  method: AuthMethod;
  app: string;
  /** Absent for app-only calls. */
  user?: string;
}

/** The methods a set of credentials can use. */
export function availableMethods(auth: ClientAuth): AuthMethod[] {
  const methods: AuthMethod[] = [];
  if (auth.consumer && auth.user) methods.push("oauth1");
  if (auth.bearer !== false && (typeof auth.bearer === "string" || auth.consumer)) methods.push("app");
  if (auth.pkce) methods.push("pkce");
  return methods;
}

const describe = (methods: readonly AuthMethod[]) =>
  methods.length === 0 ? "no credentials" : methods.map((m) => `${m} (${AUTH_METHOD_NAMES[m]})`).join(", ");

/**
 * The method a call to `ep` uses: the one asked for, checked against the endpoint and the
 * credentials; otherwise the endpoint's first accepted method the client holds.
 */
export function chooseMethod(ep: Endpoint, auth: ClientAuth, requested?: AuthMethod): AuthMethod {
  const accepted = ep.auth.methods;
  const held = availableMethods(auth);
  if (requested) {
    if (!accepted.includes(requested))
      throw new AuthMethodError(
        ep.key,
        accepted,
        `it does not accept ${requested} (${AUTH_METHOD_NAMES[requested]}), which this call asked for`,
      );
    if (!held.includes(requested))
      throw new AuthMethodError(
        ep.key,
        accepted,
        `this call asked for ${requested} but the client holds ${describe(held)}`,
      );
    return requested;
  }
  const method = accepted.find((m) => held.includes(m));
  if (!method) throw new AuthMethodError(ep.key, accepted, `the client holds ${describe(held)}`);
  return method;
}

/** Under PKCE, the scopes the endpoint needs that the session was not granted (when it knows them). */
export function missingScopes(ep: Endpoint, session: PkceSession): string[] {
  const granted = session.scopes;
  if (granted.length === 0) return [];
  return ep.auth.scopes.filter((s) => !granted.includes(s));
}

/** The identity of a call made with `method`. */
export function identityOf(method: AuthMethod, auth: ClientAuth): CredentialIdentity {
  const app =
    auth.appLabel ??
    (auth.consumer
      ? fingerprint(auth.consumer.key)
      : auth.pkce
        ? fingerprint(auth.pkce.clientId)
        : typeof auth.bearer === "string"
          ? fingerprint(auth.bearer)
          : "unknown");
  if (method === "app") return { method, app };
  if (method === "oauth1") return { method, app, user: auth.label ?? fingerprint(auth.user!.token) };
  return { method, app, user: auth.label ?? auth.pkce!.id };
}
