/**
 * A compiled index of bot files, shared by the processes of one deployment: each bot file's
 * data as its YAML and `${VAR}`s read it, under a key of the file's text and the values of the
 * variables it names. Parsing a bot file's YAML is most of what loading it costs (a document
 * with every position kept, for the problems' line and column); with 100,000 files, every
 * `bot start` process parsed every one of them, a minute of CPU each. With the index, what one
 * process parsed the others read: processes loading together each take the files in batches
 * in an order of their own (shuffled), write what they parse as they go, and find the others'
 * work when they reach it; a restart finds it all. (Starting each at its place among the
 * processes announced so far did not spread them: processes started together mostly saw
 * only themselves, started at the first file, and parsed the same files side by side.)
 *
 * Only what a file's text and environment decide is kept (its data before the schema checks
 * it: a newer postbot checks it afresh), and only for a file that read without a problem: a
 * file with a problem is parsed each time and reported as ever, with its line and column.
 */
import { createHash } from "node:crypto";
import type { BotEnv } from "./env.ts";

/** Where the loader finds and keeps compiled bot files ({@link compiledKey} → serialized data). */
export interface CompiledIndex {
  /** The entries of `keys`, in order (`null`: none). A failure reads as none. */
  get(keys: readonly string[]): Promise<Array<Buffer | null>>;
  /** Keeps entries; a failure loses nothing but the time saved. */
  set(entries: ReadonlyArray<readonly [key: string, value: Buffer]>): Promise<void>;
}

/** Changes when what an entry holds changes (the YAML library's reading, `${VAR}`'s rules). */
const FORMAT = "bot-data-1";

/** `${NAME` and `${NAME:-default}`: the variables a text reads. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)/g;

/** The key of a bot file's text as read with `env`: the text and the values of the variables it names. */
export function compiledKey(text: string, env: BotEnv): string {
  const hash = createHash("sha256").update(FORMAT).update("\0").update(text);
  if (text.includes("${"))
    for (const name of new Set(Array.from(text.matchAll(VARIABLE), (m) => m[1]!))) {
      const value = env.vars[name];
      hash.update(`\0${name}${value === undefined ? "" : `=${value}`}`);
    }
  return hash.digest("base64url");
}
