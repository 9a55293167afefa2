/**
 * Files that ship with postbot beside its code (package.json, the moderation model's weights
 * and word clusters, the status page's assets, the built-in plugins, the templates of
 * `bot init`), found from the package's root: the one place that knows where they are. A
 * module's own URL says where its source file is only as long as each module is its own
 * file; compiled (build/, scripts/build.ts), modules share files in another directory, and
 * `./x.json` next to `import.meta.url` no longer exists, while the package's root still does.
 */
import { existsSync, readFileSync } from "node:fs";

let root: URL | undefined;

/** The package's root: the nearest directory above this module with postbot's package.json. */
function packageRoot(): URL {
  if (root) return root;
  for (let dir = new URL("./", import.meta.url); ; dir = new URL("../", dir)) {
    const manifest = new URL("package.json", dir);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "postbot") {
      root = dir;
      return dir;
    }
    if (dir.pathname === "/") throw new Error(`postbot's package.json is not above ${import.meta.url}`);
  }
}

/** A file of the package by its path from the root (`src/moderation/model-weights.json`). */
export function packageFile(path: string): URL {
  return new URL(path, packageRoot());
}

/**
 * Whether this postbot runs from its TypeScript source (a checkout's `bot` under tsx, or
 * vitest) rather than compiled (the package's build/): then its built-in plugins are their
 * source files too, and whatever loads postbot's TypeScript loads a plugin's.
 */
export function runsFromSource(): boolean {
  return import.meta.url.endsWith(".ts");
}
