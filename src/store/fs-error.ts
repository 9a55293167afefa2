/** How a file-system error reads in a message: its code first (`EACCES permission denied...`), which is what a user searches for. */
export const describeFsError = (error: unknown): string => {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code} ${e.message}` : String((error as Error)?.message ?? error);
};
