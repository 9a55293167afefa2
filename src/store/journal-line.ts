/**
 * How a journal line is written and read back: `<crc32> <seq> <changes>\n`, where `<changes>`
 * is the line's records as JSON (see journal.ts), `<seq>` its sequence number (one more than
 * the line before it, across journals and runs) and `<crc32>` eight hex digits of the CRC-32
 * of the bytes between the first space and the newline. The checksum tells a line that was
 * written whole from one that was cut or damaged since; the sequence number tells a journal
 * that lost lines at its end from one that never had them (journal-check.ts compares it with
 * the next journal and with the synced mark). CRC-32 is native in `node:zlib`: a line of a
 * few hundred bytes costs about a microsecond, so a flush stays one append and one sync.
 *
 * Journals written before checksums existed (format 1) hold the JSON alone on each line;
 * they are recognised by their first byte (`[`, where a checked line starts with a hex digit)
 * and read as they were written, so an upgrade loses nothing (see journal-check.ts).
 *
 * What a crash can leave, and what it cannot: an append is one `write` of one whole line, and
 * the journal is opened with synchronous data writes, so a line is on disk before its flush
 * is acknowledged. A crash (kill -9, a power cut) during the write can leave a prefix of that
 * last line: bytes with no newline after them, or, on file systems that keep a file's new
 * length before its data, a last line holding NUL bytes. Nothing was done on the strength of
 * such a line, so it is dropped ({@link ParsedJournal.torn}). Every other defect is damage: a
 * line whose newline is there but whose checksum fails, or a sequence number that skips. It
 * is refused ({@link JournalDamageError}): replaying around it would silently forget changes
 * that were acknowledged, and actions that were done would be done again.
 */
import { crc32 } from "node:zlib";
import { CorruptStateError } from "./state-file.ts";
import { isDelta, WINDOW_DELTA } from "./window-delta.ts";

/**
 * A change: `[namespace, key, value, seq]` (set), `[namespace, key]` (deleted) or
 * `[namespace, key, [from, to, ...added], seq, "w"]` (a window's times moved: see window-delta.ts).
 * (The `seq` in a record is the entry's place in its namespace's order, not the line's number.)
 */
export type JournalRecord =
  | [namespace: string, key: string, value: unknown, seq: number]
  | [namespace: string, key: string]
  | [namespace: string, key: string, delta: number[], seq: number, kind: typeof WINDOW_DELTA];

/** A journal file that does not read as one: where (line, byte), and what is wrong. */
export class JournalDamageError extends CorruptStateError {
  constructor(
    message: string,
    /** The 1-based line where the damage starts. */
    readonly line: number,
    /** The byte offset where that line starts: what is before it is whole. */
    readonly offset: number,
  ) {
    super(message);
  }
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const OPEN_BRACKET = 0x5b;
/** Bytes before the sequence number: eight hex digits and a space. */
const CRC_PREFIX = 9;

/** The line for `records`, numbered `seq`, with its newline. */
export function encodeLine(seq: number, records: readonly JournalRecord[]): Buffer {
  const line = Buffer.from(`00000000 ${seq} ${JSON.stringify(records)}\n`);
  const crc = crc32(line.subarray(CRC_PREFIX, line.length - 1));
  line.write(crc.toString(16).padStart(8, "0"), 0, 8, "latin1");
  return line;
}

/** One line read back. */
export interface JournalLine {
  /** Its sequence number (undefined in a format 1 journal). */
  seq: number | undefined;
  records: JournalRecord[];
  /** The byte offset just after its newline. */
  end: number;
}

/** A journal file read back. */
export interface ParsedJournal {
  /** 2 for checked lines, 1 for a journal of earlier postbots, undefined when empty. */
  format: 1 | 2 | undefined;
  lines: JournalLine[];
  /** Bytes of the whole lines (where the next line would start). */
  whole: number;
  /** Bytes after them that are an append a crash cut short (never acknowledged). */
  torn: number;
}

/**
 * Reads a journal's bytes: its whole lines, and the length of a torn last append.
 *
 * @throws {JournalDamageError} for a line (other than a torn last one) that does not check,
 *   or a sequence number that does not follow the one before.
 */
export function parseJournal(bytes: Buffer): ParsedJournal {
  const out: ParsedJournal = { format: undefined, lines: [], whole: 0, torn: 0 };
  let start = 0;
  let number = 1;
  while (start < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    // No newline after it: the prefix of an append. A NUL in the last line: a file system
    // kept the new length of an append whose data never reached the disk.
    if (newline < 0 || (newline === bytes.length - 1 && bytes.subarray(start, newline).includes(0))) {
      out.torn = bytes.length - start;
      break;
    }
    out.format ??= bytes[start] === OPEN_BRACKET ? 1 : 2;
    const text = bytes.subarray(start, newline);
    const line = out.format === 2 ? checkedLine(text, number, start) : uncheckedLine(text);
    if (!line) {
      if (newline === bytes.length - 1) {
        // Format 1 had no checksum to tell a torn last line from a damaged one; it was dropped then too.
        out.torn = bytes.length - start;
        break;
      }
      throw new JournalDamageError(`line ${number} is not a journal entry`, number, start);
    }
    const previous = out.lines.at(-1)?.seq;
    if (previous !== undefined && line.seq !== previous + 1)
      throw new JournalDamageError(
        `line ${number} is entry ${line.seq} but follows entry ${previous}: entries are missing before it`,
        number,
        start,
      );
    out.lines.push({ ...line, end: newline + 1 });
    out.whole = newline + 1;
    start = newline + 1;
    number++;
  }
  return out;
}

/** A format 2 line, checked; throws for one that does not check (it has its newline, so it is no torn append). */
function checkedLine(text: Buffer, number: number, offset: number): Omit<JournalLine, "end"> {
  const damaged = (why: string) => new JournalDamageError(`line ${number} ${why}`, number, offset);
  const hex = text.toString("latin1", 0, 8);
  if (text.length <= CRC_PREFIX || text[8] !== SPACE || !/^[0-9a-f]{8}$/.test(hex))
    throw damaged("does not start with a checksum");
  if (crc32(text.subarray(CRC_PREFIX)) !== Number.parseInt(hex, 16))
    throw damaged("does not match its checksum: it was changed or cut after it was written");
  const space = text.indexOf(SPACE, CRC_PREFIX);
  const seq = Number(text.toString("latin1", CRC_PREFIX, space));
  const records =
    space > CRC_PREFIX && Number.isSafeInteger(seq) ? parseRecords(text.toString("utf8", space + 1)) : undefined;
  if (!records) throw damaged("matches its checksum but is not a journal entry");
  return { seq, records };
}

function uncheckedLine(text: Buffer): Omit<JournalLine, "end"> | undefined {
  const records = parseRecords(text.toString("utf8"));
  return records && { seq: undefined, records };
}

function parseRecords(line: string): JournalRecord[] | undefined {
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
