/**
 * The filtered and sample streams and the filtered stream's rules (spec 4.1 "Search and
 * streams"). All app-only: a client needs the app's keys (or a bearer token).
 */
import type { CallOptions, Caller } from "../caller.ts";
import type { StreamQuery } from "../params.ts";
import type { StreamOptions } from "../stream/post-stream.ts";

export function streamsGroup(c: Caller) {
  return {
    /** The filtered stream: posts matching the app's rules, each with `matching_rules`. Reconnects on its own. */
    filtered: (query?: StreamQuery, options?: CallOptions & StreamOptions) =>
      c.stream("GET /2/posts/search/stream", query, options),
    /** The sample (volume) stream: about 1% of all posts. */
    sample: (query?: StreamQuery, options?: CallOptions & StreamOptions) =>
      c.stream("GET /2/posts/sample/stream", query, options),
    /** `GET /2/posts/search/stream/rules`: the app's rules (all, or those of `ids`). */
    rules: (
      query?: { ids?: readonly string[]; max_results?: number; pagination_token?: string },
      options?: CallOptions,
    ) => c.request("GET /2/posts/search/stream/rules", { query }, options),
    /** Adds rules; `dryRun` checks them without saving. Per-rule refusals (duplicates, invalid) come back in `errors`. */
    addRules: (rules: Array<{ value: string; tag?: string }>, opts: { dryRun?: boolean } = {}, options?: CallOptions) =>
      c.request(
        "POST /2/posts/search/stream/rules",
        { query: { dry_run: opts.dryRun }, body: { add: rules } },
        options,
      ),
    /** Deletes rules by id (or by value). */
    deleteRules: (
      which: { ids?: string[]; values?: string[] },
      opts: { dryRun?: boolean } = {},
      options?: CallOptions,
    ) =>
      c.request(
        "POST /2/posts/search/stream/rules",
        { query: { dry_run: opts.dryRun }, body: { delete: which } },
        options,
      ),
  };
}
