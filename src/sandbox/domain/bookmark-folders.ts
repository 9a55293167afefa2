/**
 * Bookmark folders: a user's named groups of bookmarks. The service can list folders and
 * the posts in one, but has no endpoint that makes a folder or files a bookmark in it (the
 * apps do that), so the sandbox's admin API does ({@link createFolder}).
 *
 * A bookmark is in at most one folder, as in the apps: the world's bookmark records carry
 * the `folder_id`. Removing a bookmark takes it out of its folder too.
 */
import { nextId, type SandboxBookmarkFolder, type SandboxUser } from "../model/index.ts";
import { invalidRequest, notFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { bookmark } from "./engagement.ts";
import { postAccess } from "./posts.ts";
import { codePointsUpTo } from "./code-points.ts";

/** The longest folder name, in characters. */
export const MAX_FOLDER_NAME = 25;

/** The folders table (created when a state saved before folders existed lacks it). */
export function folderTable(ctx: SandboxContext): Record<string, SandboxBookmarkFolder> {
  return (ctx.data.world.bookmark_folders ??= {});
}

/**
 * Creates a folder of `user` and files the posts `postIds` in it, bookmarking each first
 * when it is not bookmarked yet (a post the user cannot see is refused, 404, as a bookmark
 * of it would be). A post already in another folder moves to this one.
 *
 * @example
 * ```ts
 * const folder = createFolder(ctx, alice, "Recipes", [post.id]);
 * ```
 */
export function createFolder(
  ctx: SandboxContext,
  user: SandboxUser,
  name: string,
  postIds: readonly string[] = [],
): SandboxBookmarkFolder {
  if (!name.trim() || codePointsUpTo(name, MAX_FOLDER_NAME) > MAX_FOLDER_NAME) {
    throw invalidRequest(`name: a bookmark folder name must be 1 to ${MAX_FOLDER_NAME} characters`, { name: [name] });
  }
  const missing = postIds.find((id) => !postAccess(ctx, user.id, id).ok);
  if (missing !== undefined) throw notFound(`Could not find post with post_ids: [${missing}].`);
  for (const id of postIds) bookmark(ctx, user, id);
  const now = ctx.clock.now();
  const folder: SandboxBookmarkFolder = { id: nextId(ctx.data, now), user_id: user.id, name, created_at: now };
  folderTable(ctx)[folder.id] = folder;
  for (const mark of ctx.data.world.bookmarks) {
    if (mark.user_id === user.id && postIds.includes(mark.post_id)) mark.folder_id = folder.id;
  }
  return folder;
}

/** A user's folders. */
export const foldersOf = (ctx: SandboxContext, userId: string): SandboxBookmarkFolder[] =>
  Object.values(folderTable(ctx)).filter((f) => f.user_id === userId);

/** A user's folder by id, or undefined (someone else's folder is not theirs to see). */
export function folderOf(ctx: SandboxContext, userId: string, folderId: string): SandboxBookmarkFolder | undefined {
  const f = folderTable(ctx)[folderId];
  return f && f.user_id === userId ? f : undefined;
}

/** The bookmarks filed in a folder. */
export const bookmarksIn = (ctx: SandboxContext, folder: SandboxBookmarkFolder) =>
  ctx.data.world.bookmarks.filter((b) => b.user_id === folder.user_id && b.folder_id === folder.id);
