/**
 * A real small disk for processes: a tmpfs of a few megabytes, mounted in a mount namespace
 * of its own (`unshare --map-root-user --mount`, which needs no root where unprivileged user
 * namespaces are on, as on Debian, and works as root too), so it needs no cleanup outside:
 * it goes away with its holder process, whatever happens to the test. `bot` processes run on
 * it through {@link SmallDisk.wrap} (`nsenter` into the namespace); this process reaches its
 * files through the holder's root (`/proc/PID/root/...`), to fill it up and free it again.
 *
 * It fills as a real disk does: a write that crosses into a page the disk no longer has takes
 * what fits and the next one fails (ENOSPC), which the injected disk of ./filling-disk.ts
 * only imitates.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, open, rm, rmdir, stat, truncate, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  /** Where it is mounted, as the processes on it see it (the same path as an empty directory outside). */
  readonly dir: string;
  /** A path on it, as this process reaches it. */
  outside(path: string): string;
  /** The command prefix that runs a program on it (SpawnOptions.wrap of ./cli.ts). */
  readonly wrap: readonly string[];
  /** Fills it up but for `room` bytes (a file of zeros, the filler). */
  fill(room?: number): Promise<void>;
  /** Frees what {@link fill} took. */
  free(): Promise<void>;
  /** Unmounts it (its holder ends): everything on it is gone. */
  close(): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Mounts a tmpfs of `kb` KB in a namespace of its own; see the module comment. */
export async function smallDisk(kb: number): Promise<SmallDisk> {
  const dir = await mkdtemp(join(tmpdir(), "postbot-disk-"));
  const holder = spawn(
    "unshare",
    [
      "--map-root-user",
      "--mount",
      "sh",
      "-c",
      `mount -t tmpfs -o size=${kb}k,mode=0700 tmpfs "$0" && echo mounted && exec sleep 100000`,
      dir,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  live.add(holder);
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  void exited.then(() => live.delete(holder));
  let said = "";
  holder.stderr!.on("data", (d: Buffer) => (said += d.toString()));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on("data", (d: Buffer) => (d.toString().includes("mounted") ? resolve() : undefined));
    holder.once("error", reject);
    void exited.then(() =>
      reject(new Error(`could not mount a ${kb} KB tmpfs in a namespace of its own (unshare): ${said.trim()}`)),
    );
  });
  const pid = holder.pid!;
  const outside = (path: string) => join(`/proc/${pid}/root`, path);
  const filler = outside(join(dir, ".filler"));
  return {
    dir,
    outside,
    wrap: ["nsenter", `--target=${pid}`, "--user", "--mount", "--preserve-credentials", "--"],
    async fill(room = 0) {
      const file = await open(filler, "a");
      const zeros = Buffer.alloc(64 * 1024);
      try {
        for (;;) await file.write(zeros);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      } finally {
        await file.close();
      }
      if (room > 0) await truncate(filler, Math.max(0, (await stat(filler)).size - room));
    },
    async free() {
      await unlink(filler).catch(() => undefined);
    },
    async close() {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill("SIGKILL");
      await exited;
      await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }));
    },
  };
}

/** Unmounts every small disk still mounted (their holders killed). */
export async function closeSmallDisks(): Promise<void> {
  await Promise.all(
    [...live].map(
      (holder) =>
        new Promise<void>((resolve) => {
          if (holder.exitCode !== null || holder.signalCode !== null) return resolve();
          holder.once("exit", () => resolve());
          holder.kill("SIGKILL");
        }),
    ),
  );
}
