/**
 * The files under a directory this process holds open, where the system says (Linux:
 * /proc/self/fd; elsewhere none are found). A test that leaves a FileHandle open leaves it to
 * the garbage collector, which closes it with a warning in whichever test file runs then.
 */
import { readdir, readlink } from "node:fs/promises";

/** The open files (their paths) under `dir`. */
export async function openFilesUnder(dir: string): Promise<string[]> {
  const fds = await readdir("/proc/self/fd").catch(() => []);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => "")));
  return targets.filter((t) => t.startsWith(`${dir}/`));
}
