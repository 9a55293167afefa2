/**
 * The length the 280-character limit of a post is measured in (twitter-text v3's weighted
 * length), and the cheap bound that refuses a text far too long before it is counted.
 *
 * Counting must cost time linear in the text and little of it, whatever a client sends:
 * it runs inside a request, and every other request waits for it. So the text is not cut
 * into grapheme clusters as a whole (V8's `Intl.Segmenter` takes time proportional to the
 * whole input at every step: 40,000 characters took 0.4 s, 117,000 took 2.9 s). Only the
 * stretches around a character that can make an emoji are segmented, in windows of
 * {@link WINDOW} units; everything else counts by its code points, which gives the same
 * total, since a cluster that is no emoji counts its code points one by one anyway.
 */
import { linkSpans, MAX_URL_LENGTH } from "./entities.ts";

/** The longest post, in weighted characters (see {@link weightedLength}). */
export const MAX_POST_LENGTH = 280;

/** What every link counts for in {@link weightedLength}: the length of a `t.co` link. */
export const URL_WEIGHT = 23;

/**
 * The most code points one emoji may join and still count 2. The longest sequence Unicode
 * recommends has 10 (a kiss with two skin tones); a longer cluster (an emoji followed by
 * thousands of variation selectors, say) is no emoji of twitter-text's list, and counts by
 * its code points. Without this bound no length of text would be too long to count.
 */
export const MAX_EMOJI_CODE_POINTS = 16;

/**
 * The most UTF-16 units a text within {@link MAX_POST_LENGTH} can have, after NFC: at most
 * 12 links (12 × 23 ≤ 280) of at most {@link MAX_URL_LENGTH} units each, and for every other
 * weighted character at most 16 units (an emoji of 16 code points, 32 units, counts 2; any
 * other code point, at most 2 units, counts at least 1). A longer text is refused on its
 * length alone, before anything else looks at it.
 */
export const MAX_POST_UNITS =
  Math.floor(MAX_POST_LENGTH / URL_WEIGHT) * MAX_URL_LENGTH + MAX_POST_LENGTH * MAX_EMOJI_CODE_POINTS;

/** Units segmented at once: the segmenter's cost grows with the square of what it is given. */
const WINDOW = 128;
/** Marks at most this many units apart are segmented in one stretch. */
const MERGE_GAP = 16;

/** Code points that count once; every other code point counts twice (twitter-text v3). */
const isLight = (cp: number) =>
  cp <= 4351 || (cp >= 8192 && cp <= 8205) || (cp >= 8208 && cp <= 8223) || (cp >= 8242 && cp <= 8247);

/** Characters without which no grapheme cluster is an emoji (see {@link isEmoji}); none is ASCII. */
const EMOJI_MARK = /[\p{Emoji_Presentation}\p{Emoji_Modifier}\p{Regional_Indicator}\uFE0F\u20E3\u200D]/gu;

/**
 * Grapheme clusters: an emoji sequence is one cluster, however many code points it joins.
 * Made on first use: creating a segmenter loads ICU's break rules, about 20 ms that every
 * `import "postbot"` paid, while only a post with an emoji ever needs one.
 */
let segmenter: Intl.Segmenter | undefined;
const graphemes = () => (segmenter ??= new Intl.Segmenter("en", { granularity: "grapheme" }));

/**
 * Whether a grapheme cluster is an emoji as twitter-text's emoji parser finds them: a
 * character shown as emoji by default, or any sequence made emoji by a variation selector
 * (U+FE0F), a zero-width joiner, a skin-tone modifier, a keycap (U+20E3) or a pair of
 * regional indicators (a flag). A plain `©` or `™` stays text.
 */
const isEmoji = (cluster: string) =>
  /\p{Emoji_Presentation}|\uFE0F|\u20E3|\p{Emoji_Modifier}|\p{Regional_Indicator}/u.test(cluster) ||
  (cluster.includes("\u200D") && /\p{Extended_Pictographic}/u.test(cluster));

/** The weight of `text[from, to)` counted code point by code point. */
function codePointWeight(text: string, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    total += isLight(cp) ? 1 : 2;
  }
  return total;
}

/**
 * The grapheme clusters of `text[from, to)`, which must start and end on cluster boundaries,
 * segmented a window at a time. A window's last cluster may run on past it, so it is
 * segmented again at the head of the next window; segmenting from a boundary finds the same
 * boundaries as segmenting the whole text (every rule that looks back stays inside a cluster,
 * or counts regional indicators in pairs from a boundary). A window never ends inside a
 * surrogate pair (half a pair would end the cluster before it), and one that holds a single
 * cluster is doubled.
 */
function* clusters(text: string, from: number, to: number): Generator<string> {
  let at = from;
  let width = WINDOW;
  while (at < to) {
    let end = Math.min(to, at + width);
    if (end < to && isHighSurrogate(text.charCodeAt(end - 1))) end++;
    const found: string[] = [];
    for (const { segment } of graphemes().segment(text.slice(at, end))) found.push(segment);
    if (end === to) return yield* found;
    if (found.length < 2) {
      width *= 2;
      continue;
    }
    found.pop();
    for (const c of found) {
      at += c.length;
      yield c;
    }
    width = WINDOW;
  }
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isAscii = (text: string, at: number) => text.charCodeAt(at) < 0x80;

/** The first position from `from` (at most `to`) between two ASCII characters: a cluster boundary. */
function boundaryAfter(text: string, from: number, to: number): number {
  let end = from;
  while (end < to && !(isAscii(text, end) && isAscii(text, end - 1))) end++;
  return end;
}

/** The weight of one grapheme cluster. */
function clusterWeight(cluster: string): number {
  // One code point weighs the same as an emoji or as text: every emoji character, modifier,
  // regional indicator, U+FE0F and U+20E3 lies outside the light ranges.
  if (cluster.length === 1 || (cluster.length === 2 && isHighSurrogate(cluster.charCodeAt(0))))
    return isLight(cluster.codePointAt(0)!) ? 1 : 2;
  const short = cluster.length <= 2 * MAX_EMOJI_CODE_POINTS && Array.from(cluster).length <= MAX_EMOJI_CODE_POINTS;
  return short && isEmoji(cluster) ? 2 : codePointWeight(cluster, 0, cluster.length);
}

/**
 * The weight of `text[from, to)`, a stretch with no link in it, added to `total`; counting
 * stops once the sum passes `limit`.
 */
function plainWeight(text: string, from: number, to: number, total: number, limit: number): number {
  let at = from;
  while (at < to && total <= limit) {
    EMOJI_MARK.lastIndex = at;
    const mark = EMOJI_MARK.exec(text);
    if (!mark || mark.index >= to) break;
    // The clusters around the mark, from and to the nearest two ASCII characters in a row:
    // a cluster boundary lies between them (an ASCII character never extends the cluster
    // before it, nor is one a prefix to the next), while a single ASCII character may be
    // the `1` of a keycap, or follow a prefix such as U+0600.
    let start = mark.index;
    while (start > at && !(isAscii(text, start) && isAscii(text, start - 1))) start--;
    let end = boundaryAfter(text, mark.index + 1, to);
    // Marks close together are segmented at once: each call of the segmenter costs as much
    // as segmenting some twenty characters.
    for (;;) {
      EMOJI_MARK.lastIndex = end;
      const next = EMOJI_MARK.exec(text);
      if (!next || next.index >= to || next.index - end > MERGE_GAP) break;
      end = boundaryAfter(text, next.index + 1, to);
    }
    total += codePointWeight(text, at, start);
    for (const cluster of clusters(text, start, end)) {
      total += clusterWeight(cluster);
      if (total > limit) return total;
    }
    at = end;
  }
  return total <= limit ? total + codePointWeight(text, at, to) : total;
}

/**
 * The length the 280 limit applies to, counted as the real service counts (twitter-text
 * v3): the text is NFC-normalised; Latin, Greek, Cyrillic and most other alphabetic scripts
 * count 1 per code point; CJK and everything else count 2; every emoji counts 2, a whole
 * sequence joined by U+200D or modifiers included (a family emoji of 7 code points is 2);
 * every link counts {@link URL_WEIGHT}, whatever its length (up to 4,096 characters).
 *
 * Linear in the text. With a `limit`, counting stops once the count passes it, and the
 * answer is then only known to be above the limit: a text of 50,000 characters costs no
 * more than one just over the limit. Callers refuse a text longer than
 * {@link MAX_POST_UNITS} before counting it at all.
 */
export function weightedLength(text: string, limit = Number.POSITIVE_INFINITY): number {
  const normal = text.normalize("NFC");
  let total = 0;
  let at = 0;
  for (const link of linkSpans(normal)) {
    total = plainWeight(normal, at, link.start, total, limit) + URL_WEIGHT;
    if (total > limit) return total;
    at = link.end;
  }
  return plainWeight(normal, at, normal.length, total, limit);
}
