/**
 * The default {@link Store}: one lowdb JSON file, `<dir>/state.json`, holding cursors,
 * tokens, the action ledger and budget windows.
 *
 * - Private: the directory is created 0700 and the file is always 0600 (it holds tokens).
 * - Atomic: every write replaces the whole file through a temporary file and a rename, so a
 *   crash (kill -9 at any moment) leaves either the previous or the next state, never a mix.
 * - Coalesced: a burst of `set`s costs one write; `flush()` resolves only once everything set
 *   before it is on disk, which is what the ledger awaits before it sends a request.
 * - Never silently reset: an unreadable or corrupt file stops the start with a message naming
 *   the file and what to do; it is set aside only when the caller asks for that.
 * - One writer: a lock file refuses a second process on the same directory, which would
 *   otherwise overwrite the first one's ledger and send every action twice.
 */
import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Low, type Adapter } from "lowdb";
import { z } from "zod";
import { UserError } from "../errors.ts";
import { silentLogger, type Logger } from "../log.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { Namespaces, type NamespaceData } from "./namespaces.ts";
import type { Retention, Store } from "./store.ts";

/** The version of the file's layout; a newer one is refused rather than misread. */
export const STATE_FILE_VERSION = 1;
/** The state file's name inside the data directory (`.postbot/state.json` by default). */
export const STATE_FILE_NAME = "state.json";
const LOCK_FILE_NAME = "state.lock";

const StateFileSchema = z.object({
  version: z.number().int(),
  namespaces: z.record(z.string(), z.array(z.tuple([z.string(), z.unknown()]))),
});
type StateFile = { version: number; namespaces: NamespaceData };

/** How {@link openFileStore} treats problems and whether it may write. */
export interface FileStoreOptions {
  logger?: Logger;
  /**
   * What to do with a state file that cannot be parsed: `"refuse"` (the default) stops with
   * a {@link UserError}; `"set-aside"` renames it to `state.json.corrupt-<time>`, logs that,
   * and starts empty. Only a user's explicit choice should pick the second.
   */
  onCorrupt?: "refuse" | "set-aside";
  /** Added to the corrupt-file message: how this program lets the user set the file aside. */
  corruptHint?: string;
  /**
   * Reads the state but never writes it and takes no lock: for `bot status`, which looks at
   * a running bot's state. Changes stay in memory.
   */
  readOnly?: boolean;
  /** Time source for the corrupt file's name (default: the system time). */
  now?: () => number;
}

/** A {@link Store} backed by a file. */
export interface FileStore extends Store {
  /** The state file's path. */
  readonly path: string;
  /** How many times the file was written (for tests and the bench: coalescing at work). */
  readonly writes: number;
}

/**
 * Opens (creating when missing) the state store in `dir`.
 *
 * @throws {UserError} when the directory cannot be created, the file cannot be read or is
 *   corrupt, or another live process holds the directory.
 * @example
 * ```ts
 * const store = await openFileStore(".postbot", { logger });
 * store.set("cursors", "greeter", { since_id: "1460323737035677698" });
 * await store.flush(); // on disk, mode 0600
 * ```
 */
export async function openFileStore(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
  const log = options.logger ?? silentLogger;
  const path = join(dir, STATE_FILE_NAME);
  const readOnly = options.readOnly ?? false;

  if (!readOnly) {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new UserError(`cannot create the state directory ${dir}: ${describe(error)}; choose another data directory (--data DIR)`, {
        cause: error,
      });
    }
  }
  const lock = readOnly ? undefined : await acquireLock(join(dir, LOCK_FILE_NAME));

  try {
    const adapter = new StateFileAdapter(path);
    const db = new Low<StateFile>(adapter, { version: STATE_FILE_VERSION, namespaces: {} });
    try {
      await db.read();
    } catch (error) {
      if (!(error instanceof CorruptStateError)) throw error;
      if ((options.onCorrupt ?? "refuse") === "refuse") {
        const hint = options.corruptHint ?? `move it aside yourself (mv ${path} ${path}.bad) to start with an empty state`;
        throw new UserError(
          `${path} is not a valid postbot state file (${error.message}). Nothing was changed. ` +
            `Restore it from a backup, fix it by hand, or ${hint}; starting empty forgets tokens, cursors and the action ledger.`,
          { cause: error },
        );
      }
      if (readOnly) throw new UserError(`${path} is not a valid postbot state file (${error.message})`, { cause: error });
      const aside = `${path}.corrupt-${new Date((options.now ?? Date.now)()).toISOString().replace(/[:.]/g, "-")}`;
      await rename(path, aside);
      log.warn({ file: path, moved_to: aside, problem: error.message }, `state file was corrupt; moved it to ${aside} and started empty`);
      db.data = { version: STATE_FILE_VERSION, namespaces: {} };
    }
    if (db.data.version > STATE_FILE_VERSION) {
      throw new UserError(
        `${path} was written by a newer postbot (state version ${db.data.version}, this one reads ${STATE_FILE_VERSION}); upgrade postbot or use another data directory`,
      );
    }
    if (!readOnly) await tightenMode(path, log);
    return createFileStore(path, db, Namespaces.fromJSON(db.data.namespaces), { log, readOnly, lock });
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

class CorruptStateError extends Error {}

/** lowdb's adapter: parses and checks the file on read, writes it atomically with mode 0600. */
class StateFileAdapter implements Adapter<StateFile> {
  constructor(private readonly path: string) {}

  async read(): Promise<StateFile | null> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new UserError(`cannot read the state file ${this.path}: ${describe(error)}; check its permissions`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CorruptStateError(jsonProblem(text, error));
    }
    const parsed = StateFileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "the top level";
      throw new CorruptStateError(`${where}: ${issue.message}`);
    }
    return parsed.data as StateFile;
  }

  write(data: StateFile): Promise<void> {
    return writeFileAtomic(this.path, JSON.stringify(data));
  }
}

/** "Unexpected token ... at position 812" → the line and column a person can open. */
function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (text.trim() === "") return "the file is empty";
  const position = /position (\d+)/.exec(message);
  if (!position) return `not JSON: ${message}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `not JSON at line ${line}, column ${column}: ${message.replace(/ in JSON at position \d+.*$/, "")}`;
}

/** A file left with a looser mode (copied by hand, say) is made private before anything else. */
async function tightenMode(path: string, log: Logger): Promise<void> {
  try {
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) {
      await chmod(path, 0o600);
      log.warn({ file: path, mode: (mode & 0o777).toString(8) }, "state file was readable by others; set its mode to 0600");
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

interface Lock {
  release(): Promise<void>;
}

/**
 * Takes `<dir>/state.lock`, holding our pid. A lock whose process is gone (killed with -9)
 * is taken over; one held by a live process other than ours is refused. The same process may
 * reopen its own directory (a test simulating a crash does).
 */
async function acquireLock(lockPath: string): Promise<Lock> {
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(lockPath, mine, { flag: "wx", mode: 0o600 });
      return lockHandle(lockPath, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new UserError(`cannot create the lock file ${lockPath}: ${describe(error)}; check the data directory's permissions`, {
          cause: error,
        });
      }
    }
    const holder = (await readFile(lockPath, "utf8").catch(() => "")).trim();
    const pid = Number(holder);
    if (holder !== mine && Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new UserError(
        `another postbot process (pid ${pid}) is using the state in ${lockPath.replace(/\/state\.lock$/, "")}; stop it first or give this one another data directory (--data DIR)`,
      );
    }
    await unlink(lockPath).catch(() => undefined); // stale: its process is gone
  }
  throw new UserError(`cannot take the lock ${lockPath}: it keeps reappearing; is another postbot starting at the same time?`);
}

function lockHandle(lockPath: string, mine: string): Lock {
  return {
    async release() {
      const holder = await readFile(lockPath, "utf8").catch(() => "");
      if (holder.trim() === mine) await unlink(lockPath).catch(() => undefined);
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const describe = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code} ${e.message}` : String((error as Error)?.message ?? error);
};

interface Waiter {
  version: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

function createFileStore(
  path: string,
  db: Low<StateFile>,
  spaces: Namespaces,
  { log, readOnly, lock }: { log: Logger; readOnly: boolean; lock: Lock | undefined },
): FileStore {
  /** Bumped by every change; `written` is the change count the file holds. */
  let version = 0;
  let written = 0;
  let writes = 0;
  let running = false;
  let scheduled = false;
  let closed = false;
  let waiters: Waiter[] = [];

  const settle = (error?: Error) => {
    const still: Waiter[] = [];
    for (const w of waiters) {
      if (error) w.reject(error);
      else if (w.version <= written) w.resolve();
      else still.push(w);
    }
    waiters = still;
  };

  /** Writes until the file holds every change; one write covers all changes made before it. */
  const run = async () => {
    scheduled = false;
    if (running || readOnly) return;
    running = true;
    try {
      while (written < version) {
        const target = version;
        db.data = { version: STATE_FILE_VERSION, namespaces: spaces.toJSON() };
        await db.write();
        writes++;
        written = target;
        settle();
      }
    } catch (cause) {
      const error = new Error(`cannot write the state file ${path}: ${describe(cause)}; postbot keeps the state in memory and retries on the next change`, {
        cause,
      });
      log.error({ file: path, err: cause }, error.message);
      settle(error);
    } finally {
      running = false;
    }
  };

  const changed = () => {
    if (closed) throw new Error(`the state store ${path} is closed`);
    version++;
    if (!scheduled && !readOnly) {
      scheduled = true;
      // Later in this turn of the event loop, so the rest of a burst joins the same write.
      setImmediate(() => void run());
    }
  };

  const store: FileStore = {
    path,
    get writes() {
      return writes;
    },
    get: (ns, key) => spaces.get(ns, key),
    set(ns, key, value) {
      spaces.set(ns, key, value);
      changed();
    },
    delete(ns, key) {
      if (spaces.delete(ns, key)) changed();
    },
    entries: (ns) => spaces.entries(ns),
    retain(ns: string, retention: Retention) {
      spaces.retain(ns, retention);
      changed();
    },
    flush() {
      if (readOnly || written >= version) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ version, resolve, reject });
        if (!running && !scheduled) void run();
      });
    },
    async close() {
      if (closed) return;
      await store.flush();
      closed = true;
      await lock?.release();
    },
  };
  return store;
}
