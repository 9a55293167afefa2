/**
 * The typed client of the service: the one way postbot's plugins, triggers and action layer
 * talk to it. `client.request(key, args)` reaches every v2 endpoint of the spec with typed
 * parameters; the groups (`client.posts`, `client.users`, `client.streams`...) are shortcuts
 * over it. Each call picks an authentication method its endpoint accepts, refuses one it
 * does not before sending anything, reports the response's rate-limit headers to an
 * observer, and turns every failure into an error class of ./errors.ts.
 *
 * @example
 * ```ts
 * const client = createClient({ baseUrl, auth: { consumer, user: { token, secret } }, onRateLimit: budget.observe });
 * const { data } = await client.posts.create({ text: "hello", reply: { in_reply_to_post_id: id } });
 * for await (const post of client.paginate(client.users.mentions, me, { since_id })) ...
 * ```
 */
import type { Dispatcher } from "undici";
import { systemClock, type Clock } from "../clock.ts";
import { silentLogger, type Logger } from "../log.ts";
import { bearerCache } from "./auth/bearer.ts";
import {
  chooseMethod,
  identityOf,
  missingScopes,
  type ClientAuth,
  type CredentialIdentity,
} from "./auth/credentials.ts";
import { oauth1Header } from "./auth/oauth1.ts";
import { endpoint, type AuthMethod, type EndpointKey } from "./endpoints.ts";
import { AuthMethodError, type RequestInfo } from "./errors.ts";
import {
  createTransport,
  headerValue,
  type HttpResponse,
  type HttpStreamResponse,
  type HttpTimeouts,
  type HttpTransport,
} from "./http.ts";
import { fetcherOf, Paginator, pageTokenParam, type PagedMethod, type PaginateOptions } from "./paginate.ts";
import { encodeQuery, fillPath } from "./query.ts";
import {
  hasRateLimitHeaders,
  parseRateLimitHeaders,
  type HeaderBag,
  type RateLimitHeaders,
} from "./rate-limit-headers.ts";
import { errorFromResponse, isTimestampRefused, parseEnvelope } from "./responses.ts";
import { ServiceTime } from "./service-time.ts";
import type { ItemOf, ListEndpointKey, RequestArgs, ResponseOf } from "./schema.ts";
import { PostStream, type StreamOptions } from "./stream/post-stream.ts";
import type { StreamQuery } from "./params.ts";
import { bookmarksGroup } from "./groups/bookmarks.ts";
import { complianceGroup } from "./groups/compliance.ts";
import { dmsGroup } from "./groups/dms.ts";
import { likesGroup } from "./groups/likes.ts";
import { listsGroup } from "./groups/lists.ts";
import { communitiesGroup } from "./groups/communities.ts";
import { trendsGroup } from "./groups/trends.ts";
import { usageGroup } from "./groups/usage.ts";
import { postsGroup } from "./groups/posts.ts";
import { repostsGroup } from "./groups/reposts.ts";
import { searchGroup } from "./groups/search.ts";
import { spacesGroup } from "./groups/spaces.ts";
import { streamsGroup } from "./groups/streams.ts";
import { usersGroup } from "./groups/users.ts";
import type { CallOptions, Caller, RequestRest, StreamEndpointKey } from "./caller.ts";

export type { CallOptions, RequestRest, StreamEndpointKey };

/** One response's rate-limit report, for the budget layer. */
export interface RateLimitObservation extends RateLimitHeaders {
  endpoint: EndpointKey;
  /** The concrete request. */
  method: string;
  path: string;
  status: number;
  /** Who the call was made as (no secrets). */
  identity: CredentialIdentity;
  /** When the response arrived, on the client's clock. */
  at: number;
}

/** Receives every response's rate-limit headers. It must not throw (if it does, the error is logged and ignored). */
export type RateLimitObserver = (observation: RateLimitObservation) => void;

/** One response of the service, with no headers, body or secret: what `bot start --http` counts. */
export type ResponseObservation = Pick<
  RateLimitObservation,
  "endpoint" | "method" | "path" | "status" | "identity" | "at"
>;

/** Receives every response (of a call, or of a stream's connect). Like the rate-limit observer, it must not throw. */
export type ResponseObserver = (observation: ResponseObservation) => void;

export interface ClientOptions {
  /** The service's base URL: HTTPS, or HTTP to loopback (the sandbox). */
  baseUrl: string | URL;
  auth?: ClientAuth;
  /** The clock for OAuth timestamps, token expiry and stream back-off (default: the system clock). */
  clock?: Clock;
  logger?: Logger;
  onRateLimit?: RateLimitObserver;
  onResponse?: ResponseObserver;
  timeouts?: HttpTimeouts;
  /** A dispatcher of the caller's (default: the origin's pool, shared by every client of the process). */
  dispatcher?: Dispatcher;
  userAgent?: string;
}

/**
 * What every client made from one {@link createClient} shares (its own and those
 * {@link ApiClient.withAuth} makes): one transport (the base URL checked and parsed once, over
 * the origin's pool), the clock, logger, observers and the service's time. A process runs
 * thousands of accounts through one such service; a transport, a URL and their closures made
 * for each account's client were about a kilobyte of each running bot's memory. The
 * credentials, and the signing with them, stay each client's own.
 */
class Service {
  /** The open clients of the service: the last to close lets go of the transport (and the origin's pool with it). */
  #clients = 0;
  #released = false;
  #transport: HttpTransport;
  /** The service's time as its responses tell it: what signatures and time parameters are in. */
  readonly serviceTime: ServiceTime;

  constructor(
    /** Makes a transport of the service's origin (over the origin's shared pool). */
    private readonly newTransport: () => HttpTransport,
    readonly clock: Clock,
    readonly logger: Logger,
    readonly onRateLimit: RateLimitObserver | undefined,
    readonly onResponse: ResponseObserver | undefined,
  ) {
    this.#transport = newTransport();
    this.serviceTime = new ServiceTime(clock, logger);
  }

  get transport(): HttpTransport {
    return this.#transport;
  }

  /** A client of the service opens (after every one had closed: over a new transport). */
  join(): void {
    if (this.#clients++ === 0 && this.#released) {
      this.#transport = this.newTransport();
      this.#released = false;
    }
  }

  /** A client of the service closes; the last one lets go of the transport. */
  async leave(): Promise<void> {
    if (--this.#clients > 0) return;
    this.#released = true;
    await this.#transport.close();
  }
}

interface Prepared {
  info: RequestInfo & { endpoint: EndpointKey };
  method: AuthMethod;
  identity: CredentialIdentity;
  query: string;
  body: string | undefined;
  /** The service-time offset the request's times were written with (a refused timestamp is worth a second try only if it changed since). */
  offsetMs: number;
}

/** The rate-limit headers of a response, and no other (an error carries them; nothing else of a response belongs in a log). */
const limitHeaders = (headers: HttpResponse["headers"]) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("x-") && name.includes("limit")));

/** The endpoint groups of a client (`client.users.me()`...). */
interface Groups {
  posts: ReturnType<typeof postsGroup>;
  users: ReturnType<typeof usersGroup>;
  search: ReturnType<typeof searchGroup>;
  streams: ReturnType<typeof streamsGroup>;
  likes: ReturnType<typeof likesGroup>;
  reposts: ReturnType<typeof repostsGroup>;
  bookmarks: ReturnType<typeof bookmarksGroup>;
  spaces: ReturnType<typeof spacesGroup>;
  lists: ReturnType<typeof listsGroup>;
  dms: ReturnType<typeof dmsGroup>;
  compliance: ReturnType<typeof complianceGroup>;
  trends: ReturnType<typeof trendsGroup>;
  communities: ReturnType<typeof communitiesGroup>;
  usage: ReturnType<typeof usageGroup>;
}

/** A client of the service for one set of credentials. Create it with {@link createClient}. */
/**
 * A request as data, for {@link ApiClient.send}: what the action layer's actions and
 * described reads carry (an action is one, with more fields).
 */
export interface DescribedRequest {
  endpoint: EndpointKey;
  /** Path parameters by the endpoint template's names. */
  path: Record<string, string>;
  query?: Record<string, unknown>;
  /** The JSON body, when the endpoint takes one. */
  body?: unknown;
}

export class ApiClient implements Caller {
  readonly auth: Readonly<ClientAuth>;

  /** The transport of the service, shared by the clients made from one {@link createClient}. */
  get transport(): HttpTransport {
    return this.shared.transport;
  }
  get clock(): Clock {
    return this.shared.clock;
  }
  get logger(): Logger {
    return this.shared.logger;
  }

  // Each group is made on first use: a group is an object of a dozen functions, and a
  // runtime hosting 10,000 bots makes a client per bot, most of which use one or two groups.
  #groups: Partial<Groups> | undefined;
  get posts(): Groups["posts"] {
    return ((this.#groups ??= {}).posts ??= postsGroup(this));
  }
  get users(): Groups["users"] {
    return ((this.#groups ??= {}).users ??= usersGroup(this));
  }
  get search(): Groups["search"] {
    return ((this.#groups ??= {}).search ??= searchGroup(this));
  }
  get streams(): Groups["streams"] {
    return ((this.#groups ??= {}).streams ??= streamsGroup(this));
  }
  get likes(): Groups["likes"] {
    return ((this.#groups ??= {}).likes ??= likesGroup(this));
  }
  get reposts(): Groups["reposts"] {
    return ((this.#groups ??= {}).reposts ??= repostsGroup(this));
  }
  get bookmarks(): Groups["bookmarks"] {
    return ((this.#groups ??= {}).bookmarks ??= bookmarksGroup(this));
  }
  get spaces(): Groups["spaces"] {
    return ((this.#groups ??= {}).spaces ??= spacesGroup(this));
  }
  get lists(): Groups["lists"] {
    return ((this.#groups ??= {}).lists ??= listsGroup(this));
  }
  get dms(): Groups["dms"] {
    return ((this.#groups ??= {}).dms ??= dmsGroup(this));
  }
  get compliance(): Groups["compliance"] {
    return ((this.#groups ??= {}).compliance ??= complianceGroup(this));
  }
  get trends(): Groups["trends"] {
    return ((this.#groups ??= {}).trends ??= trendsGroup(this));
  }
  get communities(): Groups["communities"] {
    return ((this.#groups ??= {}).communities ??= communitiesGroup(this));
  }
  get usage(): Groups["usage"] {
    return ((this.#groups ??= {}).usage ??= usageGroup(this));
  }

  private readonly shared: Service;
  /**
   * Aborts this client's calls in flight when it closes. Made while a call is in flight and let
   * go when none is (an AbortController and its signal, an event target, are a few hundred
   * bytes, and most bots' clients are idle most of the time); kept, aborted, once closed.
   */
  #closer: AbortController | undefined;
  /** Calls (and stream connections) in flight: a stream's keeps the closer for the client's life. */
  #inFlight = 0;
  #closed = false;

  /** @internal use {@link createClient} or {@link withAuth}. */
  constructor(shared: Service, auth: ClientAuth) {
    shared.join();
    this.shared = shared;
    // (Not `freeze({ ...auth })`: V8 gives a frozen spread copy a hidden class of its own, a
    // few hundred bytes for each of 10,000 bots' clients.)
    this.auth = Object.freeze(Object.assign({}, auth));
  }

  /**
   * A client for other credentials (another account of the same app) with this one's
   * service: its transport and connection pool, clock, logger and observers. Each is closed
   * on its own: closing aborts its own calls, and the last client of the service to close
   * lets go of the transport.
   */
  withAuth(auth: ClientAuth): ApiClient {
    return new ApiClient(this.shared, auth);
  }

  /** Calls any v2 endpoint by its key, with typed path parameters, query and body. */
  async request<K extends EndpointKey>(key: K, ...[args, options]: RequestRest<K>): Promise<ResponseOf<K>> {
    return (await this.exchange(key, ...([args, options] as RequestRest<K>))).body;
  }

  /**
   * {@link request}, answering with the response's status and headers too: the budget of the
   * action layer corrects itself by them. A failure throws as `request` does, its
   * {@link ApiError} carrying the response's headers.
   */
  async exchange<K extends EndpointKey>(
    key: K,
    ...[args, options]: RequestRest<K>
  ): Promise<{ body: ResponseOf<K>; status: number; headers: HttpResponse["headers"] }> {
    const a = (args ?? {}) as { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
    const signal = this.begin(options?.signal);
    try {
      return await this.exchangeWith(key, a, options, signal);
    } finally {
      this.end();
    }
  }

  /** {@link exchange}'s work, with the call's signal (the caller's and this client's closing). */
  private async exchangeWith<K extends EndpointKey>(
    key: K,
    a: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown },
    options: CallOptions | undefined,
    signal: AbortSignal,
  ): Promise<{ body: ResponseOf<K>; status: number; headers: HttpResponse["headers"] }> {
    for (let attempt = 1; ; attempt++) {
      const prepared = this.prepare(key, a, options);
      const authorization = await this.authorization(prepared, signal);
      const headers: Record<string, string> = { authorization };
      if (prepared.body !== undefined) headers["content-type"] = "application/json";
      const started = this.clock.now();
      const res = await this.transport.send({
        ...prepared.info,
        query: prepared.query,
        headers,
        signal,
        ...(prepared.body !== undefined ? { body: prepared.body } : {}),
      });
      this.afterResponse(prepared, res, authorization);
      this.logger.debug(
        {
          endpoint: key,
          path: prepared.info.path,
          status: res.status,
          ms: this.clock.now() - started,
          auth: prepared.method,
        },
        "api call",
      );
      if (res.status < 200 || res.status >= 300) {
        const error = errorFromResponse(prepared.info, res);
        // Refused for its timestamp, signed before the service's Date said how far off the
        // local clock is: nothing was done, so it is signed again with the service's time, once.
        if (attempt === 1 && this.resign(prepared, error)) continue;
        throw Object.assign(error, { headers: limitHeaders(res.headers) });
      }
      const body = (res.text.trim() === "" ? {} : parseEnvelope(prepared.info, res)) as ResponseOf<K>;
      return { body, status: res.status, headers: res.headers };
    }
  }

  /**
   * Sends a request described as data (an endpoint named at run time, its path parameters, a
   * query, a body), answering with the body as `result` and the response's headers. Bound,
   * it is the action layer's executor: an action or a described read goes from the
   * pipeline's last step straight to the client, and the budget corrects itself by the
   * headers. Untyped, since the endpoint is known only at run time; the service's answer
   * (or the client's typed error) says whether the arguments were right.
   */
  async send(request: DescribedRequest, signal: AbortSignal): Promise<{ result: unknown; headers: HeaderBag }> {
    const exchange = this.exchange as (
      key: EndpointKey,
      args: unknown,
      options: CallOptions,
    ) => Promise<{ body: unknown; headers: HeaderBag }>;
    const args = {
      params: request.path,
      ...(request.query !== undefined ? { query: request.query } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
    };
    const { body, headers } = await exchange.call(this, request.endpoint, args, { signal });
    return { result: body, headers };
  }

  /**
   * Whether a request the service refused is worth signing again: a signature whose timestamp
   * was refused (401, code 135) when the service's time has been learnt (or changed) since it
   * was made.
   */
  private resign(p: Prepared, error: unknown): boolean {
    return p.method === "oauth1" && isTimestampRefused(error) && this.shared.serviceTime.offsetMs !== p.offsetMs;
  }

  /**
   * Every item of a list endpoint across pages, by key (`paginate("GET /2/users/:id/followers",
   * { params: { id } })`) or by grouped method (`paginate(client.users.followers, id)`).
   */
  paginate<K extends ListEndpointKey>(
    key: K,
    args: RequestArgs<K>,
    options?: CallOptions & PaginateOptions,
  ): Paginator<ItemOf<K>>;
  paginate<A extends unknown[], T>(method: PagedMethod<A, T>, ...args: A): Paginator<T>;
  paginate(target: EndpointKey | PagedMethod<unknown[], unknown>, ...rest: unknown[]): Paginator<unknown> {
    if (typeof target === "function") return new Paginator(fetcherOf(target, rest));
    const [args, options] = rest as [
      { query?: Record<string, unknown> } | undefined,
      (CallOptions & PaginateOptions) | undefined,
    ];
    const param = pageTokenParam(target);
    const call = this.request.bind(this) as (key: EndpointKey, args: unknown, options?: CallOptions) => Promise<never>;
    return new Paginator(
      (token) => call(target, { ...args, query: { ...args?.query, ...(token ? { [param]: token } : {}) } }, options),
      options,
    );
  }

  /**
   * Opens a stream endpoint as an async iterator of events; it reconnects on its own per the
   * documented policy until closed (see {@link PostStream}).
   */
  stream(key: StreamEndpointKey, query: StreamQuery = {}, options: CallOptions & StreamOptions = {}): PostStream {
    const prepared = this.prepare(key, { query: query as Record<string, unknown> }, options);
    const source = {
      info: prepared.info,
      // Streams are app-only (a bearer token): no signature, no timestamp to refuse.
      open: async (signal: AbortSignal): Promise<HttpStreamResponse> => {
        // (Never ended: the stream's body flows after the connect, until this client closes.)
        const s = this.begin(signal);
        const authorization = await this.authorization(prepared, s);
        const res = await this.transport.open({
          ...prepared.info,
          query: prepared.query,
          headers: { authorization },
          signal: s,
        });
        this.afterResponse(prepared, res, authorization);
        return res;
      },
    };
    return new PostStream(source, this.clock, this.logger.child({ stream: key }), options);
  }

  /**
   * Aborts this client's calls in flight (and any it is asked for later) and lets go of the
   * service's transport and pool (closed when the last client of the service closes).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    (this.#closer ??= new AbortController()).abort();
    await this.shared.leave();
  }

  private prepare(
    key: EndpointKey,
    args: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown },
    options?: CallOptions,
  ): Prepared {
    const ep = endpoint(key);
    const path = fillPath(ep.path, args.params, key);
    const method = chooseMethod(ep, this.auth, options?.auth);
    if (method === "pkce" && this.auth.pkce) {
      const missing = missingScopes(ep, this.auth.pkce);
      if (missing.length > 0)
        throw new AuthMethodError(
          key,
          ep.auth.methods,
          `the PKCE token lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (authorize again asking for them)`,
        );
    }
    const offsetMs = this.shared.serviceTime.offsetMs;
    return {
      info: { method: ep.method, path, endpoint: key },
      method,
      identity: identityOf(method, this.auth),
      query: encodeQuery(args.query, offsetMs),
      body: args.body === undefined ? undefined : JSON.stringify(args.body),
      offsetMs,
    };
  }

  private async authorization(p: Prepared, signal: AbortSignal): Promise<string> {
    const auth = this.auth;
    switch (p.method) {
      case "oauth1":
        // JSON bodies are never signed; the query is (RFC 5849, wire-facts 4.1).
        return oauth1Header({
          consumer: auth.consumer!,
          token: auth.user!,
          method: p.info.method,
          url: this.transport.url(p.info.path, p.query),
          clock: this.shared.serviceTime,
        });
      case "app": {
        const token =
          typeof auth.bearer === "string"
            ? auth.bearer
            : await bearerCache.get(this.transport, auth.consumer!, this.clock, signal);
        return `Bearer ${token}`;
      }
      case "pkce":
        return `Bearer ${await auth.pkce!.accessToken(signal)}`;
    }
  }

  /**
   * What every response (of a call, or of a stream's connect) reports: its status goes to the
   * response observer, its rate-limit headers to the rate-limit observer, and a cached app-only token the service refused (401) is dropped, so
   * the next call fetches the current one.
   */
  private afterResponse(p: Prepared, res: Pick<HttpResponse, "status" | "headers">, authorization: string) {
    this.shared.serviceTime.observe(headerValue(res.headers, "date"));
    this.observe(p, res.status, res.headers);
    if (
      res.status === 401 &&
      p.method === "app" &&
      typeof this.auth.bearer !== "string" &&
      authorization.startsWith("Bearer ")
    )
      bearerCache.forget(authorization.slice(7));
  }

  private observe(p: Prepared, status: number, headers: HttpResponse["headers"]) {
    const at = this.clock.now();
    try {
      this.shared.onResponse?.({
        endpoint: p.info.endpoint,
        method: p.info.method,
        path: p.info.path,
        status,
        identity: p.identity,
        at,
      });
    } catch (err) {
      this.logger.error({ err, endpoint: p.info.endpoint }, "the response observer threw; ignored");
    }
    const observer = this.shared.onRateLimit;
    if (!observer) return;
    const limits = parseRateLimitHeaders(headers);
    if (!hasRateLimitHeaders(limits)) return;
    try {
      observer({
        ...limits,
        endpoint: p.info.endpoint,
        method: p.info.method,
        path: p.info.path,
        status,
        identity: p.identity,
        at,
      });
    } catch (err) {
      this.logger.error({ err, endpoint: p.info.endpoint }, "the rate-limit observer threw; ignored");
    }
  }

  /** A call begins: its signal is the caller's and this client's closing. Each is {@link end}ed. */
  private begin(signal: AbortSignal | undefined): AbortSignal {
    this.#inFlight++;
    const closing = (this.#closer ??= new AbortController()).signal;
    return signal ? AbortSignal.any([signal, closing]) : closing;
  }

  /** A call ended: with none left in flight (and the client open), the closer goes. */
  private end(): void {
    if (--this.#inFlight === 0 && !this.#closed) this.#closer = undefined;
  }
}

/** Creates a client of the service at `baseUrl` (HTTPS, or HTTP to loopback) with the given credentials. */
export function createClient(options: ClientOptions): ApiClient {
  const newTransport = () =>
    createTransport({
      baseUrl: options.baseUrl,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    });
  const service = new Service(
    newTransport,
    options.clock ?? systemClock,
    options.logger ?? silentLogger,
    options.onRateLimit,
    options.onResponse,
  );
  return new ApiClient(service, options.auth ?? {});
}
