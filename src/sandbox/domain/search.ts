/**
 * Search and counts over the world's posts with the query language of `query.ts`.
 *
 * Recent search and recent counts see the last 7 days of the sandbox clock; the full
 * archive sees everything (and, without `start_time`, the last 30 days, as the service
 * defaults). Posts of protected accounts are never found: search only shows public posts.
 */
import { compareIds, type SandboxPost } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";
import { countWorld } from "./metrics.ts";
import { sortKey, inWindow, type TimeWindow } from "./paging.ts";
import { livePostsNewestFirst, postFacts, visibleTo } from "./posts.ts";
import { matches, type Query } from "./query.ts";

/** How far back recent search and recent counts reach. */
export const RECENT_WINDOW_MS = 7 * 24 * 3_600_000;
/** What the full archive returns when no `start_time` is given. */
export const ARCHIVE_DEFAULT_MS = 30 * 24 * 3_600_000;
/** The newest `end_time` a search accepts: the service wants it 10 s in the past. */
export const END_TIME_LAG_MS = 10_000;

/** Live public posts that match a query inside a window, newest first. */
export function searchPosts(ctx: SandboxContext, query: Query, window: TimeWindow): SandboxPost[] {
  return livePostsNewestFirst(ctx).filter(
    (p) =>
      inWindow(window, p.id, p.created_at, compareIds) &&
      visibleTo(ctx, undefined, p) &&
      matches(query, postFacts(ctx, p)),
  );
}

/**
 * The sort keys of `sort_order`: `recency` is by id; `relevancy` ranks engagement (likes,
 * reposts, replies and quotes) first and recency second.
 */
export function searchSortKey(ctx: SandboxContext, order: "recency" | "relevancy"): (p: SandboxPost) => string {
  if (order === "recency") return (p) => sortKey(p.id);
  const m = countWorld(ctx);
  return (p) =>
    sortKey(
      (m.likes.get(p.id) ?? 0) + (m.reposts.get(p.id) ?? 0) + (m.replies.get(p.id) ?? 0) + (m.quotes.get(p.id) ?? 0),
      p.id,
    );
}

/** The bucket sizes of the counts endpoints. */
export type Granularity = "minute" | "hour" | "day";
const STEP: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** One bucket of the counts endpoints. */
export interface Bucket {
  start: number;
  end: number;
  count: number;
}

/**
 * Counts matching posts in buckets aligned to whole minutes, hours or UTC days, oldest
 * first, covering `[start, end)`: the first and last buckets are cut at `start` and `end`
 * as the service cuts them.
 */
export function countBuckets(
  posts: readonly SandboxPost[],
  start: number,
  end: number,
  granularity: Granularity,
): Bucket[] {
  const step = STEP[granularity];
  const buckets: Bucket[] = [];
  for (let s = start; s < end; ) {
    const next = Math.min(end, Math.floor(s / step) * step + step);
    buckets.push({ start: s, end: next, count: 0 });
    s = next;
  }
  for (const p of posts) {
    if (p.created_at < start || p.created_at >= end) continue;
    // Buckets are contiguous; find by bisection.
    let lo = 0;
    let hi = buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (buckets[mid]!.start <= p.created_at) lo = mid;
      else hi = mid - 1;
    }
    buckets[lo]!.count++;
  }
  return buckets;
}
