/**
 * Reading the journals back at start, and telling a journal a crash left from one that was
 * damaged after it was written.
 *
 * A crash cannot cut a line that was synced: the only thing it can leave is the prefix of the
 * append it interrupted, which was never acknowledged (journal-line.ts). A disk, a copy or a
 * restore can cut anywhere, and replaying what is left of such a journal silently forgets
 * changes that were acknowledged: the ledger's "done" marks, so the actions of the last run
 * would be done again. What tells them apart:
 *
 * 1. Within a journal: every line with its newline must match its checksum, and each line's
 *    sequence number is one more than the line before. Only the bytes after the last whole
 *    line, with no newline (or NUL bytes) in them, are a torn append: dropped, with one log
 *    line naming how many bytes.
 * 2. Between journals: each journal's first line follows the one before (`first = last + 1`,
 *    or `first = last`: a line retried after a failed append). A journal that lost lines at
 *    its end, or a whole journal lost between two, breaks the chain. The oldest journal left
 *    has no journal before it: it must start right after the last line the files hold, which
 *    the mark records at every checkpoint (`folded`), so losing it whole is seen too.
 * 3. At the end: nothing after the newest journal vouches for its last lines, so the synced
 *    mark (synced-mark.ts) does. The journal it names must hold at least the bytes it records,
 *    the line ending there numbered as it says; a journal it names with bytes in it must
 *    exist. Lines past the mark are fine (the mark is written after its append).
 *
 * What is still taken for a crash: after a power cut, the mark may be older than the journal
 * (it is not synced: see synced-mark.ts), and a cut within the lines written since it was last
 * written back looks like a crash there. A cut of a line no flush acknowledged yet (its
 * append under way) is a crash, whatever did it. (Messages call a line's sequence number its
 * entry number, and a line's place in its file its line.)
 *
 * Damage is refused like a corrupt state file: nothing is changed, and the message says how
 * to recover (a backup, or going on from what is whole, knowing what is lost). Without a mark
 * (the user removed it to go on from what is left, or the state of an earlier postbot), a
 * break between journals is taken as it is, with a warning. `bot status`, which reads the
 * journals of a running store, checks each on its own only (see {@link ReadJournalsOptions}).
 *
 * Journals of earlier postbots (format 1: no checksum, no sequence number) are read as they
 * were then, a bad last line dropped; the file store folds them into the files before the
 * start goes on (file-store.ts), so they are read once and then gone.
 */
import { basename, join } from "node:path";
import type { Logger } from "../log.ts";
import { JournalDamageError, type JournalRecord, type ParsedJournal } from "./journal-line.ts";
import { journalName, listJournals, readJournal } from "./journal.ts";
import { CorruptStateError } from "./state-file.ts";
import { readSyncedMark, SYNCED_MARK_NAME, type SyncedMark } from "./synced-mark.ts";

/** What the journals hold, and where the next run's journal starts. */
export interface JournalsRead {
  /** Each journal's lines of changes, oldest first: what to replay over the files. */
  lines: JournalRecord[][];
  /** The generations read, oldest first. */
  generations: number[];
  /** The last line's sequence number on disk (0 for none): the next line is one more. */
  seq: number;
  /** The newest generation a journal or the mark names: the next journal comes after it. */
  generation: number;
  /** What the mark says of the journals as read: the writer records it before it appends. */
  mark: SyncedMark;
  /** Whether a journal of earlier postbots (no checksums) was read. */
  legacy: boolean;
}

export interface ReadJournalsOptions {
  /**
   * `bot status` reading a running store: each journal is checked on its own, but not against
   * the others or the mark (a checkpoint may remove journals and move the mark while it reads),
   * and a torn tail (an append in progress) is not logged.
   */
  readOnly: boolean;
  log: Logger;
  /**
   * Told of a damaged journal (or mark): throws to refuse the start, or sets the file aside
   * and returns, and the reading goes on without it.
   */
  damaged(file: string, error: CorruptStateError): Promise<void>;
}

/**
 * Reads and checks every journal in `stateDir` (see the module comment).
 *
 * @throws whatever `damaged` throws.
 */
export async function readJournals(stateDir: string, o: ReadJournalsOptions): Promise<JournalsRead> {
  const markFile = join(stateDir, SYNCED_MARK_NAME);
  const goOn = (from: string, how: string) =>
    `Restore the state directory from a backup; or, to go on from ${from} (the changes after it are lost, so actions of the last run may be done again), ${how}.`;
  const fromWhatIsLeft = goOn("what is left", `remove ${markFile}`);
  // Read before the journals: what it records was on disk before it, so the journals read after hold at least that.
  let mark = readSyncedMark(stateDir);
  if (mark === "damaged") {
    if (!o.readOnly)
      await o.damaged(
        markFile,
        new CorruptStateError(
          "it does not match its checksum",
          `Restore the state directory from a backup; or, if the journals beside it are whole, remove ${markFile}.`,
        ),
      );
    mark = undefined;
  }

  // Each journal on its own (journal-line.ts).
  let journals: Journal[] = [];
  let newest = mark?.generation ?? 0;
  for (const generation of await listJournals(stateDir)) {
    newest = Math.max(newest, generation);
    const file = join(stateDir, journalName(generation));
    try {
      const parsed = await readJournal(file);
      if (parsed) journals.push({ generation, file, parsed });
      // (undefined: removed by a checkpoint since the listing)
    } catch (error) {
      if (!(error instanceof JournalDamageError)) throw error;
      const how = goOn(
        `the ${error.line - 1} whole lines before it`,
        `cut the journal there (truncate -s ${error.offset} ${file})${mark ? ` and remove ${markFile}` : ""}`,
      );
      await o.damaged(file, new CorruptStateError(error.message, how));
    }
  }

  // Together, and against the mark. (Not for a reader: a checkpoint may fold and remove
  // journals between its reading the mark and the journals. The writer checks at its start.)
  const damage = o.readOnly ? undefined : check(journals, mark, markFile, o.log);
  if (damage) {
    await o.damaged(damage.file, new CorruptStateError(damage.problem, fromWhatIsLeft));
    // Set aside, as the caller asked: the rest is taken as it is.
    journals = journals.filter((j) => j.file !== damage.file);
    mark = undefined;
  }

  const out: JournalsRead = {
    lines: [],
    generations: [],
    seq: mark?.seq ?? 0,
    generation: newest,
    mark: mark ?? { generation: 0, bytes: 0, seq: 0, folded: 0 },
    legacy: false,
  };
  let folded = mark?.folded;
  for (const { generation, file, parsed } of journals) {
    if (parsed.torn > 0 && !o.readOnly) o.log.warn({ file, bytes: parsed.torn }, tornMessage(file, parsed, !!mark));
    out.generations.push(generation);
    for (const line of parsed.lines) out.lines.push(line.records);
    if (parsed.format === 1) out.legacy = true;
    const last = parsed.format === 2 ? parsed.lines.at(-1)?.seq : undefined;
    if (last !== undefined) {
      // Without a mark, the lines before the oldest journal are taken to be in the files.
      folded ??= parsed.lines[0]!.seq! - 1;
      out.seq = Math.max(out.seq, last);
    }
    out.mark = { generation, bytes: last === undefined ? 0 : parsed.whole, seq: last ?? out.seq, folded: 0 };
  }
  out.mark = { ...out.mark, folded: folded ?? out.seq };
  return out;
}

/**
 * What is said of the bytes after a journal's last whole line, dropped. With a mark they are
 * past what it vouches for: an append a crash or a full disk cut short, never acknowledged
 * (the mark is written after a whole line, and only then is a flush acknowledged). Without
 * one (removed to go on from what is left, or a journal of an earlier postbot), nothing says
 * they were not acknowledged.
 */
function tornMessage(file: string, parsed: ParsedJournal, marked: boolean): string {
  const dropped = `dropped the last ${parsed.torn} bytes of ${file}, the start of a line never finished`;
  if (marked)
    return `${dropped}: an append a crash or a full disk cut short, never acknowledged, so nothing was done on its strength`;
  return `${dropped}: with no ${SYNCED_MARK_NAME} to say how far the journal had reached, it may have been acknowledged before it was cut, so an action of the last run may be done again`;
}

interface Journal {
  generation: number;
  file: string;
  parsed: ParsedJournal;
}

/**
 * The first break of the chain of journals, or of the mark (see the module comment, 2 and 3):
 * the file to blame, and what is wrong. Without a mark a break is only logged. A journal of
 * earlier postbots starts the chain anew.
 */
function check(
  journals: readonly Journal[],
  mark: SyncedMark | undefined,
  markFile: string,
  log: Logger,
): { file: string; problem: string } | undefined {
  /** The last line so far (undefined: none yet, or the chain starts anew), and where. */
  let last: number | undefined;
  let where = "";
  let floor = mark?.folded;
  let previous: Journal | undefined;
  for (const journal of journals) {
    const { generation, file, parsed } = journal;
    if (parsed.format === 1) {
      last = floor = undefined;
      previous = undefined;
      continue;
    }
    const first = parsed.lines[0]?.seq;
    if (first !== undefined) {
      const after = Math.max(last ?? -1, floor ?? -1);
      let problem: string | undefined;
      const blamed = previous?.file ?? file;
      const next = blamed === file ? "it" : `the next journal, ${basename(file)},`;
      if (after >= 0 && first > after + 1) {
        const before =
          last !== undefined && last >= (floor ?? -1)
            ? `entry ${last} in ${basename(where)}`
            : `entry ${after}, the last the files hold (${SYNCED_MARK_NAME})`;
        problem = `entries ${after + 1} to ${first - 1} are missing: ${next} starts at entry ${first}, after ${before}`;
      } else if (last !== undefined && first < last) {
        problem = `${next} starts at entry ${first}, before entry ${last} in ${basename(where)}: they do not follow each other`;
      }
      if (problem !== undefined) {
        if (mark) return { file: blamed, problem };
        log.warn(
          { file: blamed },
          `${blamed}: ${problem}; going on, as there is no ${SYNCED_MARK_NAME} to say they were written`,
        );
      }
      last = parsed.lines.at(-1)!.seq!;
      where = file;
    }
    previous = journal;
    if (mark && generation === mark.generation && mark.bytes > 0) {
      if (parsed.whole < mark.bytes)
        return {
          file,
          problem: `it holds ${parsed.whole} bytes of whole entries, but ${mark.bytes} bytes up to entry ${mark.seq} were written to it (${markFile}): it was cut after it was written`,
        };
      const at = parsed.lines.find((line) => line.end === mark.bytes);
      if (at?.seq !== mark.seq)
        return {
          file,
          problem: `it does not match ${markFile}: entry ${mark.seq} does not end at byte ${mark.bytes}; it was changed after it was written`,
        };
    }
  }
  if (mark && mark.bytes > 0 && !journals.some((j) => j.generation === mark.generation))
    return {
      file: markFile,
      problem: `it records ${mark.bytes} bytes written to ${journalName(mark.generation)}, which is missing`,
    };
  return undefined;
}
