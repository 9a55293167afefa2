/**
 * The file store's memory: every value (in {@link Namespaces}, so it behaves exactly like
 * the memory store), which file each one belongs in (by the {@link ShardRule}), which values
 * changed since the last flush (the journal line it appends) and which files changed since
 * they were last written (what a checkpoint writes).
 *
 * Each entry carries a sequence number, its place in its namespace's insertion order, so
 * that a namespace spread over many files (the ledger: one part per bot) comes back in the
 * same order after a restart, and "drop the oldest" still drops the oldest.
 *
 * Some files are never journaled (`unjournaled`: the credentials, which must be nowhere but
 * their own 0600 file): their changes are left out of the journal lines, and the files are
 * handed out by {@link ShardedState.takeUnjournaled} to be written whole at the next flush
 * instead of by a checkpoint.
 */
import { Namespaces } from "./namespaces.ts";
import type { JournalRecord } from "./journal-line.ts";
import { applyDelta, DELTA_NAMESPACE, WINDOW_DELTA, windowDelta } from "./window-delta.ts";
import type { ShardPath, ShardRule } from "./shards.ts";
import { STATE_FILE_VERSION, type StateFileData, type StoredEntry } from "./state-file.ts";
import type { Retention } from "./store.ts";

interface Shard {
  /** Per namespace, the keys in this file and their sequence numbers. */
  readonly members: Map<string, Map<string, number>>;
}

/** A value read from a file, before the files are merged. */
interface Loaded {
  key: string;
  value: unknown;
  seq: number;
  file: ShardPath;
}

export class ShardedState {
  private readonly spaces = new Namespaces((ns, key) => this.forget(ns, key));
  private readonly shards = new Map<ShardPath, Shard>();
  private readonly dirty = new Set<ShardPath>();
  /** Unjournaled files changed since last written: the next flush writes them whole. */
  private readonly dirtyUnjournaled = new Set<ShardPath>();
  /** Keys changed since the last {@link takeChanges}, by namespace: what the next journal line holds. */
  private changed = new Map<string, Set<string>>();
  private nextSeq = 0;
  /**
   * The budget windows as last journaled (the arrays themselves: a `set` stores a new copy,
   * an `adopt` a value nobody changes, and neither changes them), so the next line can carry
   * only what changed (window-delta.ts).
   */
  private journaled = new Map<string, unknown>();
  private loading: Map<string, Loaded[]> | undefined = new Map();

  constructor(
    private readonly rule: ShardRule,
    /** Files whose values never go into the journal (see the module comment). */
    private readonly unjournaled: ReadonlySet<ShardPath> = new Set(),
  ) {}

  /**
   * Adds a file's contents (before {@link finishLoading}). A file without sequence numbers
   * (the single file of version 1) keeps its order: its entries count from the last seen.
   */
  load(file: ShardPath, data: StateFileData): void {
    const loading = this.loading!;
    for (const [ns, entries] of Object.entries(data.namespaces)) {
      let list = loading.get(ns);
      if (!list) loading.set(ns, (list = []));
      for (const [key, value, stored] of entries) {
        const seq = stored ?? this.nextSeq;
        this.nextSeq = Math.max(this.nextSeq, seq + 1);
        list.push({ key, value, seq, file });
      }
    }
  }

  /**
   * Merges what was loaded: each namespace in sequence order; a key found in two files (a
   * crash while it moved) keeps its newest copy; a value in a file other than the rule's
   * marks both files, so the next write puts it where it belongs.
   */
  finishLoading(): void {
    if (!this.loading) return;
    for (const [ns, list] of this.loading) {
      list.sort((a, b) => a.seq - b.seq);
      for (const entry of list) {
        const shardPath = this.rule(ns, entry.key);
        if (this.spaces.has(ns, entry.key)) this.remove(ns, entry.key); // an older copy
        this.place(shardPath, ns, entry.key, entry.seq);
        this.spaces.adopt(ns, entry.key, entry.value);
        if (entry.file !== shardPath) {
          this.markDirty(entry.file);
          this.markDirty(shardPath);
        }
      }
    }
    this.loading = undefined;
    this.changed.clear(); // what was read is on disk already
  }

  /** Marks every file as changed: for writing the whole state somewhere new (a migration). */
  markAllDirty(): void {
    for (const path of this.shards.keys()) this.markDirty(path);
  }

  get<T>(namespace: string, key: string): T | undefined {
    return this.spaces.get<T>(namespace, key);
  }

  entries<T>(namespace: string): Array<[string, T]> {
    return this.spaces.entries<T>(namespace);
  }

  entriesOf<T>(namespace: string, prefix: string): Array<[string, T]> {
    return this.spaces.entriesOf<T>(namespace, prefix);
  }

  /** Sets a value (a copy of it; with `adopt`, the value itself: see Store.adopt). */
  set(namespace: string, key: string, value: unknown, adopt = false): void {
    const path = this.rule(namespace, key);
    if (!this.spaces.has(namespace, key)) this.place(path, namespace, key, this.nextSeq++);
    this.markDirty(path);
    this.noteChange(namespace, key);
    // May evict others (and, with a limit of 0, this one).
    if (adopt) this.spaces.adopt(namespace, key, value);
    else this.spaces.set(namespace, key, value);
  }

  /**
   * Applies a journal line's changes (on open, after the files). A value set again under the
   * same sequence number keeps its place; otherwise it was deleted and added anew since, and
   * goes last, like any newest entry.
   */
  replay(records: readonly JournalRecord[]): void {
    for (const record of records) {
      const [ns, key] = record;
      if (record.length === 2) {
        this.delete(ns, key);
        continue;
      }
      const seq = record[3];
      const path = this.rule(ns, key);
      if (this.shards.get(path)?.members.get(ns)?.get(key) !== seq) {
        if (this.spaces.has(ns, key)) this.remove(ns, key);
        this.place(path, ns, key, seq);
        this.nextSeq = Math.max(this.nextSeq, seq + 1);
      }
      this.markDirty(path);
      this.spaces.adopt(ns, key, record.length === 5 ? applyDelta(this.spaces.get(ns, key), record[2]) : record[2]);
    }
    this.changed.clear(); // replayed changes are in a journal already
  }

  /**
   * The changes since the last call, as a journal line's records (values as they are now),
   * but those of unjournaled files: {@link takeUnjournaled} gives their files.
   */
  takeChanges(): JournalRecord[] {
    const records: JournalRecord[] = [];
    for (const [ns, keys] of this.changed) {
      for (const key of keys) {
        const path = this.rule(ns, key);
        if (this.unjournaled.has(path)) continue;
        if (!this.spaces.has(ns, key)) {
          records.push([ns, key]);
          if (ns === DELTA_NAMESPACE) this.journaled.delete(key);
          continue;
        }
        const seq = this.shards.get(path)!.members.get(ns)!.get(key)!;
        const value = this.spaces.get(ns, key);
        if (ns === DELTA_NAMESPACE) {
          const delta = windowDelta(this.journaled.get(key), value);
          this.journaled.set(key, value);
          if (delta) {
            records.push([ns, key, delta, seq, WINDOW_DELTA]);
            continue;
          }
        }
        records.push([ns, key, value, seq]);
      }
    }
    this.changed = new Map();
    return records;
  }

  /** Puts changes back to be taken again, after their journal append failed. */
  restoreChanges(records: readonly JournalRecord[]): void {
    for (const [ns, key] of records) {
      this.noteChange(ns, key);
      // The failed line may not be on disk: the next one carries these windows whole.
      if (ns === DELTA_NAMESPACE) this.journaled.delete(key);
    }
  }

  /** Returns whether there was a value to delete. */
  delete(namespace: string, key: string): boolean {
    if (!this.spaces.has(namespace, key)) return false;
    this.remove(namespace, key);
    return true;
  }

  retain(namespace: string, retention: Retention): void {
    this.spaces.retain(namespace, retention);
  }

  /**
   * Files changed since last taken (unjournaled ones aside); they count as clean. Their contents are read with
   * {@link contents} as each is written, not all at once: a checkpoint takes thousands of
   * files, and gathering them in one piece held the event loop for 60-200 ms.
   */
  takeDirty(): ShardPath[] {
    const out = [...this.dirty];
    this.dirty.clear();
    return out;
  }

  /**
   * A file's contents as of now, or null when it has nothing left (remove it). Read later than
   * {@link takeDirty}, a file may hold values set since; those are in the journal after it too,
   * and replaying a journal over newer values gives the same state (see window-delta.ts for
   * the windows), so the files and the journals still make the whole state.
   */
  contents(path: ShardPath): StateFileData | null {
    const shard = this.shards.get(path);
    if (!shard) return null;
    if (shard.members.size === 0) {
      this.shards.delete(path);
      return null;
    }
    return this.serialize(shard);
  }

  /**
   * The unjournaled files changed since last taken (to be written whole now, with
   * {@link contents}); they count as written.
   */
  takeUnjournaled(): ShardPath[] {
    if (this.dirtyUnjournaled.size === 0) return [];
    const out = [...this.dirtyUnjournaled];
    this.dirtyUnjournaled.clear();
    return out;
  }

  /** Marks files changed (again, after a write of them failed). */
  markDirty(path: ShardPath): void {
    if (this.unjournaled.has(path)) this.dirtyUnjournaled.add(path);
    else this.dirty.add(path);
  }

  /** Whether an unjournaled file changed since last taken. */
  get hasUnjournaledChanges(): boolean {
    return this.dirtyUnjournaled.size > 0;
  }

  get hasChanges(): boolean {
    return this.dirty.size > 0 || this.dirtyUnjournaled.size > 0;
  }

  private serialize(shard: Shard): StateFileData | null {
    if (shard.members.size === 0) return null;
    const namespaces: Record<string, StoredEntry[]> = {};
    for (const [ns, keys] of shard.members) {
      const entries: StoredEntry[] = [];
      for (const [key, seq] of keys) entries.push([key, this.spaces.get(ns, key), seq]);
      namespaces[ns] = entries;
    }
    return { version: STATE_FILE_VERSION, namespaces };
  }

  private place(path: ShardPath, ns: string, key: string, seq: number): void {
    let shard = this.shards.get(path);
    if (!shard) this.shards.set(path, (shard = { members: new Map() }));
    let keys = shard.members.get(ns);
    if (!keys) shard.members.set(ns, (keys = new Map()));
    keys.set(key, seq);
  }

  private remove(ns: string, key: string): void {
    this.spaces.delete(ns, key);
    this.forget(ns, key);
  }

  private noteChange(ns: string, key: string): void {
    let keys = this.changed.get(ns);
    if (!keys) this.changed.set(ns, (keys = new Set()));
    keys.add(key);
  }

  /** Drops an entry from its file's members (the value is already gone or going). */
  private forget(ns: string, key: string): void {
    this.noteChange(ns, key);
    const path = this.rule(ns, key);
    const shard = this.shards.get(path);
    const keys = shard?.members.get(ns);
    if (!keys?.delete(key)) return;
    if (keys.size === 0) shard!.members.delete(ns);
    this.markDirty(path);
  }
}
