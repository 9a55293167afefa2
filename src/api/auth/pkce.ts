/**
 * OAuth 2.0 Authorization Code with PKCE (wire-facts 4.4): a user token with scopes. The
 * authorize URL carries an S256 challenge; the code is exchanged at `/2/oauth2/token`; the
 * access token lives two hours, so a {@link PkceSession} refreshes it before it expires
 * (needs `offline.access`) and hands the rotated tokens to its owner to store.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../clock.ts";
import { UserError } from "../../errors.ts";
import type { Scope } from "../endpoints.ts";
import { ResponseError, type RequestInfo } from "../errors.ts";
import { encodeForm, encodeQuery } from "../query.ts";
import { parseEnvelope } from "../responses.ts";
import { fingerprint } from "./fingerprint.ts";
import { basicAuthorization, expectSuccess, pageUrl, withService, type ServiceRef } from "./service.ts";

const TOKEN_INFO: RequestInfo = { method: "POST", path: "/2/oauth2/token" };
const REVOKE_INFO: RequestInfo = { method: "POST", path: "/2/oauth2/revoke" };

/** Where the sandbox (and the real service's web host) serves the consent page. */
export const PKCE_AUTHORIZE_PATH = "/i/oauth2/authorize";

/** Refresh this long before the access token expires, so no request carries a dying token. */
export const PKCE_REFRESH_MARGIN_MS = 5 * 60_000;

/** The OAuth 2.0 client: its id, and its secret when it is a confidential client. */
export interface PkceClient {
  clientId: string;
  clientSecret?: string;
}

/** A verifier and the challenge derived from it. Keep the verifier for the exchange. */
export interface PkceChallenge {
  verifier: string;
  challenge: string;
  method: "S256";
}

/** Tokens of one authorization, with the expiry turned into clock time. */
export interface PkceTokens {
  access_token: string;
  refresh_token?: string;
  /** Epoch ms (on the injected clock) when the access token stops working. */
  expires_at: number;
  scopes: string[];
}

/** A new 64-character verifier (RFC 7636: 43–128 unreserved characters) and its S256 challenge. */
export function createPkceChallenge(): PkceChallenge {
  const verifier = randomBytes(48).toString("base64url");
  const challenge = createHash("sha256").update(verifier, "ascii").digest("base64url");
  return { verifier, challenge, method: "S256" };
}

/** A random `state` for CSRF protection; compare it with the one the redirect brings back. */
export const createPkceState = () => randomBytes(16).toString("base64url");

/** The consent page URL: send the person here; the redirect brings `code` and `state`. */
export function pkceAuthorizeUrl(
  service: ServiceRef,
  opts: {
    clientId: string;
    redirectUri: string;
    scopes: readonly (Scope | string)[];
    state: string;
    challenge: string;
    path?: string;
  },
): string {
  const query = encodeQuery({
    response_type: "code",
    client_id: opts.clientId,
    redirect_uri: opts.redirectUri,
    scope: opts.scopes.join(" "),
    state: opts.state,
    code_challenge: opts.challenge,
    code_challenge_method: "S256",
  });
  return pageUrl(service, opts.path ?? PKCE_AUTHORIZE_PATH, query);
}

/** Confidential clients authenticate with Basic; public ones send `client_id` in the form. */
function clientAuth(client: PkceClient, form: Record<string, string>): Record<string, string> {
  if (!client.clientSecret) {
    form.client_id = client.clientId;
    return {};
  }
  return { authorization: basicAuthorization(client.clientId, client.clientSecret) };
}

async function postForm(
  service: ServiceRef,
  info: RequestInfo,
  client: PkceClient,
  fields: Record<string, string>,
  signal?: AbortSignal,
) {
  return withService(service, async (transport) => {
    const form = { ...fields };
    const headers = { ...clientAuth(client, form), "content-type": "application/x-www-form-urlencoded" };
    const res = await transport.send({ ...info, headers, body: encodeForm(form), ...(signal ? { signal } : {}) });
    return parseEnvelope(info, expectSuccess(info, res));
  });
}

function tokensOf(body: Record<string, unknown>, clock: Clock, previousRefresh?: string): PkceTokens {
  if (typeof body.access_token !== "string") throw new ResponseError(TOKEN_INFO, "the answer lacks access_token");
  const expiresIn = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 7200;
  const tokens: PkceTokens = {
    access_token: body.access_token,
    expires_at: clock.now() + expiresIn * 1000,
    scopes: typeof body.scope === "string" ? body.scope.split(/\s+/).filter(Boolean) : [],
  };
  const refresh = typeof body.refresh_token === "string" ? body.refresh_token : previousRefresh;
  if (refresh) tokens.refresh_token = refresh;
  return tokens;
}

/** Trades the redirect's `code` (with the verifier it was challenged with) for tokens. */
export async function exchangePkceCode(
  service: ServiceRef,
  opts: PkceClient & { code: string; redirectUri: string; verifier: string; clock: Clock; signal?: AbortSignal },
): Promise<PkceTokens> {
  const body = await postForm(
    service,
    TOKEN_INFO,
    opts,
    { code: opts.code, grant_type: "authorization_code", redirect_uri: opts.redirectUri, code_verifier: opts.verifier },
    opts.signal,
  );
  return tokensOf(body, opts.clock);
}

/** Trades a refresh token for new tokens (the refresh token may rotate; the old one is kept if none comes back). */
export async function refreshPkceToken(
  service: ServiceRef,
  opts: PkceClient & { refreshToken: string; clock: Clock; signal?: AbortSignal },
): Promise<PkceTokens> {
  const body = await postForm(
    service,
    TOKEN_INFO,
    opts,
    { refresh_token: opts.refreshToken, grant_type: "refresh_token" },
    opts.signal,
  );
  return tokensOf(body, opts.clock, opts.refreshToken);
}

/** Revokes an access or refresh token at `/2/oauth2/revoke`. */
export async function revokePkceToken(
  service: ServiceRef,
  opts: PkceClient & { token: string; hint?: "access_token" | "refresh_token"; signal?: AbortSignal },
): Promise<void> {
  const fields: Record<string, string> = { token: opts.token };
  if (opts.hint) fields.token_type_hint = opts.hint;
  await postForm(service, REVOKE_INFO, opts, fields, opts.signal);
}

export interface PkceSessionOptions extends PkceClient {
  service: ServiceRef;
  tokens: PkceTokens;
  clock: Clock;
  /** A stable, non-secret name of the user (for logs and rate-limit accounting). */
  label?: string;
  /** Called with every new set of tokens, so the owner can store the rotated refresh token. */
  onRefresh?: (tokens: PkceTokens) => void | Promise<void>;
  refreshMarginMs?: number;
}

/**
 * A PKCE user credential that stays valid: {@link accessToken} refreshes first when the
 * token expires within the margin. Concurrent callers share one refresh.
 */
export class PkceSession {
  readonly clientId: string;
  readonly label: string | undefined;
  /** A stable, non-secret name of this authorization: the label, or a fingerprint of the first token. */
  readonly id: string;
  private current: PkceTokens;
  private refreshing: Promise<PkceTokens> | undefined;
  private readonly opts: PkceSessionOptions;

  constructor(opts: PkceSessionOptions) {
    this.opts = opts;
    this.clientId = opts.clientId;
    this.label = opts.label;
    this.id = opts.label ?? fingerprint(opts.tokens.refresh_token ?? opts.tokens.access_token);
    this.current = { ...opts.tokens };
  }

  /** The tokens now held (for storing them). */
  get tokens(): PkceTokens {
    return { ...this.current };
  }

  /** The scopes granted, when the service said. */
  get scopes(): readonly string[] {
    return this.current.scopes;
  }

  /** A usable access token, refreshed first when it is about to expire. */
  async accessToken(signal?: AbortSignal): Promise<string> {
    const margin = this.opts.refreshMarginMs ?? PKCE_REFRESH_MARGIN_MS;
    if (this.opts.clock.now() < this.current.expires_at - margin) return this.current.access_token;
    if (!this.current.refresh_token) {
      if (this.opts.clock.now() < this.current.expires_at) return this.current.access_token;
      throw new UserError(
        `the PKCE access token${this.label ? ` of ${this.label}` : ""} expired at ${new Date(this.current.expires_at).toISOString()} and there is no refresh token: ` +
          "authorize again, asking for the offline.access scope to get one (bot auth pkce)",
      );
    }
    return (await this.refresh(signal)).access_token;
  }

  /** Refreshes now (once, however many callers ask). */
  refresh(signal?: AbortSignal): Promise<PkceTokens> {
    if (!this.refreshing) {
      const refreshToken = this.current.refresh_token;
      if (!refreshToken)
        return Promise.reject(new UserError("this PKCE session has no refresh token (ask for offline.access)"));
      this.refreshing = refreshPkceToken(this.opts.service, {
        ...this.client(),
        refreshToken,
        clock: this.opts.clock,
        ...(signal ? { signal } : {}),
      })
        .then(async (tokens) => {
          this.current = tokens;
          await this.opts.onRefresh?.(tokens);
          return tokens;
        })
        .finally(() => {
          this.refreshing = undefined;
        });
    }
    return this.refreshing;
  }

  /** Revokes the refresh token (which ends the authorization) or, without one, the access token. */
  async revoke(signal?: AbortSignal): Promise<void> {
    const t = this.current;
    await revokePkceToken(this.opts.service, {
      ...this.client(),
      token: t.refresh_token ?? t.access_token,
      hint: t.refresh_token ? "refresh_token" : "access_token",
      ...(signal ? { signal } : {}),
    });
    if (t.refresh_token) {
      await revokePkceToken(this.opts.service, {
        ...this.client(),
        token: t.access_token,
        hint: "access_token",
        ...(signal ? { signal } : {}),
      });
    }
  }

  private client(): PkceClient {
    return this.opts.clientSecret
      ? { clientId: this.clientId, clientSecret: this.opts.clientSecret }
      : { clientId: this.clientId };
  }
}
