/**
 * obscenity's blacklist matching (its `RegExpMatcher.getAllMatches(text, true)` with one
 * transformer and no whitelist), with each term's regular expression compiled once. Why not
 * obscenity's own matcher: it runs every term through `String.prototype.matchAll`, which
 * copies the term's regular expression for every text (119 terms, so 119 copies per reply),
 * and it builds a second transformed text for a whitelist we do not give it. Here the terms'
 * expressions are reused with `exec` from `lastIndex` 0, and one expression joining them all
 * first says whether any term matches at all, which for most replies (no swear word) is the
 * only search run. The terms are obscenity's, read through its documented pattern nodes
 * (`ParsedPattern`), and compiled to the same expressions it compiles them to; a test holds
 * the matches equal to obscenity's own matcher's on every labelled reply.
 */
import type { BlacklistedTerm, LiteralNode, MatchPayload, Node, StatefulTransformerContainer } from "obscenity";
import { obscenity } from "./obscenity.ts";

/** What obscenity escapes in a literal (its `compilePatternToRegExp`: `-` and `/` are not special there). */
const SPECIAL = new Set("[.*+?^${}()|\\]".split("").map((c) => c.charCodeAt(0)));

function literalSource(node: LiteralNode): string {
  let out = "";
  for (const char of node.chars) out += (SPECIAL.has(char) ? "\\" : "") + String.fromCodePoint(char);
  return out;
}

function nodeSource(node: Node): string {
  const { SyntaxKind } = obscenity();
  switch (node.kind) {
    case SyntaxKind.Literal:
      return literalSource(node);
    case SyntaxKind.Optional:
      return `(?:${nodeSource(node.childNode)})?`;
    case SyntaxKind.Wildcard:
      return ".";
    default:
      throw new Error(`obscenity pattern node of unknown kind ${JSON.stringify(node)}`);
  }
}

/** A term's pattern as the regular expression source obscenity compiles it to. */
export function termSource(term: BlacklistedTerm): string {
  const { pattern } = term;
  const { SyntaxKind } = obscenity();
  if (pattern.nodes.every((node) => node.kind === SyntaxKind.Optional)) {
    throw new Error(`obscenity term ${term.id} may match an empty string`);
  }
  return (
    (pattern.requireWordBoundaryAtStart ? "\\b" : "") +
    pattern.nodes.map(nodeSource).join("") +
    (pattern.requireWordBoundaryAtEnd ? "\\b" : "")
  );
}

/** Finds every match of the terms in a text, sorted as obscenity sorts them (by position, then term id). */
export interface TermMatcher {
  matches(text: string): MatchPayload[];
}

/**
 * Builds a matcher of the given terms, reading each text through `transformer` (a stateful
 * transformer, reset for each text, as obscenity's matcher does with its transformers).
 */
export function createTermMatcher(
  terms: readonly BlacklistedTerm[],
  transformer: StatefulTransformerContainer,
): TermMatcher {
  const compiled = terms.map((term) => ({ id: term.id, regex: new RegExp(termSource(term), "gs") }));
  const any = new RegExp(compiled.map(({ regex }) => `(?:${regex.source})`).join("|"), "s");
  const transform = transformer.factory();
  const { compareMatchByPositionAndId } = obscenity();
  return {
    matches(input) {
      // The transformed text, and for each of its code units the index in the input of the character it came from.
      transform.reset();
      const from: number[] = [];
      let text = "";
      for (let i = 0; i < input.length; ) {
        const cp = input.codePointAt(i)!;
        const width = cp > 0xffff ? 2 : 1;
        const out = transform.transform(cp);
        if (out !== undefined) {
          const ch = String.fromCodePoint(out);
          text += ch;
          for (let k = 0; k < ch.length; k++) from.push(i);
        }
        i += width;
      }
      const found: MatchPayload[] = [];
      if (!any.test(text)) return found;
      for (const { id, regex } of compiled) {
        regex.lastIndex = 0;
        for (let m = regex.exec(text); m; m = regex.exec(text)) {
          if (m[0].length === 0) {
            regex.lastIndex++;
            continue;
          }
          const startIndex = from[m.index]!;
          let endIndex = from[m.index + m[0].length - 1]!;
          // obscenity's end index is inclusive: past a surrogate pair's second half.
          if (
            endIndex < input.length - 1 &&
            isHigh(input.charCodeAt(endIndex)) &&
            isLow(input.charCodeAt(endIndex + 1))
          ) {
            endIndex++;
          }
          found.push({ termId: id, startIndex, endIndex, matchLength: [...m[0]].length });
        }
      }
      return found.sort(compareMatchByPositionAndId);
    },
  };
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
