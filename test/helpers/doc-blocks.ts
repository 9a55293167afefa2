/**
 * The fenced blocks of the documentation (README.md and docs/*.md), with what the tests need
 * to run them as a reader would: each block's language, text, line, the section it is in,
 * and the marker on the line before it, if any:
 *
 * - `<!-- file: PATH -->`: the block is the content of PATH (the reader writes it there);
 * - `<!-- syntax only: WHY -->`: the block's commands are not run (they need a real service,
 *   Redis, Docker, a browser, or they are the suite itself); they are only checked.
 *
 * docs/development.md ("How the documents are tested") says the same to writers.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The documents, README first, then docs/ by name. */
export function docFiles(root = "."): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => join("docs", f));
  return ["README.md", ...docs];
}

export interface DocBlock {
  /** The document, as given to {@link docBlocks} (`README.md`, `docs/sandbox.md`). */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  lang: string;
  text: string;
  /** The heading the block is under (`## The demo`), or "" before the first. */
  section: string;
  marker?: { kind: "file"; path: string } | { kind: "syntax only"; why: string };
}

const MARKER = /^<!--\s*(file|syntax only):\s*(.+?)\s*-->$/;

/** Every fenced block of `file`, in order. */
export function docBlocks(file: string, root = "."): DocBlock[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: DocBlock[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) section = line;
    const fence = /^(\s*)```(\w*)\s*$/.exec(line);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === "```");
    if (end < 0) throw new Error(`${file}:${i + 1}: a fenced block that never closes`);
    const indent = fence[1]!.length;
    const text = lines
      .slice(i + 1, end)
      .map((l) => l.slice(indent))
      .join("\n");
    const before = lines
      .slice(0, i)
      .reverse()
      .find((l) => l.trim() !== "");
    const m = before ? MARKER.exec(before.trim()) : null;
    const marker = m
      ? m[1] === "file"
        ? { kind: "file" as const, path: m[2]! }
        : { kind: "syntax only" as const, why: m[2]! }
      : undefined;
    blocks.push({
      file,
      line: i + 1,
      lang: fence[2]!,
      text: `${text}\n`,
      section,
      ...(marker ? { marker } : {}),
    });
    i = end;
  }
  return blocks;
}

/** A shell block's commands: one per line, without the `# ...` comment that follows it. */
export function commandsOf(block: DocBlock): Array<{ line: number; command: string }> {
  return block.text
    .split("\n")
    .map((text, i) => ({ line: block.line + 1 + i, command: stripComment(text).trim() }))
    .filter((c) => c.command !== "");
}

/** A command line without its trailing comment (a `#` outside quotes, after a space or at the start). */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}
