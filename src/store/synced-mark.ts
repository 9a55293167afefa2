/**
 * `state/journal.synced`: how much of the journal is known to be on disk. A journal's own
 * lines cannot tell "this run stopped after line 40" from "lines 41-60 were cut off later" (by
 * a disk, a copy or a restore): the first is a crash, the second loses changes that were
 * acknowledged. This small file records, after every append, the journal generation, its
 * length and its last sequence number, so a journal shorter than what was recorded is refused
 * instead of replayed in part (journal-check.ts); and, after every checkpoint, the last line
 * the files hold, so the oldest journal left must start right after it (a journal lost or
 * emptied as a whole, with nothing before it to notice, is refused too).
 *
 * It costs a flush no second sync: the record is written in place (one `pwrite` of 128
 * bytes at offset 0, never a change of length) into the page cache, on the main thread, after
 * the append's synchronous write has returned and before the flush is acknowledged. So:
 * - it never claims more than is on disk (the append it records was durable first);
 * - after a kill -9 it is exact: the page cache survives the process, and every acknowledged
 *   line is covered;
 * - after a power cut it may be older, by what the kernel had not yet written back (at most
 *   its writeback interval, ~30 s): a cut within those last lines then looks like the crash.
 *
 * The file is created once (atomically and synced) and then only overwritten in place, and a
 * 128-byte write within one disk sector is all or nothing, so a crash cannot leave half a
 * record; the record carries a CRC-32 all the same, and one that does not check is damage.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { UserError } from "../errors.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { describeFsError } from "./fs-error.ts";

/** The mark's file name in the state directory. */
export const SYNCED_MARK_NAME = "journal.synced";

/** What the mark says: journal `generation` holds at least `bytes` bytes, its last line numbered `seq`. */
export interface SyncedMark {
  generation: number;
  /** 0 when that generation has no line yet (the journals before it were folded into the files). */
  bytes: number;
  /** The last line's sequence number: every line up to it is on disk (or folded into the files). */
  seq: number;
  /** The last line whose changes the files hold (a checkpoint wrote them): the journals on disk continue after it. */
  folded: number;
}

/** The record's fixed size: `<crc32> <json>`, spaces, newline. */
const SIZE = 128;

function encode(mark: SyncedMark): Buffer {
  const json = JSON.stringify({ generation: mark.generation, bytes: mark.bytes, seq: mark.seq, folded: mark.folded });
  const crc = crc32(json).toString(16).padStart(8, "0");
  return Buffer.from(`${crc} ${json}`.padEnd(SIZE - 1, " ") + "\n", "latin1");
}

/** The mark as read: undefined when there is none, `"damaged"` when it does not check. */
export type ReadMark = SyncedMark | "damaged" | undefined;

/** Reads the mark in `stateDir`. A missing file, or one that never got its first record (all NULs or empty), is no mark. */
export function readSyncedMark(stateDir: string): ReadMark {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(stateDir, SYNCED_MARK_NAME));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UserError(
      `cannot read ${join(stateDir, SYNCED_MARK_NAME)}: ${describeFsError(error)}; check its permissions`,
      { cause: error },
    );
  }
  if (bytes.every((b) => b === 0)) return undefined;
  const text = bytes.toString("latin1").trimEnd();
  const json = text.slice(9);
  if (
    text[8] !== " " ||
    !/^[0-9a-f]{8}$/.test(text.slice(0, 8)) ||
    crc32(json) !== Number.parseInt(text.slice(0, 8), 16)
  )
    return "damaged";
  try {
    const { generation, bytes: length, seq, folded } = JSON.parse(json) as Record<string, unknown>;
    if ([generation, length, seq, folded].every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
      return { generation, bytes: length, seq, folded } as SyncedMark;
  } catch {
    // not JSON although it checks: damaged all the same
  }
  return "damaged";
}

/** The mark of a running store: written durably once when opened, then in place after every append. */
export class SyncedMarkWriter {
  private fd: number | undefined;

  private constructor(
    private readonly path: string,
    /** What it says now. */
    public mark: SyncedMark,
  ) {}

  /** Writes `mark` to a new file (atomically, synced) and keeps it open for the in-place updates. */
  static async create(stateDir: string, mark: SyncedMark): Promise<SyncedMarkWriter> {
    const path = join(stateDir, SYNCED_MARK_NAME);
    await writeFileAtomic(path, encode(mark).toString("latin1"), 0o600);
    const writer = new SyncedMarkWriter(path, mark);
    writer.fd = openSync(path, "r+");
    return writer;
  }

  /**
   * Records `mark`: one write of 128 bytes into the page cache, not synced (see the module
   * comment). A failed write leaves the mark behind what is on disk, which only makes a later
   * cut of the newest lines look like a crash; it is not worth failing a flush for.
   */
  set(mark: SyncedMark): void {
    this.mark = mark;
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, encode(mark), 0, SIZE, 0);
    } catch {
      // see above
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
