import { constants } from "node:fs";
import { appendFile, chmod, mkdir, readFile, readdir, readlink, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp } from "node:fs/promises";
import { UserError } from "../../src/errors.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import type { Store } from "../../src/store/index.ts";
import { encodeLine, parseJournal } from "../../src/store/journal-line.ts";
import { captureLogs } from "../helpers/log.ts";
import { openFilesUnder } from "../helpers/open-files.ts";

let root: string;
let dir: string;
/** Stores a test leaves open to play a crash: closed once it is done with them, so their journals' handles are too. */
const crashed: Store[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-store-"));
  dir = join(root, "data");
});
afterEach(async () => {
  for (const store of crashed.splice(0)) await store.close();
  // Nothing of the test's directory left open (test/helpers/open-files.ts).
  const held = await openFilesUnder(root);
  await rm(root, { recursive: true, force: true });
  expect(held).toEqual([]);
});

/** `store`, left open as a crash leaves it (never closed while the test runs). */
const crash = (store: Store) => {
  crashed.push(store);
};

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const readJson = async (path: string) =>
  JSON.parse(await readFile(path, "utf8")) as { version: number; namespaces: Record<string, unknown[][]> };
const state = (...parts: string[]) => join(dir, "state", ...parts);
/** A journal's lines, each the records it holds (its checksum checked). */
const linesOf = (text: string) => parseJournal(Buffer.from(text)).lines.map((l) => l.records);
/** The state's JSON files, relative to the state directory, sorted. */
const stateFiles = async () =>
  (await readdir(state(), { recursive: true }))
    .map(String)
    .filter((f) => f.endsWith(".json"))
    .sort();

describe("openFileStore", () => {
  it("creates private directories and 0600 files that stay 0600 across rewrites", async () => {
    const store = await openFileStore(dir, { checkpointBytes: 1 }); // the files are brought up to date after every flush
    store.set("auth:accounts", "greeter", { token: "t", token_secret: "s" });
    store.set("cursors", "greeter:mentions", { since_id: "1" });
    await store.flush();
    for (let i = 0; i < 3; i++) {
      store.set("cursors", "greeter:mentions", { since_id: String(i) });
      await store.flush();
      for (const f of await stateFiles()) expect(await modeOf(state(f)), f).toBe(0o600);
    }
    await store.close();
    for (const d of [dir, state(), state("bots")]) expect(await modeOf(d)).toBe(0o700);
    for (const f of await stateFiles()) expect(await modeOf(state(f)), f).toBe(0o600);
    // Nothing but the files is left behind: no temporary file, no journal, no lock.
    expect(await readdir(dir)).toEqual(["state"]);
    expect((await readdir(state(), { recursive: true })).sort()).toEqual([
      "bots",
      "bots/greeter.json",
      "credentials.json",
    ]);
  });

  it("a flush appends one journal line with only what changed, and is durable when it resolves", async () => {
    const store = await openFileStore(dir);
    for (const bot of ["ann", "bob", "cid"]) {
      store.set(`kv:${bot}`, "greeting", "hi");
      store.set("ledger", `${bot}:like:1`, { state: "done" });
    }
    await store.flush();
    expect(store.writes).toBe(1);
    const journal = await readFile(state("journal-1.log"), "utf8");
    expect(journal.split("\n")).toHaveLength(2); // one line and its newline
    expect(linesOf(journal)[0]).toHaveLength(6);
    // What one more change costs does not grow with the state.
    const before = store.bytesWritten;
    store.set("kv:ann", "greeting", "hello");
    await store.flush();
    expect(store.bytesWritten - before).toBe(encodeLine(2, [["kv:ann", "greeting", "hello", 0]]).length);
    // A crash now (the store abandoned, never closed) loses nothing that was flushed.
    crash(store);
    const again = await openFileStore(dir);
    expect(again.get("kv:ann", "greeting")).toBe("hello");
    expect(again.entries("ledger").map(([k]) => k)).toEqual(["ann:like:1", "bob:like:1", "cid:like:1"]);
    await again.close();
  });

  it("appends to a journal opened for synchronous data writes, so a flush is one write call (no fdatasync after it)", async () => {
    const store = await openFileStore(dir);
    store.set("kv:ann", "greeting", "hi");
    await store.flush();
    // The open descriptor of the journal, as the kernel sees it (Linux: /proc/self/fdinfo).
    const fds = await readdir("/proc/self/fd");
    const links = await Promise.all(
      fds.map(async (fd) => [fd, await readlink(`/proc/self/fd/${fd}`).catch(() => "")] as const),
    );
    const fd = links.find(([, target]) => target === state("journal-1.log"))?.[0];
    expect(fd).toBeDefined();
    const flags = Number.parseInt(/flags:\s*([0-7]+)/.exec(await readFile(`/proc/self/fdinfo/${fd}`, "utf8"))![1]!, 8);
    expect(flags & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(flags & constants.O_APPEND).toBe(constants.O_APPEND);
    await store.close();
  });

  it("adopts a value as it is (no copy) and journals it like a set one", async () => {
    const store = await openFileStore(dir);
    const times = [1, 2, 3];
    store.adopt!("budget.windows", "POST /2/posts|a:app1|15m", times);
    expect(store.get("budget.windows", "POST /2/posts|a:app1|15m")).toBe(times);
    const copied = { a: 1 };
    store.set("kv:ann", "copied", copied);
    expect(store.get("kv:ann", "copied")).not.toBe(copied);
    await store.flush();
    crash(store);
    const again = await openFileStore(dir); // a crash: the journal alone holds them
    expect(again.get("budget.windows", "POST /2/posts|a:app1|15m")).toEqual([1, 2, 3]);
    expect(again.get("kv:ann", "copied")).toEqual({ a: 1 });
    await again.close();
  });

  it("brings only the files whose values changed up to date", async () => {
    const store = await openFileStore(dir);
    for (const bot of ["ann", "bob", "cid"]) store.set(`kv:${bot}`, "greeting", "hi");
    store.set("budget.windows", "POST /2/posts|a:app1|15m", [1, 2]);
    store.set("budget.windows", "POST /2/posts|u:42|15m", [1]);
    await store.close();
    expect(await stateFiles()).toEqual([
      "accounts/42.json",
      "apps/app1.json",
      "bots/ann.json",
      "bots/bob.json",
      "bots/cid.json",
    ]);
    const bob = {
      text: await readFile(state("bots", "bob.json"), "utf8"),
      mtime: (await stat(state("bots", "bob.json"))).mtimeMs,
    };

    const again = await openFileStore(dir);
    again.set("kv:ann", "greeting", "hello");
    await again.flush();
    const files = again.filesWritten;
    await again.close();
    expect(again.filesWritten - files).toBe(1); // ann's file alone
    expect(await readFile(state("bots", "bob.json"), "utf8")).toBe(bob.text);
    expect((await stat(state("bots", "bob.json"))).mtimeMs).toBe(bob.mtime);
    expect((await readJson(state("bots", "ann.json"))).namespaces["kv:ann"]![0]!.slice(0, 2)).toEqual([
      "greeting",
      "hello",
    ]);
  });

  it("removes a file once nothing is left in it", async () => {
    const store = await openFileStore(dir);
    store.set("kv:ann", "a", 1);
    await store.close();
    const again = await openFileStore(dir);
    again.delete("kv:ann", "a");
    await again.close();
    expect(await readdir(state("bots"))).toEqual([]);
  });

  it("coalesces a burst of sets in many files into one append, and flush waits for it", async () => {
    const store = await openFileStore(dir);
    for (let i = 0; i < 500; i++) store.set("ledger", `bot${i % 5}:like:${i}`, { state: "done", i });
    await store.flush();
    expect(store.writes).toBe(1);
    expect(linesOf(await readFile(state("journal-1.log"), "utf8"))[0]).toHaveLength(500);
    await store.flush(); // nothing new: no write
    expect(store.writes).toBe(1);
    await store.close();
    expect((await readJson(state("bots", "bot0.json"))).namespaces.ledger).toHaveLength(100);
  });

  it("a flush and the flushes its turn's promise chains ask for a few microtasks later share one append", async () => {
    const store = await openFileStore(dir);
    // A streamed mention's inbox flush, then its handler's reply marking the ledger before sending.
    store.set("inbox:ann", "m1", { id: "m1" });
    const saved = store.flush();
    const marked = (async () => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
      store.set("ledger", "ann:reply:m1", { state: "pending" });
      await store.flush();
    })();
    await Promise.all([saved, marked]);
    expect(store.writes).toBe(1);
    const line = linesOf(await readFile(state("journal-1.log"), "utf8"))[0]!;
    expect(line.map((r) => r[0])).toEqual(["inbox:ann", "ledger"]);
    await store.close();
  });

  it("writes changes nobody flushes a moment later, together, and a flush meanwhile takes them at once", async () => {
    const store = await openFileStore(dir);
    store.set("kv:ann", "a", 1);
    await new Promise((r) => setTimeout(r, 5));
    store.set("kv:ann", "b", 2); // joins the first: one append for both
    for (let i = 0; i < 200 && store.writes === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(store.writes).toBe(1);
    store.set("kv:ann", "c", 3);
    await store.flush(); // does not wait for the autosave
    expect(store.writes).toBe(2);
    crash(store);
    const again = await openFileStore(dir); // as after a crash
    expect([again.get("kv:ann", "a"), again.get("kv:ann", "b"), again.get("kv:ann", "c")]).toEqual([1, 2, 3]);
    await again.close();
  });

  it("a flush resolves only when what was set before it is on disk, even during a write", async () => {
    const store = await openFileStore(dir);
    store.set("a", "1", 1);
    const first = store.flush();
    store.set("a", "2", 2); // set while the first append may be running
    store.set("kv:ann", "x", 3); // in another file
    const second = store.flush();
    await first;
    await second;
    crash(store);
    const again = await openFileStore(dir); // as after a crash
    expect(again.entries("a")).toEqual([
      ["1", 1],
      ["2", 2],
    ]);
    expect(again.get("kv:ann", "x")).toBe(3);
    await again.close();
  });

  it("brings the files up to date as the journal grows, and a crash at any point of it loses nothing", async () => {
    const store = await openFileStore(dir, { checkpointBytes: 200 });
    for (let i = 0; i < 30; i++) {
      store.set(`kv:bot${i % 3}`, "n", i);
      store.set("ledger", `bot${i % 3}:like:${i}`, { state: "done" });
      await store.flush();
    }
    // Written while running, in the background (not awaited by a flush): wait for them to appear.
    const botFiles = async () =>
      (await readdir(state("bots")).catch(() => [])).filter((n) => !n.startsWith(".")).sort();
    for (let i = 0; i < 500 && (await botFiles()).length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await botFiles()).toEqual(["bot0.json", "bot1.json", "bot2.json"]);
    // Crash between a checkpoint's file writes and its journal's removal: the files are new and the old journal is still there.
    const journals = (await readdir(state())).filter((n) => n.startsWith("journal-"));
    // (A journal a background checkpoint removes between the listing and the read was folded into the files.)
    const kept: Array<[string, string]> = [];
    for (const n of journals) {
      const text = await readFile(state(n), "utf8").catch(() => undefined);
      if (text !== undefined) kept.push([n, text]);
    }
    await store.close();
    expect((await readdir(state())).filter((n) => n.startsWith("journal-"))).toEqual([]);
    for (const [n, text] of kept) await writeFile(state(n), text);
    const again = await openFileStore(dir);
    expect([0, 1, 2].map((b) => again.get(`kv:bot${b}`, "n"))).toEqual([27, 28, 29]);
    expect(again.entries("ledger")).toHaveLength(30);
    expect(again.entries("ledger").map(([k]) => k)).toEqual(
      Array.from({ length: 30 }, (_, i) => `bot${i % 3}:like:${i}`),
    );
    await again.close();
  });

  it("ignores a journal's torn last line, and refuses a bad line before others", async () => {
    const store = await openFileStore(dir);
    store.set("kv:ann", "a", 1);
    await store.flush();
    await appendFile(state("journal-1.log"), '[["kv:ann","a",2,0]'); // a crash in the middle of an append
    crash(store);
    const again = await openFileStore(dir);
    expect(again.get("kv:ann", "a")).toBe(1);
    again.set("kv:ann", "b", 2);
    await again.flush(); // to a new journal, not after the torn line
    crash(again);
    const third = await openFileStore(dir);
    expect([third.get("kv:ann", "a"), third.get("kv:ann", "b")]).toEqual([1, 2]);
    await third.close();

    await mkdir(state(), { recursive: true });
    await writeFile(state("journal-7.log"), 'nope\n[["kv:ann","a",3,0]]\n');
    const error = (await openFileStore(dir).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toContain(state("journal-7.log"));
    expect(error.message).toContain("line 1");
  });

  it("keeps values and insertion order (integer-like keys, and a namespace spread over many files) across a reopen", async () => {
    const store = await openFileStore(dir);
    for (const key of ["900", "10", "abc", "2"]) store.set("posts", key, { key });
    store.delete("posts", "abc");
    for (const key of ["bob:like:1", "ann:like:1", "bob:like:2", "cid:like:1", "ann:like:2"])
      store.set("ledger", key, { key });
    store.delete("ledger", "bob:like:1");
    store.set("ledger", "bob:like:1", { key: "again" }); // re-added: now the newest
    await store.close();
    const again = await openFileStore(dir);
    expect(again.entries("posts").map(([k]) => k)).toEqual(["900", "10", "2"]);
    expect(again.get("posts", "10")).toEqual({ key: "10" });
    expect(again.entries("ledger").map(([k]) => k)).toEqual([
      "ann:like:1",
      "bob:like:2",
      "cid:like:1",
      "ann:like:2",
      "bob:like:1",
    ]);
    expect(again.get("ledger", "bob:like:1")).toEqual({ key: "again" });
    await again.close();
  });

  it("stores a clone: mutating an object after set does not change the state", async () => {
    const store = await openFileStore(dir);
    const value = { n: 1 };
    store.set("x", "v", value);
    value.n = 2;
    expect(store.get<{ n: number }>("x", "v")!.n).toBe(1);
    await store.close();
  });

  it("refuses a corrupt file with a message naming the file and the line, and changes nothing", async () => {
    await mkdir(state("bots"), { recursive: true });
    const path = state("bots", "ann.json");
    const bad = '{\n  "version": 2,\n  "namespaces": {\n    "kv:ann": [["a", 1, 0]\n  }\n}\n';
    await writeFile(path, bad);
    const error = await openFileStore(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/line 5/);
    expect(await readFile(path, "utf8")).toBe(bad);
    // The lock was released: the user can fix the file and start again.
    expect(await readdir(dir)).toEqual(["state"]);
  });

  it("refuses a file of the wrong shape, naming the field", async () => {
    await mkdir(state(), { recursive: true });
    await writeFile(state("shared.json"), JSON.stringify({ version: 2, namespaces: { ledger: [[1, 2]] } }));
    await expect(openFileStore(dir)).rejects.toThrow(/shared\.json .*namespaces\.ledger\.0\.0/);
    await writeFile(state("shared.json"), "");
    await expect(openFileStore(dir)).rejects.toThrow(/empty/);
  });

  it("refuses a file written by a newer version", async () => {
    await mkdir(state(), { recursive: true });
    await writeFile(state("shared.json"), JSON.stringify({ version: 99, namespaces: {} }));
    await expect(openFileStore(dir)).rejects.toThrow(/newer postbot/);
  });

  it("sets a corrupt file aside only when asked to, keeping every other file's state", async () => {
    const store = await openFileStore(dir);
    store.set("kv:bob", "k", "kept");
    await store.close();
    await mkdir(state("bots"), { recursive: true });
    await writeFile(state("bots", "ann.json"), "{nope");
    const { lines, logger } = captureLogs();
    const again = await openFileStore(dir, {
      onCorrupt: "set-aside",
      logger,
      now: () => Date.parse("2026-01-02T03:04:05.006Z"),
    });
    expect(again.get("kv:bob", "k")).toBe("kept");
    const aside = "ann.json.corrupt-2026-01-02T03-04-05-006Z";
    expect((await readdir(state("bots"))).sort()).toEqual(["ann.json.corrupt-2026-01-02T03-04-05-006Z", "bob.json"]);
    expect(await readFile(state("bots", aside), "utf8")).toBe("{nope");
    expect(lines.some((l) => String(l.msg).includes(aside))).toBe(true);
    await again.close();
  });

  it("makes a file with a loose mode private on open", async () => {
    const store = await openFileStore(dir);
    store.set("auth:accounts", "greeter", { token: "t" });
    await store.close();
    await chmod(state("credentials.json"), 0o644);
    const again = await openFileStore(dir);
    expect(await modeOf(state("credentials.json"))).toBe(0o600);
    await again.close();
  });

  it("read-only mode reads a live store's files without locking or writing them", async () => {
    const writer = await openFileStore(dir);
    writer.set("cursors", "greeter:mentions", "42");
    await writer.flush();
    const reader = await openFileStore(dir, { readOnly: true });
    expect(reader.get("cursors", "greeter:mentions")).toBe("42");
    reader.set("cursors", "greeter:mentions", "43");
    await reader.flush();
    expect(reader.writes).toBe(0);
    await reader.close();
    writer.set("cursors", "greeter:mentions", "44"); // the writer goes on; a new reader sees it
    await writer.flush();
    const later = await openFileStore(dir, { readOnly: true });
    expect(later.get("cursors", "greeter:mentions")).toBe("44");
    await later.close();
    await writer.close();
  });

  it("read-only with the lock (bot start --dry-run) holds the lock, keeps its changes in memory, and leaves every file as it was", async () => {
    const writer = await openFileStore(dir);
    writer.set("cursors", "greeter:mentions", "42");
    writer.set("auth:accounts", "greeter", { token: "t" });
    await writer.flush();
    await writer.close();
    const snapshot = async () => {
      const files: Record<string, string> = {};
      for (const f of (await readdir(dir, { recursive: true })).map(String).sort())
        if ((await stat(join(dir, f))).isFile())
          files[f] = `${await modeOf(join(dir, f))} ${await readFile(join(dir, f), "base64")}`;
      return files;
    };
    const before = await snapshot();
    const dry = await openFileStore(dir, { readOnly: true, lock: true });
    // It holds the lock meanwhile (state-lock.ts refuses another process): no real start beside it.
    expect(JSON.parse(await readFile(join(dir, "state.lock"), "utf8"))).toMatchObject({ pid: process.pid });
    expect(dry.get("auth:accounts", "greeter")).toEqual({ token: "t" });
    dry.set("cursors", "greeter:mentions", "43");
    dry.delete("auth:accounts", "greeter");
    await dry.flush();
    expect(dry.get("cursors", "greeter:mentions")).toBe("43");
    expect(dry.get("auth:accounts", "greeter")).toBeUndefined();
    await dry.close();
    expect(dry.writes).toBe(0);
    expect(await snapshot()).toEqual(before);
  });

  it("bounds a namespace that declares a retention, across files, keeping entries that may not be evicted", async () => {
    const store = await openFileStore(dir);
    store.retain!("ledger", { maxEntries: 3, evictable: (v) => (v as { state: string }).state === "done" });
    store.set("ledger", "ann:a", { state: "pending" });
    store.set("ledger", "bob:b", { state: "done" });
    store.set("ledger", "cid:c", { state: "done" });
    store.set("ledger", "ann:d", { state: "done" });
    store.set("ledger", "ann:e", { state: "done" });
    expect(store.entries("ledger").map(([k]) => k)).toEqual(["ann:a", "ann:d", "ann:e"]);
    await store.close();
    // The evicted entries left their files too.
    expect((await readdir(state("bots"))).sort()).toEqual(["ann.json"]);
    const again = await openFileStore(dir);
    expect(again.entries("ledger").map(([k]) => k)).toEqual(["ann:a", "ann:d", "ann:e"]);
    await again.close();
  });

  it("puts a value found in the wrong file back where it belongs, keeping the newest of two copies", async () => {
    await mkdir(state("bots"), { recursive: true });
    // As a crash while a value moved could leave it: in shared.json (older) and ann's file (newer).
    await writeFile(
      state("shared.json"),
      JSON.stringify({ version: 2, namespaces: { "kv:ann": [["k", "old", 1]], other: [["x", 1, 0]] } }),
    );
    await writeFile(
      state("bots", "ann.json"),
      JSON.stringify({ version: 2, namespaces: { "kv:ann": [["k", "new", 5]] } }),
    );
    await writeFile(
      state("bots", "bob.json"),
      JSON.stringify({ version: 2, namespaces: { "kv:ann": [["j", "moved", 3]] } }),
    );
    const store = await openFileStore(dir);
    expect(store.entries("kv:ann")).toEqual([
      ["j", "moved"],
      ["k", "new"],
    ]);
    store.set("other", "y", 2);
    await store.close();
    expect((await readJson(state("shared.json"))).namespaces).toEqual({
      other: [
        ["x", 1, 0],
        ["y", 2, 6],
      ],
    });
    expect((await readJson(state("bots", "ann.json"))).namespaces["kv:ann"]!.map(([k, v]) => [k, v])).toEqual([
      ["j", "moved"],
      ["k", "new"],
    ]);
    expect(await readdir(state("bots"))).toEqual(["ann.json"]); // bob's file held nothing of bob's
  });

  it("a failed append keeps the changes and writes them with the next flush", async () => {
    const { logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    await mkdir(state("journal-1.log")); // a directory where the journal must go: the append fails
    store.set("kv:ann", "a", 1);
    store.set("kv:bob", "b", 1);
    await expect(store.flush()).rejects.toThrow(/cannot write the state in .*state/);
    store.set("kv:cid", "c", 1);
    await store.flush(); // to the next journal, with what the failed one held
    await rmdir(state("journal-1.log"));
    crash(store);
    const again = await openFileStore(dir); // as after a crash
    expect([again.get("kv:ann", "a"), again.get("kv:bob", "b"), again.get("kv:cid", "c")]).toEqual([1, 1, 1]);
    await again.close();
  });

  it("a file that cannot be brought up to date leaves the journal in place", async () => {
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    store.set("kv:ann", "a", 1);
    store.set("kv:bob", "b", 1);
    await mkdir(state("bots", "bob.json"), { recursive: true }); // bob's file cannot be renamed into place
    await store.close();
    expect(lines.some((l) => l.level === 50 && String(l.msg).startsWith("cannot bring the files"))).toBe(true);
    await rmdir(state("bots", "bob.json"));
    const again = await openFileStore(dir);
    expect([again.get("kv:ann", "a"), again.get("kv:bob", "b")]).toEqual([1, 1]);
    await again.close();
    expect(await stateFiles()).toEqual(["bots/ann.json", "bots/bob.json"]);
  });

  it("a checkpoint that fails has stopped writing files when close resolves (no temporary file left to copy)", async () => {
    const { logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    store.set("kv:bob", "b", 1); // first in the batch: its failure comes while the others are being written
    for (let i = 0; i < 300; i++) store.set(`kv:b${String(i).padStart(3, "0")}`, "k", i);
    await store.flush();
    await mkdir(state("bots", "bob.json"), { recursive: true }); // bob's file cannot be renamed into place
    await store.close();
    const names = (await readdir(state("bots"))).map(String);
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    await rmdir(state("bots", "bob.json"));
    const again = await openFileStore(dir);
    expect([again.get("kv:bob", "b"), again.get("kv:b299", "k")]).toEqual([1, 299]);
    await again.close();
  });

  it("says which directory it cannot create", async () => {
    const file = join(root, "a-file");
    await writeFile(file, "");
    await expect(openFileStore(join(file, "sub"))).rejects.toThrow(/cannot create the state directory .*a-file\/sub/);
  });
});
