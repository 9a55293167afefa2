/**
 * Atomic, private, durable replacement of a file's contents.
 *
 * lowdb's own writer (steno) also writes a temporary file and renames it over the target,
 * but it creates the temporary file with the process umask (0644 as a rule), so after the
 * rename the state file, which holds OAuth tokens, is readable by every local user; and it
 * never calls fsync, so a power cut can leave an empty file behind the rename. This does the
 * same dance with the mode set at creation (and again with fchmod, in case a stale temporary
 * file of another mode was left by a crash) and with fsync of the data and the directory.
 * A caller replacing many files of one directory at once syncs the directory once itself
 * ({@link syncDirectory}).
 */
import { open, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The temporary file next to `path` that a write goes through (steno's name for it). */
const tempPathOf = (path: string): string => join(dirname(path), `.${basename(path)}.tmp`);

/**
 * Replaces `path` with `text`: readers see either the old or the new contents in full,
 * never a mix; the file has exactly `mode` from the moment it exists.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o600, options: { syncDir?: boolean } = {}): Promise<void> {
  const temp = tempPathOf(path);
  const handle = await open(temp, "w", mode);
  try {
    await handle.chmod(mode);
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  if (options.syncDir ?? true) await syncDirectory(dirname(path));
}

/** Makes renames (and unlinks) in `dir` durable; some file systems refuse to open a directory, which is harmless. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Best effort: the data is written; only its durability across a power cut is weaker.
  } finally {
    await handle?.close();
  }
}
