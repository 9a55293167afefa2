/**
 * The state directory on disk (`.postbot/state/`): finding its files, reading them all at
 * start, and writing a batch of changed ones at once.
 *
 * A batch is written file by file, each atomically (temporary file, fsync, rename), many at
 * a time, and then each directory touched is synced once: so a flush that changed ten bots'
 * files costs about one fsync of latency, not ten, and a crash at any moment leaves each file
 * either as it was or as it was to be, never a mix.
 */
import { mkdir, readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UserError } from "../errors.ts";
import { syncDirectory } from "./atomic-file.ts";
import { describeFsError } from "./fs-error.ts";
import { SHARD_FOLDERS, type ShardPath } from "./shards.ts";
import { readStateFile, StateFileAdapter, writeStateFile, type StateFileData } from "./state-file.ts";

/** The state directory's name inside the data directory. */
export const STATE_DIR_NAME = "state";
/** The single state file of earlier postbots, migrated on the first start. */
export const SINGLE_STATE_FILE_NAME = "state.json";

/** Files read or written at once: enough to overlap the fsyncs, few enough for any file-descriptor limit. */
export const PARALLEL_FILES = 32;

/**
 * Runs `fn` over `items`, at most `limit` at a time. After a failure it starts no other item
 * and rejects (with the first error) only once the items under way have ended: a checkpoint
 * that fails must not still be writing files when the store is closed or the next checkpoint
 * writes them.
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

/** The state files in `stateDir` (`shared.json`, `bots/greeter.json`...), temporary and set-aside files excluded. */
export async function listStateFiles(stateDir: string): Promise<ShardPath[]> {
  const files: ShardPath[] = [];
  const jsonIn = async (folder: string) => {
    let names: string[];
    try {
      names = await readdir(join(stateDir, folder));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw new UserError(
        `cannot read the state directory ${join(stateDir, folder)}: ${describeFsError(error)}; check its permissions`,
        { cause: error },
      );
    }
    for (const name of names)
      if (name.endsWith(".json") && !name.startsWith(".")) files.push(folder ? `${folder}/${name}` : name);
  };
  await jsonIn("");
  for (const folder of SHARD_FOLDERS) await jsonIn(folder);
  return files;
}

/** One file as read: its contents, or the problem that makes it unreadable as state. */
export type ReadResult =
  | { path: ShardPath; data: StateFileData | null; loosened?: number }
  | { path: ShardPath; error: Error };

/** Reads files of `stateDir`, many at a time; a bad file is reported, not thrown, so the caller decides. */
export async function readStateFiles(
  stateDir: string,
  paths: readonly ShardPath[],
  options: { tighten: boolean },
): Promise<ReadResult[]> {
  const results: ReadResult[] = [];
  await eachLimited(paths, PARALLEL_FILES, async (path) => {
    const adapter = new StateFileAdapter(join(stateDir, path), { tighten: options.tighten });
    try {
      const data = await readStateFile(adapter);
      results.push({ path, data, ...(adapter.loosened !== undefined ? { loosened: adapter.loosened } : {}) });
    } catch (error) {
      if (error instanceof UserError) throw error;
      results.push({ path, error: error as Error });
    }
  });
  return results;
}

/** What a batch cost. */
export interface BatchCost {
  files: number;
  bytes: number;
}

/**
 * Writes (or, for a file left empty, removes) each file of `batch` atomically, `parallel`
 * at a time, then syncs each directory touched once. Folders are made (0700) the first time.
 * A file's contents are asked of `contents` when its turn comes (null: remove it).
 */
export async function writeStateFiles(
  stateDir: string,
  batch: readonly ShardPath[],
  contents: (path: ShardPath) => StateFileData | null,
  made: Set<string>,
  parallel = PARALLEL_FILES,
): Promise<BatchCost> {
  const cost: BatchCost = { files: 0, bytes: 0 };
  const dirs = new Set<string>();
  await eachLimited(batch, parallel, async (path) => {
    const data = contents(path);
    const file = join(stateDir, path);
    const dir = dirname(file);
    dirs.add(dir);
    if (data === null) {
      await unlink(file).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      });
      return;
    }
    if (!made.has(dir)) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      made.add(dir);
      dirs.add(dirname(dir)); // the new folder's own entry
    }
    const adapter = new StateFileAdapter(file);
    await writeStateFile(adapter, data);
    cost.files++;
    cost.bytes += adapter.bytes;
  });
  await Promise.all([...dirs].map((dir) => syncDirectory(dir)));
  return cost;
}
