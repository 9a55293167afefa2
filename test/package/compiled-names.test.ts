/**
 * The compiled postbot (build/, what users deploy) names no function by a call of its own:
 * esbuild's `keepNames` wraps each function in `__name(fn, "name")`, which redefines the
 * function's `name` and gives every closure so made a property table of its own (~256 bytes
 * each; a running bot makes a handful, so 25,000 bots in a process carried ~37 MB more).
 * scripts/build.ts says why it is off; this keeps it off.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/built.ts";

/** Every .js file under `dir`. */
function scripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "types" ? [] : scripts(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

describe("the compiled code", () => {
  it("renames no function at run time (no keepNames helper)", () => {
    const files = scripts(join(ROOT, "build"));
    expect(files.length).toBeGreaterThan(10);
    const named = files.filter((file) => /\b__name\(/.test(readFileSync(file, "utf8")));
    expect(named).toEqual([]);
  });
});
