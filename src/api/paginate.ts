/**
 * Reading every page of a list endpoint as one async iterator of items. The page token goes
 * back as `next_token` or `pagination_token` depending on the family (wire-facts 1.3); the
 * paginator also tracks the newest id it saw, which is the next `since_id` of a poller that
 * must neither miss nor repeat (mentions).
 *
 * @example
 * ```ts
 * const mentions = client.paginate(client.users.mentions, me, { since_id: cursor, max_results: 100 });
 * for await (const post of mentions) handle(post);
 * cursor = mentions.newestId ?? cursor;
 * ```
 */
import { compareIds } from "./ids.ts";
import type { EndpointKey } from "./endpoints.ts";
import { NEXT_TOKEN_ENDPOINTS } from "./schema.ts";
import type { Envelope, Includes } from "./types.ts";

/** The name a family's page token is sent back under. */
export const pageTokenParam = (key: EndpointKey): "next_token" | "pagination_token" =>
  NEXT_TOKEN_ENDPOINTS.has(key) ? "next_token" : "pagination_token";

export interface PaginateOptions {
  /** Stop after this many pages (default: all). */
  maxPages?: number;
  /** Stop after this many items (default: all). */
  maxItems?: number;
}

/** Fetches one page given the token of the page before (undefined for the first). */
export type PageFetcher<T> = (token: string | undefined) => Promise<Envelope<T[]>>;

/** Every item of every page. Iterate it for items, or {@link pages} for whole envelopes. */
export class Paginator<T> implements AsyncIterable<T> {
  /** The largest `meta.newest_id` (or item id) seen so far: the `since_id` of the next poll. */
  newestId: string | undefined;
  /** Pages fetched so far. */
  pageCount = 0;
  /** Items yielded so far. */
  itemCount = 0;
  /** `includes` of every page fetched, merged (expanded authors, referenced posts...). */
  readonly includes: Required<Pick<Includes, "posts" | "users" | "media" | "polls" | "places" | "topics">> = {
    posts: [],
    users: [],
    media: [],
    polls: [],
    places: [],
    topics: [],
  };

  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly options: PaginateOptions = {},
  ) {}

  /** The pages, one envelope each, until the last page or a limit. */
  async *pages(): AsyncGenerator<Envelope<T[]>> {
    let token: string | undefined;
    const seen = new Set<string>();
    while (this.pageCount < (this.options.maxPages ?? Infinity)) {
      const page = await this.fetchPage(token);
      this.pageCount++;
      this.note(page);
      yield page;
      const next = page.meta?.next_token;
      if (!next || !page.data || page.data.length === 0 || seen.has(next)) return;
      seen.add(next);
      token = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const maxItems = this.options.maxItems ?? Infinity;
    if (maxItems <= 0) return;
    for await (const page of this.pages()) {
      for (const item of page.data ?? []) {
        this.itemCount++;
        yield item;
        if (this.itemCount >= maxItems) return;
      }
    }
  }

  /** Collects every item into an array (mind the limits of large lists). */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) out.push(item);
    return out;
  }

  private note(page: Envelope<T[]>) {
    const candidates = [page.meta?.newest_id, ...(page.data ?? []).map((d) => (d as { id?: unknown }).id)];
    for (const id of candidates) {
      if (
        typeof id === "string" &&
        /^\d+$/.test(id) &&
        (this.newestId === undefined || compareIds(id, this.newestId) > 0)
      )
        this.newestId = id;
    }
    const inc = page.includes;
    if (inc)
      for (const k of Object.keys(this.includes) as Array<keyof typeof this.includes>)
        if (inc[k]) (this.includes[k] as unknown[]).push(...inc[k]!);
  }
}

/** A grouped method that returns a page of a list endpoint: `paginate` can drive it. */
export type PagedMethod<A extends unknown[], T> = ((...args: A) => Promise<Envelope<T[]>>) & {
  readonly endpoint: EndpointKey;
  /** Which argument holds the query (where the page token goes). */
  readonly queryIndex: number;
};

/** Marks a grouped method as paged, for `client.paginate(method, ...args)`. */
export function paged<A extends unknown[], T>(
  endpoint: EndpointKey,
  queryIndex: number,
  fn: (...args: A) => Promise<Envelope<T[]>>,
): PagedMethod<A, T> {
  return Object.assign(fn, { endpoint, queryIndex });
}

/** The page fetcher of a paged method called with `args`: the token is put into the query argument. */
export function fetcherOf<A extends unknown[], T>(method: PagedMethod<A, T>, args: A): PageFetcher<T> {
  const param = pageTokenParam(method.endpoint);
  return (token) => {
    const call = [...args] as unknown[];
    while (call.length <= method.queryIndex) call.push(undefined);
    const query = { ...((call[method.queryIndex] as object | undefined) ?? {}) } as Record<string, unknown>;
    if (token) query[param] = token;
    call[method.queryIndex] = query;
    return method(...(call as A));
  };
}
