/**
 * Likes and bookmarks: a user's marks on posts. Both are idempotent, as on the real
 * service (liking twice answers `liked: true` again and keeps one like). A post must be
 * visible to the user to be liked or bookmarked.
 */
import type { SandboxUser } from "../model/index.ts";
import { notFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { postAccess } from "./posts.ts";

function requireVisible(ctx: SandboxContext, user: SandboxUser, postId: string): void {
  if (!postAccess(ctx, user.id, postId).ok) throw notFound(`Could not find post with post_id: [${postId}].`);
}

/** Likes a visible post (404 otherwise); liking twice keeps one like. */
export function like(ctx: SandboxContext, user: SandboxUser, postId: string): void {
  requireVisible(ctx, user, postId);
  const likes = ctx.data.world.likes;
  if (!likes.some((l) => l.user_id === user.id && l.post_id === postId))
    likes.push({ user_id: user.id, post_id: postId, created_at: ctx.clock.now() });
}

/** Removes a like; a no-op when there is none, as the service answers `liked: false` either way. */
export function unlike(ctx: SandboxContext, userId: string, postId: string): void {
  const likes = ctx.data.world.likes;
  const i = likes.findIndex((l) => l.user_id === userId && l.post_id === postId);
  if (i >= 0) likes.splice(i, 1);
}

/** Bookmarks a visible post (404 otherwise); idempotent. */
export function bookmark(ctx: SandboxContext, user: SandboxUser, postId: string): void {
  requireVisible(ctx, user, postId);
  const marks = ctx.data.world.bookmarks;
  if (!marks.some((b) => b.user_id === user.id && b.post_id === postId))
    marks.push({ user_id: user.id, post_id: postId, created_at: ctx.clock.now() });
}

/** Removes a bookmark; a no-op when there is none. */
export function unbookmark(ctx: SandboxContext, userId: string, postId: string): void {
  const marks = ctx.data.world.bookmarks;
  const i = marks.findIndex((b) => b.user_id === userId && b.post_id === postId);
  if (i >= 0) marks.splice(i, 1);
}
