/**
 * Text normalisation for the abuse classifier: undoes the disguises people use to slip
 * abuse past filters (Unicode look-alikes, leetspeak, masked letters, spaced letters,
 * repeated letters) while remembering, for every character it produces, which characters
 * of the original it came from. The map matters because a hide is logged with the text
 * that fired the rule, and an allow-list entry is checked against the original spans.
 *
 * The "@user" addressing that opens a reply is blanked first: a handle is not something
 * the replier said.
 *
 * Two forms are produced, because the two matchers need different things:
 * - `folded`: lower-case ASCII, confusables and leetspeak resolved, masks filled in,
 *   spaced letters joined, apostrophes dropped, other characters kept. Letter repeats are
 *   kept, because obscenity's own patterns count them (`ass` needs two s).
 * - `collapsed`: `folded` with every run of one repeated character reduced to one
 *   ("fuuuck" → "fuck", "kill" → "kil"). Phrase rules are written in plain English and
 *   normalised the same way ({@link normalizePattern}), so both sides agree.
 */
import type { SimpleTransformerContainer } from "obscenity";
import { MASKED_WORDS } from "./lexicon.ts";
import { obscenity } from "./obscenity.ts";

/** A derived text, with each of its characters traced back to a span of the original. */
export interface TracedText {
  readonly text: string;
  /** `from[i]`: index in the original where character i's source starts. */
  readonly from: readonly number[];
  /** `to[i]`: index in the original just after character i's source. */
  readonly to: readonly number[];
}

/** Both normalised forms of one input text. */
export interface Normalized {
  readonly original: string;
  readonly folded: TracedText;
  readonly collapsed: TracedText;
}

// obscenity's tables are the one source for confusables and leetspeak; both are simple
// (stateless) transformers, so calling `transform` on a code point is all they do.
// Built when the classifier first reads a text (obscenity is loaded then, not with postbot).
let tables: { confusables: SimpleTransformerContainer; leet: SimpleTransformerContainer } | undefined;
const transformers = () =>
  (tables ??= {
    confusables: obscenity().resolveConfusablesTransformer() as SimpleTransformerContainer,
    leet: obscenity().resolveLeetSpeakTransformer() as SimpleTransformerContainer,
  });

/** ASCII characters read as letters inside a word ("sh!t", "k1ll", "@ss", "$hit"). */
const LEET_DIGITS = "013457";
const LEET_SYMBOLS = "@$!";
/** Characters that stand for hidden letters ("f**k", "sh#t", "f-ck", "fu<k"). */
const MASKS = "*#%-<";
/** Separators between spaced-out letters ("f u c k", "k.y.s", "f-u-c-k"). */
const SPACERS = " .-_*,+~/:·•";
/** Greek letters used as Latin look-alikes that obscenity's confusables table leaves out ("fμck"). */
const GREEK: Readonly<Record<string, string>> = {
  μ: "u",
  υ: "u",
  ν: "v",
  α: "a",
  ο: "o",
  ι: "i",
  κ: "k",
  ε: "e",
  τ: "t",
  ρ: "p",
};
const APOSTROPHES = new Set(["'", "\u2019", "\u2018", "\u02bc", "`", "\u00b4"]);

const isLetter = (c: string): boolean => c >= "a" && c <= "z";
const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isAlnum = (c: string): boolean => isLetter(c) || isDigit(c);

interface Chars {
  chars: string[];
  from: number[];
  to: number[];
}

/**
 * Maps each code point to zero or more lower-case ASCII characters. Non-ASCII look-alikes
 * go through obscenity's confusables table (ASCII does not: it maps "|" to "l", which would
 * turn every separator into a letter); what is left goes through NFKD with marks removed
 * ("ｆ" → "f", "ü" → "u"). Anything still not ASCII (emoji, other scripts) becomes a space.
 */
function push(out: Chars, c: string, from: number, to: number): void {
  out.chars.push(c);
  out.from.push(from);
  out.to.push(to);
}

/** ASCII code → its folded character: lower case, white space as " " (a table: this runs per character). */
const ASCII_FOLD: readonly string[] = Array.from({ length: 128 }, (_, code) => {
  const ch = String.fromCharCode(code);
  return /\s/.test(ch) ? " " : ch.toLowerCase();
});

function foldCodePoints(original: string): Chars {
  const out: Chars = { chars: [], from: [], to: [] };
  for (let i = 0; i < original.length; ) {
    const start = i;
    const code = original.charCodeAt(i);
    // ASCII, nearly every character of a reply: one table look-up.
    if (code < 128) {
      i++;
      if (code === 39 || code === 96) continue; // ' and ` are apostrophes
      push(out, ASCII_FOLD[code]!, start, i);
      continue;
    }
    const cp = original.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (APOSTROPHES.has(ch)) continue;
    const greek = GREEK[ch.toLowerCase()];
    if (greek) {
      push(out, greek, start, i);
      continue;
    }
    const direct = transformers().confusables.transform(cp);
    let resolved =
      direct !== undefined && direct !== cp
        ? String.fromCodePoint(direct)
        : ch.normalize("NFKD").replace(/\p{M}/gu, "");
    if (resolved === ch) resolved = " ";
    for (const part of resolved) {
      const again =
        part.codePointAt(0)! >= 128 ? transformers().confusables.transform(part.codePointAt(0)!) : undefined;
      const c = again !== undefined ? String.fromCodePoint(again) : part;
      push(out, c.codePointAt(0)! < 128 ? c.toLowerCase() : " ", start, i);
    }
  }
  return out;
}

/** Splits into runs of non-space characters: [start, end) indexes into `chars`. */
function tokens(chars: readonly string[]): Array<[number, number]> {
  const result: Array<[number, number]> = [];
  let start = -1;
  for (let k = 0; k <= chars.length; k++) {
    const space = k === chars.length || chars[k] === " ";
    if (!space && start < 0) start = k;
    if (space && start >= 0) {
      result.push([start, k]);
      start = -1;
    }
  }
  return result;
}

/**
 * Blanks the "@user @other" addressing that opens a reply: handles are chosen by third
 * parties ("@Scunthorpe_FC"), not written by the replier. Kept when the text is nothing
 * but such tokens, or when the token with "a" for "@" is a swear word ("@ss hat"), because
 * then it is leetspeak, not a handle.
 */
function blankLeadingMentions(c: Chars): void {
  if (c.chars.find((ch) => ch !== " ") !== "@") return;
  const all = tokens(c.chars);
  const isMention = ([start, end]: [number, number]) => {
    const token = c.chars.slice(start, end).join("");
    // "@ss" and "@sshole" are words with "@" for "a", not handles.
    return /^@[a-z0-9_]{1,15}[:,]?$/.test(token) && !MASKED_WORDS.includes(`a${token.slice(1).replace(/[:,]$/, "")}`);
  };
  const leading = all.findIndex((t) => !isMention(t));
  if (leading <= 0) return;
  for (const [start, end] of all.slice(0, leading)) for (let k = start; k < end; k++) c.chars[k] = " ";
}

/**
 * Reads leetspeak inside words. Digits are letters only in a token that has a letter
 * ("k1ll", not "100"). Symbols need a letter next to them: "@" and "$" one after (past
 * a run of the same symbol: "a$$hole", "@ss"), "$" also one before ("a$$"), and "!" one on
 * each side ("sh!t"), so "wow!!!" and "!important" stay as they are.
 */
function wordy(c: Chars, k: number, start: number, end: number): boolean {
  return k >= start && k < end && (isLetter(c.chars[k]!) || LEET_DIGITS.includes(c.chars[k]!));
}

function resolveLeet(c: Chars, spans: ReadonlyArray<[number, number]>): void {
  for (const [start, end] of spans) {
    // Plain words (nearly all) have nothing to read.
    let letter = false;
    let other = false;
    for (let k = start; k < end; k++) {
      if (isLetter(c.chars[k]!)) letter = true;
      else other = true;
    }
    if (!letter || !other) continue;
    // Decide on the token as written, then map, so one mapping cannot justify the next.
    const read: number[] = [];
    for (let k = start; k < end; k++) {
      const ch = c.chars[k]!;
      if (LEET_DIGITS.includes(ch)) {
        read.push(k);
        continue;
      }
      if (!LEET_SYMBOLS.includes(ch)) continue;
      let first = k;
      while (first > start && c.chars[first - 1] === ch) first--;
      let last = k;
      while (last + 1 < end && c.chars[last + 1] === ch) last++;
      const ok =
        ch === "!"
          ? wordy(c, k - 1, start, end) && wordy(c, k + 1, start, end)
          : wordy(c, last + 1, start, end) || (ch === "$" && wordy(c, first - 1, start, end));
      if (ok) read.push(k);
    }
    for (const k of read) {
      const mapped = transformers().leet.transform(c.chars[k]!.codePointAt(0)!);
      if (mapped !== undefined) c.chars[k] = String.fromCodePoint(mapped);
    }
  }
}

/**
 * Symbols that stand for a letter, with the letters they can stand for: digits, "@" and "$"
 * read as leetspeak, "!" as leetspeak for i and as a mask for the other vowels ("f!ck", "sh!t",
 * "!diot"). Read against known words first, so "f!ck" is "fuck", not "fick".
 */
const STAND_INS: Readonly<Record<string, string>> = {
  "!": "iluoae",
  "@": "ao",
  $: "s",
  "|": "il",
  "0": "o",
  "1": "il",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  // "ni99er", "fa99ot": 9 for g only where the token fits a masked word.
  "9": "g",
};

/**
 * Fills in masked words ("f**k", "sh*t", "a**hole", "f-ck", "!diot", "@$$hole") with the one
 * known word of the same length that agrees on every visible letter, a mask standing for any
 * letter and a stand-in symbol for its own letters. Nobody masks a harmless word, so a
 * masked token that fits a swear word or an insult is that word; a hyphenated word
 * ("e-mail") fits none, and a token needs a visible letter ("!!!" is not a word).
 */
const hidden = (ch: string): boolean => MASKS.includes(ch) || ch in STAND_INS;
/** What stays of a word's end: "@" and "$" are letters even there ("n!gg@"); "!" there is punctuation. */
const keptAtEnd = (ch: string): boolean => isAlnum(ch) || MASKS.includes(ch) || ch === "@" || ch === "$";

function resolveMasks(c: Chars, spans: ReadonlyArray<[number, number]>): void {
  for (const [start, end] of spans) {
    // Trailing punctuation ("f***!", "idiot!") is not part of the word.
    let stop = end;
    while (stop > start && !keptAtEnd(c.chars[stop - 1]!)) stop--;
    if (stop - start < 3) continue;
    let any = false;
    for (let k = start; k < stop && !any; k++) any = hidden(c.chars[k]!);
    if (!any) continue;
    const word = c.chars.slice(start, stop);
    if (word.length < 3 || !(isLetter(word[0]!) || word[0]! in STAND_INS) || !word.some(hidden)) continue;
    if (!word.every((ch) => isLetter(ch) || hidden(ch)) || !word.some(isLetter)) continue;
    const fit = MASKED_WORDS.find(
      (candidate) =>
        candidate.length === word.length &&
        [...candidate].every(
          (letter, k) => word[k] === letter || MASKS.includes(word[k]!) || (STAND_INS[word[k]!] ?? "").includes(letter),
        ),
    );
    if (fit) for (let k = 0; k < fit.length; k++) c.chars[start + k] = fit[k]!;
  }
}

/**
 * Joins letters spelt out one at a time ("f u c k", "k.y.s", "k-i-l-l", "k . y . s"): three or
 * more single letters in a row, separated by one or two spacer characters (three if not all
 * spaces), become one word.
 * Three, because "a b" occurs in ordinary text and "I a" does not say anything.
 *
 * A run is one word only if its letters are separated alike. Where plain spaces and
 * dots (or dashes, stars...) mix, the spaces are the word breaks the writer kept: "you're
 * a f.a.g.g.o.t" is "a faggot", not "afaggot" (which no word list matches), and
 * "k-i-l-l y-o-u" is "kill you". Where only spaces separate them, a leading "a", "i" or "u"
 * is its own word when the letters after it spell a known masked word ("a f a g g o t").
 */
/** Whether character k is a letter or digit standing alone ("f" in "f u c k"). */
function single(c: Chars, k: number): boolean {
  const n = c.chars.length;
  return isAlnum(c.chars[k]!) && (k === 0 || !isAlnum(c.chars[k - 1]!)) && (k + 1 >= n || !isAlnum(c.chars[k + 1]!));
}

/** Single-letter English words that may stand before a spelt-out word ("a f a g g o t", "u i d i o t"). */
const ONE_LETTER_WORDS = "aiu";

function copy(out: Chars, c: Chars, k: number): void {
  out.chars.push(c.chars[k]!);
  out.from.push(c.from[k]!);
  out.to.push(c.to[k]!);
}

function joinSpacedLetters(c: Chars): Chars {
  const out: Chars = { chars: [], from: [], to: [] };
  const n = c.chars.length;
  let k = 0;
  while (k < n) {
    if (single(c, k)) {
      // Collect the run of single letters starting here, and whether each gap is spaces only.
      const run = [k];
      const spaced: boolean[] = [];
      let j = k + 1;
      for (;;) {
        let gap = j;
        while (gap < n && gap - j < 3 && SPACERS.includes(c.chars[gap]!)) gap++;
        const width = gap - j;
        // One or two spacers ("f.u", "f. u"), or three when not all spaces ("f . u").
        const fits = width >= 1 && (width <= 2 || c.chars.slice(j, gap).some((ch) => ch !== " "));
        if (fits && gap < n && single(c, gap)) {
          run.push(gap);
          spaced.push(c.chars.slice(j, gap).every((ch) => ch === " "));
          j = gap + 1;
        } else break;
      }
      if (run.length >= 3) {
        // Mixed separators: cut at the plain spaces. All spaces: a one-letter word may lead.
        const mixed = spaced.includes(true) && spaced.includes(false);
        const rest = run
          .slice(1)
          .map((r) => c.chars[r]!)
          .join("");
        const leads =
          !mixed && ONE_LETTER_WORDS.includes(c.chars[run[0]!]!) && rest.length >= 3 && MASKED_WORDS.includes(rest);
        const cuts = run.map((_, i) => i > 0 && ((mixed && spaced[i - 1]!) || (leads && i === 1)));
        let piece: number[] = [];
        const flush = (next: number | undefined) => {
          if (piece.length >= 3 || !mixed) for (const r of piece) copy(out, c, r);
          else for (let p = piece[0]!; p <= piece[piece.length - 1]!; p++) copy(out, c, p);
          // The gap after the piece, as it was written.
          if (next !== undefined) for (let p = piece[piece.length - 1]! + 1; p < next; p++) copy(out, c, p);
          piece = [];
        };
        run.forEach((r, i) => {
          if (cuts[i]) flush(r);
          piece.push(r);
        });
        flush(undefined);
        k = run[run.length - 1]! + 1;
        continue;
      }
    }
    copy(out, c, k);
    k++;
  }
  return out;
}

/** Collapses runs of spaces and trims, keeping the trace. */
function squeezeSpaces(c: Chars): TracedText {
  const chars: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let k = 0; k < c.chars.length; k++) {
    const ch = c.chars[k]!;
    if (ch === " " && (chars.length === 0 || chars[chars.length - 1] === " ")) continue;
    chars.push(ch);
    from.push(c.from[k]!);
    to.push(c.to[k]!);
  }
  if (chars[chars.length - 1] === " ") {
    chars.pop();
    from.pop();
    to.pop();
  }
  return { text: chars.join(""), from, to };
}

/** Reduces every run of one repeated character to a single one, keeping the trace. */
export function collapseRepeats(t: TracedText): TracedText {
  const chars: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let k = 0; k < t.text.length; k++) {
    const ch = t.text[k]!;
    if (chars.length > 0 && chars[chars.length - 1] === ch) {
      to[to.length - 1] = t.to[k]!;
      continue;
    }
    chars.push(ch);
    from.push(t.from[k]!);
    to.push(t.to[k]!);
  }
  return { text: chars.join(""), from, to };
}

/**
 * Produces both normalised forms of a text; see the module comment for what each undoes.
 *
 * @example
 * ```ts
 * normalize("Y0U  @re a f**k1ng c u n t").collapsed.text // "you are a fucking cunt"
 * ```
 */
export function normalize(original: string): Normalized {
  const chars = foldCodePoints(original);
  blankLeadingMentions(chars);
  // Masks first: a masked word read whole ("f!ck", "@$$hole") beats reading symbol by symbol.
  // Blanking and filling in change characters but never where a space is, so one split serves all three.
  const spans = tokens(chars.chars);
  resolveMasks(chars, spans);
  resolveLeet(chars, spans);
  const folded = squeezeSpaces(joinSpacedLetters(chars));
  return { original, folded, collapsed: collapseRepeats(folded) };
}

/**
 * The original text behind characters [start, end) of a traced text: what a verdict
 * reports as the match, so the log shows what the author actually wrote.
 */
export function originalSpan(t: TracedText, start: number, end: number): { start: number; end: number } {
  return { start: t.from[start]!, end: t.to[end - 1]! };
}

/**
 * Normalises a phrase-rule pattern written in plain English the way {@link normalize}
 * collapses input: lower case, apostrophes dropped, repeated letters reduced
 * ("I'll kill" → "il kil"). Only letters are touched, so regular-expression syntax in
 * the pattern (groups, `?`, lookaheads) survives.
 */
export function normalizePattern(source: string): string {
  let out = "";
  for (const ch of source.toLowerCase()) {
    if (APOSTROPHES.has(ch)) continue;
    if (isLetter(ch) && out.endsWith(ch)) continue;
    out += ch;
  }
  return out;
}
