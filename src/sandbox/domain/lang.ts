/**
 * The `lang` the service attaches to every post, guessed from its text so that `lang:`
 * in queries and rules has something real to match. A small guess, not a classifier: the
 * script decides for non-Latin scripts; for Latin, a handful of common words tell English,
 * German, Spanish and French apart, and English wins ties. Texts with nothing to read get
 * the service's special codes: `qht` (hashtags only) and `zxx` (no linguistic content).
 */
import { parseEntities } from "../../api/text/entities.ts";
import type { PostEntities } from "../../api/types.ts";

const SCRIPTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, "ja"],
  [/\p{Script=Hangul}/u, "ko"],
  [/\p{Script=Han}/u, "zh"],
  [/\p{Script=Cyrillic}/u, "ru"],
  [/\p{Script=Arabic}/u, "ar"],
  [/\p{Script=Greek}/u, "el"],
  [/\p{Script=Hebrew}/u, "he"],
  [/\p{Script=Thai}/u, "th"],
  [/\p{Script=Devanagari}/u, "hi"],
];

const WORDS: Record<string, ReadonlySet<string>> = {
  en: new Set([
    "the",
    "and",
    "is",
    "are",
    "you",
    "this",
    "that",
    "with",
    "for",
    "not",
    "have",
    "what",
    "hello",
    "thanks",
  ]),
  de: new Set(["der", "die", "das", "und", "ist", "nicht", "ich", "mit", "ein", "eine", "auch", "danke", "hallo"]),
  es: new Set(["el", "los", "las", "que", "es", "está", "por", "una", "con", "para", "gracias", "hola", "muy"]),
  fr: new Set(["le", "les", "est", "et", "pas", "je", "une", "des", "avec", "pour", "merci", "bonjour", "très"]),
};

/**
 * A BCP 47 code (or `qht` / `zxx`) for a post's text. `entities`: the text's, when the caller
 * has them already (a new post's are parsed once, for this and for its rendering).
 */
export function detectLang(text: string, entities: PostEntities = parseEntities(text)): string {
  const rest = withoutEntities(text, [
    ...(entities.urls ?? []),
    ...(entities.mentions ?? []),
    ...(entities.hashtags ?? []),
    ...(entities.cashtags ?? []),
  ]);
  if (!/\p{L}/u.test(rest)) return entities.hashtags?.length ? "qht" : "zxx";
  for (const [script, code] of SCRIPTS) if (script.test(rest)) return code;
  const words = rest.toLowerCase().match(/\p{L}+/gu) ?? [];
  let best = "en";
  let bestScore = 0;
  for (const [code, set] of Object.entries(WORDS)) {
    const score = words.filter((w) => set.has(w)).length;
    if (score > bestScore) [best, bestScore] = [code, score];
  }
  return best;
}

/**
 * The text less the code points the spans cover (`start` inclusive, `end` exclusive, in code
 * points), the rest joined. Marks a byte per UTF-16 unit and slices runs, rather than an array
 * of the text's code points and a set of positions: every new post is read here.
 */
function withoutEntities(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  if (spans.length === 0) return text;
  const cut = new Uint8Array(text.length);
  for (const e of spans) for (let i = Math.max(0, e.start); i < e.end && i < cut.length; i++) cut[i] = 1;
  let rest = "";
  let from = -1;
  let cp = 0;
  for (let at = 0; at < text.length; cp++) {
    const units = (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
    if (cut[cp]) {
      if (from >= 0) rest += text.slice(from, at);
      from = -1;
    } else if (from < 0) from = at;
    at += units;
  }
  return from >= 0 ? rest + text.slice(from) : rest;
}
