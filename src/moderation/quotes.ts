/**
 * Abuse quoted to report it is not abuse: "someone replied 'kill yourself' to me and got
 * suspended", "\"you idiot\" is not an argument". A bot's friendliest repliers quote the
 * abuse they received, and hiding them punishes the target twice. The classifier drops a
 * hit that lies wholly inside quotation marks when the words outside the quotes report or
 * reject what is quoted. Quoting without such a word ("'kys' lol") still counts: quotation
 * marks alone are too cheap a disguise.
 */

/** Words that, outside the quotes, say the quote is being reported or rejected. */
const REPORTING = new Set([
  "said",
  "say",
  "says",
  "saying",
  "wrote",
  "write",
  "writes",
  "writing",
  "called",
  "call",
  "calling",
  "calls",
  "replied",
  "reply",
  "replies",
  "replying",
  "comment",
  "comments",
  "commented",
  "told",
  "tell",
  "telling",
  "tells",
  "typed",
  "posted",
  "yelled",
  "shouted",
  "screamed",
  "reported",
  "report",
  "reporting",
  "blocked",
  "block",
  "blocking",
  "banned",
  "ban",
  "suspended",
  "quote",
  "quoted",
  "argument",
  "word",
  "words",
  "phrase",
  "dm",
  "dms",
  "messaged",
  "stop",
  "not",
  "isnt",
  "never",
  "sent",
  "shouts",
  "shout",
  "yells",
  "yell",
  "screams",
  "scream",
  "mutters",
  "whispers",
  "asks",
  "asked",
  "goes",
  "went",
  "character",
  "line",
  "villain",
  "got",
  "received",
  "post",
  "posts",
]);

/** Quotation marks that open a quote, each with the marks that close it. */
const PAIRS: ReadonlyArray<[open: string, close: string]> = [
  ['"', '"'],
  ["\u201c", '\u201d"'],
  ["\u00ab", "\u00bb"],
  ["'", "'\u2019"],
  ["\u2018", "\u2019'"],
];

/** Any opening quotation mark: most replies have none, and then there is nothing to do. */
const QUOTE_MARKS = /["'\u201c\u00ab\u2018]/;

const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * The spans ([start, end) of the original text, quotation marks included) of quotes that
 * the rest of the text reports or rejects; empty when there are none.
 */
export function reportedQuotes(text: string): Array<{ start: number; end: number }> {
  if (!QUOTE_MARKS.test(text)) return [];
  const quotes: Array<{ start: number; end: number }> = [];
  let i = 0;
  while (i < text.length) {
    const pair = PAIRS.find(([open]) => open === text[i]);
    // An apostrophe inside a word ("it's") opens nothing; a quote opens after a space or at the start.
    if (!pair || isWordChar(text[i - 1])) {
      i++;
      continue;
    }
    let close = -1;
    for (let j = i + 2; j < text.length; j++) {
      if (pair[1].includes(text[j]!) && !isWordChar(text[j + 1]) && text[j - 1] !== " ") {
        close = j;
        break;
      }
    }
    if (close < 0) {
      i++;
      continue;
    }
    quotes.push({ start: i, end: close + 1 });
    i = close + 1;
  }
  if (quotes.length === 0) return [];
  let outside = "";
  let at = 0;
  for (const q of quotes) {
    outside += ` ${text.slice(at, q.start)}`;
    at = q.end;
  }
  outside += ` ${text.slice(at)}`;
  const words = outside
    .toLowerCase()
    .replace(/['\u2019]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return words.some((w) => REPORTING.has(w)) ? quotes : [];
}
