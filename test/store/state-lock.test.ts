/**
 * The state lock never locks a user out: a lock whose pid is gone, is a zombie, or belongs
 * to another program (pid reuse: its start time differs) is taken over with a log line; a
 * live holder is refused with a message that says how to recover.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { openFileStore } from "../../src/store/file-store.ts";
import { processInfo } from "../../src/store/process-info.ts";
import { acquireLock } from "../../src/store/state-lock.ts";
import { watchChild } from "../helpers/child-output.ts";
import { captureLogs } from "../helpers/log.ts";
import { openFilesUnder } from "../helpers/open-files.ts";

let root: string;
let dir: string;
let lock: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "postbot-lock-"));
  dir = join(root, "data");
  lock = join(dir, "state.lock");
  await mkdir(dir, { recursive: true });
});
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  // Nothing of the test's directory left open (test/helpers/open-files.ts).
  const held = await openFilesUnder(root);
  await rm(root, { recursive: true, force: true });
  expect(held).toEqual([]);
});

/** A process that is not postbot, and the first line it prints. */
async function spawnOther(script: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
  children.push(child);
  const watched = watchChild(child, "sh");
  const lines = createInterface({ input: child.stdout! });
  const line = await watched.before("its first line", new Promise<string>((resolve) => lines.once("line", resolve)));
  return { child, line };
}

const holderOf = async () => JSON.parse(await readFile(lock, "utf8")) as { pid: number; start?: string };
const onLinux = process.platform === "linux";

describe("the state lock", () => {
  it("records this process's pid and start time, and removes the lock on close", async () => {
    const store = await openFileStore(dir);
    const holder = await holderOf();
    expect(holder.pid).toBe(process.pid);
    if (onLinux) expect(holder.start).toBe(processInfo(process.pid)!.start);
    await store.close();
    await expect(readFile(lock)).rejects.toThrow(/ENOENT/);
  });

  it("refuses a live holder with a message naming it, how to stop it and which file to remove", async () => {
    const { child } = await spawnOther("echo up; exec sleep 30");
    const start = processInfo(child.pid!)?.start;
    await writeFile(lock, JSON.stringify({ pid: child.pid, start, at: "2026-01-02T03:04:05.000Z" }));
    const error = (await openFileStore(dir).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toContain(`pid ${child.pid}`);
    if (onLinux) expect(error.message).toMatch(/\(.*sleep 30.*\)/); // its command line (sh's until it has exec'd)
    expect(error.message).toContain(`kill ${child.pid}`);
    expect(error.message).toContain(`remove ${lock}`);
    expect(error.message).toContain("--data DIR");
    expect((await holderOf()).pid).toBe(child.pid); // left alone
  });

  it("refuses a live holder named by an older postbot's lock (the pid alone)", async () => {
    const { child } = await spawnOther("echo up; exec sleep 30");
    await writeFile(lock, String(child.pid));
    await expect(openFileStore(dir)).rejects.toThrow(new RegExp(`pid ${child.pid}`));
  });

  it("takes over the lock of a process that is gone", async () => {
    const { lines, logger } = captureLogs();
    await writeFile(lock, JSON.stringify({ pid: 2147483646, start: "1" }));
    const store = await openFileStore(dir, { logger });
    expect((await holderOf()).pid).toBe(process.pid);
    expect(lines.find((l) => String(l.msg).startsWith("took over the stale lock"))?.reason).toMatch(/is gone/);
    await store.close();
  });

  it.runIf(onLinux)("takes over a lock whose pid now belongs to another program (its start time differs)", async () => {
    const { child } = await spawnOther("echo up; exec sleep 30");
    const start = processInfo(child.pid!)!.start!;
    // As after a container restart: the lock names a pid that some other program has now.
    await writeFile(lock, JSON.stringify({ pid: child.pid, start: String(Number(start) - 1) }));
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    expect((await holderOf()).pid).toBe(process.pid);
    const line = lines.find((l) => String(l.msg).startsWith("took over the stale lock"));
    expect(line?.level).toBe(40);
    expect(line?.reason).toMatch(new RegExp(`pid ${child.pid} now belongs to another program \\(.*sleep 30.*\\)`));
    expect(child.exitCode).toBeNull(); // the other program is left alone
    await store.close();
  });

  it.runIf(onLinux)("takes over a lock held by a zombie", async () => {
    // The child exits a second later, when its parent has become `sleep 30`, which never
    // reaps it. (A child exiting before the exec could be reaped by the shell itself, and
    // under load it did: the pid was gone.)
    const { line } = await spawnOther("sleep 1 & echo $!; exec sleep 30");
    const zombie = Number(line);
    for (let i = 0; i < 1000 && processInfo(zombie)?.zombie === false; i++) await new Promise((r) => setTimeout(r, 10));
    const info = processInfo(zombie);
    expect(info, `pid ${zombie} should be a zombie, but it is gone (reaped)`).toBeDefined();
    expect(info!.zombie).toBe(true);
    await writeFile(lock, JSON.stringify({ pid: zombie, start: info!.start }));
    const { lines, logger } = captureLogs();
    const store = await openFileStore(dir, { logger });
    expect((await holderOf()).pid).toBe(process.pid);
    expect(lines.find((l) => String(l.msg).startsWith("took over the stale lock"))?.reason).toMatch(/zombie/);
    await store.close();
  });

  it("two takes of one lock at once in this process both succeed and leave no temporary file", async () => {
    const { logger } = captureLogs();
    const taken = await Promise.allSettled([acquireLock(lock, logger), acquireLock(lock, logger)]);
    expect(taken.map((t) => t.status)).toEqual(["fulfilled", "fulfilled"]);
    expect((await holderOf()).pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual(["state.lock"]);
  });

  it("lets this process reopen its own directory (a test simulating a crash does)", async () => {
    const first = await openFileStore(dir);
    first.set("kv:ann", "a", 1);
    await first.flush();
    const second = await openFileStore(dir);
    expect(second.get("kv:ann", "a")).toBe(1);
    await second.close();
    await first.close(); // the crashed one's journal, closed as a crash's is
  });
});
