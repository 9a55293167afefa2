/**
 * The default {@link Store}: the state directory `<dir>/state/` (`.postbot/state/` by
 * default): one lowdb JSON file per bot, per account and per app, plus `credentials.json`,
 * `status.json` and `shared.json` (the table is in shards.ts), and a write-ahead journal.
 *
 * - A flush costs what changed: it appends one line holding every value changed since the
 *   last flush to the journal and syncs it (journal.ts), whatever the number of bots; that
 *   line is the commit, so a flush is atomic across files. `flush()` resolves only once
 *   everything set before it is on disk, which is what the ledger awaits before it sends a
 *   request. A burst of `set`s costs one append.
 * - Secrets only in `credentials.json`: its values (the accounts' tokens, the apps' bearer
 *   tokens) are never journaled; a flush that changed one writes the file whole, atomically,
 *   before its journal line. It changes seldom (a sign-in, a bearer token fetched at start or
 *   after a 401), so that costs a few writes a day, and the promise of the README holds: no
 *   other file, the journal included, ever holds a secret. (A 0600 journal would keep them
 *   private too, but then every journal, and every copy of it, holds the tokens.)
 * - The files follow in the background: once the journal passes a size (and on close), the
 *   files whose values changed are rewritten, each atomically (temporary file, fsync, rename),
 *   and then the journals they cover are removed. A crash (kill -9 at any moment) leaves
 *   files and journals that together are the state; the next open replays the journals.
 * - Private: the directories are created 0700 and every file is always 0600 (tokens).
 * - Never silently reset: an unreadable or corrupt file stops the start with a message naming
 *   the file and what to do; it is set aside only when the caller asks for that. The same
 *   goes for a journal cut or damaged after it was written (journal-check.ts), while the
 *   torn last append a crash leaves is dropped with a log line.
 * - Migrated: the single `state.json` of earlier postbots becomes the directory on the first
 *   start and is kept as `state.json.migrated-<time>`.
 * - One writer: `state.lock` refuses a second process on the same directory (state-lock.ts);
 *   readers (`bot status`) read the files and the journals without it.
 * - A full disk loses nothing and doubles nothing ({@link FileStoreOptions.retry}, for `bot
 *   start`): an append is acknowledged only once its whole line is on disk (journal.ts); while
 *   the disk refuses writes, flushes wait (so the ledger sends nothing it could not record,
 *   and what was fetched meanwhile waits in memory) and the store tries again, every second at
 *   first, then every 10 s (state-writer.ts); once space returns, what waited is written and goes
 *   on. A stop meanwhile ({@link FileStore.stopping}) tries once more, then gives up on what it
 *   could not write, says so, and still releases the lock ({@link StateNotSavedError}).
 */
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import { UserError } from "../errors.ts";
import { silentLogger, type Logger } from "../log.ts";
import { syncDirectory } from "./atomic-file.ts";
import { describeFsError, fsAdvice } from "./fs-error.ts";
import { ShardedState } from "./sharded-state.ts";
import { CREDENTIALS_SHARD, defaultShardRule, type ShardPath } from "./shards.ts";
import {
  listStateFiles,
  readStateFiles,
  SINGLE_STATE_FILE_NAME,
  STATE_DIR_NAME,
  writeStateFiles,
} from "./state-dir.ts";
import {
  CorruptStateError,
  readStateFile,
  STATE_FILE_VERSION,
  StateFileAdapter,
  type StateFileData,
} from "./state-file.ts";
import { acquireLock, LOCK_FILE_NAME } from "./state-lock.ts";
import { Journal, openJournalFile, type OpenJournal } from "./journal.ts";
import { readJournals, type JournalsRead } from "./journal-check.ts";
import { SYNCED_MARK_NAME, SyncedMarkWriter, type SyncedMark } from "./synced-mark.ts";
import type { Retention, Store } from "./store.ts";
import { StateWriter, type StateWriterOptions } from "./state-writer.ts";
import type { StateNotSavedError } from "./write-error.ts";

/** How {@link openFileStore} treats problems and whether it may write. */
export interface FileStoreOptions {
  logger?: Logger;
  /**
   * What to do with a state file that cannot be parsed: `"refuse"` (the default) stops with
   * a {@link UserError}; `"set-aside"` renames it to `<file>.corrupt-<time>`, logs that, and
   * starts without what it held. Only a user's explicit choice should pick the second.
   */
  onCorrupt?: "refuse" | "set-aside";
  /** Added to the corrupt-file message: how this program lets the user set the file aside. */
  corruptHint?: string;
  /**
   * Reads the state but never writes it (nor sets its files' modes), and takes no lock unless
   * {@link lock} says so: for `bot status`, which looks at a running bot's state, and
   * `bot start --dry-run`. Changes stay in memory, over what was read.
   */
  readOnly?: boolean;
  /**
   * Takes the directory's lock even when {@link readOnly}: `bot start --dry-run` reads the
   * state and keeps its own changes in memory, yet must not run beside a `bot start` on the
   * same directory (the two would answer the same mentions, and with the embedded sandbox
   * share its file). Default: locked unless read-only.
   */
  lock?: boolean;
  /** Time source for the names of set-aside files and the lock (default: the system time). */
  now?: () => number;
  /** Journal bytes after which the files are brought up to date (default 8 MiB; tests pass less). */
  checkpointBytes?: number;
  /**
   * Keep trying a write that fails (`bot start`): flushes then wait while the disk refuses
   * writes (full, mostly), and the store tries again on this clock until one goes through, or
   * until {@link FileStore.stopping}. Without it (one-off commands), a flush that cannot write
   * rejects at once, and the store tries again at the next change.
   */
  retry?: { clock: Clock };
  /** How the journal is opened: Node's file system, or a test's disk that fills up. */
  openJournal?: OpenJournal;
}

/** A {@link Store} backed by a directory of files. */
export interface FileStore extends Store {
  /** The state directory (`<dir>/state`). */
  readonly path: string;
  /** Journal appends so far (one per flush that had changes): coalescing at work. */
  readonly writes: number;
  /** Writes so far of the journal (one per append) and of the files (one per file brought up to date). */
  readonly filesWritten: number;
  /** Bytes written so far, to the journal and to the files. */
  readonly bytesWritten: number;
  /**
   * The process stops: a write that fails is tried once more, then no longer; the flushes
   * that wait for it, and any made later that cannot write, reject with a
   * {@link StateNotSavedError}, so the stop goes on (see {@link FileStoreOptions.retry}).
   */
  stopping(): void;
  /**
   * Flushes and releases the store (the lock always).
   *
   * @throws {StateNotSavedError} when what changed since the last write could not be written:
   *   the message says how much, why, and why nothing sent is lost.
   */
  close(): Promise<void>;
}

/** Whether `dir` holds any postbot state (the directory, or the single file of earlier postbots). */
export async function hasState(dir: string): Promise<boolean> {
  return (await exists(join(dir, STATE_DIR_NAME))) || (await exists(join(dir, SINGLE_STATE_FILE_NAME)));
}

/** Where the tokens of `bot auth` are kept, to tell the user. */
export const credentialsPath = (dir: string): string => join(dir, STATE_DIR_NAME, CREDENTIALS_SHARD);

/**
 * Opens (creating when missing, migrating the single file of earlier postbots) the state
 * store in `dir`.
 *
 * @throws {UserError} when the directory cannot be created, a file cannot be read or is
 *   corrupt, or another live process holds the directory.
 * @example
 * ```ts
 * const store = await openFileStore(".postbot", { logger });
 * store.set("cursors", "greeter:mentions", { since_id: "1460323737035677698" });
 * await store.flush(); // .postbot/state/bots/greeter.json, mode 0600
 * ```
 */
export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
  const log = options.logger ?? silentLogger;
  const readOnly = options.readOnly ?? false;
  const now = options.now ?? Date.now;
  const stateDir = join(dir, STATE_DIR_NAME);
  const locking = options.lock ?? !readOnly;

  if (!readOnly || locking) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UserError(
        `cannot create the state directory ${dir}: ${describeFsError(error)}; choose another data directory (--data DIR)`,
        {
          cause: error,
        },
      );
    }
  }
  const lock = locking ? await acquireLock(join(dir, LOCK_FILE_NAME), log, now) : undefined;
  try {
    const state = new ShardedState(defaultShardRule, UNJOURNALED);
    const opening: Opening = { dir, stateDir, log, readOnly, now, options, state };
    const single = join(dir, SINGLE_STATE_FILE_NAME);
    let journals: JournalsRead | undefined;
    if (await exists(stateDir)) {
      await loadDirectory(opening);
      opening.state.finishLoading();
      journals = await replayJournals(opening);
      if (!readOnly && (await exists(single))) {
        // A migration that stopped between its last two steps, or an older postbot run since.
        const aside = await setAside(single, "migrated", now);
        log.warn(
          { file: single, moved_to: aside, state: stateDir },
          `found both ${stateDir} and the older single file ${single}; kept ${stateDir} and moved the single file to ${aside} (to use it instead, stop postbot, move ${stateDir} away and rename ${aside} to ${single})`,
        );
      }
    } else if (await exists(single)) {
      await migrate(opening, single);
    } else if (!readOnly) {
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
    }
    opening.state.finishLoading();
    // A new journal each run: never append after what a crash may have left half-written.
    const journal = readOnly
      ? undefined
      : new Journal(
          stateDir,
          (journals?.generation ?? 0) + 1,
          journals?.seq ?? 0,
          await createMark(stateDir, journals?.mark ?? { generation: 0, bytes: 0, seq: 0, folded: 0 }),
          options.openJournal ?? openJournalFile,
        );
    const { store, folding } = createFileStore(stateDir, opening.state, {
      log,
      readOnly,
      lock,
      journal,
      checkpointBytes: options.checkpointBytes ?? CHECKPOINT_BYTES,
      foldNow: (journals?.generations.length ?? 0) > 0 || opening.state.hasChanges,
      ...(options.retry ? { retry: options.retry } : {}),
    });
    // Journals of an earlier postbot (no checksums, perhaps holding tokens) are folded into
    // the files before the start goes on: read once, and then gone.
    if (journals?.legacy) await folding;
    return store;
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

interface Opening {
  dir: string;
  stateDir: string;
  log: Logger;
  readOnly: boolean;
  now: () => number;
  options: FileStoreOptions;
  state: ShardedState;
}

/** Replays the journals left by the last run, oldest first, once they check (journal-check.ts). */
async function replayJournals(o: Opening): Promise<JournalsRead> {
  const read = await readJournals(o.stateDir, {
    readOnly: o.readOnly,
    log: o.log,
    damaged: (file, error) => corrupt(o, file, error),
  });
  for (const records of read.lines) o.state.replay(records);
  return read;
}

/** The synced mark of this run, first saying what the journals on disk hold (synced-mark.ts). */
async function createMark(stateDir: string, mark: SyncedMark): Promise<SyncedMarkWriter> {
  try {
    return await SyncedMarkWriter.create(stateDir, mark);
  } catch (error) {
    throw new UserError(
      `cannot write ${join(stateDir, SYNCED_MARK_NAME)}: ${describeFsError(error)}; ${fsAdvice(error, "check the state directory's permissions")}`,
      { cause: error },
    );
  }
}

/** Reads every file of the state directory into `state`. */
async function loadDirectory(o: Opening): Promise<void> {
  const paths = await listStateFiles(o.stateDir);
  const results = await readStateFiles(o.stateDir, paths, { tighten: !o.readOnly });
  results.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const result of results) {
    const file = join(o.stateDir, result.path);
    if ("error" in result) {
      await corrupt(o, file, result.error);
    } else if (result.data) {
      checkVersion(file, result.data);
      if (result.loosened !== undefined) {
        o.log.warn(
          { file, mode: result.loosened.toString(8) },
          "state file was readable by others; set its mode to 0600",
        );
      }
      o.state.load(result.path, result.data);
    }
  }
}

/**
 * The single `state.json` of earlier postbots becomes the state directory: every file is
 * written into `state.migrating/`, which is renamed to `state/` in one step, and only then is
 * the single file moved aside (kept, never deleted). A crash before the rename leaves the
 * single file to be migrated again; after it, the directory is whole.
 */
async function migrate(o: Opening, single: string): Promise<void> {
  const adapter = new StateFileAdapter(single, { tighten: !o.readOnly });
  let data: StateFileData | null;
  try {
    data = await readStateFile(adapter);
  } catch (error) {
    await corrupt(o, single, error as Error);
    if (!o.readOnly) await mkdir(o.stateDir, { recursive: true, mode: 0o700 });
    return;
  }
  if (!data) return;
  checkVersion(single, data);
  if (adapter.loosened !== undefined)
    o.log.warn(
      { file: single, mode: adapter.loosened.toString(8) },
      "state file was readable by others; set its mode to 0600",
    );
  o.state.load(SINGLE_STATE_FILE_NAME, data);
  if (o.readOnly) return;

  const temp = join(o.dir, `${STATE_DIR_NAME}.migrating`);
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { mode: 0o700 });
  o.state.finishLoading();
  o.state.markAllDirty();
  const all = [...o.state.takeUnjournaled(), ...o.state.takeDirty()];
  const cost = await writeStateFiles(temp, all, (path) => o.state.contents(path), new Set([temp]));
  await syncDirectory(temp);
  await rename(temp, o.stateDir);
  await syncDirectory(o.dir);
  const aside = await setAside(single, "migrated", o.now);
  o.log.info(
    { file: single, state: o.stateDir, files: cost.files, bytes: cost.bytes, kept_as: aside },
    `migrated ${single} to ${o.stateDir} (${cost.files} files); the old file is kept as ${aside}`,
  );
}

/** A file of a newer layout is refused rather than misread. */
function checkVersion(file: string, data: StateFileData): void {
  if (data.version > STATE_FILE_VERSION) {
    throw new UserError(
      `${file} was written by a newer postbot (state version ${data.version}, this one reads ${STATE_FILE_VERSION}); upgrade postbot or use another data directory`,
    );
  }
}

/**
 * A file that is not state: refused (the default) with a message naming it, or set aside
 * when asked (the start goes on without it).
 */
async function corrupt(o: Opening, file: string, error: Error): Promise<void> {
  if (!(error instanceof CorruptStateError)) throw error;
  if ((o.options.onCorrupt ?? "refuse") === "refuse") {
    if (error.recovery !== undefined)
      throw new UserError(`${file} is damaged (${error.message}). Nothing was changed. ${error.recovery}`, {
        cause: error,
      });
    const hint = o.options.corruptHint ?? `move it aside yourself (mv ${file} ${file}.bad) to start without it`;
    throw new UserError(
      `${file} is not a valid postbot state file (${error.message}). Nothing was changed. ` +
        `Restore it from a backup, fix it by hand, or ${hint}; starting without it forgets the tokens, cursors and action ledger it holds.`,
      { cause: error },
    );
  }
  if (o.readOnly) throw new UserError(`${file} is not a valid postbot state file (${error.message})`, { cause: error });
  const aside = await setAside(file, "corrupt", o.now);
  o.log.warn(
    { file, moved_to: aside, problem: error.message },
    `state file was corrupt; moved it to ${aside} and started without it`,
  );
}

/** Renames `file` to `<file>.<why>-<time>` and returns the new name. */
async function setAside(file: string, why: string, now: () => number): Promise<string> {
  const aside = `${file}.${why}-${new Date(now()).toISOString().replace(/[:.]/g, "-")}`;
  await rename(file, aside);
  return aside;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new UserError(`cannot read ${path}: ${describeFsError(error)}; check its permissions`, { cause: error });
  }
}

/** The files never journaled: the secrets' (see the module comment). */
const UNJOURNALED: ReadonlySet<ShardPath> = new Set([CREDENTIALS_SHARD]);

/** Journal bytes after which the files are brought up to date and the journal started afresh. */
const CHECKPOINT_BYTES = 8 * 1024 * 1024;

/** The {@link Store} over the state read, its writes left to a {@link StateWriter}. */
function createFileStore(
  stateDir: string,
  state: ShardedState,
  options: StateWriterOptions,
): { store: FileStore; folding: Promise<void> | undefined } {
  const writer = new StateWriter(stateDir, state, options);
  const store: FileStore = {
    path: stateDir,
    get writes() {
      return writer.writes;
    },
    get filesWritten() {
      return writer.filesWritten;
    },
    get bytesWritten() {
      return writer.bytesWritten;
    },
    get: (ns, key) => state.get(ns, key),
    set(ns, key, value) {
      state.set(ns, key, value);
      writer.changed();
    },
    adopt(ns, key, value) {
      state.set(ns, key, value, true);
      writer.changed();
    },
    delete(ns, key) {
      if (state.delete(ns, key)) writer.changed();
    },
    entries: (ns) => state.entries(ns),
    entriesOf: (ns, prefix) => state.entriesOf(ns, prefix),
    whereIs: (ns, key) => join(stateDir, defaultShardRule(ns, key)),
    retain(ns: string, retention: Retention) {
      state.retain(ns, retention);
      writer.changed();
    },
    flush: () => writer.flush(),
    stopping: () => writer.stopping(),
    close: () => writer.close(),
  };
  return { store, folding: writer.folding };
}
