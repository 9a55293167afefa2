/**
 * No function in src/ is over 80 lines: test/architecture/function-length.ts measures them
 * with TypeScript's parser.
 */
import { readdirSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatLength, functionLengths, MAX_FUNCTION_LINES, overLimit, readFunctions } from "./function-length.ts";

describe("functions of src/", () => {
  it(`none is over ${MAX_FUNCTION_LINES} lines`, () => {
    const functions = readFunctions();
    // Every folder of src/ was read, nested ones too, and the files directly in it.
    const folders = readdirSync("src").filter((name) => statSync(`src/${name}`).isDirectory());
    for (const folder of [...folders, "triggers/stream", "actions/steps"])
      expect(
        functions.some((f) => f.file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
    expect(functions.some((f) => f.file === "clock.ts")).toBe(true);
    const long = overLimit(functions).map((f) => formatLength(f));
    expect(long, long.join("\n")).toEqual([]);
  });
});

/** A function of `n` lines in all (its first and last line included), as `kind` writes it. */
function sourceOf(kind: "declaration" | "method" | "arrow", name: string, n: number): string {
  const body = Array.from({ length: n - 2 }, (_, i) => `  x += ${i};`).join("\n");
  if (kind === "declaration") return `export function ${name}(x: number) {\n${body}\n}\n`;
  if (kind === "method") return `class Engine {\n${name}(x: number) {\n${body}\n}\n}\n`;
  return `const ${name} = (x: number) => {\n${body}\n};\n`;
}

describe("the check itself", () => {
  it("names a function over the limit, its file, line and length, however it is written", () => {
    const text = `// a comment\n${sourceOf("declaration", "long", 81)}${sourceOf("declaration", "short", 80)}`;
    expect(overLimit(functionLengths("runtime/a.ts", text)).map((f) => formatLength(f))).toEqual([
      "src/runtime/a.ts:2 long is 81 lines (over 80): split it into named parts",
    ]);
    const method = overLimit(functionLengths("plugins/b.ts", sourceOf("method", "turn", 90)));
    expect(method.map((f) => `${f.name} ${f.lines}`)).toEqual(["Engine.turn 90"]);
    const arrow = overLimit(functionLengths("hosting/c.ts", sourceOf("arrow", "startAll", 100)));
    expect(arrow.map((f) => `${f.name} ${f.lines}`)).toEqual(["startAll 100"]);
  });

  it("counts a function's TSDoc out and its nested functions in, and names those by where they are", () => {
    const doc = `/**\n${Array.from({ length: 30 }, () => " * why").join("\n")}\n */\n`;
    const inner = sourceOf("arrow", "inner", 60).replace(/^const/, "  const");
    const text = `${doc}export function outer() {\n${inner}${Array.from({ length: 25 }, () => "  void 0;").join("\n")}\n}\n`;
    const found = functionLengths("runtime/d.ts", text);
    expect(found.map((f) => `${f.name}:${f.line} ${f.lines}`)).toEqual(["outer:33 87", "outer.inner:34 60"]);
    expect(overLimit(found).map((f) => f.name)).toEqual(["outer"]);
  });

  it("names an anonymous function by its line", () => {
    const text = `register(() => {\n${Array.from({ length: 85 }, () => "  void 0;").join("\n")}\n});\n`;
    expect(overLimit(functionLengths("hosting/e.ts", text)).map((f) => formatLength(f))).toEqual([
      "src/hosting/e.ts:1 (anonymous) at line 1 is 87 lines (over 80): split it into named parts",
    ]);
  });
});
