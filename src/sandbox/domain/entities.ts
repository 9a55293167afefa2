/**
 * What the service reads out of a post's text: mentions, hashtags, cashtags and links
 * (the `entities` field, wire-facts 1.2), and the weighted length that the 280-character
 * limit is measured in.
 *
 * Indices count Unicode code points (not UTF-16 units), zero-based, `start` inclusive and
 * `end` exclusive, as the v2 service documents: a client can slice `Array.from(text)` with
 * them and get back `@name`, `#tag`, `$TAG` or the link, even after an emoji.
 *
 * The sandbox keeps a post's text as written: links are not rewritten to `t.co` ones, so
 * a URL entity's `url` and `expanded_url` are both the link as typed. Links are recognised
 * when they start with `http://`, `https://` or `www.` (not bare domains).
 */
import type { PostEntities } from "../../api/types.ts";

/** The longest post, in weighted characters (see {@link weightedLength}). */
export const MAX_POST_LENGTH = 280;

/** What every link counts for in {@link weightedLength}: the length of a `t.co` link. */
export const URL_WEIGHT = 23;

const MENTION = /(^|[^\p{L}\p{N}_!#$%&*@＠])[@＠]([A-Za-z0-9_]+)/gu;
const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&])[#＃]([\p{L}\p{M}\p{N}_]+)/gu;
const CASHTAG = /(^|\s)\$([A-Za-z]{1,6}(?:[._][A-Za-z]{1,2})?)(?![\p{L}\p{N}_])/gu;
const URL = /(^|[^\p{L}\p{N}_@/.])((?:https?:\/\/|www\.)[^\s<>"]+)/giu;
/** Punctuation that ends a sentence rather than a link. */
const URL_TRAILING = /[.,;:!?'")\]}>]+$/u;

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

/**
 * Finds the entities of a text. Mentions carry no `id` here: whether `@name` is a user is
 * a question for the world (the renderer adds ids of users that exist). Returns only the
 * kinds that occur, as the service omits empty entity lists.
 */
export function parseEntities(text: string): PostEntities {
  const at = codePointOffsets(text);
  const out: PostEntities = {};
  const taken: Array<[number, number]> = [];
  const overlaps = (s: number, e: number) => taken.some(([a, b]) => s < b && e > a);

  const urls: NonNullable<PostEntities["urls"]> = [];
  for (const m of text.matchAll(URL)) {
    const raw = m[2]!.replace(URL_TRAILING, "");
    if (/^www\.$/i.test(raw) || raw.length < 8) continue;
    const s = m.index! + m[1]!.length;
    const e = s + raw.length;
    taken.push([s, e]);
    const expanded = /^www\./i.test(raw) ? `http://${raw}` : raw;
    urls.push({ start: at(s), end: at(e), url: raw, expanded_url: expanded, display_url: displayUrl(raw) });
  }

  const mentions: NonNullable<PostEntities["mentions"]> = [];
  for (const m of text.matchAll(MENTION)) {
    const name = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + name.length;
    if (name.length > 15 || overlaps(s, e)) continue;
    // `@name@host` is an address, not a mention.
    if (text[e] === "@" || text[e] === "＠") continue;
    mentions.push({ start: at(s), end: at(e), username: name });
  }

  const hashtags: NonNullable<PostEntities["hashtags"]> = [];
  for (const m of text.matchAll(HASHTAG)) {
    const tag = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + tag.length;
    // A tag of digits only (`#1`) is not a hashtag; nor is one glued to a link.
    if (/^[\p{N}_]+$/u.test(tag) || overlaps(s, e)) continue;
    if (text.startsWith("://", e)) continue;
    hashtags.push({ start: at(s), end: at(e), tag });
  }

  const cashtags: NonNullable<PostEntities["cashtags"]> = [];
  for (const m of text.matchAll(CASHTAG)) {
    const tag = m[2]!;
    const s = m.index! + m[1]!.length;
    const e = s + 1 + tag.length;
    if (overlaps(s, e)) continue;
    cashtags.push({ start: at(s), end: at(e), tag });
  }

  if (urls.length) out.urls = urls;
  if (hashtags.length) out.hashtags = hashtags;
  if (cashtags.length) out.cashtags = cashtags;
  if (mentions.length) out.mentions = mentions;
  return out;
}

/** Code points that count once; every other code point counts twice (twitter-text v3). */
const LIGHT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];

/** Grapheme clusters: an emoji sequence is one cluster, however many code points it joins. */
const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * Whether a grapheme cluster is an emoji as twitter-text's emoji parser finds them: a
 * character shown as emoji by default, or any sequence made emoji by a variation selector
 * (U+FE0F), a zero-width joiner, a skin-tone modifier, a keycap (U+20E3) or a pair of
 * regional indicators (a flag). A plain `©` or `™` stays text.
 */
const isEmoji = (cluster: string) =>
  /\p{Emoji_Presentation}|\uFE0F|\u20E3|\p{Emoji_Modifier}|\p{Regional_Indicator}/u.test(cluster) ||
  (cluster.includes("\u200D") && /\p{Extended_Pictographic}/u.test(cluster));

/**
 * The length the 280 limit applies to, counted as the real service counts (twitter-text
 * v3): the text is NFC-normalised; Latin, Greek, Cyrillic and most other alphabetic scripts
 * count 1 per code point; CJK and everything else count 2; every emoji counts 2, a whole
 * sequence joined by U+200D or modifiers included (a family emoji of 7 code points is 2);
 * every link counts {@link URL_WEIGHT}, whatever its length.
 */
export function weightedLength(text: string): number {
  const normal = text.normalize("NFC");
  const urls = parseEntities(normal).urls ?? [];
  let total = 0;
  let at = 0; // code point index of the cluster
  let u = 0;
  for (const { segment } of graphemes.segment(normal)) {
    const cps = Array.from(segment);
    const start = at;
    at += cps.length;
    while (urls[u] && urls[u]!.end <= start) u++;
    const link = urls[u];
    if (link && start >= link.start) {
      if (start === link.start) total += URL_WEIGHT;
      continue;
    }
    if (isEmoji(segment)) {
      total += 2;
      continue;
    }
    for (const ch of cps) {
      const cp = ch.codePointAt(0)!;
      total += LIGHT_RANGES.some(([a, b]) => cp >= a && cp <= b) ? 1 : 2;
    }
  }
  return total;
}
