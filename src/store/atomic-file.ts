/**
 * Atomic, private, durable replacement of a file's contents.
 *
 * lowdb's own writer (steno) also writes a temporary file and renames it over the target,
 * but it creates the temporary file with the process umask (0644 as a rule), so after the
 * rename the state file, which holds OAuth tokens, is readable by every local user; and it
 * never calls fsync, so a power cut can leave an empty file behind the rename. This does the
 * same dance with the mode set at creation and with the data and the directory synced.
 * A caller replacing many files of one directory at once syncs the directory once itself
 * ({@link syncDirectory}).
 *
 * Few calls per file, since a checkpoint of 10,000 bots' files makes every call count (each
 * is a hand-over to Node's file-system threads and back, ~0.1 ms of the main thread): the
 * temporary file is created exclusively with its mode (a stale one left by a crash, whose
 * mode may be another, is removed first) and opened with `O_DSYNC`, so its write is durable
 * when it returns; then close and rename. Four calls for a private file (0600), where a chmod
 * and an fsync made six.
 */
import { constants } from "node:fs";
import { open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** The temporary file next to `path` that a write goes through (steno's name for it). */
const tempPathOf = (path: string): string => join(dirname(path), `.${basename(path)}.tmp`);

/**
 * Replaces `path` with `text`: readers see either the old or the new contents in full,
 * never a mix; the file has exactly `mode` from the moment it exists.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  mode = 0o600,
  options: { syncDir?: boolean } = {},
): Promise<void> {
  const temp = tempPathOf(path);
  const handle = await createExclusive(temp, mode);
  try {
    // The umask takes bits for others away at creation; only a mode that has some needs them set.
    if (mode & 0o077) await handle.chmod(mode);
    await handle.writeFile(text, "utf8");
    if (SYNC_WRITE === undefined) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  if (options.syncDir ?? true) await syncDirectory(dirname(path));
}

/** Synchronous data writes where the platform has them (not Windows: there, an fsync after the write). */
const SYNC_WRITE = constants.O_DSYNC;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (SYNC_WRITE ?? 0);

/** Creates `temp` with exactly `mode`; a file left there by a crash is removed first. */
async function createExclusive(temp: string, mode: number): Promise<FileHandle> {
  try {
    return await open(temp, CREATE, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    await unlink(temp);
    return await open(temp, CREATE, mode);
  }
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
