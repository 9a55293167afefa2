/**
 * The three timelines (wire-facts 2.5), as lists of posts newest first, before paging:
 *
 * - a user's posts: their own posts and reposts, minus `exclude=replies,reposts`; like
 *   the real service, only the newest 3200 are reachable;
 * - mentions: posts by others that mention the user, or reply to them; reposts do not
 *   count; the newest 800 are reachable;
 * - the home timeline: the user's own posts and those of the accounts they follow, minus
 *   muted accounts and `exclude`.
 *
 * Posts the viewer may not see (protected authors they do not follow) are left out.
 */
import type { SandboxPost } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";
import { liveMentionsOf, livePostsBy, livePostsNewestFirst, visibleTo } from "./posts.ts";
import { edges, mutes } from "./relations.ts";
import { userById } from "./users.ts";

/** How far back the user-posts timeline reaches (the service's documented cap). */
export const USER_TIMELINE_CAP = 3200;
/** How far back the mentions timeline reaches. */
export const MENTIONS_CAP = 800;

/** What `exclude` can leave out of a timeline. */
export type Exclusion = "replies" | "reposts";

const excluded = (p: SandboxPost, exclude: readonly Exclusion[]) =>
  (exclude.includes("replies") && p.in_reply_to_post_id !== undefined) ||
  (exclude.includes("reposts") && p.repost_of_id !== undefined);

/** A user's posts and reposts, newest first, within the 3200 reachable, minus `exclude`. */
export function userPosts(
  ctx: SandboxContext,
  viewerId: string | undefined,
  userId: string,
  exclude: readonly Exclusion[] = [],
): SandboxPost[] {
  return livePostsBy(ctx, userId)
    .slice(-USER_TIMELINE_CAP)
    .reverse()
    .filter((p) => !excluded(p, exclude) && visibleTo(ctx, viewerId, p));
}

/** Posts by others mentioning or replying to a user, newest first, within the 800 reachable. */
export function mentionsOf(ctx: SandboxContext, viewerId: string | undefined, userId: string): SandboxPost[] {
  const user = userById(ctx, userId);
  if (!user) return [];
  return liveMentionsOf(ctx, userId, user.username)
    .filter((p) => p.author_id !== userId)
    .slice(0, MENTIONS_CAP)
    .filter((p) => visibleTo(ctx, viewerId, p));
}

/** The user's own posts and those of the accounts they follow, minus muted accounts. */
export function homeTimeline(ctx: SandboxContext, userId: string, exclude: readonly Exclusion[] = []): SandboxPost[] {
  const authors = new Set([
    userId,
    ...edges(ctx, "follows")
      .filter((f) => f.source_id === userId)
      .map((f) => f.target_id),
  ]);
  return livePostsNewestFirst(ctx).filter(
    (p) =>
      authors.has(p.author_id) &&
      !mutes(ctx, userId, p.author_id) &&
      !excluded(p, exclude) &&
      visibleTo(ctx, userId, p),
  );
}
