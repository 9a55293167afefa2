/**
 * What the service reads out of a post's text: mentions, hashtags, cashtags and links
 * (the `entities` field, wire-facts 1.2). The weighted length the 280-character limit is
 * measured in is `post-length.ts`.
 *
 * Indices count Unicode code points (not UTF-16 units), zero-based, `start` inclusive and
 * `end` exclusive, as the v2 service documents: a client can slice `Array.from(text)` with
 * them and get back `@name`, `#tag`, `$TAG` or the link, even after an emoji.
 *
 * The sandbox keeps a post's text as written: links are not rewritten to `t.co` ones, so
 * a URL entity's `url` and `expanded_url` are both the link as typed. Links are recognised
 * when they start with `http://`, `https://` or `www.` (not bare domains), and only up to
 * {@link MAX_URL_LENGTH} characters, as twitter-text bounds them.
 *
 * Every pass here is linear in the text: the regular expressions cannot backtrack over
 * their own matches, trailing punctuation is stripped by a loop (a `[...]+$` pattern retried
 * at every position of a long run is quadratic), and entities are checked against the links
 * they might overlap with a cursor, not by scanning every link each time.
 */
import type { PostEntities } from "../types.ts";

/**
 * The longest link, in UTF-16 units: twitter-text's bound ("the maximum url length that the
 * Twitter backend supports"). A longer one is no link: it is left as plain text.
 */
export const MAX_URL_LENGTH = 4096;

const MENTION = /(^|[^\p{L}\p{N}_!#$%&*@＠])[@＠]([A-Za-z0-9_]+)/gu;
const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&])[#＃]([\p{L}\p{M}\p{N}_]+)/gu;
const CASHTAG = /(^|\s)\$([A-Za-z]{1,6}(?:[._][A-Za-z]{1,2})?)(?![\p{L}\p{N}_])/gu;
const URL = /(^|[^\p{L}\p{N}_@/.])((?:https?:\/\/|www\.)[^\s<>"]+)/giu;
/** Punctuation that ends a sentence rather than a link. */
const URL_TRAILING = new Set([...".,;:!?'\")]}>"]);

/** Maps UTF-16 offsets of `text` to code-point offsets. */
function codePointOffsets(text: string): (utf16: number) => number {
  const map = new Int32Array(text.length + 1);
  let cp = 0;
  for (let i = 0; i < text.length; i++) {
    map[i] = cp;
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) map[++i] = cp;
    }
    cp++;
  }
  map[text.length] = cp;
  return (u) => map[u]!;
}

/** A link as the service shows it: no scheme, at most 26 characters, then an ellipsis. */
function displayUrl(url: string): string {
  const bare = url.replace(/^https?:\/\//i, "");
  return bare.length > 26 ? bare.slice(0, 26) + "…" : bare;
}

/** Where a link sits in a text, in UTF-16 units (`start` inclusive, `end` exclusive). */
export interface LinkSpan {
  start: number;
  end: number;
  url: string;
}

/** The links of a text, in order: what both the entities and the weighted length count as links. */
export function linkSpans(text: string): LinkSpan[] {
  const out: LinkSpan[] = [];
  for (const m of text.matchAll(URL)) {
    const match = m[2]!;
    let cut = match.length;
    while (cut > 0 && URL_TRAILING.has(match[cut - 1]!)) cut--;
    if (cut < 8 || cut > MAX_URL_LENGTH) continue;
    const url = match.slice(0, cut);
    if (/^www\.$/i.test(url)) continue;
    const start = m.index! + m[1]!.length;
    out.push({ start, end: start + url.length, url });
  }
  return out;
}

/**
 * Whether a span overlaps one of `spans` (sorted, disjoint), for spans asked in increasing
 * order of `start`: a cursor moves along `spans`, so a text's checks cost one pass in all.
 */
function overlapCursor(spans: readonly LinkSpan[]): (start: number, end: number) => boolean {
  let i = 0;
  return (start, end) => {
    while (i < spans.length && spans[i]!.end <= start) i++;
    const s = spans[i];
    return s !== undefined && s.start < end;
  };
}

/**
 * Finds the entities of a text. Mentions carry no `id` here: whether `@name` is a user is
 * a question for the world (the renderer adds ids of users that exist). Returns only the
 * kinds that occur, as the service omits empty entity lists.
 */
export function parseEntities(text: string): PostEntities {
  const at = codePointOffsets(text);
  const out: PostEntities = {};
  const links = linkSpans(text);

  const urls: NonNullable<PostEntities["urls"]> = links.map(({ start, end, url }) => ({
    start: at(start),
    end: at(end),
    url,
    expanded_url: /^www\./i.test(url) ? `http://${url}` : url,
    display_url: displayUrl(url),
  }));

  const mentions: NonNullable<PostEntities["mentions"]> = [];
  const mentionOverlaps = overlapCursor(links);
  for (const m of text.matchAll(MENTION)) {
    const name = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + name.length;
    if (name.length > 15 || mentionOverlaps(s, e)) continue;
    // `@name@host` is an address, not a mention.
    if (text[e] === "@" || text[e] === "＠") continue;
    mentions.push({ start: at(s), end: at(e), username: name });
  }

  const hashtags: NonNullable<PostEntities["hashtags"]> = [];
  const hashtagOverlaps = overlapCursor(links);
  for (const m of text.matchAll(HASHTAG)) {
    const tag = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + tag.length;
    // A tag of digits only (`#1`) is not a hashtag; nor is one glued to a link.
    if (/^[\p{N}_]+$/u.test(tag) || hashtagOverlaps(s, e)) continue;
    if (text.startsWith("://", e)) continue;
    hashtags.push({ start: at(s), end: at(e), tag });
  }

  const cashtags: NonNullable<PostEntities["cashtags"]> = [];
  const cashtagOverlaps = overlapCursor(links);
  for (const m of text.matchAll(CASHTAG)) {
    const tag = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + tag.length;
    if (cashtagOverlaps(s, e)) continue;
    cashtags.push({ start: at(s), end: at(e), tag });
  }

  if (urls.length) out.urls = urls;
  if (hashtags.length) out.hashtags = hashtags;
  if (cashtags.length) out.cashtags = cashtags;
  if (mentions.length) out.mentions = mentions;
  return out;
}
