/** How a file-system error reads in a message: its code first (`EACCES permission denied...`), which is what a user searches for. */
export const describeFsError = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code} ${e.message}` : String((error as Error)?.message ?? error);
};

/** Errors that say the disk (or the user's quota on it) is full. */
const FULL = new Set(["ENOSPC", "EDQUOT"]);

/** Whether a file-system error says the disk (or the quota) is full. */
export const isDiskFull = (error: unknown): boolean => FULL.has((error as NodeJS.ErrnoException)?.code ?? "");

/**
 * What to do about a file-system error: for a full disk (or quota), free space on it; for a
 * read-only file system, mount it writable or choose another directory; else `otherwise`
 * (most often: check the permissions).
 */
export function fsAdvice(error: unknown, otherwise: string): string {
  if (isDiskFull(error)) return "free space on its disk (or raise the quota)";
  if ((error as NodeJS.ErrnoException)?.code === "EROFS")
    return "its file system is read-only: mount it writable or choose another data directory (--data DIR)";
  return otherwise;
}
