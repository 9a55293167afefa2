/**
 * How a file's path is shown to the person who typed it: in bot file problems (src/config) and
 * in a plugin's load error (src/plugins) alike, so both point at the same place the same way.
 */
import { relative } from "node:path";

/**
 * A path as problems and logs show it: relative to `cwd` when inside it (what the user
 * typed, and what a terminal or editor opens from there), absolute otherwise.
 */
export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel === "" || rel.startsWith("..") ? file : ownCopy(rel);
}

/**
 * `text` as a string of its own: `relative` cuts its result from the absolute path, and V8
 * keeps such a slice's whole parent alive with it. Every bot of a fleet keeps its file's path
 * shown (its outline, the live fleet's table of files): 100,000 of them kept as many absolute
 * paths besides (~80 bytes each).
 */
function ownCopy(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
