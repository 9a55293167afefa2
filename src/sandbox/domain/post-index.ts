/**
 * Derived views of the world's posts that timelines, search and the duplicate check read on
 * every request: all live posts newest first, and each author's live posts. They are built
 * once from the posts table (so a state loaded from a file works) and then kept up to date
 * by `posts.ts`, the one module that stores and deletes posts, instead of sorting
 * every post of the sandbox for every request: a day of replies on the pro plan would
 * otherwise cost minutes.
 */
import { compareIds, type SandboxPost } from "../model/index.ts";

interface PostIndex {
  /** Live posts, newest first. */
  newestFirst: SandboxPost[];
  /** Live posts per author, oldest first. */
  byAuthor: Map<string, SandboxPost[]>;
}

const indexes = new WeakMap<Record<string, SandboxPost>, PostIndex>();

function build(posts: Record<string, SandboxPost>): PostIndex {
  const live = Object.values(posts).filter((p) => p.deleted_at === undefined);
  const newestFirst = live.sort((a, b) => compareIds(b.id, a.id));
  const byAuthor = new Map<string, SandboxPost[]>();
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const p = newestFirst[i]!;
    const list = byAuthor.get(p.author_id) ?? [];
    list.push(p);
    byAuthor.set(p.author_id, list);
  }
  return { newestFirst, byAuthor };
}

function indexOf(posts: Record<string, SandboxPost>): PostIndex {
  let index = indexes.get(posts);
  if (!index) indexes.set(posts, (index = build(posts)));
  return index;
}

/** Every live post, newest first. Read-only: it is the index itself. */
export const liveNewestFirst = (posts: Record<string, SandboxPost>): readonly SandboxPost[] => indexOf(posts).newestFirst;

/** An author's live posts, oldest first. */
export const liveByAuthor = (posts: Record<string, SandboxPost>, authorId: string): readonly SandboxPost[] => indexOf(posts).byAuthor.get(authorId) ?? [];

/** Records a post just stored (ids grow with time, so it is the newest). */
export function indexAdded(posts: Record<string, SandboxPost>, post: SandboxPost): void {
  const index = indexes.get(posts);
  if (!index) return; // built with it on first read
  const first = index.newestFirst[0];
  if (!first || compareIds(post.id, first.id) > 0) index.newestFirst.unshift(post);
  else indexes.delete(posts); // out of order (never, with nextId): rebuild on next read
  const list = index.byAuthor.get(post.author_id) ?? [];
  list.push(post);
  index.byAuthor.set(post.author_id, list);
}

/** Records posts just deleted. */
export function indexDeleted(posts: Record<string, SandboxPost>, gone: readonly SandboxPost[]): void {
  const index = indexes.get(posts);
  if (!index) return;
  const set = new Set(gone);
  index.newestFirst = index.newestFirst.filter((p) => !set.has(p));
  for (const p of gone) {
    const list = index.byAuthor.get(p.author_id);
    if (list) index.byAuthor.set(p.author_id, list.filter((q) => q !== p));
  }
}
