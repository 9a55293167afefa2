/**
 * The hub's requests as the app's budget takes them, and recent search read to its last page.
 * The rules calls and every search the hub makes (a gap's, new rules', new bots' mentions) go
 * through one {@link Budgeted} runner, so they count against the app's windows like every
 * other request and never meet a 429 the budget could have foreseen.
 */
import type { Executed, HeaderBag } from "../../actions/action.ts";
import type { ApiClient } from "../../api/client.ts";
import type { EndpointKey } from "../../api/endpoints.ts";
import { compareIds } from "../../api/ids.ts";
import { pageTokenParam, Paginator } from "../../api/paginate.ts";
import type { Envelope, Includes, Post } from "../../api/types.ts";
import { EVENT_POST_QUERY } from "../events.ts";

/**
 * The budgeted way to run one request of the hub: the runtime counts it against the app's
 * windows, and the answer's headers (from {@link ApiClient.exchange}) correct them, as for
 * every other budgeted request.
 */
export type Budgeted = <R>(endpoint: EndpointKey, run: (signal: AbortSignal) => Promise<Executed<R>>) => Promise<R>;

/** Runs a request directly: for a hub (or a rules sync) given no budget, as in tests. */
export const direct: Budgeted = async (_endpoint, run) => (await run(new AbortController().signal)).result;

/** A client exchange as the budget takes it: the body as the result, with the headers. */
export const executed = async <R>(exchange: Promise<{ body: R; headers: HeaderBag }>): Promise<Executed<R>> => {
  const { body, headers } = await exchange;
  return { result: body, headers };
};

/**
 * Every page of a list endpoint the hub reads (the app's rules, a recent search), each page
 * budgeted like any other request. `read` sends one page with the query parameter that
 * carries the page token (under the family's name, the first page with none); the
 * {@link Paginator} stops on the last page, or on a token it has seen before.
 */
export function budgetedPages<T>(
  budgeted: Budgeted,
  key: EndpointKey,
  read: (token: Record<string, string>, signal: AbortSignal) => Promise<{ body: Envelope<T[]>; headers: HeaderBag }>,
): Paginator<T> {
  const param = pageTokenParam(key);
  return new Paginator((token) => budgeted(key, (signal) => executed(read(token ? { [param]: token } : {}, signal))));
}

/** A recent search query's longest (pro; the mention rules are joined up to it). */
export const SEARCH_QUERY_MAX = 4096;

/** A post recent search found, with the includes of its page (its author is among them). */
export interface Found {
  post: Post;
  includes: Includes | undefined;
}

/**
 * Every post recent search finds for `query` in `scope` (a `start_time` or a `since_id`),
 * all its pages, oldest first, each with its page's includes; budgeted, and stopped when
 * `closed` aborts (the hub closed).
 */
export async function searchAll(
  budgeted: Budgeted,
  client: ApiClient,
  query: string,
  scope: { start_time: Date } | { since_id: string },
  closed: AbortSignal,
): Promise<Found[]> {
  const found: Found[] = [];
  const key = "GET /2/posts/search/recent";
  const pages = budgetedPages(budgeted, key, (token, signal) =>
    client.exchange(
      key,
      { query: { ...EVENT_POST_QUERY, query, max_results: 100, ...scope, ...token } },
      { signal: AbortSignal.any([signal, closed]) },
    ),
  );
  for await (const page of pages.pages()) {
    for (const post of page.data ?? []) found.push({ post, includes: page.includes });
    if (closed.aborted) break;
  }
  return found.sort((a, b) => compareIds(a.post.id, b.post.id));
}
