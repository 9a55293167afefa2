/**
 * Biome, as `npm test`'s format check runs it: what a file's text becomes when formatted as
 * `biome.json` says, at a path of the tree (the path picks the language and the includes).
 * Code a reader is told to write (what `bot new plugin` writes, the README's plugin) must
 * come out unchanged, or following the documents breaks `npm test`.
 */
import { spawnSync } from "node:child_process";

const BIOME = new URL("../../node_modules/.bin/biome", import.meta.url).pathname;

/** `text` as Biome formats it at `path`. */
export function biomeFormat(path: string, text: string): string {
  const run = spawnSync(BIOME, ["format", `--stdin-file-path=${path}`], { input: text, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`biome format ${path} failed: ${run.stderr}`);
  return run.stdout;
}
