/**
 * Points the `twitter-api-v2` npm client at the sandbox, for the conformance tests: the
 * sandbox is this service family's emulator with the spec's renames (tweet → post, retweet →
 * repost: DESIGN.md "Naming on the wire"), so a real client needs its host and those names
 * rewritten, and nothing else.
 *
 * How, and why this way: the library's own plugin hooks (`plugins` in its client settings),
 * not a proxy. A proxy would have to rewrite requests after the client signed them, which
 * breaks every OAuth 1.0a signature; the plugin runs before signing, so the client signs the
 * request the sandbox receives. The pieces:
 *
 * - `onBeforeRequestConfig` / `onBeforeStreamRequestConfig`: the request's URL moves from
 *   `api.x.com` (and `x.com` for the authorize page) to the sandbox, and the names in the
 *   path, in the query's keys and in the values of `*.fields`, `expansions` and `exclude`, and
 *   in the JSON body's keys are renamed. Free text (a post's text, a search query) is left as
 *   it is.
 * - `onAfterRequest`: the answer's keys (and the two enum values that carry the word) are
 *   renamed back, so the paginators and the test see the names the library was written for.
 *   The library picks its form-encoded parser for the OAuth endpoints' answers by their host,
 *   so the rewrite parses those (text once the host is the sandbox's) the same way.
 *   The library offers no hook for stream payloads: {@link toClientNames} is applied to each
 *   stream event by the test instead.
 * - The library always calls `https.request`; its `httpAgent` setting with a plain
 *   `http.Agent` lets that request go out as plain HTTP to the loopback sandbox.
 */
import { Agent } from "node:http";
import { TwitterApiPluginResponseOverride, type ITwitterApiClientPlugin } from "twitter-api-v2";

const toServiceWord = (s: string) =>
  s
    .replace(/retweet/g, "repost")
    .replace(/Retweet/g, "Repost")
    .replace(/tweet/g, "post")
    .replace(/Tweet/g, "Post");
const toClientWord = (s: string) => s.replace(/repost/g, "retweet").replace(/post/g, "tweet");

/** Query keys whose values are names (field lists, expansions, exclusions), not free text. */
const NAME_VALUED = /(^|\.)fields$|^expansions$|^exclude$|^scope$/;

function renameKeys(
  value: unknown,
  rename: (key: string) => string,
  enumValue: (key: string, v: string) => string = (_k, v) => v,
): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, rename, enumValue));
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[rename(k)] = typeof v === "string" ? enumValue(k, v) : renameKeys(v, rename, enumValue);
  return out;
}

/** A service answer (or stream event) with the names the library was written for. */
export function toClientNames<T>(body: T): T {
  return renameKeys(body, toClientWord, (k, v) => {
    if (k === "type" && v === "reposted") return "retweeted";
    if (k === "resource_type" && v === "post") return "tweet";
    return v;
  }) as T;
}

/** A URL of the real service (or its authorize page) as the sandbox's. */
export function toSandboxUrl(url: string, sandbox: string): string {
  const u = new URL(url);
  if (!/(^|\.)x\.com$|(^|\.)twitter\.com$/.test(u.hostname)) return url;
  const path = u.pathname.startsWith("/2/") ? toServiceWord(u.pathname) : u.pathname;
  const query = new URLSearchParams();
  for (const [k, v] of u.searchParams) query.append(toServiceWord(k), NAME_VALUED.test(k) ? toServiceWord(v) : v);
  const q = query.toString();
  return sandbox + path + (q ? `?${q}` : "");
}

/** The plugin and agent that make a `TwitterApi` client talk to the sandbox at `sandbox`. */
export function sandboxRewrite(sandbox: string): { plugins: ITwitterApiClientPlugin[]; httpAgent: Agent } {
  const request = ({ params }: { params: { url: string; query?: unknown; body?: unknown; params?: unknown } }) => {
    params.url = toSandboxUrl(params.url, sandbox);
    if (params.query && typeof params.query === "object") {
      const q: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(params.query)) {
        const names = NAME_VALUED.test(k);
        q[toServiceWord(k)] = !names
          ? v
          : Array.isArray(v)
            ? v.map((x) => toServiceWord(String(x)))
            : typeof v === "string"
              ? toServiceWord(v)
              : v;
      }
      params.query = q;
    }
    if (params.body && typeof params.body === "object") params.body = renameKeys(params.body, toServiceWord);
    // Path parameters (`:tweet_id`) are named in the URL and filled in later from `params`.
    if (params.params && typeof params.params === "object") params.params = renameKeys(params.params, toServiceWord);
  };
  return {
    httpAgent: new Agent({ keepAlive: false }),
    plugins: [
      {
        onBeforeRequestConfig: (args) => void request(args as never),
        onBeforeStreamRequestConfig: (args) => void request(args as never),
        onAfterRequest: ({ url, response }) => {
          const form = url.pathname.startsWith("/oauth/") && typeof response.data === "string";
          const data = form
            ? Object.fromEntries(new URLSearchParams(response.data as string))
            : toClientNames(response.data);
          return new TwitterApiPluginResponseOverride({ ...response, data });
        },
      },
    ],
  };
}
