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
 * A line's changes are `[[namespace, key, value, seq], [namespace, key], ...]`: a value set
 * (with its place in the namespace's order) or deleted. A budget window (a sorted list of
 * request times, up to 10,000 for an app's day) changes by a few times at its ends on every
 * request, so it is journaled as what changed (window-delta.ts): `[namespace, key, [from, to,
 * ...added], seq, "w"]`, "keep the times of the value before within [from, to], then add
 * these". Each line carries a checksum and a sequence number (journal-line.ts), and after
 * each append the synced mark records how far the journal reached (synced-mark.ts), so a
 * journal cut or damaged after it was written is told from what a crash leaves
 * (journal-check.ts).
 *
 * An append is acknowledged only once its whole line is on disk. On a full disk a write can
 * take part of a line (`bytesWritten` short of its length) and only the next one fails
 * (ENOSPC): the append writes on until the line is whole or a write fails, and a failed
 * append cuts what it wrote back off (so the next append, the same line retried, starts
 * where it did, in the same journal). Where that cut fails too, the journal is left for a new
 * one: a line is never written after a partial one. Nothing of a failed append reaches the
 * synced mark, so what it records is always on disk whole.
 *
 * Secrets are never journaled: the credentials file is written whole instead (file-store.ts).
 */
import { constants } from "node:fs";
import { open, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../errors.ts";
import { describeFsError } from "./fs-error.ts";
import { encodeLine, parseJournal, type JournalRecord, type ParsedJournal } from "./journal-line.ts";
import type { SyncedMarkWriter } from "./synced-mark.ts";

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

/**
 * The operations of an open journal an append makes (Node's `FileHandle` has them): the seam
 * where a test puts a disk that fills up (short writes, then ENOSPC) and frees space again.
 */
export interface JournalFile {
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  truncate(length: number): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

/** Opens journal `path` for appending (see {@link SYNC_APPEND}), creating it 0600. */
export type OpenJournal = (path: string) => Promise<JournalFile>;

/** Node's file system. */
export const openJournalFile: OpenJournal = (path) => open(path, SYNC_APPEND ?? "a", 0o600);

/**
 * Writes all of `line`: a write may take part of it (a full disk does, before it refuses the
 * next write), so it goes on from where the last one ended.
 *
 * @throws the write's error, or, for a write that took nothing without one, an error saying so.
 */
async function writeWhole(file: JournalFile, line: Buffer): Promise<void> {
  for (let at = 0; at < line.length; ) {
    const { bytesWritten } = await file.write(line, at, line.length - at);
    if (!(bytesWritten > 0))
      throw Object.assign(new Error(`a write took none of the ${line.length - at} bytes left of a journal line`), {
        code: "EIO",
      });
    at += bytesWritten;
  }
}

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
 * Reads a journal: its whole lines and the length of a torn last append (journal-line.ts);
 * undefined when the file is gone (removed by a checkpoint since it was listed).
 *
 * @throws {import("./journal-line.ts").JournalDamageError} for a line that does not check.
 */
export async function readJournal(path: string): Promise<ParsedJournal | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UserError(`cannot read the state journal ${path}: ${describeFsError(error)}; check its permissions`, {
      cause: error,
    });
  }
  return parseJournal(bytes);
}

/** The journal being appended to: one generation at a time, rotated by a checkpoint. */
export class Journal {
  private handle: Promise<JournalFile> | undefined;
  private broken = false;
  /** Bytes in the current generation. */
  size = 0;
  /**
   * The number of the last line whose append started: a checkpoint that rotates while an
   * append is under way folds that line too (its changes were taken before it began).
   */
  started: number;

  constructor(
    private readonly stateDir: string,
    /** The generation appended to. */
    public generation: number,
    /** The sequence number of the last line written (by this run or the one before). */
    public seq: number,
    /** Told of every append once it is durable, before the flush is acknowledged. */
    private readonly mark?: SyncedMarkWriter,
    private readonly openFile: OpenJournal = openJournalFile,
  ) {
    this.started = seq;
  }

  /**
   * Appends one line of changes, durably (see {@link SYNC_APPEND}), resolving only once all of
   * it is on disk; returns its size in bytes.
   *
   * @throws the file system's error (ENOSPC...): nothing of the line is acknowledged, and
   *   what of it was written is cut off again where that can be done (see the module comment).
   */
  async append(records: readonly JournalRecord[]): Promise<number> {
    if (this.broken) this.rotate(); // a failed append left a partial line: never write after it
    // A failed append's number is used again by the line that retries it.
    const seq = this.seq + 1;
    this.started = seq;
    const line = encodeLine(seq, records);
    const generation = this.generation;
    const offset = this.size;
    this.handle ??= this.openFile(join(this.stateDir, journalName(generation)));
    let file: JournalFile;
    try {
      file = await this.handle;
    } catch (error) {
      this.broken = true; // never opened: the next append tries a new file
      throw error;
    }
    try {
      await writeWhole(file, line);
      if (SYNC_APPEND === undefined) await file.datasync();
    } catch (error) {
      // Part of it may be on disk (a full disk takes part of a line): cut back to where it began.
      // A truncation frees space, so it works on a full disk; if it does not, a new journal follows.
      const cut = await file.truncate(offset).then(
        () => true,
        () => false,
      );
      // (Rotated meanwhile, the partial line is in a journal no append goes to any more.)
      this.broken = !cut && this.generation === generation;
      throw error;
    }
    this.seq = seq;
    const bytes = offset + line.length;
    // Rotated meanwhile (a checkpoint began), the line is in the generation that checkpoint folds.
    if (this.generation === generation) this.size = bytes;
    if (this.mark && this.mark.mark.generation <= generation)
      this.mark.set({ ...this.mark.mark, generation, bytes, seq });
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

  /**
   * Removes the journals up to `generation`, whose changes (up to line `seq`) a checkpoint has
   * written to the files and synced. The mark says so first: a crash between the two leaves
   * journals the files already hold, which replay harmlessly.
   */
  async removeUpTo(generation: number, seq: number): Promise<void> {
    if (this.mark) {
      const { mark } = this.mark;
      // Still naming one of them: no line went to a later generation yet.
      const newest = mark.generation <= generation ? { generation: generation + 1, bytes: 0, seq } : mark;
      this.mark.set({ ...newest, folded: Math.max(mark.folded, seq) });
    }
    for (const n of await listJournals(this.stateDir))
      if (n <= generation) await unlink(join(this.stateDir, journalName(n))).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.closeHandle();
    this.mark?.close();
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await (await handle?.catch(() => undefined))?.close().catch(() => undefined);
  }
}
