/**
 * Budget windows are journaled by what changed (src/store/window-delta.ts): a journal line
 * stays a few bytes while the app's window holds thousands of times, and every way of
 * reading the journal back (in order, after a crash, over newer files, journals written
 * before deltas existed) gives the same windows.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openFileStore } from "../../src/store/file-store.ts";
import { applyDelta, windowDelta } from "../../src/store/window-delta.ts";
import { captureLogs } from "../helpers/log.ts";

let root: string;
let dir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-delta-"));
  dir = join(root, "data");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const state = (...parts: string[]) => join(dir, "state", ...parts);
const KEY = "POST /2/posts|a:app1|24h";
const range = (from: number, n: number, step = 10) => Array.from({ length: n }, (_, i) => from + i * step);

describe("windowDelta", () => {
  it("round-trips a window that slid: times gone at the front, new ones at the end, equal times kept apart", () => {
    const before = [...range(0, 40), 400, 400];
    const after = [...range(100, 30), 400, 400, 401, 401, 402];
    const delta = windowDelta(before, after)!;
    expect(delta).toEqual([100, 400, 401, 401, 402]);
    expect(applyDelta(before, delta)).toEqual(after);
  });

  it("round-trips the last times moved to their answers' times (the queue's correction)", () => {
    const before = [...range(0, 30), 500];
    const after = [...range(0, 30), 507, 508];
    const delta = windowDelta(before, after)!;
    expect(delta).toEqual([0, 290, 507, 508]);
    expect(applyDelta(before, delta)).toEqual(after);
  });

  it("round-trips one of two requests of the same millisecond moved to its answer's time (a delta, not the whole window)", () => {
    const before = [...range(0, 30), 500, 500];
    const after = [...range(10, 29), 500, 507];
    const delta = windowDelta(before, after)!;
    expect(delta).toEqual([10, 290, 500, 507]);
    expect(applyDelta(before, delta)).toEqual(after);
    // Three of a kind, two moved; and the equal times first in the window.
    const three = [...range(0, 30), 600, 600, 600];
    const moved = [...range(0, 30), 600, 601, 602];
    expect(applyDelta(three, windowDelta(three, moved)!)).toEqual(moved);
    const front = [5, 5, ...range(10, 30)];
    const frontAfter = [5, ...range(10, 30)]; // one of the two given back: journaled whole
    expect(windowDelta(front, frontAfter)).toBeUndefined();
  });

  it("gives up (the value is journaled whole) when a change is not at the ends, or nothing is kept", () => {
    const before = range(0, 40);
    const retimed = [...before.slice(0, 10), 95, ...before.slice(10)]; // a time moved into the middle
    expect(windowDelta(before, retimed)).toBeUndefined();
    const forgotten = [...before.slice(0, 5), ...before.slice(6), 1000]; // one time given back
    expect(windowDelta(before, forgotten)).toBeUndefined();
    expect(windowDelta(before, range(1000, 40))).toBeUndefined();
    expect(windowDelta(undefined, before)).toBeUndefined();
    expect(windowDelta(range(0, 3), range(0, 4))).toBeUndefined(); // short: whole
  });
});

describe("budget windows in the journal", () => {
  it("a request's flush carries a few numbers, not the window, and a crash gives back every window", async () => {
    const store = await openFileStore(dir);
    let day = range(1_000, 5_000);
    store.set("budget.windows", KEY, day);
    await store.flush();
    const sizes: number[] = [];
    for (let i = 0; i < 50; i++) {
      day = [...day.slice(i % 3), 100_000 + i]; // a request at the end; older ones leave the window
      store.set("budget.windows", KEY, day);
      const before = store.bytesWritten;
      await store.flush();
      sizes.push(store.bytesWritten - before);
    }
    expect(Math.max(...sizes)).toBeLessThan(100); // the whole window is ~40 KB
    // A crash (never closed): the journal replayed in order.
    const again = await openFileStore(dir);
    expect(again.get("budget.windows", KEY)).toEqual(day);
    // Its first flush writes the window whole: a new journal has no value before it.
    again.set("budget.windows", KEY, [...day, 200_000]);
    const before = again.bytesWritten;
    await again.flush();
    expect(again.bytesWritten - before).toBeGreaterThan(20_000);
    await again.close();
    const third = await openFileStore(dir);
    expect(third.get("budget.windows", KEY)).toEqual([...day, 200_000]);
    await third.close();
  });

  it("replays over files a checkpoint wrote before the journals were removed (a crash in between)", async () => {
    const store = await openFileStore(dir, { checkpointBytes: 1_000_000_000 });
    let day = range(1_000, 2_000);
    store.set("budget.windows", KEY, day);
    await store.flush();
    for (let i = 0; i < 20; i++) {
      day = [...day.slice(2), 50_000 + i];
      store.set("budget.windows", KEY, day);
      await store.flush();
    }
    const journals = (await readdir(state())).filter((n) => n.startsWith("journal-"));
    const kept = await Promise.all(journals.map(async (n) => [n, await readFile(state(n))] as const));
    await store.close(); // files written, journals removed
    for (const [n, text] of kept) await writeFile(state(n), text); // ... as if the crash came before the removal
    const again = await openFileStore(dir);
    expect(again.get("budget.windows", KEY)).toEqual(day);
    await again.close();
  });

  it("a journal written before deltas existed (whole windows) still replays", async () => {
    await mkdir(state(), { recursive: true, mode: 0o700 });
    const old = range(1_000, 100);
    const newer = [...old.slice(1), 9_999];
    await writeFile(
      state("journal-1.log"),
      `${JSON.stringify([["budget.windows", KEY, old, 0]])}\n${JSON.stringify([["budget.windows", KEY, newer, 0]])}\n`,
      { mode: 0o600 },
    );
    const store = await openFileStore(dir);
    expect(store.get("budget.windows", KEY)).toEqual(newer);
    await store.close();
  });

  it("after a failed append the next line carries the window whole", async () => {
    const { logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    await mkdir(state("journal-1.log")); // a directory where the journal must go: the append fails
    let day = range(1_000, 100);
    store.set("budget.windows", KEY, day);
    await expect(store.flush()).rejects.toThrow(/cannot write the state/);
    day = [...day.slice(1), 5_000];
    store.set("budget.windows", KEY, day);
    await store.flush(); // to the next journal: no line before it is on disk, so the window goes whole
    await rmdir(state("journal-1.log"));
    const again = await openFileStore(dir);
    expect(again.get("budget.windows", KEY)).toEqual(day);
    await again.close();
  });
});
