/**
 * One file of the state: its JSON shape, how it is read and checked (a corrupt file is
 * reported with its line and column, never silently replaced), and how it is written
 * (atomically, mode 0600). Each file is a lowdb database through {@link StateFileAdapter}.
 *
 * Shape: `{"version": 2, "namespaces": {"<namespace>": [[key, value, seq], ...]}}`. `seq`
 * is the entry's place in its namespace's insertion order across all files (a namespace such
 * as the ledger spans every bot's file, and "oldest first" must survive a restart). Pairs
 * rather than an object per namespace: an object would put integer-like keys (post ids)
 * first, in numeric order. Version 1 was the single `state.json` of earlier postbots, with
 * `[key, value]` pairs in order; it is read to be migrated.
 */
import { closeSync, fchmodSync, fstatSync, openSync, readFileSync } from "node:fs";
import { Low, type Adapter } from "lowdb";
import { z } from "zod";
import { UserError } from "../errors.ts";
import { timeSlicer } from "../time-slice.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { describeFsError } from "./fs-error.ts";

/** The layout version this postbot writes; a newer one is refused rather than misread. */
export const STATE_FILE_VERSION = 2;
/** The version of the single-file layout (`state.json`) that is migrated. */
export const SINGLE_FILE_VERSION = 1;

/** An entry as stored: key, value and, from version 2, its place in the namespace's order. */
export type StoredEntry = [key: string, value: unknown, seq?: number];

/** A state file's contents. */
export interface StateFileData {
  version: number;
  namespaces: Record<string, StoredEntry[]>;
}

const StateFileSchema = z.object({
  version: z.number().int(),
  namespaces: z.record(z.string(), z.array(z.tuple([z.string(), z.unknown(), z.number().int().optional()]))),
});

/** A file that is not a state file: the message says where (line and column, or the field). */
export class CorruptStateError extends Error {
  constructor(
    message: string,
    /** How to recover, when it is not the file's own (restore it, fix it, or move it aside): a journal's damage. */
    readonly recovery?: string,
  ) {
    super(message);
  }
}

/**
 * lowdb's adapter for one state file. `read` answers null for a missing file and throws
 * {@link CorruptStateError} for a bad one; `write` replaces the file atomically with mode
 * 0600 but leaves syncing the directory to the caller, who may be writing many files there.
 */
export class StateFileAdapter implements Adapter<StateFileData> {
  /** The mode the file had before `read` made it private, when it was looser than 0600. */
  loosened?: number;
  /** Bytes of the last write. */
  bytes = 0;

  constructor(
    readonly path: string,
    private readonly options: { tighten?: boolean } = {},
  ) {}

  /**
   * Reads synchronously: a start reads every bot's file before anything else runs, and one
   * blocking read of a small file costs far less than the four round trips to the file-system
   * thread pool an asynchronous one takes (10,000 bots: well under a second, not many).
   */
  async read(): Promise<StateFileData | null> {
    let text: string;
    try {
      const fd = openSync(this.path, "r");
      try {
        const { mode } = fstatSync(fd);
        if (this.options.tighten && (mode & 0o077) !== 0) {
          fchmodSync(fd, 0o600);
          this.loosened = mode & 0o777;
        }
        text = readFileSync(fd, "utf8");
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new UserError(`cannot read the state file ${this.path}: ${describeFsError(error)}; check its permissions`, {
        cause: error,
      });
    }
    return parseStateFile(text);
  }

  async write(data: StateFileData): Promise<void> {
    const text = await stringifyStateFile(data);
    await writeFileAtomic(this.path, text, 0o600, { syncDir: false });
    this.bytes = Buffer.byteLength(text);
  }
}

/** Entries of a file from which it is written in slices (below, in one piece). */
const SLICED_ENTRIES = 512;

/**
 * `JSON.stringify(data)`, the same text, built entry by entry with a turn of the event loop
 * every few milliseconds. `status.json` holds every bot's status (10,000 bots: ~3 MB, 20-45 ms
 * in one piece) and `credentials.json` every account: written in one piece, each held every
 * mention that came meanwhile. The values are not copied first: the store never changes a
 * value in place (it replaces it), so what is written is the value as it was when taken.
 */
export async function stringifyStateFile(data: StateFileData): Promise<string> {
  let entries = 0;
  for (const ns in data.namespaces) entries += data.namespaces[ns]!.length;
  const keys = Object.keys(data);
  if (entries < SLICED_ENTRIES || keys.length !== 2 || keys[0] !== "version" || keys[1] !== "namespaces")
    return JSON.stringify(data);
  const parts = [`{"version":${JSON.stringify(data.version)},"namespaces":{`];
  const slice = timeSlicer();
  let firstNs = true;
  for (const [ns, list] of Object.entries(data.namespaces)) {
    parts.push(`${firstNs ? "" : ","}${JSON.stringify(ns)}:[`);
    firstNs = false;
    for (let i = 0; i < list.length; i++) {
      parts.push(i === 0 ? JSON.stringify(list[i]) : `,${JSON.stringify(list[i])}`);
      if ((i & 63) === 63 && slice.due()) await slice.next();
    }
    parts.push("]");
  }
  parts.push("}}");
  return parts.join("");
}

/** What lowdb holds for a file that does not exist. */
const MISSING: StateFileData = Object.freeze({ version: STATE_FILE_VERSION, namespaces: {} });

/** Reads a state file through lowdb: its contents, or null when there is no such file. */
export async function readStateFile(adapter: StateFileAdapter): Promise<StateFileData | null> {
  const db = new Low<StateFileData>(adapter, MISSING);
  await db.read();
  return db.data === MISSING ? null : db.data;
}

/** Writes a state file through lowdb. */
export async function writeStateFile(adapter: StateFileAdapter, data: StateFileData): Promise<void> {
  await new Low<StateFileData>(adapter, data).write();
}

/** Parses and checks a state file's text. */
export function parseStateFile(text: string): StateFileData {
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
  return parsed.data as StateFileData;
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
