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

interface Trie {
  end: boolean;
  next: Map<string, Trie>;
}

const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Writes a trie of words as a regular expression that shares their prefixes
 * ("idiot|imbecile" → "i(?:diot|mbecile)"): the regex engine then tests a letter once for
 * all the words that start with it instead of once per word, which keeps rules with long
 * word lists fast. A word that is a prefix of another is optional at the end, greedily, so
 * the longer reading is tried first ("such a" before "such").
 */
function trieSource(node: Trie): string {
  const branches = [...node.next].map(([c, child]) => escape(c) + trieSource(child));
  if (branches.length === 0) return "";
  const single = branches.length === 1;
  const body = single ? branches[0]! : `(?:${branches.join("|")})`;
  if (!node.end) return body;
  return single ? `(?:${body})?` : `${body}?`;
}

/**
 * An alternation of words or phrases, the longer reading first ("such a" before "such"),
 * their shared prefixes factored out (see {@link trieSource}). Regex metacharacters in
 * words are escaped.
 *
 * @example
 * ```ts
 * `${oneOf(["you are", "ur"])} ${oneOf(["idiot", "moron"])}`
 * ```
 */
export function oneOf(words: readonly string[]): string {
  const root: Trie = { end: false, next: new Map() };
  for (const w of new Set(words.map((w) => normalizePattern(w.trim())))) {
    if (w.length === 0) continue;
    let node = root;
    for (const c of w) {
      let child = node.next.get(c);
      if (!child) node.next.set(c, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  return `(?:${trieSource(root)})`;
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
 * match may not start or end inside a word. A rule names the word its `(?<word>...)` group
 * caught from the group's text; capture indices (the `d` flag) are not needed and cost time
 * on every match.
 */
export function compilePattern(source: string): RegExp {
  const body = normalizePattern(source).replace(/ /g, OPTIONAL_SEPARATOR).replace(/_/g, REQUIRED_SEPARATOR);
  return new RegExp(`(?<![a-z0-9])(?:${body})(?![a-z0-9])`, "g");
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
