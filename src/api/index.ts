/**
 * The service's typed client, for postbot's runtime and for plugin authors (`ctx.unbudgetedApi` is an
 * {@link ApiClient}). Everything a caller needs: the client, its authentication helpers, the
 * request and response types, and the error classes to tell failures apart.
 */
export {
  ApiClient,
  createClient,
  type CallOptions,
  type ClientOptions,
  type DescribedRequest,
  type RateLimitObservation,
  type RateLimitObserver,
  type StreamEndpointKey,
} from "./client.ts";
export {
  ApiError,
  AuthMethodError,
  BearerTooFrequentError,
  ClientInputError,
  InvalidTokenError,
  NetworkError,
  OAuth2Error,
  OAuthError,
  ProblemError,
  RateLimitError,
  ResponseError,
  UsageCappedError,
  type RateLimitWindow,
  type RequestInfo,
} from "./errors.ts";
export {
  availableMethods,
  chooseMethod,
  type ClientAuth,
  type CredentialIdentity,
} from "./auth/credentials.ts";
export { fingerprint } from "./auth/fingerprint.ts";
export { oauth1Header, type ConsumerCredentials, type OAuth1Token } from "./auth/oauth1.ts";
export {
  accessToken,
  authorizeUrl,
  invalidateToken,
  requestToken,
  type AccessToken,
  type RequestToken,
} from "./auth/oauth1-flow.ts";
export { BEARER_BACKOFF_MS, bearerCache, BearerCache, fetchBearerToken, invalidateBearerToken } from "./auth/bearer.ts";
export {
  createPkceChallenge,
  createPkceState,
  exchangePkceCode,
  PKCE_AUTHORIZE_PATH,
  pkceAuthorizeUrl,
  PkceSession,
  refreshPkceToken,
  revokePkceToken,
  type PkceChallenge,
  type PkceClient,
  type PkceSessionOptions,
  type PkceTokens,
} from "./auth/pkce.ts";
export type { ServiceRef } from "./auth/service.ts";
export { createTransport, type HttpTimeouts, type HttpTransport } from "./http.ts";
export { Paginator, pageTokenParam, paged, type PagedMethod, type PaginateOptions } from "./paginate.ts";
export { parseRateLimitHeaders, type RateLimitHeaders } from "./rate-limit-headers.ts";
export { isLoopbackHost, secureBaseUrl } from "./secure-origin.ts";
export { formatTime } from "./query.ts";
export type * from "./params.ts";
export type * from "./schema.ts";
export { NEXT_TOKEN_ENDPOINTS } from "./schema.ts";
export {
  PostStream,
  KEEP_ALIVE_INTERVAL_MS,
  STALL_GRACE_MS,
  type StreamEvent,
  type StreamOptions,
  type StreamSource,
} from "./stream/post-stream.ts";
export {
  ReconnectPolicy,
  HTTP_MAX_MS,
  HTTP_START_MS,
  NETWORK_MAX_MS,
  NETWORK_STEP_MS,
  RATE_LIMIT_MAX_MS,
  RATE_LIMIT_START_MS,
  type ReconnectCause,
} from "./stream/reconnect-policy.ts";
export * from "./endpoints.ts";
export * from "./types.ts";
