/**
 * The state's write-ahead journal (`state/journal-<n>.log`): what makes a flush cost one
 * append and one fsync, whatever the number of bots.
 *
 * A flush appends one line holding every value changed since the last flush (in any number
 * of files) and syncs it: that line is the commit, so a flush is atomic across files, and its
 * size is what changed, not the state. The per-bot files are brought up to date later, in
 * the background (a checkpoint: see file-store.ts), after which the journals they cover are
 * removed. On open, the files are read and then the journals replayed in order.
 *
 * A line is `[[namespace, key, value, seq], [namespace, key], ...]`: a value set (with its
 * place in the namespace's order) or deleted. A budget window (a sorted list of request
 * times, up to 10,000 for an app's day) changes by a few times at its ends on every request,
 * so it is journaled as what changed (window-delta.ts): `[namespace, key, [from, to, ...added],
 * seq, "w"]`, "keep the times of the value before within [from, to], then add these". A crash in the middle of an append leaves a
 * partial last line, which was never acknowledged and is ignored; a bad line anywhere else
 * is corruption and reported like a corrupt file.
 */
import { constants } from "node:fs";
import { open, readdir, readFile, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { describeFsError } from "./fs-error.ts";
import { CorruptStateError } from "./state-file.ts";
import { isDelta, WINDOW_DELTA } from "./window-delta.ts";

/**
 * A change: `[namespace, key, value, seq]` (set), `[namespace, key]` (deleted) or
 * `[namespace, key, [from, to, ...added], seq, "w"]` (a window's times moved: see window-delta.ts).
 */
export type JournalRecord =
  | [namespace: string, key: string, value: unknown, seq: number]
  | [namespace: string, key: string]
  | [namespace: string, key: string, delta: number[], seq: number, kind: typeof WINDOW_DELTA];

const NAME = /^journal-(\d+)\.log$/;

/**
 * How the journal is opened: for appending with synchronous data writes (`O_DSYNC`), so an
 * append is durable when its one write returns. That is one call to Node's file-system
 * threads per flush instead of a write and then an fdatasync (two hand-overs, each a few
 * tenths of a millisecond of CPU at 100 flushes a second). Where `O_DSYNC` is missing
 * (Windows), a plain append and an fdatasync after each write.
 */
const SYNC_APPEND =
  constants.O_DSYNC === undefined
    ? undefined
    : constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC;
export const journalName = (generation: number) => `journal-${generation}.log`;

/** The journals in `stateDir`, oldest first. */
export async function listJournals(stateDir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new UserError(
      `cannot read the state directory ${stateDir}: ${describeFsError(error)}; check its permissions`,
      { cause: error },
    );
  }
  return names
    .map((n) => NAME.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/**
 * Reads a journal's lines of changes. A missing file (removed by a checkpoint meanwhile) has
 * none; a partial last line is dropped.
 *
 * @throws {CorruptStateError} for a bad line that is not the last.
 */
export async function readJournal(path: string): Promise<JournalRecord[][]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new UserError(`cannot read the state journal ${path}: ${describeFsError(error)}; check its permissions`, {
      cause: error,
    });
  }
  const lines = text.split("\n");
  const complete = lines.length - 1; // what follows the last newline is a partial line (or nothing)
  const out: JournalRecord[][] = [];
  for (let i = 0; i < complete; i++) {
    const records = parseLine(lines[i]!);
    if (records) out.push(records);
    else if (i < complete - 1) throw new CorruptStateError(`line ${i + 1} is not a journal entry`);
    // A bad last line is a torn append (a crash can persist the file's new length before
    // its data): it was never acknowledged, so it is dropped.
  }
  return out;
}

function parseLine(line: string): JournalRecord[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(json)) return undefined;
  for (const r of json) {
    if (!Array.isArray(r) || typeof r[0] !== "string" || typeof r[1] !== "string") return undefined;
    if (r.length === 5) {
      if (r[4] !== WINDOW_DELTA || !Number.isInteger(r[3]) || !isDelta(r[2])) return undefined;
    } else if (r.length === 4 ? !Number.isInteger(r[3]) : r.length !== 2) return undefined;
  }
  return json as JournalRecord[];
}

/** The journal being appended to: one generation at a time, rotated by a checkpoint. */
export class Journal {
  private handle: Promise<FileHandle> | undefined;
  private broken = false;
  /** Bytes in the current generation. */
  size = 0;

  constructor(
    private readonly stateDir: string,
    /** The generation appended to. */
    public generation: number,
  ) {}

  /** Appends one line of changes, durably (see {@link SYNC_APPEND}); returns its size in bytes. */
  async append(records: readonly JournalRecord[]): Promise<number> {
    if (this.broken) this.rotate(); // a failed append may have left a partial line: never write after it
    const line = Buffer.from(`${JSON.stringify(records)}\n`);
    this.handle ??= open(join(this.stateDir, journalName(this.generation)), SYNC_APPEND ?? "a", 0o600);
    try {
      const handle = await this.handle;
      await handle.write(line);
      if (SYNC_APPEND === undefined) await handle.datasync();
    } catch (error) {
      this.broken = true;
      throw error;
    }
    this.size += line.length;
    return line.length;
  }

  /** Starts a new generation for the appends to come; returns the last one finished. */
  rotate(): number {
    const finished = this.generation;
    void this.closeHandle();
    this.generation++;
    this.size = 0;
    this.broken = false;
    return finished;
  }

  /** Removes the journals up to `generation` (a checkpoint has written what they hold). */
  async removeUpTo(generation: number): Promise<void> {
    for (const n of await listJournals(this.stateDir))
      if (n <= generation) await unlink(join(this.stateDir, journalName(n))).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.closeHandle();
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
