/**
 * Derived views of the world's posts that timelines, search, the duplicate check and
 * `public_metrics` read on every request: all live posts newest first, each author's live
 * posts (and by their text), how many live replies, quotes and reposts each post has, and the live quotes,
 * reposts, mentions and replies themselves by what they refer to. They are built
 * once from the posts table (so a state loaded from a file works) and then kept up to date
 * by `posts.ts`, the one module that stores and deletes posts, instead of sorting
 * every post of the sandbox for every request: a day of replies on the pro plan would
 * otherwise cost minutes.
 */
import { compareIds, type SandboxPost } from "../model/index.ts";
import { entitiesOf } from "./post-entities.ts";

interface PostIndex {
  /** Live posts, newest first. */
  newestFirst: SandboxPost[];
  /** Live posts per author, oldest first. */
  byAuthor: Map<string, SandboxPost[]>;
  /** Live replies, quotes and reposts per post id (a missing key is zero). */
  refs: RefCounts;
  /** The live posts themselves, oldest first, for the lists that show them. */
  lists: RefLists;
  /** Live posts (reposts not) per author, by their text: the duplicate check's question. */
  texts: Map<string, Map<string, SandboxPost[]>>;
}

/** Live posts referring to a post or a user, oldest first. */
export interface RefLists {
  /** Quotes of a post, by its id. */
  quotes: Map<string, SandboxPost[]>;
  /** Reposts of a post, by its id. */
  reposts: Map<string, SandboxPost[]>;
  /** Posts mentioning a username (lowercased), reposts excluded. */
  mentions: Map<string, SandboxPost[]>;
  /** Replies to a user, by the user's id, reposts excluded. */
  repliesTo: Map<string, SandboxPost[]>;
}

/** How many live posts refer to a post, by the kind of reference. */
export interface RefCounts {
  replies: Map<string, number>;
  quotes: Map<string, number>;
  reposts: Map<string, number>;
}

const bump = (m: Map<string, number>, id: string | undefined, by: number) => {
  if (id === undefined) return;
  const n = (m.get(id) ?? 0) + by;
  if (n > 0) m.set(id, n);
  else m.delete(id);
};

const listed = (m: Map<string, SandboxPost[]>, key: string | undefined, p: SandboxPost, add: boolean) => {
  if (key === undefined) return;
  const list = m.get(key);
  if (add) {
    if (list) list.push(p);
    else m.set(key, [p]);
  } else if (list) {
    const rest = list.filter((q) => q !== p);
    if (rest.length) m.set(key, rest);
    else m.delete(key);
  }
};

/** Files (or, with `add` false, unfiles) a live post under what it refers to. */
function listRefs(lists: RefLists, p: SandboxPost, add: boolean): void {
  listed(lists.quotes, p.quote_post_id, p, add);
  listed(lists.reposts, p.repost_of_id, p, add);
  if (p.repost_of_id !== undefined) return;
  listed(lists.repliesTo, p.in_reply_to_user_id, p, add);
  if (!p.text.includes("@")) return;
  const names = new Set((entitiesOf(p).mentions ?? []).map((m) => m.username.toLowerCase()));
  for (const name of names) listed(lists.mentions, name, p, add);
}

/**
 * Files (or unfiles) a live post under its author and text. The duplicate check walked every
 * live post of the author at each new post: one account posting thousands (a crowd's, a
 * bench's) made each post cost more than the last.
 */
function fileText(texts: PostIndex["texts"], p: SandboxPost, add: boolean): void {
  if (p.repost_of_id !== undefined) return;
  let byText = texts.get(p.author_id);
  if (!byText) {
    if (!add) return;
    texts.set(p.author_id, (byText = new Map()));
  }
  listed(byText, p.text, p, add);
  if (byText.size === 0) texts.delete(p.author_id);
}

/** Counts (or, with -1, uncounts) a live post's references. */
function countRefs(refs: RefCounts, p: SandboxPost, by: 1 | -1): void {
  bump(refs.replies, p.in_reply_to_post_id, by);
  bump(refs.quotes, p.quote_post_id, by);
  bump(refs.reposts, p.repost_of_id, by);
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
  const refs: RefCounts = { replies: new Map(), quotes: new Map(), reposts: new Map() };
  const lists: RefLists = { quotes: new Map(), reposts: new Map(), mentions: new Map(), repliesTo: new Map() };
  const texts: PostIndex["texts"] = new Map();
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    countRefs(refs, newestFirst[i]!, 1);
    listRefs(lists, newestFirst[i]!, true);
    fileText(texts, newestFirst[i]!, true);
  }
  return { newestFirst, byAuthor, refs, lists, texts };
}

function indexOf(posts: Record<string, SandboxPost>): PostIndex {
  let index = indexes.get(posts);
  if (!index) indexes.set(posts, (index = build(posts)));
  return index;
}

/** Every live post, newest first. Read-only: it is the index itself. */
export const liveNewestFirst = (posts: Record<string, SandboxPost>): readonly SandboxPost[] =>
  indexOf(posts).newestFirst;

/** An author's live posts, oldest first. */
export const liveByAuthor = (posts: Record<string, SandboxPost>, authorId: string): readonly SandboxPost[] =>
  indexOf(posts).byAuthor.get(authorId) ?? [];

/** An author's live posts (reposts not) with this text, oldest first. Read-only: it is the index itself. */
export const liveWithText = (
  posts: Record<string, SandboxPost>,
  authorId: string,
  text: string,
): readonly SandboxPost[] => indexOf(posts).texts.get(authorId)?.get(text) ?? [];

/** Live replies, quotes and reposts per post id. Read-only: it is the index itself. */
export const refCounts = (posts: Record<string, SandboxPost>): Readonly<RefCounts> => indexOf(posts).refs;

/** Live quotes, reposts, mentions and replies by what they refer to. Read-only: it is the index itself. */
export const refLists = (posts: Record<string, SandboxPost>): Readonly<RefLists> => indexOf(posts).lists;

/** Records a post just stored (ids grow with time, so it is the newest). */
export function indexAdded(posts: Record<string, SandboxPost>, post: SandboxPost): void {
  const index = indexes.get(posts);
  if (!index) return; // built with it on first read
  const first = index.newestFirst[0];
  if (!first || compareIds(post.id, first.id) > 0) index.newestFirst.unshift(post);
  else return void indexes.delete(posts); // out of order (never, with nextId): rebuild on next read
  countRefs(index.refs, post, 1);
  listRefs(index.lists, post, true);
  fileText(index.texts, post, true);
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
    countRefs(index.refs, p, -1);
    listRefs(index.lists, p, false);
    fileText(index.texts, p, false);
    const list = index.byAuthor.get(p.author_id);
    if (list)
      index.byAuthor.set(
        p.author_id,
        list.filter((q) => q !== p),
      );
  }
}
