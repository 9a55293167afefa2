/**
 * The small pattern language of the phrase rules: regular expressions over collapsed text
 * (see `normalize.ts`), written in plain English so a reader sees the phrase, not the
 * machinery. A space matches any run of non-alphanumerics, including none, so
 * "kill yourself" also reads "kill... yourself" and "k i l l y o u r s e l f" (joined to
 * "kilyourself"). An underscore is a separator that must be there ("you_r" is not "your").
 */
import { normalizePattern } from "./normalize.ts";

const OPTIONAL_SEPARATOR = "[^a-z0-9]*";
const REQUIRED_SEPARATOR = "[^a-z0-9]+";

/**
 * An alternation of words or phrases, longest first so that the longer reading wins
 * ("such a" before "such"). Regex metacharacters in words are escaped.
 *
 * @example
 * ```ts
 * `${oneOf(["you are", "ur"])} ${oneOf(["idiot", "moron"])}`
 * ```
 */
export function oneOf(words: readonly string[]): string {
  const unique = [...new Set(words.map((w) => normalizePattern(w.trim())))].filter((w) => w.length > 0);
  unique.sort((a, b) => b.length - a.length);
  return `(?:${unique.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`;
}

/**
 * A negative lookahead for whole words: the phrase must not go on with one of these
 * ("die" but not "die laughing"). Whole words, so "on" does not also refuse "one".
 */
export function notFollowedBy(words: readonly string[]): string {
  return `(?! ${oneOf(words)}(?![a-z0-9]))`;
}

/**
 * Compiles a phrase pattern to a global regular expression over collapsed text. The
 * match may not start or end inside a word. Capture indices are kept (`d` flag) so a rule
 * can name the word its `(?<word>...)` group caught.
 */
export function compilePattern(source: string): RegExp {
  const body = normalizePattern(source).replace(/ /g, OPTIONAL_SEPARATOR).replace(/_/g, REQUIRED_SEPARATOR);
  return new RegExp(`(?<![a-z0-9])(?:${body})(?![a-z0-9])`, "gd");
}

/**
 * Compiles a literal phrase (a block or allow list entry) the same way: its words, whole,
 * with any separators or none between them ("buy followers" also finds "buy-followers"). The phrase must already be normalised
 * with `normalize(...).collapsed.text`.
 */
export function compileLiteral(collapsedPhrase: string): RegExp {
  const words = collapsedPhrase.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  const body = words.join(OPTIONAL_SEPARATOR);
  return new RegExp(`(?<![a-z0-9])${body}(?![a-z0-9])`, "g");
}
