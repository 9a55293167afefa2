/**
 * `public_metrics` from the world, never stored apart from it, so they cannot drift from the
 * posts, likes and follows they count. Replies, quotes and reposts per post, and each
 * author's live posts, come from the post index (kept up to date as posts are created and
 * deleted), so rendering a post never walks the world's posts; likes, bookmarks, follows and
 * list memberships are counted in one pass over those tables per response that asks.
 */
import type { SandboxContext } from "../route.ts";
import { liveByAuthor, refCounts } from "./post-index.ts";

const bump = (m: Map<string, number>, k: string | undefined) => {
  if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
};

/** Counts by post id and by user id; a missing key is zero. */
export interface WorldCounts {
  replies: ReadonlyMap<string, number>;
  quotes: ReadonlyMap<string, number>;
  reposts: ReadonlyMap<string, number>;
  likes: Map<string, number>;
  bookmarks: Map<string, number>;
  /** Live posts by an author (reposts included, as the service counts them). */
  postsBy(userId: string): number;
  /** An author's newest live post id. */
  newestBy(userId: string): string | undefined;
  likesGiven: Map<string, number>;
  followers: Map<string, number>;
  following: Map<string, number>;
  /** Public lists a user is a member of (`listed_count`). */
  listed: Map<string, number>;
}

/** A value computed on first use. */
function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/**
 * Counts everything a response may show. Each table is counted only if the response reads a
 * count from it, and at most once (see the module comment for what costs what).
 */
export function countWorld(ctx: SandboxContext): WorldCounts {
  const w = ctx.data.world;
  const refs = refCounts(w.posts);
  const live = (id: string) => {
    const p = w.posts[id];
    return p !== undefined && p.deleted_at === undefined;
  };
  const likes = lazy(() => {
    const byPost = new Map<string, number>();
    const byUser = new Map<string, number>();
    for (const l of w.likes) {
      if (live(l.post_id)) bump(byPost, l.post_id);
      bump(byUser, l.user_id);
    }
    return { byPost, byUser };
  });
  const bookmarks = lazy(() => {
    const byPost = new Map<string, number>();
    for (const b of w.bookmarks) if (live(b.post_id)) bump(byPost, b.post_id);
    return byPost;
  });
  const follows = lazy(() => {
    const followers = new Map<string, number>();
    const following = new Map<string, number>();
    for (const f of w.follows) {
      bump(followers, f.target_id);
      bump(following, f.source_id);
    }
    return { followers, following };
  });
  const listed = lazy(() => {
    const byUser = new Map<string, number>();
    for (const m of w.list_members ?? []) {
      const list = w.lists?.[m.list_id];
      if (list && !list.private) bump(byUser, m.user_id);
    }
    return byUser;
  });
  return {
    replies: refs.replies,
    quotes: refs.quotes,
    reposts: refs.reposts,
    get likes() {
      return likes().byPost;
    },
    get bookmarks() {
      return bookmarks();
    },
    postsBy: (id) => liveByAuthor(w.posts, id).length,
    newestBy: (id) => liveByAuthor(w.posts, id).at(-1)?.id,
    get likesGiven() {
      return likes().byUser;
    },
    get followers() {
      return follows().followers;
    },
    get following() {
      return follows().following;
    },
    get listed() {
      return listed();
    },
  };
}
