/**
 * A disk that fills up, for the state's journal (the file store's `openJournal` seam): the
 * journals' bytes count against a capacity, and past it a write does what a full disk does,
 * as seen on a 2 MB tmpfs: it takes what still fits (`bytesWritten` short of the length, no
 * error) and the next write fails with ENOSPC. A truncation gives the space back. `fill()`
 * leaves `room` bytes (none by default); `free()` takes the limit away. The files are real
 * (Node's, opened as the journal opens them): what a write took is on disk.
 */
import { openJournalFile, type JournalFile, type OpenJournal } from "../../src/store/journal.ts";

export class FillingDisk {
  /** Bytes of the journals written (and not cut off again) since this disk was made. */
  used = 0;
  private capacity = Number.POSITIVE_INFINITY;
  /** Writes refused (ENOSPC) and writes that took only part of what they were given. */
  refused = 0;
  short = 0;

  /** From now on `room` more bytes fit. */
  fill(room = 0): void {
    this.capacity = this.used + room;
  }

  /** Space again, as much as wanted. */
  free(): void {
    this.capacity = Number.POSITIVE_INFINITY;
  }

  /** The seam: journals opened as the store opens them, their writes held to the capacity. */
  readonly open: OpenJournal = async (path) => {
    const file = await openJournalFile(path);
    let size = 0;
    const disk = this;
    const wrapped: JournalFile = {
      async write(buffer, offset, length) {
        const room = disk.capacity - disk.used;
        if (room <= 0) {
          disk.refused++;
          throw Object.assign(new Error(`ENOSPC: no space left on device, write`), {
            code: "ENOSPC",
            errno: -28,
            syscall: "write",
          });
        }
        if (room < length) disk.short++;
        const { bytesWritten } = await file.write(buffer, offset, Math.min(length, room));
        size += bytesWritten;
        disk.used += bytesWritten;
        return { bytesWritten };
      },
      async truncate(length) {
        await file.truncate(length);
        disk.used -= Math.max(0, size - length);
        size = Math.min(size, length);
      },
      datasync: () => file.datasync(),
      close: () => file.close(),
    };
    return wrapped;
  };
}
