/**
 * What text a regular expression cannot match without: read from its source, a few lists
 * of strings such that every match contains at least one string of each list. A phrase
 * rule's expression runs only on a text that contains them (`String.prototype.includes`,
 * far cheaper than the expression's own search over the text), which spares most rules on
 * most replies: "know where you live" needs "where", "kill yourself" needs "kil" and "yourself".
 *
 * Sound by construction: a list is only ever taken from what a match must consume, so a
 * text skipped could not have matched. Zero-width parts (lookarounds, anchors) and repeats
 * that may be absent require nothing; a part this reader does not know (a back reference,
 * an escape it has no case for) makes the expression need nothing, so it always runs.
 * Written for the expressions `pattern.ts` compiles (no flags but `g`: no case folding).
 */

/** Lists of strings: a match contains at least one string of each list. */
export type Required = ReadonlyArray<readonly string[]>;

/** How many lists are kept for one expression: each costs a search of the text. */
const MAX_LISTS = 2;
/** The most strings a part's exact readings may have before only what they require is kept. */
const MAX_EXACT = 64;

/**
 * What is known of a part of an expression: `exact`, every string it can match (when they
 * are few), and `needs`, lists of which every match contains a string each.
 */
interface Info {
  readonly exact: ReadonlySet<string> | null;
  readonly needs: ReadonlyArray<ReadonlySet<string>>;
}

const ZERO_WIDTH: Info = { exact: new Set([""]), needs: [] };
const UNKNOWN: Info = { exact: null, needs: [] };

class Unsupported extends Error {}

/**
 * A list's weakness: about how likely a text is to contain one of its strings (short
 * strings are everywhere), so the most selective lists are kept.
 */
function weakness(list: ReadonlySet<string>): number {
  let w = 0;
  for (const s of list) w += s.length >= 5 ? 0.01 : ([1, 1, 0.3, 0.1, 0.03][s.length] ?? 1);
  return w;
}

/** A list with every string dropped that contains another of its strings (the shorter one is found whenever it is). */
function minimal(list: ReadonlySet<string>): ReadonlySet<string> | null {
  if (list.has("")) return null;
  const sorted = [...list].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const s of sorted) if (!kept.some((k) => s.includes(k))) kept.push(s);
  return new Set(kept);
}

function best(lists: ReadonlyArray<ReadonlySet<string> | null>): ReadonlySet<string>[] {
  const usable = lists.filter((l): l is ReadonlySet<string> => l !== null && l.size > 0);
  const distinct = new Map(usable.map((l) => [[...l].sort().join("\u0000"), l]));
  return [...distinct.values()].sort((a, b) => weakness(a) - weakness(b)).slice(0, MAX_LISTS);
}

function concat(parts: readonly Info[]): Info {
  const candidates: Array<ReadonlySet<string> | null> = [];
  let run: Set<string> | null = new Set([""]);
  let allExact = true;
  for (const part of parts) {
    candidates.push(...part.needs);
    if (part.exact !== null && run !== null && run.size * part.exact.size <= MAX_EXACT) {
      const next = new Set<string>();
      for (const a of run) for (const b of part.exact) next.add(a + b);
      run = next;
      continue;
    }
    if (run !== null) candidates.push(minimal(run));
    run = part.exact === null ? null : new Set(part.exact);
    allExact = false;
  }
  if (run !== null) candidates.push(minimal(run));
  return { exact: allExact ? run : null, needs: best(candidates) };
}

function alternate(branches: readonly Info[]): Info {
  let exact: Set<string> | null = new Set();
  for (const b of branches) {
    if (b.exact === null || exact === null || exact.size + b.exact.size > MAX_EXACT) exact = null;
    else for (const s of b.exact) exact.add(s);
  }
  // Each branch's most selective list (or its readings); the union is needed by the whole.
  const union = new Set<string>();
  for (const b of branches) {
    const own = best([...b.needs, b.exact === null ? null : minimal(b.exact)])[0];
    if (own === undefined) return { exact, needs: [] };
    for (const s of own) union.add(s);
  }
  const list = minimal(union);
  return { exact, needs: list === null ? [] : [list] };
}

/** A reader of the regular-expression syntax `pattern.ts` produces. */
class Reader {
  at = 0;
  constructor(readonly source: string) {}

  alternation(): Info {
    const branches = [this.sequence()];
    while (this.source[this.at] === "|") {
      this.at++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? branches[0]! : alternate(branches);
  }

  sequence(): Info {
    const parts: Info[] = [];
    while (this.at < this.source.length && this.source[this.at] !== "|" && this.source[this.at] !== ")") {
      parts.push(this.quantified(this.atom()));
    }
    return concat(parts);
  }

  quantified(part: Info): Info {
    const c = this.source[this.at];
    let min: number;
    let max: number;
    if (c === "?" || c === "*" || c === "+") {
      this.at++;
      min = c === "+" ? 1 : 0;
      max = c === "?" ? 1 : Number.POSITIVE_INFINITY;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!m) throw new Unsupported(`"{" at ${this.at}`);
      this.at += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Number.POSITIVE_INFINITY : Number(m[3]);
    } else return part;
    if (this.source[this.at] === "?") this.at++; // lazy: matches the same strings
    if (min === 0) {
      return max === 1 && part.exact !== null ? { exact: new Set([...part.exact, ""]), needs: [] } : UNKNOWN;
    }
    if (min === 1 && max === 1) return part;
    // One repetition or more: each contains what the part needs.
    const needs = part.exact === null ? part.needs : best([...part.needs, minimal(part.exact)]);
    return { exact: null, needs };
  }

  atom(): Info {
    const c = this.source[this.at]!;
    if (c === "(") return this.group();
    if (c === "[") return this.characterClass();
    this.at++;
    if (c === "^" || c === "$") return ZERO_WIDTH;
    if (c === ".") return UNKNOWN;
    if (c === "\\") return this.escape();
    if ("*+?{}".includes(c)) throw new Unsupported(`"${c}" at ${this.at - 1}`);
    return { exact: new Set([c]), needs: [] };
  }

  escape(): Info {
    const c = this.source[this.at++];
    if (c === undefined) throw new Unsupported("a trailing backslash");
    if (c === "b" || c === "B") return ZERO_WIDTH;
    if ("dDsSwW".includes(c)) return UNKNOWN;
    if (c === "n") return { exact: new Set(["\n"]), needs: [] };
    if (c === "t") return { exact: new Set(["\t"]), needs: [] };
    if (/[\^$\\.*+?()[\]{}|/-]/.test(c)) return { exact: new Set([c]), needs: [] };
    throw new Unsupported(`escape \\${c}`);
  }

  group(): Info {
    const rest = this.source.slice(this.at);
    const lookaround = /^\((\?<?[=!])/.exec(rest);
    const opening = lookaround ?? /^\((\?:|\?<[A-Za-z_$][\w$]*>)?/.exec(rest)!;
    this.at += opening[0].length;
    const inner = this.alternation();
    if (this.source[this.at] !== ")") throw new Unsupported(`unclosed group at ${this.at}`);
    this.at++;
    // A lookaround consumes nothing, so it adds nothing a match must contain.
    return lookaround ? ZERO_WIDTH : inner;
  }

  /** A class of a few listed characters is those characters; any other class is unknown. */
  characterClass(): Info {
    const start = this.at;
    this.at++;
    const negated = this.source[this.at] === "^";
    if (negated) this.at++;
    const chars: string[] = [];
    let ranged = false;
    while (this.at < this.source.length && this.source[this.at] !== "]") {
      let c = this.source[this.at++]!;
      if (c === "\\") {
        c = this.source[this.at++] ?? "";
        if (!/[\^$\\.*+?()[\]{}|/-]/.test(c)) ranged = true; // \n, \d...: not listed here
      } else if (c === "-" && chars.length > 0 && this.source[this.at] !== "]") {
        ranged = true;
      }
      chars.push(c);
    }
    if (this.source[this.at] !== "]") throw new Unsupported(`unclosed class at ${start}`);
    this.at++;
    if (negated || ranged || chars.length === 0 || chars.length > 16) return UNKNOWN;
    return { exact: new Set(chars), needs: [] };
  }
}

/**
 * What a regular expression's matches need, as lists of strings (see the module comment):
 * empty when nothing can be said, and then the expression always runs.
 */
export function requiredText(source: string): Required {
  try {
    const reader = new Reader(source);
    const info = reader.alternation();
    if (reader.at !== source.length) return [];
    return info.needs.map((list) => [...list]);
  } catch (error) {
    if (error instanceof Unsupported) return [];
    throw error;
  }
}

/** Whether a text contains a string of each list (for one expression; {@link RequiredIndex} checks many at once). */
export function hasRequired(text: string, required: Required): boolean {
  for (const list of required) if (!list.some((s) => text.includes(s))) return false;
  return true;
}

/**
 * The needs of many expressions checked together: one pass over a text (an Aho-Corasick
 * automaton of every string any of them needs) marks which of those strings the text
 * contains, and then each expression's lists are looked up by number. Checking each list
 * with `includes` instead searched the text once per string, hundreds of times per text.
 * Not reentrant: {@link scan} a text, then ask {@link satisfied} for it, synchronously.
 */
export class RequiredIndex {
  /** Each expression's lists, as the numbers of their strings. */
  private readonly lists: ReadonlyArray<ReadonlyArray<Int32Array>>;
  /** Character code (below 128) → its column in {@link next}; 0 for a character no string has. */
  private readonly column = new Int32Array(128);
  /** Characters from 128 on, where a string has some (no normalised text does). */
  private readonly wideColumn = new Map<number, number>();
  private readonly width: number;
  /** The automaton: state × column → next state. */
  private readonly next: Int32Array;
  /** Per state, the numbers of the strings that end there, and the next state down its fail chain that has some. */
  private readonly ends: ReadonlyArray<readonly number[]>;
  private readonly endLink: Int32Array;
  /** String number → the number of the last scan that found it. */
  private readonly found: Uint32Array;
  private scans = 0;

  constructor(needs: readonly Required[]) {
    const numbers = new Map<string, number>();
    for (const required of needs)
      for (const list of required) for (const s of list) numbers.set(s, numbers.get(s) ?? numbers.size);
    this.lists = needs.map((required) => required.map((list) => Int32Array.from(list, (s) => numbers.get(s)!)));
    this.found = new Uint32Array(numbers.size);
    // The alphabet: column 0 stands for every character no string has.
    let columns = 1;
    for (const s of numbers.keys()) {
      for (let i = 0; i < s.length; i++) {
        const code = s.charCodeAt(i);
        if (code < 128) {
          if (this.column[code] === 0) this.column[code] = columns++;
        } else if (!this.wideColumn.has(code)) this.wideColumn.set(code, columns++);
      }
    }
    this.width = columns;
    // The trie of the strings.
    const children: Array<Map<number, number>> = [new Map()];
    const ends: number[][] = [[]];
    for (const [s, n] of numbers) {
      let state = 0;
      for (let i = 0; i < s.length; i++) {
        const c = this.columnOf(s.charCodeAt(i));
        let child = children[state]!.get(c);
        if (child === undefined) {
          child = children.length;
          children.push(new Map());
          ends.push([]);
          children[state]!.set(c, child);
        }
        state = child;
      }
      ends[state]!.push(n);
    }
    // Fail links and the full transition table, breadth first.
    const next = new Int32Array(children.length * columns);
    const fail = new Int32Array(children.length);
    const endLink = new Int32Array(children.length).fill(-1);
    const queue: number[] = [];
    for (const [c, child] of children[0]!) {
      next[c] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      const f = fail[state]!;
      endLink[state] = ends[f]!.length > 0 ? f : endLink[f]!;
      for (let c = 0; c < columns; c++) {
        const child = children[state]!.get(c);
        if (child === undefined) {
          next[state * columns + c] = next[f * columns + c]!;
        } else {
          next[state * columns + c] = child;
          fail[child] = next[f * columns + c]!;
          queue.push(child);
        }
      }
    }
    this.next = next;
    this.ends = ends;
    this.endLink = endLink;
  }

  private columnOf(code: number): number {
    return code < 128 ? this.column[code]! : (this.wideColumn.get(code) ?? 0);
  }

  /** Marks which of the strings `text` contains, for {@link satisfied}. */
  scan(text: string): void {
    const scan = ++this.scans;
    const { next, ends, endLink, found, width } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      state = next[state * width + this.columnOf(text.charCodeAt(i))]!;
      for (let s = ends[state]!.length > 0 ? state : endLink[state]!; s > 0; s = endLink[s]!) {
        for (const n of ends[s]!) found[n] = scan;
      }
    }
  }

  /** Whether the text last scanned contains a string of each of expression `index`'s lists. */
  satisfied(index: number): boolean {
    const scan = this.scans;
    for (const list of this.lists[index]!) {
      let any = false;
      for (let k = 0; k < list.length && !any; k++) any = this.found[list[k]!] === scan;
      if (!any) return false;
    }
    return true;
  }
}
