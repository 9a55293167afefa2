/**
 * Reading a bot file's YAML safely and with positions. The `yaml` package parses; this
 * module refuses what a bot file has no use for and an attacker or a typo could abuse:
 *
 * - custom tags (`!!js/function`, `!foo`, `!!binary`): a bot file is plain data, and a tag
 *   silently turned into a string would hide the mistake;
 * - alias bombs ("billion laughs"): expansion is bounded by yaml's `maxAliasCount`, and
 *   the file is refused with a message instead of exhausting memory;
 * - duplicate keys (the second would silently win), keys that are not plain text, aliases
 *   to anchors that do not exist, and more than one document in a file.
 *
 * It keeps the parsed document so that any problem found later (by the schema, by a
 * plugin's options schema) can be pointed at with `file:line:col`.
 */
import {
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  visit,
  type Document,
  type Node,
} from "yaml";

/** Tags a bot file may spell out: YAML 1.2's core types, which plain YAML resolves anyway. */
const ALLOWED_TAGS = new Set(
  ["str", "int", "float", "bool", "null", "map", "seq"].map((t) => `tag:yaml.org,2002:${t}`),
);

/**
 * How many alias expansions yaml performs before refusing the file. A hand-written bot
 * file needs a handful; a "billion laughs" file needs billions.
 */
export const MAX_ALIAS_COUNT = 100;

/** A 1-based line and column. */
export interface Position {
  line: number;
  col: number;
}

/** A problem found at a byte offset of the source. */
export interface SourceProblem {
  offset: number;
  message: string;
}

/** A parsed, checked YAML source: its plain data and the way back to positions. */
export interface YamlSource {
  readonly doc: Document.Parsed;
  /** Line and column of a source offset. */
  position(offset: number): Position;
  /**
   * The offset that a problem about `path` should point at: the key (for an unknown key, or
   * a value that is a whole mapping or list), the value, or, when the path does not exist
   * (a missing key), the deepest key that does.
   */
  locate(path: readonly PropertyKey[], at: "key" | "value"): number;
}

/**
 * Parses `text` and checks it for everything but the bot schema. Returns the source when
 * there are no problems; the data is read with {@link toData} after any edits (`${VAR}`).
 */
export function parseYamlSource(text: string): {
  source?: YamlSource;
  problems: SourceProblem[];
  position(offset: number): Position;
} {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false, strict: true });
  const position = (offset: number): Position => lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
  if (!Array.isArray(docs) || docs.length === 0) {
    return {
      problems: [{ offset: 0, message: "the file is empty; a bot file is a mapping with at least name and plan" }],
      position,
    };
  }
  const problems: SourceProblem[] = [];
  const doc = docs[0]!;
  // Only the first syntax error: the ones after it are nearly always its consequences.
  const firstError = doc.errors[0];
  if (firstError)
    return {
      problems: [
        {
          offset: firstError.pos[0],
          message: `invalid YAML: ${firstError.message}${flowHint(text, firstError.pos[0])}`,
        },
      ],
      position,
    };
  for (const warning of doc.warnings) {
    if (warning.code !== "TAG_RESOLVE_FAILED")
      problems.push({ offset: warning.pos[0], message: `invalid YAML: ${warning.message}` });
  }
  if (docs.length > 1) {
    problems.push({
      offset: docs[1]!.range[0],
      message: "a second YAML document starts here; a bot file holds one bot, so put each bot in its own file",
    });
  }
  problems.push(...structureProblems(doc, text, position));
  problems.sort((a, b) => a.offset - b.offset);
  if (problems.length > 0) return { problems, position };
  return { source: { doc, position, locate: (path, at) => locate(doc, path, at) }, problems, position };
}

/**
 * The plain data of a checked source. Alias expansion is bounded here: a file whose
 * aliases expand too far is refused with a problem at its first alias.
 */
export function toData(source: YamlSource): { data?: unknown; problems: SourceProblem[] } {
  try {
    return { data: source.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), problems: [] };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    let first: number | undefined;
    visit(source.doc, {
      Alias(_, node) {
        first = node.range?.[0];
        return visit.BREAK;
      },
    });
    return {
      problems: [
        {
          offset: first ?? 0,
          message: `aliases expand into too much data (more than ${MAX_ALIAS_COUNT} expansions; a "billion laughs" file?); a bot file needs few aliases, so write the values out`,
        },
      ],
    };
  }
}

/** Tags, keys, duplicates and aliases, checked on the document tree. */
function structureProblems(
  doc: Document.Parsed,
  text: string,
  position: (offset: number) => Position,
): SourceProblem[] {
  const problems: SourceProblem[] = [];
  visit(doc, {
    Node(_, node) {
      if (node.tag !== undefined && !ALLOWED_TAGS.has(node.tag)) {
        const offset = tagOffset(text, node);
        const written = text.slice(offset).match(/^\S+/)?.[0] ?? node.tag;
        problems.push({
          offset,
          message: `the tag ${written} is not allowed: bot files are plain data (text, numbers, true/false, lists, mappings); remove the tag`,
        });
      }
      if (isAlias(node) && node.resolve(doc) === undefined) {
        problems.push({
          offset: node.range?.[0] ?? 0,
          message: `the alias *${node.source} refers to no anchor; define &${node.source} before it, or write the value out`,
        });
      }
      if (isMap(node)) {
        const seen = new Map<string, Node>();
        for (const pair of node.items) {
          const key = pair.key as Node | null;
          if (!isScalar(key)) {
            problems.push({
              offset: key?.range?.[0] ?? node.range?.[0] ?? 0,
              message: "a key must be plain text, not a list or a mapping",
            });
            continue;
          }
          const name = String(key.value);
          const earlier = seen.get(name);
          if (earlier) {
            const { line } = position(earlier.range?.[0] ?? 0);
            problems.push({
              offset: key.range?.[0] ?? 0,
              message: `duplicate key "${name}": it is already set on line ${line}; keep only one`,
            });
          } else seen.set(name, key);
        }
      }
      return undefined;
    },
  });
  return problems;
}

/**
 * `{ max: ${MAX} }` is a YAML syntax error (`{` opens a mapping inside a flow mapping);
 * when an error's line has a `${` before it, say how to write it instead.
 */
function flowHint(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const before = text.slice(lineStart, offset + 1);
  return before.includes("${") && /[[{]/.test(before)
    ? ' (inside { } or [ ], a ${VAR} must be quoted, "${VAR}", or the value written in block style, one key: value per line)'
    : "";
}

/** Where the tag of `node` is written (the node's range starts after its properties). */
function tagOffset(text: string, node: Node): number {
  const start = node.range?.[0] ?? 0;
  let bang = text.lastIndexOf("!", start - 1);
  if (bang < 0) return start;
  while (bang > 0 && !/\s/.test(text[bang - 1]!)) bang--;
  return bang;
}

function locate(doc: Document.Parsed, path: readonly PropertyKey[], at: "key" | "value"): number {
  let node: unknown = doc.contents;
  let keyNode: Node | undefined;
  const deref = (n: unknown): unknown => (isAlias(n) ? n.resolve(doc) : n);
  const fallback = () => keyNode?.range?.[0] ?? (node as Node | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    const current = deref(node);
    if (isMap(current)) {
      const pair = current.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) return fallback();
      keyNode = pair.key as Node;
      node = pair.value;
    } else if (isSeq(current) && typeof segment === "number" && segment < current.items.length) {
      keyNode = undefined;
      node = current.items[segment];
    } else {
      return fallback();
    }
  }
  const value = node as Node | null;
  const range = value?.range;
  const empty = !range || range[0] === range[1];
  if (keyNode && (at === "key" || empty || isCollection(deref(value)))) return keyNode.range?.[0] ?? 0;
  return range?.[0] ?? fallback();
}
