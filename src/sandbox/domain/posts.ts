/**
 * Posts: creating (the API's `POST /2/posts`, reposts, and the admin API's crowd all go
 * through {@link createPost}, so every post obeys the same rules), deleting, hiding
 * replies, and who may see what.
 *
 * Rules the real service applies and the sandbox does too:
 * - the text is at most 280 weighted characters (see `weightedLength`);
 * - the same author cannot post the same text twice within 24 hours (403 duplicate);
 * - a reply needs a visible post to reply to, and the conversation's `reply_settings`;
 * - a deleted post, or one whose author is deactivated, is "not found"; one whose author
 *   is suspended, or protected from the viewer, is "not authorized".
 */
import { compareIds, nextId, type SandboxPost, type SandboxUser } from "../model/index.ts";
import { ApiProblem, forbidden, invalidRequest, notFound } from "../problems.ts";
import type { SandboxContext } from "../route.ts";
import { parseEntities } from "../../api/text/entities.ts";
import { MAX_POST_LENGTH, MAX_POST_UNITS, weightedLength } from "../../api/text/post-length.ts";
import { indexAdded, indexDeleted, liveByAuthor, liveNewestFirst, liveWithText, refLists } from "./post-index.ts";
import { detectLang } from "./lang.ts";
import { keepEntities, postEntities } from "./post-entities.ts";

export { postEntities } from "./post-entities.ts";
import type { PostFacts } from "./query.ts";
import { tokenize } from "./query.ts";
import { blocks, follows } from "./relations.ts";
import { userById } from "./users.ts";

/**
 * How far a text too long is counted for the refusal's message: far enough to tell a
 * writer how much to cut, and no further, so a long text costs no more than a short one.
 */
const COUNTED_UP_TO = 2 * MAX_POST_LENGTH;

/** How long the same author cannot post the same text again. */
export const DUPLICATE_WINDOW_MS = 24 * 3_600_000;

/** Who may reply to a conversation (set on its root post). */
export type ReplySettings = SandboxPost["reply_settings"];

/** What a post is created from. `author_id` must name an account that is not gone. */
export interface NewPost {
  author_id: string;
  text: string;
  in_reply_to_post_id?: string;
  quote_post_id?: string;
  reply_settings?: ReplySettings;
  poll?: { options: string[]; duration_minutes: number };
  /** Overrides the guessed language (the admin API's crowd may say what it writes). */
  lang?: string;
  /** The app that posted it (`source`); the admin API's posts say "postbot sandbox". */
  source?: string;
}

/** Forbidden, as the service words a refusal to create a post. */
const refuse = (detail: string) =>
  new ApiProblem(403, { detail, type: "about:blank", title: "Forbidden", status: 403 });

/** A post that exists and is not deleted (whoever its author is), or undefined. */
export function livePost(ctx: SandboxContext, id: string): SandboxPost | undefined {
  const p = ctx.data.world.posts[id];
  return p && p.deleted_at === undefined ? p : undefined;
}

/** Why a viewer cannot see a post: it is gone, or it is not theirs to see. */
export type PostAccess = { ok: true; post: SandboxPost } | { ok: false; reason: "not-found" | "not-authorized" };

/**
 * Whether `viewerId` (a user, or undefined for an app) may see a post. Protected authors'
 * posts are visible to themselves and their followers only; suspended authors' posts to
 * nobody ("not authorized"); deleted posts and deactivated authors' posts are "not found".
 */
export function postAccess(ctx: SandboxContext, viewerId: string | undefined, id: string): PostAccess {
  const post = livePost(ctx, id);
  if (!post) return { ok: false, reason: "not-found" };
  const author = userById(ctx, post.author_id, { includeGone: true });
  if (!author || author.deactivated) return { ok: false, reason: "not-found" };
  if (author.suspended) return { ok: false, reason: "not-authorized" };
  if (!canSeeAuthor(ctx, viewerId, author)) return { ok: false, reason: "not-authorized" };
  return { ok: true, post };
}

/** Whether a viewer sees an author's posts (protection only; gone accounts are checked apart). */
export function canSeeAuthor(ctx: SandboxContext, viewerId: string | undefined, author: SandboxUser): boolean {
  if (!author.protected) return true;
  return viewerId !== undefined && (viewerId === author.id || follows(ctx, viewerId, author.id));
}

/** Whether a post shows up in lists (timelines, search, streams) for a viewer. */
export function visibleTo(ctx: SandboxContext, viewerId: string | undefined, post: SandboxPost): boolean {
  if (post.deleted_at !== undefined) return false;
  const author = userById(ctx, post.author_id);
  return author !== undefined && canSeeAuthor(ctx, viewerId, author);
}

/** Every live post, newest first (the index itself: read, never change it). */
export function livePostsNewestFirst(ctx: SandboxContext): readonly SandboxPost[] {
  return liveNewestFirst(ctx.data.world.posts);
}

/** Live reposts of a post, oldest first (the index itself: read, never change it). */
export const liveRepostsOf = (ctx: SandboxContext, id: string): readonly SandboxPost[] =>
  refLists(ctx.data.world.posts).reposts.get(id) ?? [];

/** Live quotes of a post, oldest first (the index itself: read, never change it). */
export const liveQuotesOf = (ctx: SandboxContext, id: string): readonly SandboxPost[] =>
  refLists(ctx.data.world.posts).quotes.get(id) ?? [];

/**
 * Live posts (not reposts) that mention `username` or reply to `userId`, newest first: the
 * candidates of a mention timeline, from the index instead of every post of the world.
 */
export function liveMentionsOf(ctx: SandboxContext, userId: string, username: string): SandboxPost[] {
  const lists = refLists(ctx.data.world.posts);
  const found = new Set([
    ...(lists.mentions.get(username.toLowerCase()) ?? []),
    ...(lists.repliesTo.get(userId) ?? []),
  ]);
  return [...found].sort((a, b) => compareIds(b.id, a.id));
}

/** An author's live posts, oldest first (the index itself: read, never change it). */
export function livePostsBy(ctx: SandboxContext, authorId: string): readonly SandboxPost[] {
  return liveByAuthor(ctx.data.world.posts, authorId);
}

/**
 * Creates a post, checks every rule, stores it and emits `post:created`. Throws an
 * {@link ApiProblem} with the service's status and wording when a rule refuses it.
 *
 * @example
 * ```ts
 * const reply = createPost(ctx, { author_id: bob.id, text: "@alice hi", in_reply_to_post_id: post.id });
 * ```
 */
export function createPost(ctx: SandboxContext, input: NewPost): SandboxPost {
  const author = userById(ctx, input.author_id);
  if (!author)
    throw invalidRequest(`The author_id [${input.author_id}] names no active user`, { author_id: [input.author_id] });
  if (typeof input.text !== "string" || !input.text.trim())
    throw invalidRequest("The post text can not be empty", { text: [] });
  if (/[\uD800-\uDFFF]/u.test(input.text)) {
    throw invalidRequest(
      "The post text contains a lone surrogate (half of a UTF-16 pair); send well-formed Unicode text",
      { text: [] },
    );
  }
  if (input.text.includes("\u0000"))
    throw invalidRequest("The post text contains a NUL character (U+0000); remove it", { text: [] });
  const text = input.text.normalize("NFC");
  if (text.length > MAX_POST_UNITS) {
    throw refuse(
      `Your post text is too long: it has ${text.length} UTF-16 code units, more than any text within the limit of ${MAX_POST_LENGTH} characters can have (${MAX_POST_UNITS}).`,
    );
  }
  const length = weightedLength(text, COUNTED_UP_TO);
  if (length > MAX_POST_LENGTH) {
    const counted = length > COUNTED_UP_TO ? `more than ${COUNTED_UP_TO}` : String(length);
    throw refuse(
      `Your post text is too long: it counts ${counted} characters and the limit is ${MAX_POST_LENGTH} (links count 23, most CJK characters and emoji count 2).`,
    );
  }
  const now = ctx.clock.now();
  const duplicate = liveWithText(ctx.data.world.posts, author.id, text).some(
    (p) => now - p.created_at < DUPLICATE_WINDOW_MS,
  );
  if (duplicate) throw refuse("You are not allowed to create a post with duplicate content.");

  let parent: SandboxPost | undefined;
  if (input.in_reply_to_post_id !== undefined) {
    const access = postAccess(ctx, author.id, input.in_reply_to_post_id);
    if (!access.ok || blocks(ctx, access.post.author_id, author.id)) {
      throw refuse("You attempted to reply to a post that is deleted or not visible to you.");
    }
    parent = access.post;
    checkReplySettings(ctx, author, parent);
  }
  if (input.quote_post_id !== undefined) {
    const access = postAccess(ctx, author.id, input.quote_post_id);
    if (!access.ok || blocks(ctx, access.post.author_id, author.id)) {
      throw refuse("You attempted to quote a post that is deleted or not visible to you.");
    }
  }

  const id = nextId(ctx.data, now);
  // Parsed once: the language is guessed from the text less its entities, and the post's
  // rendering and stream rules read the same entities (postEntities).
  const entities = parseEntities(text);
  const post: SandboxPost = {
    id,
    author_id: author.id,
    text,
    created_at: now,
    conversation_id: parent ? parent.conversation_id : id,
    lang: input.lang ?? detectLang(text, entities),
    source: input.source ?? "postbot sandbox",
    reply_settings: input.reply_settings ?? "everyone",
    hidden: false,
  };
  if (parent) {
    post.in_reply_to_post_id = parent.id;
    post.in_reply_to_user_id = parent.author_id;
  }
  if (input.quote_post_id !== undefined) post.quote_post_id = input.quote_post_id;
  if (input.poll) {
    post.poll = {
      id: nextId(ctx.data, now),
      options: input.poll.options,
      duration_minutes: input.poll.duration_minutes,
      end_at: now + input.poll.duration_minutes * 60_000,
    };
  }
  keepEntities(post, entities);
  return store(ctx, post);
}

function store(ctx: SandboxContext, post: SandboxPost): SandboxPost {
  ctx.data.world.posts[post.id] = post;
  indexAdded(ctx.data.world.posts, post);
  ctx.events.emit("post:created", post);
  return post;
}

/**
 * A conversation's `reply_settings` (set on its root) limit who may reply: the root's
 * author always may; with `mentionedUsers` only accounts the root mentions; with
 * `following`, those too and the accounts the root's author follows.
 */
function checkReplySettings(ctx: SandboxContext, replier: SandboxUser, parent: SandboxPost): void {
  const root = ctx.data.world.posts[parent.conversation_id] ?? parent;
  if (root.reply_settings === "everyone" || root.author_id === replier.id) return;
  const mentioned = (postEntities(root).mentions ?? []).some(
    (m) => m.username.toLowerCase() === replier.username.toLowerCase(),
  );
  const allowed = mentioned || (root.reply_settings === "following" && follows(ctx, root.author_id, replier.id));
  if (!allowed) {
    throw refuse(
      "Reply to this conversation is not allowed because you have not been mentioned or otherwise engaged by the author of the post you are replying to.",
    );
  }
}

/**
 * Deletes a post (its author only) and the reposts of it, emitting `post:deleted` for
 * each. Deleting a missing or already deleted post is a 404.
 */
export function deletePost(ctx: SandboxContext, userId: string, id: string): void {
  const post = livePost(ctx, id);
  if (!post) throw notFound(`Could not find post with id: [${id}].`);
  if (post.author_id !== userId) throw forbidden("You are not allowed to delete a post that is not yours.");
  const now = ctx.clock.now();
  const gone = [post, ...liveRepostsOf(ctx, id)];
  for (const p of gone) p.deleted_at = now;
  indexDeleted(ctx.data.world.posts, gone);
  for (const p of gone) ctx.events.emit("post:deleted", p);
}

/**
 * Hides or unhides a reply. Only the author of the conversation's root may, and only
 * replies in that conversation can be hidden.
 */
export function setHidden(ctx: SandboxContext, userId: string, id: string, hidden: boolean): boolean {
  const post = livePost(ctx, id);
  if (!post) throw notFound(`Could not find post with id: [${id}].`);
  if (post.in_reply_to_post_id === undefined)
    throw forbidden("Only replies can be hidden or unhidden; this post is not a reply.");
  const root = ctx.data.world.posts[post.conversation_id];
  if (!root || root.author_id !== userId) {
    throw forbidden("You can only hide or unhide replies to a conversation that you started.");
  }
  post.hidden = hidden;
  return hidden;
}

/** The live repost of `sourceId` by a user, if any. */
export function repostOf(ctx: SandboxContext, userId: string, sourceId: string): SandboxPost | undefined {
  return livePostsBy(ctx, userId).find((p) => p.repost_of_id === sourceId);
}

/**
 * Reposts a post: a new post with `referenced_posts: [{type: "reposted"}]` and the text
 * `RT @author: text`. Reposting a repost reposts its original; reposting twice is
 * harmless (the existing repost stands); protected posts cannot be reposted.
 */
export function repost(ctx: SandboxContext, user: SandboxUser, postId: string): SandboxPost {
  const access = postAccess(ctx, user.id, postId);
  if (!access.ok) throw notFound(`Could not find post with post_id: [${postId}].`);
  const original = access.post.repost_of_id ? (livePost(ctx, access.post.repost_of_id) ?? access.post) : access.post;
  const author = userById(ctx, original.author_id)!;
  if (author.protected && author.id !== user.id) throw forbidden("You cannot repost a post from a protected account.");
  if (blocks(ctx, author.id, user.id)) throw forbidden("You cannot repost a post of an account that blocks you.");
  const existing = repostOf(ctx, user.id, original.id);
  if (existing) return existing;
  const now = ctx.clock.now();
  const id = nextId(ctx.data, now);
  return store(ctx, {
    id,
    author_id: user.id,
    text: `RT @${author.username}: ${original.text}`,
    created_at: now,
    conversation_id: id,
    repost_of_id: original.id,
    lang: original.lang,
    source: "postbot sandbox",
    reply_settings: "everyone",
    hidden: false,
  });
}

/** Undoes a repost; a no-op when there is none. */
export function unrepost(ctx: SandboxContext, userId: string, sourceId: string): void {
  const existing = repostOf(ctx, userId, sourceId);
  if (!existing) return;
  existing.deleted_at = ctx.clock.now();
  indexDeleted(ctx.data.world.posts, [existing]);
  ctx.events.emit("post:deleted", existing);
}

const factsCache = new WeakMap<SandboxPost, PostFacts>();

/** What the query language can test about a post (cached per post object). */
export function postFacts(ctx: SandboxContext, post: SandboxPost): PostFacts {
  const cached = factsCache.get(post);
  if (cached) return cached;
  const author = userById(ctx, post.author_id, { includeGone: true });
  const replyTo = post.in_reply_to_user_id ? userById(ctx, post.in_reply_to_user_id, { includeGone: true }) : undefined;
  const e = postEntities(post);
  const facts: PostFacts = {
    id: post.id,
    tokens: tokenize(post.text),
    authorId: post.author_id,
    authorUsername: (author?.username ?? "").toLowerCase(),
    authorVerified: author?.verified ?? false,
    conversationId: post.conversation_id,
    lang: post.lang,
    mentions: (e.mentions ?? []).map((m) => m.username.toLowerCase()),
    hashtags: (e.hashtags ?? []).map((h) => h.tag.toLowerCase()),
    cashtags: (e.cashtags ?? []).map((c) => c.tag.toLowerCase()),
    urls: (e.urls ?? []).map((u) => u.expanded_url ?? u.url),
    ...(post.in_reply_to_user_id !== undefined ? { inReplyToUserId: post.in_reply_to_user_id } : {}),
    ...(replyTo ? { inReplyToUsername: replyTo.username.toLowerCase() } : {}),
    ...(post.in_reply_to_post_id !== undefined ? { inReplyToPostId: post.in_reply_to_post_id } : {}),
    ...(post.quote_post_id !== undefined ? { quotePostId: post.quote_post_id } : {}),
    ...(post.repost_of_id !== undefined ? { repostOfId: post.repost_of_id } : {}),
  };
  factsCache.set(post, facts);
  return facts;
}
