/**
 * Overlapping writes of one file in one process (src/store/atomic-file.ts): they go through
 * the same temporary file, so two at once used to unlink each other's temporary file and
 * rename the wrong one (the first caller's contents lost, or ENOENT).
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/store/atomic-file.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "postbot-atomic-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("two writes of one path started together both resolve, and the later one's contents stay", async () => {
    const file = join(dir, "cid.json");
    await Promise.all([writeFileAtomic(file, "first"), writeFileAtomic(file, "second")]);
    expect(await readFile(file, "utf8")).toBe("second");
    expect(await readdir(dir)).toEqual(["cid.json"]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("many writes of one path at once: every one resolves, the last call wins, no temporary file stays", async () => {
    const file = join(dir, "status.json");
    const other = join(dir, "other.json");
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push(writeFileAtomic(file, `v${i}`, 0o600, { syncDir: i % 2 === 0 }));
      writes.push(writeFileAtomic(other, `o${i}`));
    }
    // the same file named another way is the same file
    writes.push(writeFileAtomic(join(dir, ".", "status.json"), "last"));
    await Promise.all(writes);
    expect(await readFile(file, "utf8")).toBe("last");
    expect(await readFile(other, "utf8")).toBe("o19");
    expect((await readdir(dir)).sort()).toEqual(["other.json", "status.json"]);
  });

  it("a caller's promise resolves only once its contents, or a later call's, are in the file", async () => {
    const file = join(dir, "bob.json");
    const texts = ["a", "b", "c", "d"];
    // What the file holds the moment each caller's promise resolves (read at once, synchronously).
    const seen = await Promise.all(
      texts.map((text) => writeFileAtomic(file, text).then(() => readFileSync(file, "utf8"))),
    );
    seen.forEach((text, i) => expect(texts.indexOf(text)).toBeGreaterThanOrEqual(i));
    expect(await readFile(file, "utf8")).toBe("d");
  });

  it("a failed write does not stop the next one of the same path, and its caller hears of it", async () => {
    const file = join(dir, "ann.json");
    const results = await Promise.allSettled([writeFileAtomic(file, "x", -1), writeFileAtomic(file, "y")]);
    expect(results[0]).toMatchObject({ status: "rejected", reason: { code: "ERR_OUT_OF_RANGE" } });
    expect(results[1]!.status).toBe("fulfilled");
    expect(await readFile(file, "utf8")).toBe("y");
    expect(await readdir(dir)).toEqual(["ann.json"]);
  });

  it("a write that cannot be renamed into place rejects and leaves no temporary file", async () => {
    const file = join(dir, "bob.json");
    await mkdir(file); // a directory where the file must go
    await expect(writeFileAtomic(file, "x")).rejects.toMatchObject({ code: "EISDIR" });
    expect(await readdir(dir)).toEqual(["bob.json"]);
  });

  it("removes a temporary file a crash left, whatever its mode", async () => {
    const file = join(dir, "credentials.json");
    await writeFile(join(dir, ".credentials.json.tmp"), "half", { mode: 0o644 });
    await writeFileAtomic(file, "whole");
    expect(await readFile(file, "utf8")).toBe("whole");
    expect(await readdir(dir)).toEqual(["credentials.json"]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
