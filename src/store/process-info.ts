/**
 * What the lock needs to know about a process: whether it runs, and whether it is still
 * the process that took the lock. A pid alone cannot say: after a container restart the
 * same small pid belongs to another program, and a dead process whose parent never reaped
 * it (a zombie) still answers `kill(pid, 0)`. On Linux, `/proc/<pid>/stat` has the state
 * (field 3) and the start time (field 22, clock ticks since boot), which together tell.
 * Elsewhere only "is there a process with this pid" is known.
 */
import { readFileSync } from "node:fs";

/** A process as seen now. */
export interface ProcessInfo {
  /** The start time in clock ticks since boot (Linux), compared to tell a reused pid. */
  start?: string;
  /** Dead but not reaped: it holds nothing. */
  zombie: boolean;
  /** Its command line, to name it in a message (Linux). */
  command?: string;
}

/** `undefined` when no process has this pid (or, without /proc, none that we can signal). */
export function processInfo(pid: number): ProcessInfo | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return hasProcFs() ? undefined : signalled(pid);
  }
  // The command name (field 2) is in parentheses and may hold spaces and ")": split after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const info: ProcessInfo = { zombie: fields[0] === "Z" || fields[0] === "X" };
  if (fields[19]) info.start = fields[19];
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
    if (command) info.command = command.length > 200 ? `${command.slice(0, 200)}…` : command;
  } catch {
    // Gone between the two reads, or hidden: the name is only for the message.
  }
  return info;
}

let procFs: boolean | undefined;
const hasProcFs = (): boolean =>
  (procFs ??= (() => {
    try {
      readFileSync("/proc/self/stat");
      return true;
    } catch {
      return false;
    }
  })());

function signalled(pid: number): ProcessInfo | undefined {
  try {
    process.kill(pid, 0);
    return { zombie: false };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? { zombie: false } : undefined;
  }
}

/** The running process's own start time (recorded in the lock), when the system tells it. */
export const ownStart = (): string | undefined => processInfo(process.pid)?.start;
