/**
 * The search query language: one parser and one matcher shared by search (recent, full
 * archive, counts) and filtered-stream rules, so a rule matches on the stream exactly the
 * posts the same query finds in search.
 *
 * The subset the sandbox understands, with the real service's meanings:
 *
 * - `cat` a keyword: case-insensitive, matched against whole tokens of the text (the text
 *   is split at every character that is not a letter, mark, digit or `_`), so `cat`
 *   matches "Cat!" and "#cat" but not "cats". A keyword with punctuation inside
 *   (`don't`) is matched as the phrase of its tokens.
 * - `"happy cat"` an exact phrase: those tokens, consecutive, in order.
 * - `a b` both (implicit AND); `a OR b` either (AND binds tighter: `a OR b c` is
 *   `a OR (b c)`); `( )` grouping; `-x` negation of a term or a group.
 * - `from:name` and `to:name` (a username or a user id; `to:` means "a reply to"),
 *   `@name` (mentions), `#tag` and `$TAG` (exact, case-insensitive, not tokenized),
 *   `conversation_id:ID`, `in_reply_to_post_id:ID`, `quotes_of_post_id:ID`,
 *   `reposts_of_post_id:ID`, `lang:xx`.
 * - `is:reply`, `is:repost`, `is:quote`, `is:verified`, `has:mentions`, `has:hashtags`,
 *   `has:cashtags`, `has:links`, `has:media` (the sandbox has no media, so it never
 *   matches). Like `lang:`, these cannot stand alone: a query needs at least one
 *   positive keyword, phrase or standalone operator, as on the real service.
 *
 * Anything else (an unknown `op:`, an unbalanced parenthesis, an unterminated quote, a
 * dangling `OR` or `-`) is a {@link QueryError} that says what and at which position.
 */
import { codePointsUpTo } from "./code-points.ts";

/** A syntax or semantic error in a query; `position` is 1-based, in characters. */
export class QueryError extends Error {
  override name = "QueryError";
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${reason} (at position ${position})`);
  }
}

/** The parsed form of a query: AND/OR/NOT over token sequences and operators. */
export type QueryNode =
  | { kind: "and"; children: QueryNode[] }
  | { kind: "or"; children: QueryNode[] }
  | { kind: "not"; child: QueryNode }
  | { kind: "terms"; tokens: string[] }
  | { kind: "op"; name: Operator; value: string };

/** The facts about one post that a query can test. Usernames and tags are lower case. */
export interface PostFacts {
  id: string;
  /** The text's tokens, lower case (see {@link tokenize}). */
  tokens: string[];
  authorId: string;
  authorUsername: string;
  authorVerified: boolean;
  inReplyToUserId?: string;
  inReplyToUsername?: string;
  inReplyToPostId?: string;
  quotePostId?: string;
  repostOfId?: string;
  conversationId: string;
  lang: string;
  mentions: string[];
  hashtags: string[];
  cashtags: string[];
  urls: string[];
}

/** A parsed query: match it against posts' facts with {@link matches}. */
export interface Query {
  source: string;
  root: QueryNode;
}

const VALUE_OPERATORS = [
  "from",
  "to",
  "conversation_id",
  "in_reply_to_post_id",
  "quotes_of_post_id",
  "reposts_of_post_id",
  "lang",
] as const;
const FLAG_OPERATORS = {
  is: ["reply", "repost", "quote", "verified"],
  has: ["mentions", "hashtags", "cashtags", "links", "media"],
} as const;
type Operator = (typeof VALUE_OPERATORS)[number] | "is" | "has" | "mention" | "hashtag" | "cashtag";

/** Operators that cannot be a query's only positive clause (the real service's rule). */
const NEEDS_COMPANION = new Set<Operator>(["is", "has", "lang"]);

const ID_OPERATORS = new Set<Operator>([
  "conversation_id",
  "in_reply_to_post_id",
  "quotes_of_post_id",
  "reposts_of_post_id",
]);

/** Splits text into lower-case tokens: runs of letters, marks, digits and `_`. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{M}\p{N}_]+/gu) ?? []) as string[];
}

type Token =
  | { t: "lparen" | "rparen" | "or"; pos: number; neg?: false }
  | { t: "term"; pos: number; neg: boolean; text: string; quoted: boolean };

function lex(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/u.test(c)) {
      i++;
      continue;
    }
    const pos = i + 1;
    if (c === "(") {
      out.push({ t: "lparen", pos });
      i++;
      continue;
    }
    if (c === ")") {
      out.push({ t: "rparen", pos });
      i++;
      continue;
    }
    let neg = false;
    if (c === "-") {
      neg = true;
      i++;
      if (i >= source.length || /\s/u.test(source[i]!))
        throw new QueryError("A `-` must be followed by the term or group it negates", pos);
      if (source[i] === "(") {
        out.push({ t: "term", pos, neg: true, text: "", quoted: false });
        continue; // the group follows; the parser joins them
      }
    }
    if (source[i] === '"') {
      const end = source.indexOf('"', i + 1);
      if (end < 0) throw new QueryError('Unterminated quoted phrase: a `"` has no closing `"`', i + 1);
      out.push({ t: "term", pos, neg, text: source.slice(i + 1, end), quoted: true });
      i = end + 1;
      continue;
    }
    let j = i;
    while (j < source.length && !/[\s()]/u.test(source[j]!)) {
      if (source[j] === '"') break;
      j++;
    }
    const text = source.slice(i, j);
    if (!neg && text === "OR") out.push({ t: "or", pos });
    else out.push({ t: "term", pos, neg, text, quoted: false });
    i = j;
  }
  return out;
}

function term(token: Extract<Token, { t: "term" }>): QueryNode {
  const { text, pos } = token;
  if (token.quoted) {
    const tokens = tokenize(text);
    if (!tokens.length) throw new QueryError("An empty phrase matches nothing; put words between the quotes", pos);
    return { kind: "terms", tokens };
  }
  const first = text[0]!;
  const prefixed: Record<string, Operator> = { "@": "mention", "#": "hashtag", $: "cashtag" };
  if (prefixed[first] && text.length > 1) {
    const value = text.slice(1);
    if (!/^[\p{L}\p{M}\p{N}_.]+$/u.test(value))
      throw new QueryError(`\`${text}\` is not a valid ${prefixed[first]}`, pos);
    return { kind: "op", name: prefixed[first]!, value: value.toLowerCase() };
  }
  const colon = text.indexOf(":");
  if (colon > 0 && /^[a-z_]+$/i.test(text.slice(0, colon))) {
    const name = text.slice(0, colon).toLowerCase();
    let value = text.slice(colon + 1);
    if (!value) throw new QueryError(`The operator \`${name}:\` needs a value right after the colon`, pos);
    if (name === "is" || name === "has") {
      const allowed: readonly string[] = FLAG_OPERATORS[name];
      value = value.toLowerCase();
      if (!allowed.includes(value)) {
        throw new QueryError(
          `Reference to invalid field '${name}:${value}'; \`${name}:\` takes one of ${allowed.join(", ")}`,
          pos,
        );
      }
      return { kind: "op", name, value };
    }
    if (!(VALUE_OPERATORS as readonly string[]).includes(name)) {
      throw new QueryError(
        `Reference to invalid operator '${name}:'; the operators are ${[...VALUE_OPERATORS, "is", "has"].map((o) => o + ":").join(", ")}, @, # and $`,
        pos,
      );
    }
    const op = name as Operator;
    if (ID_OPERATORS.has(op) && !/^[0-9]{1,19}$/.test(value))
      throw new QueryError(`\`${name}:\` takes a post id (digits), not '${value}'`, pos);
    if ((op === "from" || op === "to") && !/^@?[A-Za-z0-9_]{1,15}$/.test(value) && !/^[0-9]{1,19}$/.test(value)) {
      throw new QueryError(`\`${name}:\` takes a username or a user id, not '${value}'`, pos);
    }
    if (op === "lang" && !/^[a-z]{2,3}(-[a-z]{2,4})?$/i.test(value))
      throw new QueryError(`\`lang:\` takes a language code such as en, not '${value}'`, pos);
    return { kind: "op", name: op, value: value.replace(/^@/, "").toLowerCase() };
  }
  const tokens = tokenize(text);
  if (!tokens.length) throw new QueryError(`\`${text}\` has no letters or digits to match`, pos);
  return { kind: "terms", tokens };
}

/**
 * Parses a query. `maxLength` is the product's limit (4096 for search, 512 or 1024 for
 * stream rules).
 */
export function parseQuery(source: string, maxLength = 4096): Query {
  if (!source.trim()) throw new QueryError("The query is empty", 1);
  if (codePointsUpTo(source, maxLength) > maxLength)
    throw new QueryError(`The query is longer than ${maxLength} characters`, maxLength + 1);
  const tokens = lex(source);
  let at = 0;
  const peek = () => tokens[at];

  const parseOr = (depth: number): QueryNode => {
    const first = peek();
    if (first?.t === "or") throw new QueryError("`OR` needs a term on its left", first.pos);
    const children = [parseAnd(depth)];
    while (peek()?.t === "or") {
      const or = tokens[at++]!;
      const next = peek();
      if (!next || next.t === "or" || next.t === "rparen")
        throw new QueryError("`OR` needs a term on its right", or.pos);
      children.push(parseAnd(depth));
    }
    return children.length === 1 ? children[0]! : { kind: "or", children };
  };

  const parseAnd = (depth: number): QueryNode => {
    const children: QueryNode[] = [];
    for (;;) {
      const tok = peek();
      if (!tok || tok.t === "or") break;
      if (tok.t === "rparen") {
        if (depth === 0) throw new QueryError("A `)` closes no `(`", tok.pos);
        break;
      }
      at++;
      if (tok.t === "lparen") children.push(group(tok.pos, depth));
      else if (tok.t !== "term") throw new QueryError("Unexpected token", tok.pos);
      else if (tok.neg && tok.text === "" && !tok.quoted) {
        const open = tokens[at++]!; // the `(` the lexer saw after `-`
        children.push({ kind: "not", child: group(open.pos, depth) });
      } else {
        const node = term(tok);
        children.push(tok.neg ? { kind: "not", child: node } : node);
      }
    }
    if (!children.length) {
      const tok = peek();
      throw new QueryError("Expected a term here", tok ? tok.pos : Array.from(source).length + 1);
    }
    return children.length === 1 ? children[0]! : { kind: "and", children };
  };

  const group = (pos: number, depth: number): QueryNode => {
    if (peek()?.t === "rparen") throw new QueryError("Empty parentheses `()`", pos);
    if (!peek()) throw new QueryError("A `(` is never closed", pos);
    const inner = parseOr(depth + 1);
    const close = tokens[at++];
    if (!close || close.t !== "rparen") throw new QueryError("A `(` is never closed", pos);
    return inner;
  };

  const root = parseOr(0);
  if (at < tokens.length) throw new QueryError("Unexpected text", tokens[at]!.pos);
  if (!standsAlone(root)) {
    throw new QueryError(
      "The query needs at least one positive keyword, phrase or standalone operator; negations, is:, has: and lang: only narrow one",
      1,
    );
  }
  return { source, root };
}

/** Whether a node guarantees a positive, standalone clause (the real service's rule). */
function standsAlone(node: QueryNode): boolean {
  switch (node.kind) {
    case "terms":
      return true;
    case "op":
      return !NEEDS_COMPANION.has(node.name);
    case "not":
      return false;
    case "and":
      return node.children.some(standsAlone);
    case "or":
      return node.children.every(standsAlone);
  }
}

function hasSequence(hay: string[], needle: string[]): boolean {
  if (needle.length === 1) return hay.includes(needle[0]!);
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function matchOp(name: Operator, value: string, f: PostFacts): boolean {
  switch (name) {
    case "from":
      return f.authorUsername === value || f.authorId === value;
    case "to":
      return f.inReplyToUsername === value || f.inReplyToUserId === value;
    case "mention":
      return f.mentions.includes(value);
    case "hashtag":
      return f.hashtags.includes(value);
    case "cashtag":
      return f.cashtags.includes(value);
    case "conversation_id":
      return f.conversationId === value;
    case "in_reply_to_post_id":
      return f.inReplyToPostId === value;
    case "quotes_of_post_id":
      return f.quotePostId === value;
    case "reposts_of_post_id":
      return f.repostOfId === value;
    case "lang":
      return f.lang.toLowerCase() === value;
    case "is":
      return value === "reply"
        ? f.inReplyToPostId !== undefined
        : value === "repost"
          ? f.repostOfId !== undefined
          : value === "quote"
            ? f.quotePostId !== undefined
            : f.authorVerified;
    case "has":
      return value === "mentions"
        ? f.mentions.length > 0
        : value === "hashtags"
          ? f.hashtags.length > 0
          : value === "cashtags"
            ? f.cashtags.length > 0
            : value === "links"
              ? f.urls.length > 0
              : false;
  }
}

function evaluate(node: QueryNode, f: PostFacts): boolean {
  switch (node.kind) {
    case "terms":
      return hasSequence(f.tokens, node.tokens);
    case "op":
      return matchOp(node.name, node.value, f);
    case "not":
      return !evaluate(node.child, f);
    case "and":
      return node.children.every((c) => evaluate(c, f));
    case "or":
      return node.children.some((c) => evaluate(c, f));
  }
}

/** The operators that hold when one of the post's values (listed here) equals the operator's. */
const SET_OPERATORS = {
  mention: (f: PostFacts) => f.mentions,
  hashtag: (f: PostFacts) => f.hashtags,
  cashtag: (f: PostFacts) => f.cashtags,
  from: (f: PostFacts) => [f.authorUsername, f.authorId],
  to: (f: PostFacts) => [f.inReplyToUsername, f.inReplyToUserId],
} satisfies Partial<Record<Operator, (f: PostFacts) => ReadonlyArray<string | undefined>>>;
/** An operator that holds when one of the post's values equals its own (see {@link requiredValues}). */
export type SetOperator = keyof typeof SET_OPERATORS;
const isSetOperator = (name: Operator): name is SetOperator => name in SET_OPERATORS;

/** Whether a post (by its facts) matches a query. */
export function matches(query: Query, facts: PostFacts): boolean {
  return evaluate(query.root, facts);
}

/** One value of a post (or of a query) under a {@link SetOperator}: `@ann` is `{ op: "mention", value: "ann" }`. */
export interface OpValue {
  op: SetOperator;
  value: string;
}

/**
 * Values of which a post must have at least one for the query to match it (see
 * {@link valueKeysOf}), or undefined when the query requires none of them (a keyword, a
 * negation...). Lets a stream find the few rules a post can match among thousands (the
 * packed mention rules of 10,000 bots each require one of their `@name`s or `to:name`s)
 * without testing every rule. The values are the query's own strings, not new keys made of
 * operator and value: a stream keeps them in its index for as long as the rule stands.
 */
export function requiredValues(query: Query): OpValue[] | undefined {
  const of = (node: QueryNode): OpValue[] | undefined => {
    switch (node.kind) {
      case "op":
        return isSetOperator(node.name) ? [{ op: node.name, value: node.value }] : undefined;
      case "or": {
        const all: OpValue[] = [];
        for (const c of node.children) {
          const keys = of(c);
          if (!keys) return undefined;
          all.push(...keys);
        }
        return all;
      }
      case "and": {
        let best: OpValue[] | undefined;
        for (const c of node.children) {
          const keys = of(c);
          if (keys && (!best || keys.length < best.length)) best = keys;
        }
        return best;
      }
      default:
        return undefined;
    }
  };
  return of(query.root);
}

const SET_OPERATOR_NAMES = Object.keys(SET_OPERATORS) as SetOperator[];

/** The values a post has, one per value of each of {@link SET_OPERATORS} (see {@link requiredValues}). */
export function valueKeysOf(f: PostFacts): OpValue[] {
  const keys: OpValue[] = [];
  for (const op of SET_OPERATOR_NAMES)
    for (const value of SET_OPERATORS[op](f)) if (value !== undefined) keys.push({ op, value });
  return keys;
}
