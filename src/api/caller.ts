/**
 * What the endpoint groups (./groups/) call through: a client's `request` and `stream`, and
 * the options every call takes. The groups are the client's shortcuts, and the client is made
 * of them; they meet here so that neither imports the other.
 */
import type { AuthMethod, EndpointKey } from "./endpoints.ts";
import type { StreamQuery } from "./params.ts";
import type { ArgsOptional, RequestArgs, ResponseOf } from "./schema.ts";
import type { PostStream, StreamOptions } from "./stream/post-stream.ts";

/** Per-call options: which authentication method to use (default: the endpoint's first the client holds) and an abort signal. */
export interface CallOptions {
  auth?: AuthMethod;
  signal?: AbortSignal;
}

/** The arguments after the key of `client.request(key, ...)`. */
export type RequestRest<K extends EndpointKey> =
  ArgsOptional<K> extends true
    ? [args?: RequestArgs<K>, options?: CallOptions]
    : [args: RequestArgs<K>, options?: CallOptions];

/** The two stream endpoints. */
export type StreamEndpointKey = "GET /2/posts/search/stream" | "GET /2/posts/sample/stream";

/** The calls the endpoint groups make: `ApiClient` (./client.ts) implements them. */
export interface Caller {
  /** Calls any v2 endpoint by its key, with typed path parameters, query and body. */
  request<K extends EndpointKey>(key: K, ...rest: RequestRest<K>): Promise<ResponseOf<K>>;
  /** Opens one of the two streams. */
  stream(key: StreamEndpointKey, query?: StreamQuery, options?: CallOptions & StreamOptions): PostStream;
}
