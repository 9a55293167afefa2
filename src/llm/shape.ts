/**
 * A model's text made fit to post as the bot's reply: within the service's 280 weighted
 * characters (the service's own count, `weightedLength`), cut at the end of a sentence, or
 * else of a word, and never inside a grapheme (an emoji, a letter with its accents), with
 * `Intl.Segmenter`; no one mentioned but the person answered (a model that writes `@someone`
 * would otherwise make the bot address a stranger); whitespace tidied. A text cut short by the
 * model (`finish_reason: length`) loses its unfinished last sentence when a whole one is left.
 */
import { MAX_POST_LENGTH, weightedLength } from "../api/text/post-length.ts";

/**
 * The segmenters, made when a text is first shaped: making them loads ICU's break rules,
 * about 20 ms that every `import "postbot"` paid otherwise, bot with a language model or not.
 */
let segmenters: Record<"sentences" | "words" | "graphemes", Intl.Segmenter> | undefined;
const segmenter = (kind: "sentences" | "words" | "graphemes"): Intl.Segmenter =>
  (segmenters ??= {
    sentences: new Intl.Segmenter("en", { granularity: "sentence" }),
    words: new Intl.Segmenter("en", { granularity: "word" }),
    graphemes: new Intl.Segmenter("en", { granularity: "grapheme" }),
  })[kind];

/** How a shortened text ends when it was cut inside a sentence. */
const ELLIPSIS = "…";

/** A mention as the service finds them: `@` (or the full-width `＠`) and up to 15 word characters. */
const MENTION = /(^|[^\p{L}\p{N}_@＠])[@＠]([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_@＠])/gu;

export interface ShapeOptions {
  /** The username of the person answered (without `@`): the one mention kept. */
  answered?: string | undefined;
  /** The model stopped at `max_tokens` (`finish_reason: length`). */
  cutShort?: boolean;
  /** Default 280, the service's limit. */
  limit?: number;
}

/** Drops the `@` of every mention but `answered`'s, so the name stays readable and mentions no one. */
export function withoutOtherMentions(text: string, answered: string | undefined): string {
  const keep = answered?.toLowerCase();
  return text.replace(MENTION, (all, before: string, name: string) =>
    name.toLowerCase() === keep ? all : `${before}${name}`,
  );
}

const fits = (text: string, limit: number) => weightedLength(text, limit) <= limit;

/** Where a link may start: `linkSpans` (../api/text/entities.ts) finds none in a text without one. */
const LINK_START = /https?:\/\/|www\./i;
const NOT_ASCII = /[^\x00-\x7f]/;
/** The longest text that may end a segment and still start a link with the next one: `https:/`. */
const LINK_START_TAIL = "https:/".length;

/**
 * The longest run of whole segments from the start of `text` that fits, trimmed. While the
 * run is ASCII with no link in it, its weight is its length (every such character counts 1,
 * as `weightedLength` counts them), so a segment is added in time proportional to its own
 * length; from the first segment that is not (or that makes a link with the run's end), the
 * run is counted whole by `weightedLength` at each step, as it always was. Without this, an
 * answer of 413 characters with no sentence's end within the limit took 170-210 µs to fit (each
 * of its words counted the whole run again); with it ~100 µs, most of that the segmenter's.
 */
function longestFitting(text: string, segmenter: Intl.Segmenter, limit: number): string {
  let kept = "";
  let plain = true;
  for (const { segment } of segmenter.segment(text)) {
    const next = kept + segment;
    plain &&= !NOT_ASCII.test(segment) && !LINK_START.test(kept.slice(-LINK_START_TAIL) + segment);
    if (plain ? next.length > limit : !fits(next, limit)) break;
    kept = next;
  }
  return kept.trimEnd();
}

/** `text` within `limit` weighted characters: whole sentences, else whole words and `…`, else whole graphemes. */
export function fitToLength(text: string, limit = MAX_POST_LENGTH): string {
  if (fits(text, limit)) return text;
  const bySentence = longestFitting(text, segmenter("sentences"), limit);
  if (bySentence) return bySentence;
  const room = limit - weightedLength(ELLIPSIS);
  const byWord = longestFitting(text, segmenter("words"), room).replace(/[\s\p{P}]+$/u, "");
  if (byWord) return byWord + ELLIPSIS;
  return longestFitting(text, segmenter("graphemes"), room) + ELLIPSIS;
}

/** Drops an unfinished last sentence (one with no closing punctuation) when a whole one comes before it. */
function withoutUnfinished(text: string): string {
  const parts = [...segmenter("sentences").segment(text)].map((s) => s.segment);
  if (parts.length < 2) return text;
  const last = parts.at(-1)!.trim();
  if (/[.!?…。！？)"'”’]$/u.test(last)) return text;
  return parts.slice(0, -1).join("").trimEnd();
}

/** The model's text as the bot may post it (see the module comment); `""` when nothing usable is left. */
export function shapeReply(text: string, options: ShapeOptions = {}): string {
  let shaped = text
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // A model that quotes its whole answer: the quotes are not part of it.
  if (/^"[^"]*"$/.test(shaped)) shaped = shaped.slice(1, -1).trim();
  shaped = withoutOtherMentions(shaped, options.answered);
  if (options.cutShort) shaped = withoutUnfinished(shaped);
  return fitToLength(shaped, options.limit ?? MAX_POST_LENGTH).trim();
}
