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
import { basename, dirname, join, resolve } from "node:path";

/** The temporary file next to `path` that a write goes through (steno's name for it). */
const tempPathOf = (path: string): string => join(dirname(path), `.${basename(path)}.tmp`);

/**
 * Replaces `path` with `text`: readers see either the old or the new contents in full,
 * never a mix; the file has exactly `mode` from the moment it exists.
 *
 * Writes of one path in this process go one at a time, since they share the temporary file:
 * a call made while another is under way waits for it, and calls made meanwhile are folded
 * into one write of the newest contents (the last call wins). Each call resolves once its
 * contents, or a later call's, are in the file; a directory sync asked by any of them is done.
 */
export function writeFileAtomic(
  path: string,
  text: string,
  mode = 0o600,
  options: { syncDir?: boolean } = {},
): Promise<void> {
  const key = resolve(path);
  const syncDir = options.syncDir ?? true;
  if (!underway.has(key)) {
    underway.set(key, undefined);
    return replace(path, text, mode, syncDir).finally(() => startNext(key, path));
  }
  let next = underway.get(key);
  if (next === undefined) {
    let settle!: Pick<Next, "resolve" | "reject">;
    const done = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    next = { text, mode, syncDir, done, ...settle };
    underway.set(key, next);
  } else {
    next.text = text;
    next.mode = mode;
    next.syncDir ||= syncDir;
  }
  return next.done;
}

/** The write that waits for the one under way on a path: the newest contents asked for meanwhile. */
interface Next {
  text: string;
  mode: number;
  syncDir: boolean;
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The paths (resolved) with a write under way, each with the write waiting behind it, if any. */
const underway = new Map<string, Next | undefined>();

/** Once a write of `key` has ended, whether or not it failed: the one waiting behind it, if any, starts. */
function startNext(key: string, path: string): void {
  const next = underway.get(key);
  if (next === undefined) {
    underway.delete(key);
    return;
  }
  underway.set(key, undefined);
  replace(path, next.text, next.mode, next.syncDir)
    .then(next.resolve, next.reject)
    .finally(() => startNext(key, path));
}

/** The write itself: a temporary file created with its mode and written durably, then renamed over `path`. */
async function replace(path: string, text: string, mode: number, syncDir: boolean): Promise<void> {
  const temp = tempPathOf(path);
  const handle = await createExclusive(temp, mode);
  try {
    try {
      // The umask takes bits for others away at creation; only a mode that has some needs them set.
      if (mode & 0o077) await handle.chmod(mode);
      await handle.writeFile(text, "utf8");
      if (SYNC_WRITE === undefined) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined); // a failed write leaves nothing behind
    throw error;
  }
  if (syncDir) await syncDirectory(dirname(path));
}

/** Synchronous data writes where the platform has them (not Windows: there, an fsync after the write). */
const SYNC_WRITE = constants.O_DSYNC;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (SYNC_WRITE ?? 0);

/**
 * Creates `temp` with exactly `mode`; a file left there by a crash is removed first (never
 * one of this process's: its writes of one path do not overlap).
 */
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
