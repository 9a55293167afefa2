/**
 * Words of the collapsed text and the insult lexicon read over them: what the aimed-insult
 * detector (`aimed.ts`) and the third-person detector (`third-person.ts`) share, so both read
 * a word the same way ("bufooon" is "buffoon", "twats" is "twat").
 *
 * Why tokens and not a regular expression per phrase: each detector is one pass over the
 * words with table look-ups, cheap beside the phrase rules.
 */
import { INSULT_NOUN_SCORES } from "./insult-lexicon.ts";
import { lazily } from "./lazily.ts";
import { normalizePattern } from "./normalize.ts";

/** A word of the collapsed text, and whether a sentence or clause break comes before it. */
export interface Token {
  readonly word: string;
  readonly start: number;
  readonly end: number;
  /** A break (`.`, `!`, `?`, `;`, `:`, a line break, or a comma) between it and the word before. */
  readonly broken: boolean;
}

/** Phrases of up to three words, keyed as the collapsed text writes them. */
export class PhraseTable<V> {
  private readonly map = new Map<string, V>();
  longest = 1;
  constructor(entries: Iterable<readonly [string, V]>) {
    for (const [phrase, value] of entries) {
      const key = normalizePattern(phrase)
        .split(/[^a-z0-9]+/)
        .filter(Boolean)
        .join(" ");
      if (!key) continue;
      this.map.set(key, value);
      this.longest = Math.max(this.longest, key.split(" ").length);
    }
  }
  /** The longest phrase starting at token `i`: how many words it spans and its value. */
  at(tokens: readonly Token[], i: number): { length: number; value: V } | undefined {
    let key = "";
    let found: { length: number; value: V } | undefined;
    for (let n = 0; n < this.longest && i + n < tokens.length; n++) {
      if (n > 0 && tokens[i + n]!.broken) break;
      key = n === 0 ? tokens[i]!.word : `${key} ${tokens[i + n]!.word}`;
      const value = this.map.get(key);
      if (value !== undefined) found = { length: n + 1, value };
    }
    return found;
  }
}

/** A table of phrases that are simply present. */
export const phraseSet = (words: readonly string[]) => new PhraseTable(words.map((w) => [w, true] as const));

/** A set of single words, normalised as the collapsed text writes them ("look" is "lok" there). */
export const wordSet = (list: readonly string[]) => new Set(list.map(normalizePattern));

/** Splits collapsed text into words, noting the breaks between them. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(/[a-z0-9]+/g)) {
    const gap = text.slice(last, m.index);
    tokens.push({
      word: m[0],
      start: m.index,
      end: m.index + m[0].length,
      broken: tokens.length > 0 && /[.!?;:,\n]/.test(gap),
    });
    last = m.index + m[0].length;
  }
  return tokens;
}

/** The insult nouns as a table, built on first use, not when postbot is imported (see `lazily.ts`). */
const nouns = lazily(() => new PhraseTable(INSULT_NOUN_SCORES));

/** The insult noun at token i, singular or plural ("weasels", "buffoons" read as their singular), with its score. */
export function nounAt(tokens: readonly Token[], i: number): { length: number; value: number } | undefined {
  const table = nouns();
  const direct = table.at(tokens, i);
  if (direct) return direct;
  const word = tokens[i]!.word;
  for (const cut of [1, 2]) {
    if (word.length - cut < 3 || !(cut === 1 ? word.endsWith("s") : word.endsWith("es"))) continue;
    const value = table.at([{ ...tokens[i]!, word: word.slice(0, -cut) }], 0);
    if (value) return value;
  }
  return undefined;
}
