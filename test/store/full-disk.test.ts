/**
 * The state store on a disk that fills up (test/helpers/filling-disk.ts: short writes, then
 * ENOSPC, as a 2 MB tmpfs does): a flush is acknowledged only once its whole line is on disk,
 * the journal and its synced mark never record a part of a line, and with `retry` (as `bot
 * start` opens it) a flush waits while the disk is full and completes once space returns. A
 * stop meanwhile gives up on what it cannot write, says so, and releases the lock.
 */
import { cp, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createClock, type AdjustableClock } from "../../src/clock.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { parseJournal } from "../../src/store/journal-line.ts";
import { readSyncedMark } from "../../src/store/synced-mark.ts";
import { StateNotSavedError } from "../../src/store/write-error.ts";
import { FillingDisk } from "../helpers/filling-disk.ts";
import { captureLogs } from "../helpers/log.ts";

let root: string;
let dir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-full-"));
  dir = join(root, "data");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const state = (...parts: string[]) => join(dir, "state", ...parts);
const journals = async () => (await readdir(state())).filter((n) => /^journal-\d+\.log$/.test(n)).sort();
/** A copy of the data directory as a crash would leave it now (the store keeps running on the original). */
async function crashCopy(): Promise<string> {
  const copy = join(root, `crash-${Math.random().toString(36).slice(2)}`);
  await cp(dir, copy, { recursive: true });
  await rm(join(copy, "state.lock"), { force: true });
  return copy;
}
/** Tracks whether a promise has settled. */
function watch(p: Promise<unknown>): { readonly settled: boolean } {
  const state = { settled: false };
  void p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}
/** Waits until the store's next try is scheduled on `clock` (the failed write, its truncation, are done), in `inMs`. */
const nextTryIn = (clock: AdjustableClock, inMs: number) =>
  vi.waitFor(() => expect(clock.waiting().map((t) => t.inMs)).toEqual([inMs]), { timeout: 10_000, interval: 5 });
const big = (n: number) => "x".repeat(n);

describe("a full disk", () => {
  it("a line the disk took only part of is not acknowledged, cut off again, and never recorded as written", async () => {
    const disk = new FillingDisk();
    const { logger } = captureLogs();
    const store = await openFileStore(dir, { logger, openJournal: disk.open }); // no retry: the flush rejects
    store.set("ledger", "greeter:reply:1", { state: "done" });
    await store.flush();
    const before = (await stat(state("journal-1.log"))).size;
    disk.fill(100); // the next line is 8 KB: the disk takes 100 bytes of it, then refuses
    store.set("ledger", "greeter:reply:2", { state: "pending", text: big(8_000) });
    await expect(store.flush()).rejects.toThrow(/cannot write the state in .*: ENOSPC/);
    expect(disk.short).toBe(1);
    expect(disk.refused).toBe(1);
    // What the disk took is cut back off: the journal ends with its last whole line, and the mark says so.
    const bytes = await readFile(state("journal-1.log"));
    expect(bytes.length).toBe(before);
    expect(parseJournal(bytes).torn).toBe(0);
    expect(readSyncedMark(state())).toMatchObject({ generation: 1, bytes: before, seq: 1 });
    // A crash now loses only what was never acknowledged, with no word of damage.
    const { lines, logger: reopened } = captureLogs();
    const copy = await openFileStore(await crashCopy(), { logger: reopened });
    expect(copy.get("ledger", "greeter:reply:1")).toEqual({ state: "done" });
    expect(copy.get("ledger", "greeter:reply:2")).toBeUndefined();
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    await copy.close();
    // Space again: the same line goes to the same journal, after the last whole one.
    disk.free();
    store.set("cursors", "greeter:mentions", { since_id: "7" });
    await store.flush();
    expect(await journals()).toEqual(["journal-1.log"]);
    expect(parseJournal(await readFile(state("journal-1.log"))).lines.map((l) => l.seq)).toEqual([1, 2]);
    await store.close();
    const again = await openFileStore(dir);
    expect(again.get("ledger", "greeter:reply:2")).toMatchObject({ state: "pending" });
    expect(again.get("cursors", "greeter:mentions")).toEqual({ since_id: "7" });
    await again.close();
  });

  it("with retry, a flush waits while the disk is full and completes once space returns; said once each way", async () => {
    const disk = new FillingDisk();
    const clock = createClock({ frozen: true });
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger, openJournal: disk.open, retry: { clock } });
    disk.fill(0);
    store.set("inbox:greeter", "m1", { kind: "mention", id: "m1" });
    const first = store.flush();
    const firstState = watch(first);
    await nextTryIn(clock, 1_000);
    store.set("inbox:greeter", "m2", { kind: "mention", id: "m2" });
    const second = store.flush();
    const secondState = watch(second);
    // Tried again after 1 s, then 2 s...: still full, the flushes still wait.
    for (const wait of [1_000, 2_000]) {
      await clock.advance(wait);
      await nextTryIn(clock, wait * 2);
    }
    expect([firstState.settled, secondState.settled]).toEqual([false, false]);
    expect(disk.refused).toBe(3);
    disk.free();
    await clock.advance(4_000);
    await Promise.all([first, second]);
    const said = lines.filter((l) => (l.level as number) >= 30).map((l) => String(l.msg));
    expect(said.filter((m) => m.startsWith("cannot write the state"))).toHaveLength(1);
    expect(said.find((m) => m.startsWith("cannot write the state"))).toMatch(
      /: ENOSPC .*; free space on its disk \(or raise the quota\)\. Meanwhile postbot keeps the changes in memory and tries again/,
    );
    expect(said.filter((m) => m.startsWith("the state in") && m.includes("is written again"))).toHaveLength(1);
    // Both are on disk, as a crash would find them.
    const copy = await openFileStore(await crashCopy());
    expect(copy.entries("inbox:greeter").map(([k]) => k)).toEqual(["m1", "m2"]);
    await copy.close();
    await store.close();
  });

  it("a stop while the disk is full gives up on what it cannot write, says what and why, and releases the lock", async () => {
    const disk = new FillingDisk();
    const clock = createClock({ frozen: true });
    const { logger } = captureLogs();
    const store = await openFileStore(dir, { logger, openJournal: disk.open, retry: { clock } });
    store.set("ledger", "greeter:reply:1", { state: "done" });
    await store.flush();
    disk.fill(10);
    store.set("ledger", "greeter:reply:2", { state: "pending" });
    const waiting = store.flush();
    const waitingState = watch(waiting);
    await nextTryIn(clock, 1_000);
    expect(waitingState.settled).toBe(false);
    store.stopping(); // tried once more, then given up
    await expect(waiting).rejects.toBeInstanceOf(StateNotSavedError);
    const closing = store.close();
    await expect(closing).rejects.toBeInstanceOf(StateNotSavedError);
    await expect(closing).rejects.toThrow(
      /^stopped without saving the last 1 changes to .*state: ENOSPC .*; free space on its disk \(or raise the quota\) before the next start\. Nothing sent is lost or sent twice/,
    );
    await expect(stat(join(dir, "state.lock"))).rejects.toThrow(/ENOENT/);
    expect(clock.pending()).toBe(0); // no try left scheduled
    // The next start finds what was written, and nothing of the line the disk cut.
    const { lines, logger: reopened } = captureLogs();
    const again = await openFileStore(dir, { logger: reopened });
    expect(again.get("ledger", "greeter:reply:1")).toEqual({ state: "done" });
    expect(again.get("ledger", "greeter:reply:2")).toBeUndefined();
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    await again.close();
  });
});
