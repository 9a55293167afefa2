/**
 * Trends computed from what the sandbox's users really posted in the last 24 hours of the
 * sandbox clock: each hashtag, and each word that is not a common word, counted once per
 * public post that uses it (a repost counts for the words of the post it reposts).
 *
 * A hashtag trends from its first post; a word needs at least {@link MIN_WORD_POSTS}
 * posts, so that one chatty post does not make every word of it a trend. Trends are
 * ranked by their post count, then by how recently they started, then by name.
 */
import type { SandboxPost } from "../model/index.ts";
import type { SandboxContext } from "../route.ts";
import { parseEntities } from "../../api/text/entities.ts";
import { livePostsNewestFirst, visibleTo } from "./posts.ts";

/** How far back trends look. */
export const TREND_WINDOW_MS = 24 * 3_600_000;
/** How many posts a plain word needs to trend. */
export const MIN_WORD_POSTS = 2;

/** One trend: its name as first written, how many posts used it, and since when. */
export interface TrendCount {
  name: string;
  count: number;
  /** When the first post of the window used it (ms on the sandbox clock). */
  since: number;
  hashtag: boolean;
}

/** Words too common to trend (English, with a few of the other languages the crowd writes). */
const STOPWORDS = new Set(
  (
    "a about after again all also am an and any are as at be because been before being but by can could did do does doing " +
    "down for from get got had has have having he her here hers him his how i if in into is it its just like me more most " +
    "my no not now of off on once one only or other our out over own same she should so some such than that the their them " +
    "then there these they this those through to too under until up very was we were what when where which while who why " +
    "will with would you your yours rt amp via new today yes yeah oh ok okay lol really still much many thing things time " +
    "der die das und ist nicht ein eine le la les et est pas un une el los las que es y de en"
  ).split(" "),
);

const URL_OR_MENTION = /(?:https?:\/\/|www\.)\S+|[@＠][A-Za-z0-9_]+|[#＃$][\p{L}\p{M}\p{N}_]+/gu;
const WORD = /[\p{L}\p{M}][\p{L}\p{M}\p{N}_'’-]*/gu;

/** The terms of one text: its hashtags (`#Tag`) and its words worth trending, each once, keyed lower case. */
export function termsOf(text: string): Map<string, { name: string; hashtag: boolean }> {
  const terms = new Map<string, { name: string; hashtag: boolean }>();
  for (const h of parseEntities(text).hashtags ?? []) {
    const key = "#" + h.tag.toLowerCase();
    if (!terms.has(key)) terms.set(key, { name: "#" + h.tag, hashtag: true });
  }
  for (const m of text.replace(URL_OR_MENTION, " ").matchAll(WORD)) {
    const word = m[0].replace(/['’-]+$/u, "");
    const key = word.toLowerCase();
    if (Array.from(key).length < 3 || STOPWORDS.has(key) || terms.has(key)) continue;
    terms.set(key, { name: word, hashtag: false });
  }
  return terms;
}

/** The text a post contributes: a repost's is the text of the post it reposts. */
function textOf(ctx: SandboxContext, post: SandboxPost): string {
  if (post.repost_of_id === undefined) return post.text;
  return ctx.data.world.posts[post.repost_of_id]?.text ?? "";
}

/** The public posts of the trend window, newest first, that `include` keeps. */
export function recentPublicPosts(
  ctx: SandboxContext,
  include: (post: SandboxPost) => boolean = () => true,
): SandboxPost[] {
  const since = ctx.clock.now() - TREND_WINDOW_MS;
  const out: SandboxPost[] = [];
  for (const p of livePostsNewestFirst(ctx)) {
    if (p.created_at < since) break;
    if (visibleTo(ctx, undefined, p) && include(p)) out.push(p);
  }
  return out;
}

/** Counts the terms of some posts (newest first), keyed lower case. */
export function countTerms(ctx: SandboxContext, posts: readonly SandboxPost[]): Map<string, TrendCount> {
  const counts = new Map<string, TrendCount>();
  for (const p of posts) {
    for (const [key, term] of termsOf(textOf(ctx, p))) {
      const c = counts.get(key);
      if (c) {
        c.count++;
        c.since = Math.min(c.since, p.created_at);
        c.name = term.name;
      } else counts.set(key, { name: term.name, count: 1, since: p.created_at, hashtag: term.hashtag });
    }
  }
  return counts;
}

/** Whether a counted term is a trend (see the module comment). */
export const trends = (c: TrendCount): boolean => c.hashtag || c.count >= MIN_WORD_POSTS;

/** Orders trends: most posts first, then the most recently started, then by name. */
export function rankTrends(list: TrendCount[], score: (t: TrendCount) => number = (t) => t.count): TrendCount[] {
  return [...list].sort(
    (a, b) => score(b) - score(a) || b.since - a.since || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

const CATEGORIES: Array<[string, RegExp]> = [
  [
    "Sports",
    /\b(?:football|soccer|basketball|baseball|tennis|golf|cricket|rugby|hockey|nba|nfl|fifa|olympic|match|goal|league|cup\b|race\b)/i,
  ],
  ["Music", /\b(?:music|song|album|concert|band\b|tour\b|singer|spotify|playlist|jazz|rock\b|rap\b|pop\b)/i],
  [
    "Technology",
    /\b(?:tech|code|coding|software|ai\b|programming|javascript|typescript|python|rust\b|computer|robot|apps?\b|api\b|data\b|cloud|linux)/i,
  ],
  ["Gaming", /\b(?:game|gaming|gamer|xbox|playstation|nintendo|esports|twitch)/i],
  ["Politics", /\b(?:election|vote|president|minister|senate|congress|parliament|policy|government|politic)/i],
  ["Entertainment", /\b(?:movie|film|tv\b|series|netflix|show\b|actor|actress|celebrity|oscars|premiere)/i],
  ["Business & finance", /\b(?:market|stock|crypto|bitcoin|economy|finance|business|startup|invest)/i],
  ["Food", /\b(?:food|recipe|cook|pizza|coffee|tea\b|cake|bread|dinner|lunch|breakfast)/i],
];

/**
 * A category for a trend, as the service's personalized trends show one: the first topic
 * whose words start a word of the trend's name, else "Trending".
 */
export function categoryOf(name: string): string {
  return CATEGORIES.find(([, re]) => re.test(name))?.[0] ?? "Trending";
}
