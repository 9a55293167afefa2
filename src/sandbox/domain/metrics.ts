/**
 * `public_metrics` computed from the world, never stored, so they cannot drift from the
 * posts, likes and follows they count. One pass over the world per response that asks.
 */
import { compareIds } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";

const bump = (m: Map<string, number>, k: string | undefined) => {
  if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
};

/** Counts by post id and by user id; a missing key is zero. */
export interface WorldCounts {
  replies: Map<string, number>;
  quotes: Map<string, number>;
  reposts: Map<string, number>;
  likes: Map<string, number>;
  bookmarks: Map<string, number>;
  /** Live posts by author (reposts included, as the service counts them). */
  posts: Map<string, number>;
  /** Newest live post id by author. */
  newest: Map<string, string>;
  likesGiven: Map<string, number>;
  followers: Map<string, number>;
  following: Map<string, number>;
  /** Public lists a user is a member of (`listed_count`). */
  listed: Map<string, number>;
}

/** Counts everything once. */
export function countWorld(ctx: SandboxContext): WorldCounts {
  const w = ctx.data.world;
  const c: WorldCounts = {
    replies: new Map(),
    quotes: new Map(),
    reposts: new Map(),
    likes: new Map(),
    bookmarks: new Map(),
    posts: new Map(),
    newest: new Map(),
    likesGiven: new Map(),
    followers: new Map(),
    following: new Map(),
    listed: new Map(),
  };
  const live = (id: string) => {
    const p = w.posts[id];
    return p !== undefined && p.deleted_at === undefined;
  };
  for (const p of Object.values(w.posts)) {
    if (p.deleted_at !== undefined) continue;
    bump(c.replies, p.in_reply_to_post_id);
    bump(c.quotes, p.quote_post_id);
    bump(c.reposts, p.repost_of_id);
    bump(c.posts, p.author_id);
    const newest = c.newest.get(p.author_id);
    if (newest === undefined || compareIds(p.id, newest) > 0) c.newest.set(p.author_id, p.id);
  }
  for (const l of w.likes) {
    if (live(l.post_id)) bump(c.likes, l.post_id);
    bump(c.likesGiven, l.user_id);
  }
  for (const b of w.bookmarks) if (live(b.post_id)) bump(c.bookmarks, b.post_id);
  for (const f of w.follows) {
    bump(c.followers, f.target_id);
    bump(c.following, f.source_id);
  }
  for (const m of w.list_members ?? []) {
    const list = w.lists?.[m.list_id];
    if (list && !list.private) bump(c.listed, m.user_id);
  }
  return c;
}
