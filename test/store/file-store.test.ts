import { mkdtemp, readFile, readdir, rm, stat, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { openFileStore } from "../../src/store/file-store.ts";

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "postbot-store-")), "data");
});
afterEach(async () => {
  await rm(join(dir, ".."), { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe("openFileStore", () => {
  it("creates a private directory and a 0600 file that stays 0600 across atomic rewrites", async () => {
    const store = await openFileStore(dir);
    store.set("credentials", "greeter", { token: "t", token_secret: "s" });
    await store.flush();
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(store.path)).toBe(0o600);
    for (let i = 0; i < 3; i++) {
      store.set("cursors", "greeter", { since_id: String(i) });
      await store.flush();
      expect(await modeOf(store.path)).toBe(0o600);
    }
    // Nothing but the state and the lock is left behind (the temporary file was renamed).
    expect((await readdir(dir)).sort()).toEqual(["state.json", "state.lock"]);
    await store.close();
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("coalesces a burst of sets into one write, and flush waits for it", async () => {
    const store = await openFileStore(dir);
    for (let i = 0; i < 500; i++) store.set("ledger", `k${i}`, { state: "done", i });
    await store.flush();
    expect(store.writes).toBe(1);
    const onDisk = JSON.parse(await readFile(store.path, "utf8"));
    expect(onDisk.namespaces.ledger).toHaveLength(500);
    await store.flush(); // nothing new: no write
    expect(store.writes).toBe(1);
    await store.close();
  });

  it("a flush resolves only when what was set before it is on disk, even during a write", async () => {
    const store = await openFileStore(dir);
    store.set("a", "1", 1);
    const first = store.flush();
    store.set("a", "2", 2); // set while the first write may be running
    const second = store.flush();
    await first;
    await second;
    const onDisk = JSON.parse(await readFile(store.path, "utf8"));
    expect(onDisk.namespaces.a).toEqual([
      ["1", 1],
      ["2", 2],
    ]);
    await store.close();
  });

  it("keeps values and insertion order (integer-like keys included) across a reopen", async () => {
    const store = await openFileStore(dir);
    for (const key of ["900", "10", "abc", "2"]) store.set("posts", key, { key });
    store.delete("posts", "abc");
    await store.close();
    const again = await openFileStore(dir);
    expect(again.entries("posts").map(([k]) => k)).toEqual(["900", "10", "2"]);
    expect(again.get("posts", "10")).toEqual({ key: "10" });
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
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    const path = join(dir, "state.json");
    const bad = '{\n  "version": 1,\n  "namespaces": {\n    "ledger": [["a", 1]\n  }\n}\n';
    await writeFile(path, bad);
    const error = await openFileStore(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/line 5/);
    expect(await readFile(path, "utf8")).toBe(bad);
    // The lock was released: the user can fix the file and start again.
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("refuses a file of the wrong shape, naming the field", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "state.json"), JSON.stringify({ version: 1, namespaces: { ledger: [[1, 2]] } }));
    await expect(openFileStore(dir)).rejects.toThrow(/namespaces\.ledger\.0\.0/);
    await writeFile(join(dir, "state.json"), "");
    await expect(openFileStore(dir)).rejects.toThrow(/empty/);
  });

  it("refuses a file written by a newer version", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "state.json"), JSON.stringify({ version: 99, namespaces: {} }));
    await expect(openFileStore(dir)).rejects.toThrow(/newer postbot/);
  });

  it("sets a corrupt file aside only when asked to", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "state.json"), "{nope");
    const store = await openFileStore(dir, { onCorrupt: "set-aside", now: () => Date.parse("2026-01-02T03:04:05.006Z") });
    expect(store.entries("ledger")).toEqual([]);
    const names = await readdir(dir);
    expect(names).toContain("state.json.corrupt-2026-01-02T03-04-05-006Z");
    expect(await readFile(join(dir, "state.json.corrupt-2026-01-02T03-04-05-006Z"), "utf8")).toBe("{nope");
    await store.close();
  });

  it("makes a file with a loose mode private on open", async () => {
    const store = await openFileStore(dir);
    store.set("a", "b", 1);
    await store.close();
    await chmod(join(dir, "state.json"), 0o644);
    const again = await openFileStore(dir);
    expect(await modeOf(join(dir, "state.json"))).toBe(0o600);
    await again.close();
  });

  it("refuses a directory held by another live process and takes over a dead one's lock", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "state.lock"), String(process.ppid)); // alive: the test runner
    await expect(openFileStore(dir)).rejects.toThrow(new RegExp(`pid ${process.ppid}`));
    await writeFile(join(dir, "state.lock"), "2147483646"); // no such process
    const store = await openFileStore(dir);
    expect((await readFile(join(dir, "state.lock"), "utf8")).trim()).toBe(String(process.pid));
    await store.close();
  });

  it("read-only mode reads a live store's file without locking or writing it", async () => {
    const writer = await openFileStore(dir);
    writer.set("cursors", "greeter", "42");
    await writer.flush();
    const reader = await openFileStore(dir, { readOnly: true });
    expect(reader.get("cursors", "greeter")).toBe("42");
    reader.set("cursors", "greeter", "43");
    await reader.flush();
    expect(reader.writes).toBe(0);
    await reader.close();
    await writer.close();
    const again = await openFileStore(dir);
    expect(again.get("cursors", "greeter")).toBe("42");
    await again.close();
  });

  it("bounds a namespace that declares a retention, keeping entries that may not be evicted", async () => {
    const store = await openFileStore(dir);
    store.retain!("ledger", { maxEntries: 3, evictable: (v) => (v as { state: string }).state === "done" });
    store.set("ledger", "a", { state: "pending" });
    store.set("ledger", "b", { state: "done" });
    store.set("ledger", "c", { state: "done" });
    store.set("ledger", "d", { state: "done" });
    store.set("ledger", "e", { state: "done" });
    expect(store.entries("ledger").map(([k]) => k)).toEqual(["a", "d", "e"]);
    await store.close();
  });

  it("says which directory it cannot create", async () => {
    const file = join(dir, "..", "a-file");
    await writeFile(file, "");
    await expect(openFileStore(join(file, "sub"))).rejects.toThrow(/cannot create the state directory .*a-file\/sub/);
  });
});
