/**
 * One writer per state directory: `state.lock` names the process that holds it, so a second
 * `bot start` on the same directory (which would overwrite the first one's ledger and send
 * every action twice) is refused.
 *
 * A lock must never lock its user out. It records the holder's pid *and* start time, so a
 * lock is stale, and taken over with a log line, when its process is gone (kill -9), is a
 * zombie, or is another program that got the same pid (a container restart hands out the
 * same small pids again). When it is refused, the message names the holder, how to stop it,
 * and which file to remove when the user knows better.
 */
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UserError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { describeFsError, fsAdvice } from "./fs-error.ts";
import { ownStart, processInfo } from "./process-info.ts";

/** The lock file's name in the data directory. */
export const LOCK_FILE_NAME = "state.lock";

/** What the lock file holds (older postbots wrote the pid alone). */
interface Holder {
  pid: number;
  /** Start time in clock ticks since boot (Linux): tells a reused pid from the holder. */
  start?: string;
  /** When it took the lock (ISO). */
  at?: string;
}

/** A lock taken by {@link acquireLock}. */
export interface StateLock {
  release(): Promise<void>;
}

function parseHolder(text: string): Holder | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) };
  try {
    const json = JSON.parse(trimmed) as Partial<Holder>;
    if (typeof json.pid !== "number" || !Number.isInteger(json.pid)) return undefined;
    return {
      pid: json.pid,
      ...(typeof json.start === "string" ? { start: json.start } : {}),
      ...(typeof json.at === "string" ? { at: json.at } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Why a holder no longer holds anything, or undefined when it is alive (and not us). */
function staleness(holder: Holder, me: Holder): string | undefined {
  // Our own pid: either this process reopening its directory, or a holder that is long gone.
  if (holder.pid === me.pid)
    return holder.start === me.start
      ? "this process reopened it"
      : `its process (pid ${holder.pid}) is gone: this process has that pid now`;
  const info = processInfo(holder.pid);
  if (!info) return `its process (pid ${holder.pid}) is gone`;
  if (info.zombie) return `its process (pid ${holder.pid}) has exited (a zombie)`;
  if (holder.start !== undefined && info.start !== undefined && holder.start !== info.start) {
    return `pid ${holder.pid} now belongs to another program${info.command ? ` (${info.command})` : ""}, started after the lock was taken`;
  }
  return undefined;
}

/** Takes of a lock by this process so far: each one's temporary file has a name of its own. */
let takes = 0;

/**
 * Takes `lockPath` for this process, taking over a stale lock (logged) and refusing a live
 * holder with a message that says how to recover.
 *
 * @throws {UserError} when another live process holds the lock, or the file cannot be made.
 */
export async function acquireLock(lockPath: string, log: Logger, now: () => number = Date.now): Promise<StateLock> {
  const start = ownStart();
  const me: Holder = { pid: process.pid, ...(start !== undefined ? { start } : {}), at: new Date(now()).toISOString() };
  const text = `${JSON.stringify(me)}\n`;
  // Written in full under a name of its own (this call's: two takes at once in one process
  // must not write, link and remove the same one), then linked into place: link fails when
  // the lock exists, and nobody ever reads a half-written lock.
  const temp = `${lockPath}.${process.pid}.${++takes}.tmp`;
  await writeFile(temp, text, { mode: 0o600 }).catch((error: unknown) => {
    throw new UserError(
      `cannot create the lock file ${lockPath}: ${describeFsError(error)}; ${fsAdvice(error, "check the data directory's permissions")}`,
      { cause: error },
    );
  });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await link(temp, lockPath);
        return lockHandle(lockPath, me);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new UserError(
            `cannot create the lock file ${lockPath}: ${describeFsError(error)}; ${fsAdvice(error, "check the data directory's permissions")}`,
            { cause: error },
          );
        }
      }
      const found = await readFile(lockPath, "utf8").catch(() => undefined);
      if (found === undefined) continue; // released meanwhile
      const holder = parseHolder(found);
      const why = holder ? staleness(holder, me) : "it does not name a process";
      if (why === undefined) throw refusal(lockPath, holder!);
      log.warn({ lock: lockPath, holder: found.trim(), reason: why }, `took over the stale lock ${lockPath}: ${why}`);
      await unlink(lockPath).catch(() => undefined);
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  throw new UserError(
    `cannot take the lock ${lockPath}: it keeps reappearing; is another postbot starting at the same time?`,
  );
}

function refusal(lockPath: string, holder: Holder): UserError {
  const dir = dirname(lockPath);
  const info = processInfo(holder.pid);
  const who = `pid ${holder.pid}${info?.command ? ` (${info.command})` : ""}${holder.at ? `, which took it at ${holder.at}` : ""}`;
  return new UserError(
    `the state in ${dir} is in use by another process: ${who}. ` +
      `Stop that process (Ctrl-C where it runs, or kill ${holder.pid}) and try again, or give this one another data directory (--data DIR). ` +
      `If you are sure no postbot uses ${dir} (pid ${holder.pid} is some other program), remove ${lockPath} and try again.`,
  );
}

function lockHandle(lockPath: string, me: Holder): StateLock {
  return {
    async release() {
      const holder = parseHolder(await readFile(lockPath, "utf8").catch(() => ""));
      if (holder?.pid === me.pid && holder.start === me.start) await unlink(lockPath).catch(() => undefined);
    },
  };
}
