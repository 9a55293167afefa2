/**
 * The writing side of the file store (file-store.ts): a change bumps a count, a flush waits
 * until the journal holds it, one append carries every change made before it, the
 * credentials file is written whole before the journal line that follows it, checkpoints
 * bring the files up to date in the background, and a failing disk is tried again while the
 * flushes wait. It is a class of its own because these share one small state machine (what
 * is written, what runs, who waits) that the store's reading side never touches.
 */
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { describeFsError, fsAdvice } from "./fs-error.ts";
import type { Journal } from "./journal.ts";
import { listJournals } from "./journal.ts";
import type { ShardedState } from "./sharded-state.ts";
import { PARALLEL_FILES, writeStateFiles } from "./state-dir.ts";
import type { StateLock } from "./state-lock.ts";
import { SYNCED_MARK_NAME } from "./synced-mark.ts";
import { StateNotSavedError } from "./write-error.ts";
import { WriteOutage } from "./write-outage.ts";

/** How long a change nobody flushes waits before it is appended (joined by what comes meanwhile). */
const AUTOSAVE_MS = 50;
/** The first wait before a failed write is tried again (`retry`); doubled each time, up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 1_000;
/** The longest wait between two tries of a write that fails: what space coming back may wait to be used. */
const RETRY_MAX_MS = 10_000;
/** While writes keep failing, the log says so again this often. */
const STILL_FAILING_LOG_MS = 5 * 60_000;
/**
 * Files a checkpoint writes at once: few, so the journal's appends (which every flush waits
 * for) find a free thread of Node's file-system pool (4 by default) while it runs.
 */
const CHECKPOINT_PARALLEL = 2;

/** What the writer writes with, and how it treats a failing disk. */
export interface StateWriterOptions {
  log: Logger;
  readOnly: boolean;
  lock: StateLock | undefined;
  /** None when read-only: nothing is ever written. */
  journal: Journal | undefined;
  /** Journal bytes after which the files are brought up to date. */
  checkpointBytes: number;
  /** Fold what the journals on disk hold into the files at once. */
  foldNow: boolean;
  /** Keep trying a write that fails, on this clock, while the flushes wait (`FileStoreOptions.retry`). */
  retry?: { clock: Clock };
}

interface Waiter {
  version: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Writes a {@link ShardedState} to its directory: see the module comment. */
export class StateWriter {
  /** Journal appends so far (one per flush that had changes). */
  writes = 0;
  /** Writes so far of the journal (one per append) and of the files (one per file brought up to date). */
  filesWritten = 0;
  /** Bytes written so far, to the journal and to the files. */
  bytesWritten = 0;
  /** The checkpoint that folds the last run's journals into the files, when there were any. */
  readonly folding: Promise<void> | undefined;
  /** Failed writes tried again on the clock, while the flushes wait (`retry`); without it, a flush that cannot write rejects. */
  private readonly outage: WriteOutage | undefined;
  /** Set by `stopping()`: a write that fails is no longer tried again, and what waits for it rejects. */
  private giveUp = false;
  /** Bumped by every change; `written` is the change count the journal holds. */
  private version = 0;
  private written = 0;
  private running = false;
  private scheduled = false;
  private autosave: NodeJS.Timeout | undefined;
  /** The append a flush asked for, at the end of this turn of the event loop. */
  private soon: NodeJS.Immediate | undefined;
  private closed = false;
  private waiters: Waiter[] = [];
  private checkpointing: Promise<void> | undefined;
  /** The write of the unjournaled files (the credentials) in progress. */
  private unjournaledWrite: Promise<void> | undefined;
  private readonly made: Set<string>;

  constructor(
    private readonly stateDir: string,
    private readonly state: ShardedState,
    private readonly o: StateWriterOptions,
  ) {
    this.made = new Set<string>([stateDir]);
    this.outage = o.retry
      ? new WriteOutage({
          stateDir,
          clock: o.retry.clock,
          log: o.log,
          firstMs: RETRY_FIRST_MS,
          maxMs: RETRY_MAX_MS,
          remindMs: STILL_FAILING_LOG_MS,
        })
      : undefined;
    // Journals left by the last run: fold them into the files.
    this.folding = o.foldNow ? this.checkpoint() : undefined;
  }

  /** Something changed: it is appended a moment later unless a flush asks sooner. */
  changed(): void {
    if (this.closed) throw new Error(`the state store ${this.stateDir} is closed`);
    this.version++;
    if (!this.scheduled && !this.o.readOnly) {
      this.scheduled = true;
      // A change nobody awaits (a finished action, a budget window) is written a moment
      // later, with whatever comes meanwhile: at 100 actions a second the next action's
      // flush carries it, instead of one more append and fsync of its own.
      this.autosave = setTimeout(() => void this.run(), AUTOSAVE_MS);
    }
  }

  /** Resolves once every change made before it is on disk. */
  flush(): Promise<void> {
    if (this.o.readOnly || this.written >= this.version) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ version: this.version, resolve, reject });
      // Appended once this turn of the event loop is over, not at once: what the turn's
      // promise chains set meanwhile joins the same append. A streamed mention's inbox and
      // cursor are flushed as it arrives, and the reply its handler starts at once flushes its
      // ledger mark a few microtasks later: one durable write before the reply leaves, not
      // two in a row (at 100 mentions a second, each a wait on the disk).
      if (!this.running) this.soon ??= setImmediate(() => void this.run());
    });
  }

  /** The process stops: a write that fails is tried once more, then no longer (see `FileStore.stopping`). */
  stopping(): void {
    if (this.giveUp) return;
    this.giveUp = true;
    this.outage?.cancel();
    // The write waiting for its next try is tried now, once: what waits for it hears how it went.
    if (this.outage?.failing && !this.running) void this.run(true);
  }

  /** Flushes, leaves the files whole and no journal behind, and releases the lock (always). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.stopping();
    const unsaved = await this.flush().then(
      () => undefined,
      (error: unknown) => error,
    );
    this.closed = true;
    await this.checkpointing;
    const { journal, lock } = this.o;
    // Leaves the files whole and no journal behind; nothing else waits now.
    if (unsaved === undefined) await this.checkpoint(PARALLEL_FILES);
    await journal?.close();
    // With no journal left, the mark has nothing to vouch for.
    if (unsaved === undefined && journal && (await listJournals(this.stateDir)).length === 0)
      await unlink(join(this.stateDir, SYNCED_MARK_NAME)).catch(() => undefined);
    await lock?.release();
    if (unsaved !== undefined) throw notSaved(this.stateDir, unsaved, this.outage?.seconds() ?? 0);
  }

  private settle(error?: Error): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (error) w.reject(error);
      else if (w.version <= this.written) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Writes the unjournaled files that changed (credentials.json) whole, one write at a time
   * (a flush and a checkpoint may both ask); resolves once what changed before the call is on
   * disk, including what a write already under way holds.
   */
  private async writeUnjournaled(): Promise<void> {
    while (this.unjournaledWrite) await this.unjournaledWrite.catch(() => undefined);
    const paths = this.state.takeUnjournaled();
    if (paths.length === 0) return;
    this.unjournaledWrite = (async () => {
      try {
        const cost = await writeStateFiles(this.stateDir, paths, (path) => this.state.contents(path), this.made);
        this.filesWritten += cost.files;
        this.bytesWritten += cost.bytes;
      } catch (error) {
        for (const path of paths) this.state.markDirty(path);
        throw error;
      }
    })().finally(() => {
      this.unjournaledWrite = undefined;
    });
    await this.unjournaledWrite;
  }

  /**
   * Appends until the journal holds every change; one append covers all changes made before
   * it. While writes fail (`retry`), only the outage's next try (`retrying`) writes: a change
   * or a flush meanwhile waits for it.
   */
  private async run(retrying = false): Promise<void> {
    this.scheduled = false;
    clearTimeout(this.autosave);
    clearImmediate(this.soon);
    this.soon = undefined;
    const { journal } = this.o;
    if (this.running || !journal) return;
    if (this.outage?.failing && !retrying && !this.giveUp) return;
    this.running = true;
    try {
      while (this.written < this.version) {
        const target = this.version;
        const records = this.state.takeChanges();
        try {
          // The credentials first, whole: they are never in the journal (see file-store.ts).
          if (this.unjournaledWrite || this.state.hasUnjournaledChanges) await this.writeUnjournaled();
          if (records.length > 0) {
            this.bytesWritten += await journal.append(records);
            this.filesWritten++;
            this.writes++;
          }
        } catch (error) {
          this.state.restoreChanges(records);
          throw error;
        }
        this.written = target;
        this.outage?.ended(); // said before what waited goes on
        this.settle();
        if (journal.size >= this.o.checkpointBytes) void this.checkpoint();
      }
    } catch (cause) {
      this.failed(cause);
    } finally {
      this.running = false;
    }
  }

  /** A write failed: tried again later while the flushes wait (`retry`, not stopping), or the flushes reject. */
  private failed(cause: unknown): void {
    const unwritten = this.version - this.written;
    if (this.outage && !this.giveUp) return this.outage.failed(cause, unwritten, () => void this.run(true));
    if (this.giveUp)
      return this.settle(new StateNotSavedError(`not written: ${describeFsError(cause)}`, unwritten, { cause }));
    const error = new Error(
      `cannot write the state in ${this.stateDir}: ${describeFsError(cause)}; postbot keeps the state in memory and retries on the next change`,
      { cause },
    );
    this.o.log.error({ dir: this.stateDir, err: cause }, error.message);
    this.settle(error);
  }

  /**
   * Brings the files up to date with everything journaled so far, then removes those
   * journals. Appends go on meanwhile, to a new journal; a crash at any point leaves the files
   * and the journals still on disk, which together are the whole state.
   */
  private checkpoint(parallel = CHECKPOINT_PARALLEL): Promise<void> {
    const { journal, log } = this.o;
    if (!journal) return Promise.resolve();
    this.checkpointing ??= (async () => {
      const upTo = journal.rotate();
      const upToSeq = journal.started;
      const batch = this.state.takeDirty();
      try {
        // First: a value moving into credentials.json (found in another file) is there before it leaves the other.
        await this.writeUnjournaled();
        const cost = await writeStateFiles(
          this.stateDir,
          batch,
          (path) => this.state.contents(path),
          this.made,
          parallel,
        );
        this.filesWritten += cost.files;
        this.bytesWritten += cost.bytes;
        await journal.removeUpTo(upTo, upToSeq);
      } catch (error) {
        for (const path of batch) this.state.markDirty(path);
        log.error(
          { dir: this.stateDir, err: error },
          `cannot bring the files in ${this.stateDir} up to date: ${describeFsError(error)}; the journal keeps the state, and postbot tries again later`,
        );
      } finally {
        this.checkpointing = undefined;
      }
    })();
    return this.checkpointing;
  }
}

/**
 * What a close that could not write says (the lock is released all the same): how much was
 * not saved and why, what to do, and why nothing sent is lost: each action's ledger mark was
 * on disk before its request left (the next start checks those with the service), and a
 * trigger's cursor moves only in the write that saves what it fetched (the next start fetches
 * it again).
 */
function notSaved(stateDir: string, error: unknown, seconds: number): StateNotSavedError {
  const unsaved = error instanceof StateNotSavedError ? error.unsaved : 0;
  const cause = error instanceof StateNotSavedError ? error.cause : error;
  const since = seconds > 0 ? ` (writes had been failing for ${seconds} s)` : "";
  return new StateNotSavedError(
    `stopped without saving the last ${unsaved} changes to ${stateDir}${since}: ${describeFsError(cause)}; ${fsAdvice(cause, "check the state directory's permissions")} before the next start. Nothing sent is lost or sent twice: each action's ledger mark was on disk before its request left, and the next start checks those with the service; what this run fetched and could not save (mentions, messages) is fetched again`,
    unsaved,
    { cause },
  );
}
