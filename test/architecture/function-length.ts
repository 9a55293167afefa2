/**
 * The length of functions, as data, and the check that none in `src/` is over the limit: a
 * long function is where the next change gets hard to read, so the check names it and its
 * length, and the fix is to split it by job into named parts. It reads every TypeScript file
 * of `src/`, however deep.
 *
 * A function is any function declaration, method, constructor, accessor, function expression
 * or arrow function; its length is the lines from its first token (after its TSDoc) to its
 * last, inclusive, counting the functions nested in it. It is named as a reader finds it:
 * `Class.method`, `outer.inner`, the variable or property an arrow is assigned to, or
 * `(anonymous)` and its line.
 *
 * The check parses with TypeScript's own parser and works on any text, so a test can show it
 * failing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";

/** The most lines a checked function may have. */
export const MAX_FUNCTION_LINES = 80;

/** One function: where it is, its name as a reader finds it, and its length in lines. */
export interface FunctionLength {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** What a node that may be a function is called, or undefined when it is no function. */
function ownName(node: ts.Node): string | undefined {
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  )
    return node.name ? node.name.getText() : "(anonymous)";
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    if (ts.isFunctionExpression(node) && node.name) return node.name.text;
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
      return parent.name.getText();
    return "(anonymous)";
  }
  return undefined;
}

/** Every function in one file's text, with its length. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: FunctionLength[] = [];
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node, outer: string[]) => {
    let names = outer;
    const own = ts.isClassDeclaration(node) || ts.isClassExpression(node) ? node.name?.text : undefined;
    if (own) names = [...outer, own];
    const name = ownName(node);
    if (name !== undefined) {
      const line = lineOf(node.getStart(source));
      const shown = name === "(anonymous)" ? `(anonymous) at line ${line}` : name;
      out.push({ file, line, name: [...names, shown].join("."), lines: lineOf(node.getEnd()) - line + 1 });
      names = [...names, shown];
    }
    ts.forEachChild(node, (child) => visit(child, names));
  };
  visit(source, []);
  return out;
}

/** The functions over `max` lines among `functions`, the longest first. */
export function overLimit(functions: readonly FunctionLength[], max = MAX_FUNCTION_LINES): FunctionLength[] {
  return functions.filter((f) => f.lines > max).sort((a, b) => b.lines - a.lines);
}

/** Every function of the `.ts` files under `dir` (`src/` by default), folders included, in name order. */
export function readFunctions(dir = "src"): FunctionLength[] {
  const out: FunctionLength[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(posix.join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (statSync(posix.join(dir, path)).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) out.push(...functionLengths(path, readFileSync(posix.join(dir, path), "utf8")));
    }
  };
  walk("");
  return out;
}

/** A function over the limit as one line: `src/FILE:LINE NAME is N lines (over MAX): split it into named parts`. */
export const formatLength = (f: FunctionLength, max = MAX_FUNCTION_LINES) =>
  `src/${f.file}:${f.line} ${f.name} is ${f.lines} lines (over ${max}): split it into named parts`;
