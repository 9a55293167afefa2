/**
 * The `lang` the service attaches to every post, guessed from its text so that `lang:`
 * in queries and rules has something real to match. A small guess, not a classifier: the
 * script decides for non-Latin scripts; for Latin, a handful of common words tell English,
 * German, Spanish and French apart, and English wins ties. Texts with nothing to read get
 * the service's special codes: `qht` (hashtags only) and `zxx` (no linguistic content).
 */
import { parseEntities } from "../../api/text/entities.ts";

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

/** A BCP 47 code (or `qht` / `zxx`) for a post's text. */
export function detectLang(text: string): string {
  const entities = parseEntities(text);
  const cps = Array.from(text);
  const cut = new Set<number>();
  for (const e of [
    ...(entities.urls ?? []),
    ...(entities.mentions ?? []),
    ...(entities.hashtags ?? []),
    ...(entities.cashtags ?? []),
  ]) {
    for (let i = e.start; i < e.end; i++) cut.add(i);
  }
  const rest = cps.filter((_, i) => !cut.has(i)).join("");
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
