/**
 * The app-only bearer token (spec 4.3). The service keeps one token per app and answers
 * 403/99 when asked for it too often, so the token is fetched once per app and process,
 * shared by every client of that app, with concurrent callers waiting on the same request.
 * After a 403/99 nobody asks again for a minute.
 */
import type { Clock } from "../../clock.ts";
import { BearerTooFrequentError, ResponseError, type RequestInfo } from "../errors.ts";
import type { HttpTransport } from "../http.ts";
import { encodeForm, percentEncode } from "../query.ts";
import { parseEnvelope } from "../responses.ts";
import { oauth1Header, type ConsumerCredentials, type OAuth1Token } from "./oauth1.ts";
import { basicAuthorization, expectSuccess, withService, type ServiceRef } from "./service.ts";

const TOKEN_INFO: RequestInfo = { method: "POST", path: "/oauth2/token" };
const INVALIDATE_INFO: RequestInfo = { method: "POST", path: "/oauth2/invalidate_token" };

/** How long to stay away from `/oauth2/token` after the service said 403/99. */
export const BEARER_BACKOFF_MS = 60_000;

/**
 * `POST /oauth2/token` with HTTP Basic (key and secret, each percent-encoded first), grant
 * type `client_credentials`. Prefer {@link BearerCache.get}, which does not ask twice.
 */
export async function fetchBearerToken(
  service: ServiceRef,
  consumer: ConsumerCredentials,
  signal?: AbortSignal,
): Promise<string> {
  return withService(service, async (transport) => {
    const res = await transport.send({
      ...TOKEN_INFO,
      headers: {
        authorization: basicAuthorization(consumer.key, consumer.secret),
        "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
      },
      body: encodeForm({ grant_type: "client_credentials" }),
      ...(signal ? { signal } : {}),
    });
    const body = parseEnvelope(TOKEN_INFO, expectSuccess(TOKEN_INFO, res));
    if (typeof body.access_token !== "string" || String(body.token_type).toLowerCase() !== "bearer") {
      throw new ResponseError(TOKEN_INFO, "the answer is not a bearer token (token_type bearer with an access_token)", {
        status: res.status,
      });
    }
    return body.access_token;
  });
}

/**
 * `POST /oauth2/invalidate_token?access_token=...`, signed with OAuth 1.0a by the app's keys
 * and the app owner's access token (spec 4.3). Afterwards the next fetch gets a new token.
 */
export async function invalidateBearerToken(
  service: ServiceRef,
  opts: { consumer: ConsumerCredentials; owner: OAuth1Token; token: string; clock: Clock; signal?: AbortSignal },
): Promise<void> {
  await withService(service, async (transport) => {
    const query = `access_token=${percentEncode(opts.token)}`;
    const authorization = oauth1Header({
      consumer: opts.consumer,
      token: opts.owner,
      method: "POST",
      url: transport.url(INVALIDATE_INFO.path, query),
      clock: opts.clock,
    });
    const res = await transport.send({
      ...INVALIDATE_INFO,
      query,
      headers: { authorization },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const body = parseEnvelope(INVALIDATE_INFO, expectSuccess(INVALIDATE_INFO, res));
    if (typeof body.access_token !== "string")
      throw new ResponseError(INVALIDATE_INFO, "the answer lacks access_token", { status: res.status });
  });
  bearerCache.forget(opts.token);
}

interface Entry {
  token?: string;
  pending?: Promise<string>;
  /** Clock time before which the service must not be asked again (after a 403/99). */
  quietUntil?: number;
}

/** The bearer tokens of this process, one per service origin and app. */
export class BearerCache {
  private readonly entries = new Map<string, Entry>();

  private key(transport: HttpTransport, consumer: ConsumerCredentials) {
    return `${transport.baseUrl.origin}${transport.baseUrl.pathname}\0${consumer.key}`;
  }

  /** The app's token: cached, or fetched once however many callers ask at the same time. */
  async get(
    transport: HttpTransport,
    consumer: ConsumerCredentials,
    clock: Clock,
    signal?: AbortSignal,
  ): Promise<string> {
    const key = this.key(transport, consumer);
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = {}));
    if (entry.token) return entry.token;
    if (entry.pending) return entry.pending;
    if (entry.quietUntil !== undefined && clock.now() < entry.quietUntil) {
      throw new BearerTooFrequentError(
        TOKEN_INFO,
        `not asking again before ${new Date(entry.quietUntil).toISOString()} after the service's 403/99`,
      );
    }
    const e = entry;
    e.pending = fetchBearerToken(transport, consumer, signal)
      .then((token) => {
        e.token = token;
        delete e.quietUntil;
        return token;
      })
      .catch((err: unknown) => {
        if (err instanceof BearerTooFrequentError) e.quietUntil = clock.now() + BEARER_BACKOFF_MS;
        throw err;
      })
      .finally(() => {
        delete e.pending;
      });
    return e.pending;
  }

  /** Drops a token the service no longer accepts (invalidated, or answered 401), so the next call fetches anew. */
  forget(token: string): void {
    for (const e of this.entries.values()) if (e.token === token) delete e.token;
  }

  /** Empties the cache (tests). */
  clear(): void {
    this.entries.clear();
  }
}

/** The process-wide cache: every client of an app shares its one bearer token. */
export const bearerCache = new BearerCache();
